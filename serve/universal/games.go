package universal

import (
	"fmt"
	"strconv"
	"strings"
)

// tictactoeCodec is tic-tac-toe as GamesmanClassic's mttt (UWAPI game
// "tictactoe", variant "regular", its option 3): the position "1_" or "2_"
// then the 9 cells row by row from the top left, 'x', 'o' or '-', the same
// string as the AutoGUI position; a move is the cell numbered 1 to 9
// ("5"), its AutoGUI move "A_x_4_-" (the mover's mark, the cell from 0).
// GamesmanClassic lists the moves from the last cell to the first.
type tictactoeCodec struct{}

func (tictactoeCodec) toText(p string) (string, error) {
	turn, board, err := turnPrefix(p)
	if err != nil {
		return "", err
	}
	if err := checkAlphabet(board, 9, "xo-"); err != nil {
		return "", err
	}
	if turnOf(board, 'x', 'o') != turn {
		return "", fmt.Errorf("%w: %c_ is not to move on this board", errShape, p[0])
	}
	return rows(board, 3, func(c byte) byte { return c }), nil
}

func (tictactoeCodec) fromText(text string) (string, string, error) {
	board, err := unrows(text, 3, 3, func(c byte) (byte, bool) { return c, c == 'x' || c == 'o' || c == '-' })
	if err != nil {
		return "", "", err
	}
	p := strconv.Itoa(turnOf(board, 'x', 'o')+1) + "_" + board
	return p, p, nil
}

func (tictactoeCodec) moves(text string, names []string) ([]uwapiMove, error) {
	mark := "xo"[strings.Count(text, "x")-strings.Count(text, "o")]
	out := make([]uwapiMove, len(names))
	for i, n := range names {
		c, err := cellOf(n, 3, 3)
		if err != nil {
			return nil, err
		}
		out[i] = uwapiMove{move: strconv.Itoa(c + 1), autogui: fmt.Sprintf("A_%c_%d_-", mark, c), order: 8 - c}
	}
	return out, nil
}

// connect4Codec is Connect Four as GamesmanClassic's mconnect4 (UWAPI game
// "connect4", variants "6x6" and "6x7": rows x columns): the position "1_"
// or "2_" then the cells column by column from the left, each column from
// the top, 'X' (the first player), 'O' or '-', the same string as the
// AutoGUI position; a move is the column numbered from 1 ("4"), its
// AutoGUI move an arrow "M_A_B_x" between two centers above the column
// (A = rows*cols + column from 0, B = A + cols). Moves are listed from the
// left column.
type connect4Codec struct{ w, h int }

func (c connect4Codec) toText(p string) (string, error) {
	turn, board, err := turnPrefix(p)
	if err != nil {
		return "", err
	}
	if err := checkAlphabet(board, c.w*c.h, "XO-"); err != nil {
		return "", err
	}
	if turnOf(board, 'X', 'O') != turn {
		return "", fmt.Errorf("%w: %c_ is not to move on this board", errShape, p[0])
	}
	var b strings.Builder
	for r := 0; r < c.h; r++ {
		if r > 0 {
			b.WriteByte('/')
		}
		for col := 0; col < c.w; col++ {
			b.WriteByte(lowerCell(board[col*c.h+r]))
		}
	}
	return b.String(), nil
}

func (c connect4Codec) fromText(text string) (string, string, error) {
	rowMajor, err := unrows(text, c.w, c.h, upperCell)
	if err != nil {
		return "", "", err
	}
	board := make([]byte, c.w*c.h)
	for r := 0; r < c.h; r++ {
		for col := 0; col < c.w; col++ {
			board[col*c.h+r] = rowMajor[r*c.w+col]
		}
	}
	p := strconv.Itoa(turnOf(rowMajor, 'X', 'O')+1) + "_" + string(board)
	return p, p, nil
}

func (c connect4Codec) moves(text string, names []string) ([]uwapiMove, error) {
	out := make([]uwapiMove, len(names))
	for i, n := range names {
		col, err := strconv.Atoi(n)
		if err != nil || col < 1 || col > c.w {
			return nil, fmt.Errorf("%w: column %q", errShape, n)
		}
		a := c.w*c.h + col - 1
		out[i] = uwapiMove{move: n, autogui: fmt.Sprintf("M_%d_%d_x", a, a+c.w), order: col}
	}
	return out, nil
}

// quixoCodec is Quixo as GamesmanOne's quixo (UWAPI game "quixo",
// variants "5x5", "4x4", "3x3"): the position "1_" (X to move) or "2_"
// then the cells row by row from the top left, 'X', 'O' or '-'; the
// AutoGUI position writes 'B' for '-'. A move is the cell the cube is
// taken from, numbered from 1, and the end of its line it is pushed in
// at ("6 R": right, L left, D bottom, U top); its AutoGUI move an arrow
// "M_S_T_x" from the cell S (from 0) to T = S + k*cells, k 1 to 4 for R,
// L, D, U. GamesmanOne lists moves by the rank of their cell among those
// that can push that way, then R, L, D, U.
type quixoCodec struct{ n int }

