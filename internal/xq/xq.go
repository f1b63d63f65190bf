// Package xq holds the rules of xiangqi (Chinese chess) once, for every
// part of the project that needs them: the EGF codec replays games with
// it, and the xiangqi tier game generates moves and un-moves with it.
//
// The board has 9 files, a to i from red's left, and 10 ranks, 0 to 9 from
// red's side: a point is a Square, file + 9*rank, named in ICCS ("e0" is
// red's general at the start). Red's half is ranks 0 to 4, black's 5 to 9,
// the river between them; each palace is files d to f of a side's three
// back ranks.
//
// A Board keeps the piece on every point and bit sets of the occupied
// points, so that the questions move generation asks (is the line between
// two points clear, how many pieces stand on it) cost a mask and a
// population count. The rules are the standard ones: the two generals may
// never face each other on an open file, and a move that leaves the mover's
// general attacked (or facing) is illegal. Repetition rules are not part of
// the package.
package xq

import (
	"errors"
	"fmt"
	"strings"
)

// Board dimensions.
const (
	Files      = 9
	Ranks      = 10
	NumSquares = Files * Ranks
)

// Square is a point of the board: file + 9*rank.
type Square uint8

// NoSquare is no point of the board.
const NoSquare Square = 255

// At returns the square of file 0..8 and rank 0..9, or NoSquare.
func At(file, rank int) Square {
	if file < 0 || file >= Files || rank < 0 || rank >= Ranks {
		return NoSquare
	}
	return Square(file + Files*rank)
}

// File returns 0..8 (a..i).
func (s Square) File() int { return int(s) % Files }

// Rank returns 0..9 (red's back rank is 0).
func (s Square) Rank() int { return int(s) / Files }

// Mirror returns the square's image in the left-right mirror.
func (s Square) Mirror() Square { return Square(int(s) - 2*s.File() + Files - 1) }

// String returns the square's ICCS name, "e0", or "-" for no square.
func (s Square) String() string {
	if s >= NumSquares {
		return "-"
	}
	return string([]byte{byte('a' + s.File()), byte('0' + s.Rank())})
}

// ParseSquare reads an ICCS square name ("a0" to "i9"; upper case too).
func ParseSquare(name string) (Square, error) {
	if len(name) == 2 {
		f, r := name[0]|0x20, name[1]
		if f >= 'a' && f <= 'i' && r >= '0' && r <= '9' {
			return At(int(f-'a'), int(r-'0')), nil
		}
	}
	return NoSquare, fmt.Errorf("xq: bad square %q (want a0 to i9)", name)
}

// Side is a player. Red moves first in a normal game.
type Side uint8

// The two sides.
const (
	Red   Side = 0
	Black Side = 1
)

// Other returns the opponent.
func (s Side) Other() Side { return s ^ 1 }

// String returns "red" or "black".
func (s Side) String() string {
	if s == Red {
		return "red"
	}
	return "black"
}

// Kind is the type of a piece.
type Kind uint8

// The kinds, in the order of FEN letters K A B N R C P.
const (
	NoKind Kind = iota
	King        // general
	Advisor
	Elephant
	Horse
	Chariot
	Cannon
	Soldier
	NumKinds = 8
)

var kindNames = [NumKinds]string{"none", "king", "advisor", "elephant", "horse", "chariot", "cannon", "soldier"}

// String returns the kind's English name.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Letter returns the kind's upper-case FEN letter (K A B N R C P).
func (k Kind) Letter() byte { return " KABNRCP"[k&7] }

// KindOf returns the kind of a FEN letter, either case; E (elephant) and
// H (horse) are accepted as in some engines' notation.
func KindOf(c byte) (Kind, bool) {
	switch c &^ 0x20 {
	case 'K':
		return King, true
	case 'A':
		return Advisor, true
	case 'B', 'E':
		return Elephant, true
	case 'N', 'H':
		return Horse, true
	case 'R':
		return Chariot, true
	case 'C':
		return Cannon, true
	case 'P':
		return Soldier, true
	}
	return NoKind, false
}

// Piece is a kind and a side; 0 is no piece.
type Piece uint8

// NoPiece is an empty point.
const NoPiece Piece = 0

// MakePiece returns the piece of kind k and side s.
func MakePiece(s Side, k Kind) Piece { return Piece(k) | Piece(s)<<3 }

// Kind returns the piece's kind.
func (p Piece) Kind() Kind { return Kind(p & 7) }

// Side returns the piece's owner.
func (p Piece) Side() Side { return Side(p >> 3 & 1) }

// Letter returns the piece's FEN letter: upper case red, lower case black,
// '.' for no piece.
func (p Piece) Letter() byte {
	if p == NoPiece {
		return '.'
	}
	c := p.Kind().Letter()
	if p.Side() == Black {
		c |= 0x20
	}
	return c
}

// Move is a move from one point to another.
type Move struct{ From, To Square }

// String returns the move in ICCS, "h2e2".
func (m Move) String() string { return m.From.String() + m.To.String() }

// ParseMove reads an ICCS move, "h2e2" or "h2-e2".
func ParseMove(s string) (Move, error) {
	t := strings.ReplaceAll(s, "-", "")
	if len(t) == 4 {
		from, err1 := ParseSquare(t[:2])
		to, err2 := ParseSquare(t[2:])
		if err1 == nil && err2 == nil {
			return Move{from, to}, nil
		}
	}
	return Move{}, fmt.Errorf("xq: bad move %q (want ICCS, e.g. h2e2)", s)
}

// Errors of ParseFEN and Board checks that callers may test.
var (
	ErrFEN     = errors.New("bad FEN")
	ErrIllegal = errors.New("illegal position")
)
