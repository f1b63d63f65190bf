// Package egf reads and writes EGF, the extended binary game format of the
// xiangqi program Xie Xie, as described by Sebastian Pipping (2014).
//
// A file holds a header of tagged strings, the starting position (as a
// 16-wide board array and as a list of where each of the 32 pieces
// stands), the side to move first, the moves, and comments. The string
// encoding is not documented, so header fields and comments are kept as
// raw bytes in Go strings. Bytes whose meaning is unknown are kept in
// [Game.Unknown], so that reading a file and writing it back gives the
// same bytes.
//
// Assumptions beyond the description (no sample file is public): the board
// array holds piece codes, and it must agree with the piece list; the
// side to move, the move counts and the piece locations are little-endian
// int32 fields; the stored position is the one before the first move; red
// starts on ranks 1..5. Every move is replayed on read: it must move a
// piece of the side to move by that piece's movement rules (leaving one's
// own king in check is not tested), and the stored captured-piece code
// must be what stands on the target point.
package egf

import (
	"errors"
	"fmt"
	"io"
)

// MaxFileSize bounds what Decode reads: a game of 100,000 moves with
// maximal header and comments stays well below it.
const MaxFileSize = 16 << 20

// Errors callers may test with errors.Is.
var (
	ErrMagic     = errors.New("not an EGF file (bad magic)")
	ErrTruncated = errors.New("truncated file")
	ErrCorrupt   = errors.New("corrupt file")
	ErrTooLarge  = errors.New("file too large")
	ErrIllegal   = errors.New("illegal move")
	ErrInvalid   = errors.New("game cannot be encoded")
)

// magic opens every EGF file.
var magic = [2]byte{7, 13}

// Result is the game result of tag 10.
type Result uint8

// Results as stored in the file.
const (
	Unfinished Result = 0
	RedWins    Result = 1
	BlackWins  Result = 2
	Draw       Result = 3
)

// String returns the PGN-style result: "*", "1-0", "0-1" or "1/2-1/2".
func (r Result) String() string {
	switch r {
	case Unfinished:
		return "*"
	case RedWins:
		return "1-0"
	case BlackWins:
		return "0-1"
	case Draw:
		return "1/2-1/2"
	}
	return fmt.Sprintf("result(%d)", uint8(r))
}

// Header holds the tagged fields that open a file, as raw bytes.
// Tags 1..8 hold at most 255 bytes, tags 11..13 at most 65535.
type Header struct {
	Event       string // tag 1
	Site        string // tag 2
	Date        string // tag 3
	Round       string // tag 4
	RedName     string // tag 5
	RedElo      string // tag 6
	BlackName   string // tag 7
	BlackElo    string // tag 8
	Result      Result // tag 10; values beyond 3 are kept as they are
	Description string // tag 11
	Author      string // tag 12 (missing from the 2014 description)
	TimeControl string // tag 13
}

// Move is one move record.
type Move struct {
	From, To Square
	Captured Piece    // code of the piece taken, 0 if none
	Unknown  [15]byte // the rest of the 20-byte record, meaning unknown
}

// Unknown holds the bytes of a file whose meaning is not known, so a
// rewrite reproduces them. The description shows zeros for all of them
// except BoardLead, which is 1 (as NewGame sets it), and the first byte of
// BoardTail, which it leaves open.
type Unknown struct {
	Tag9       [4]byte   // tag 9's payload
	BoardLead  byte      // the byte opening the board block
	BoardPad   [118]byte // bytes of the 16-wide board array that are not points
	BoardTail  [4]byte   // the int32 after the board array
	CommentPad [2]byte   // the two bytes after the comment count
	Trailing   []byte    // anything after the last comment
}

// Game is a decoded EGF file.
type Game struct {
	Header    Header
	Start     Board // position before the first move
	StartSide Side  // side making the first move
	// MovesDone is the file's "moves done" count: how far into the game
	// the program stood when saving. 0 <= MovesDone <= len(Moves).
	MovesDone int
	Moves     []Move
	Comments  []string
	Unknown   Unknown
}