func (q quixoCodec) toText(p string) (string, error) {
	turn, board, err := turnPrefix(p)
	if err != nil {
		return "", err
	}
	if err := checkAlphabet(board, q.n*q.n, "XO-"); err != nil {
		return "", err
	}
	return "xo"[turn:turn+1] + ":" + rows(board, q.n, lowerCell), nil
}

func (q quixoCodec) fromText(text string) (string, string, error) {
	side, rest, ok := strings.Cut(text, ":")
	if !ok || (side != "x" && side != "o") {
		return "", "", fmt.Errorf("%w: want x:ROWS or o:ROWS", errShape)
	}
	board, err := unrows(rest, q.n, q.n, upperCell)
	if err != nil {
		return "", "", err
	}
	turn := "1_"
	if side == "o" {
		turn = "2_"
	}
	return turn + board, turn + strings.ReplaceAll(board, "-", "B"), nil
}

// quixoDirs are GamesmanOne's push directions in its order, named by the
// end the cube goes to.
const quixoDirs = "RLDU"

// dir returns the direction of a push from cell src to cell dst.
func (q quixoCodec) dir(src, dst int) (int, bool) {
	sr, sc, dr, dc := src/q.n, src%q.n, dst/q.n, dst%q.n
	switch {
	case sr == dr && dc == q.n-1 && sc != dc:
		return 0, true
	case sr == dr && dc == 0 && sc != dc:
		return 1, true
	case sc == dc && dr == q.n-1 && sr != dr:
		return 2, true
	case sc == dc && dr == 0 && sr != dr:
		return 3, true
	}
	return 0, false
}

// rank returns the rank of src among the border cells that can push in
// direction d, in cell order.
func (q quixoCodec) rank(src, d int) int {
	k := 0
	for c := 0; c < src; c++ {
		r, col := c/q.n, c%q.n
		border := r == 0 || r == q.n-1 || col == 0 || col == q.n-1
		blocked := (d == 0 && col == q.n-1) || (d == 1 && col == 0) || (d == 2 && r == q.n-1) || (d == 3 && r == 0)
		if border && !blocked {
			k++
		}
	}
	return k
}

func (q quixoCodec) moves(text string, names []string) ([]uwapiMove, error) {
	out := make([]uwapiMove, len(names))
	for i, n := range names {
		a, b, ok := strings.Cut(n, "-")
		if !ok {
			return nil, fmt.Errorf("%w: move %q", errShape, n)
		}
		src, err1 := cellOf(a, q.n, q.n)
		dst, err2 := cellOf(b, q.n, q.n)
		d, ok := q.dir(src, dst)
		if err1 != nil || err2 != nil || !ok {
			return nil, fmt.Errorf("%w: move %q", errShape, n)
		}
		out[i] = uwapiMove{
			move:    fmt.Sprintf("%d %c", src+1, quixoDirs[d]),
			autogui: fmt.Sprintf("M_%d_%d_x", src, src+(1+d)*q.n*q.n),
			order:   q.rank(src, d)*4 + d,
		}
	}
	return out, nil
}

// teekoCodec is Teeko as GamesmanOne's teeko (UWAPI game "teeko", variant
// "standard"): the position "1_" (X to move) or "2_" then the 25 points
// row by row from the top left, 'X', 'O' or '-', the same string as the
// AutoGUI position. A drop is its point numbered from 0 ("12"), AutoGUI
// "A_-_12_y"; a move its two points ("12 18"), AutoGUI "M_12_18_x".
// GamesmanOne lists drops by point, moves by point from, then point to.
type teekoCodec struct{}

func (teekoCodec) toText(p string) (string, error) {
	return quixoCodec{n: 5}.toText(p)
}

func (teekoCodec) fromText(text string) (string, string, error) {
	p, _, err := quixoCodec{n: 5}.fromText(text)
	return p, p, err
}

func (teekoCodec) moves(text string, names []string) ([]uwapiMove, error) {
	out := make([]uwapiMove, len(names))
	for i, n := range names {
		a, b, isMove := strings.Cut(n, "-")
		src, err := cellOf(a, 5, 5)
		if err != nil {
			return nil, err
		}
		if !isMove {
			out[i] = uwapiMove{move: strconv.Itoa(src), autogui: fmt.Sprintf("A_-_%d_y", src), order: src}
			continue
		}
		dst, err := cellOf(b, 5, 5)
		if err != nil {
			return nil, err
		}
		out[i] = uwapiMove{move: fmt.Sprintf("%d %d", src, dst), autogui: fmt.Sprintf("M_%d_%d_x", src, dst), order: 25 + src*25 + dst}
	}
	return out, nil
}

// lowerCell maps a UWAPI cell of the two-player boards, 'X', 'O' or '-',
// to the game text's 'x', 'o' or '.' (callers check the alphabet first).
func lowerCell(c byte) byte {
	switch c {
	case 'X':
		return 'x'
	case 'O':
		return 'o'
	case '-':
		return '.'
	}
	return 0
}

// upperCell is lowerCell's inverse, for unrows: it reports false for a
// byte that is no cell.
func upperCell(b byte) (byte, bool) {
	switch b {
	case 'x':
		return 'X', true
	case 'o':
		return 'O', true
	case '.':
		return '-', true
	}
	return 0, false
}
