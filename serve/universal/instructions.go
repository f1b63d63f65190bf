package universal

// The instructions of each game, in markdown. They are this project's own
// words, and say how our databases score the game where it matters.

const tictactoeRules = `# Tic-Tac-Toe

## Board
Three rows of three cells, empty at the start.

## Rules
**To move:** put your mark (X moves first, then O) in an empty cell.

**To win:** be the first with three of your marks in a row, a column or a diagonal. A full board without such a line is a tie.

## Values
Every position shown here is read from a database that solved the whole game: with best play from the start, it is a tie.
`

const connect4Rules = `# Connect 4

## Board
A vertical grid of columns; a piece dropped into a column falls to the lowest empty cell.

## Rules
**To move:** drop one of your pieces (X first, then O) into a column that is not full.

**To win:** be the first with four of your pieces in a line: across, up and down, or along a diagonal. A full board without one is a tie.

## Values
The variant's name is its size in rows x columns; each is read from a solved database of that board.
`

const quixoRules = `# Quixo

## Board
A square of cubes, blank at the start, each marked with X, O or nothing.

## Rules
**To move:** take a cube from the border that is blank or shows your symbol (X moves first), mark it with your symbol and push it back in at an end of its row or column other than the place it left: the cubes in between slide one step.

**To win:** have a whole row, column or diagonal of your symbol. If your move makes lines for both sides, you lose.

## Values
Play can go on for ever; a position from which neither side can force a win is a draw.
`

const teekoRules = `# Teeko

## Board
A 5x5 grid of points; each side has four pieces.

## Rules
**To move:** while pieces are left to place, put one on any empty point (X first, then O). Once all eight are down, move one of yours to an empty neighbouring point, along a line or a diagonal.

**To win:** make four of your pieces in a line (across, down or diagonal) or on the corners of a 2x2 square.

## Values
This is the standard game as GamesmanOne solves it; play that never ends is a draw.
`

const dshogiRules = `# Dōbutsu shōgi

## Board
Three columns and four rows. The forest (upper case) starts at the bottom and moves first; the sky starts at the top.

## Pieces
The lion steps one square any way; the giraffe steps straight; the elephant steps diagonally; the chick steps forward and, on the far row, becomes a hen, which steps any way but diagonally back.

## Rules
**To move:** move a piece to an empty square or onto an enemy piece, which you capture into your hand (a hen as a chick), or drop a piece from your hand on an empty square.

**To win:** capture the enemy lion, or bring your lion to the far row where it cannot be taken at once.

## Values
Scored as GamesmanOne scores it: a lion on its far row is judged at once, and play that never ends is a draw.
`

const xiangqiRules = `# Chinese Chess (endgames)

## Board
Nine files and ten ranks; red at the bottom moves first. Each variant here is an endgame named by its material, red's pieces, v, black's (K general, A advisor, B elephant, N horse, R chariot, C cannon, P soldier), with every position its captures lead to.

## Rules
**To move:** move a piece by its rules; generals may not face each other on an open file, and no move may leave your general in check.

**To win:** leave the other side without a legal move, checkmated or stalemated.

## Values
Remoteness counts plies to mate under best play. The rules against perpetual check and chase are not applied: play that never ends is a draw.
`