// Position is the state of a game after some number of moves.
type Position struct {
	Board    Board
	ToMove   Side
	Halfmove int // moves since the last capture
	Fullmove int // starts at 1, increases after each black move
}

// FEN returns the position as a xiangqi FEN string, with "w" for red to
// move and "b" for black.
func (p *Position) FEN() string {
	side := "w"
	if p.ToMove == Black {
		side = "b"
	}
	return fmt.Sprintf("%s %s - - %d %d", p.Board.FEN(), side, p.Halfmove, p.Fullmove)
}

// NewGame returns a game in the standard opening position with red to
// move, no moves, and the description's values for the unknown bytes.
func NewGame() *Game {
	return &Game{Start: StartBoard(), StartSide: Red, Unknown: Unknown{BoardLead: 1}}
}

// Decode reads an EGF file from r, reading at most MaxFileSize bytes.
func Decode(r io.Reader) (*Game, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("egf: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("egf: more than %d bytes: %w", MaxFileSize, ErrTooLarge)
	}
	return Parse(data)
}

// Positions returns the position before the first move and after each
// move: len(g.Moves)+1 positions.
func (g *Game) Positions() ([]Position, error) {
	out := make([]Position, 0, len(g.Moves)+1)
	err := g.replay(func(p *Position) { out = append(out, *p) })
	return out, err
}

// PositionAfter returns the position after the first n moves.
func (g *Game) PositionAfter(n int) (Position, error) {
	if n < 0 || n > len(g.Moves) {
		return Position{}, fmt.Errorf("egf: no position after %d moves (game has %d)", n, len(g.Moves))
	}
	var p Position
	err := g.replay(func(q *Position) {
		if n == 0 {
			p = *q
		}
		n--
	})
	return p, err
}

// replay checks the starting position and every move, calling visit with
// each position in turn.
func (g *Game) replay(visit func(*Position)) error {
	if err := checkBoard(&g.Start); err != nil {
		return err
	}
	if g.StartSide > Black {
		return fmt.Errorf("side to move %d: %w", g.StartSide, ErrCorrupt)
	}
	pos := Position{Board: g.Start, ToMove: g.StartSide, Fullmove: 1}
	visit(&pos)
	for i, m := range g.Moves {
		if err := pos.apply(m); err != nil {
			return fmt.Errorf("move %d (%s-%s): %w", i+1, m.From, m.To, err)
		}
		visit(&pos)
	}
	return nil
}

// apply plays m, checking it against the board.
func (p *Position) apply(m Move) error {
	if !m.From.Valid() || !m.To.Valid() {
		return fmt.Errorf("impossible location: %w", ErrCorrupt)
	}
	piece := p.Board.At(m.From)
	if piece == 0 {
		return fmt.Errorf("no piece on %s: %w", m.From, ErrIllegal)
	}
	if piece.Side() != p.ToMove {
		return fmt.Errorf("%s moves a %s piece: %w", p.ToMove, piece.Side(), ErrIllegal)
	}
	if got := p.Board.At(m.To); got != m.Captured {
		return fmt.Errorf("stored captured piece %d, board has %d on %s: %w", m.Captured, got, m.To, ErrCorrupt)
	}
	if why := checkMove(&p.Board, m.From, m.To); why != "" {
		return fmt.Errorf("%s %s: %w", piece.Kind(), why, ErrIllegal)
	}
	p.Board.Set(m.To, piece)
	p.Board.Set(m.From, 0)
	p.Halfmove++
	if m.Captured != 0 {
		p.Halfmove = 0
	}
	if p.ToMove == Black {
		p.Fullmove++
	}
	p.ToMove ^= 1
	return nil
}

// checkBoard rejects piece codes out of range and codes standing twice.
func checkBoard(b *Board) error {
	var seen [NumPieces + 1]bool
	for i, p := range b {
		sq := SquareAt(i%9, i/9+1)
		if p > NumPieces {
			return fmt.Errorf("piece code %d on %s: %w", p, sq, ErrCorrupt)
		}
		if p != 0 && seen[p] {
			return fmt.Errorf("piece %d on two points: %w", p, ErrCorrupt)
		}
		seen[p] = true
	}
	return nil
}
