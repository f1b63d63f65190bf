package egf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tiersolve/tiersolve/internal/xq"
)

// Square is a point of the xiangqi board, stored as EGF's location id:
// 34 + 16*(8-file) + (10-rank), with files a..i as 0..8 and ranks 1..10
// (red's back rank is 1), so i10 = 34 and a1 = 171. The zero Square
// means "no square" (a captured piece in the piece list).
type Square uint8

// SquareAt returns the square of file 0..8 (a..i) and rank 1..10.
func SquareAt(file, rank int) Square {
	if file < 0 || file > 8 || rank < 1 || rank > 10 {
		return 0
	}
	return Square(34 + 16*(8-file) + (10 - rank))
}

// ParseSquare parses a square name such as "e1" or "a10".
func ParseSquare(s string) (Square, error) {
	if len(s) >= 2 && s[0] >= 'a' && s[0] <= 'i' {
		if r, err := strconv.Atoi(s[1:]); err == nil && s[1] != '0' && s[1] != '+' {
			if sq := SquareAt(int(s[0]-'a'), r); sq != 0 {
				return sq, nil
			}
		}
	}
	return 0, fmt.Errorf("egf: bad square %q", s)
}

// Valid reports whether s names a point of the board.
func (s Square) Valid() bool {
	if s < 34 || s > 171 {
		return false
	}
	return (s-34)%16 < 10
}

// File returns 0..8 for files a..i. Only meaningful when s is Valid.
func (s Square) File() int { return 8 - int(s-34)/16 }

// Rank returns 1..10. Only meaningful when s is Valid.
func (s Square) Rank() int { return 10 - int(s-34)%16 }

// String returns the square's name, "e1", or "-" for an invalid square.
func (s Square) String() string {
	if !s.Valid() {
		return "-"
	}
	return string(rune('a'+s.File())) + strconv.Itoa(s.Rank())
}

// index is s's position in a Board.
func (s Square) index() int { return (s.Rank()-1)*9 + s.File() }

// Side is a player: Red (moves first in a normal game) or Black; its
// values are EGF's, 0 and 1. The rules package's type.
type Side = xq.Side

// The two sides.
const (
	Red   = xq.Red
	Black = xq.Black
)

// Kind is the type of a piece (the rules package's).
type Kind = xq.Kind

// Piece kinds.
const (
	NoKind   = xq.NoKind
	King     = xq.King
	Advisor  = xq.Advisor
	Elephant = xq.Elephant
	Horse    = xq.Horse
	Chariot  = xq.Chariot
	Cannon   = xq.Cannon
	Soldier  = xq.Soldier
)

// Piece is an EGF piece code: 1..16 are red, 17..32 black, each side in
// the order king, 2 advisors, 2 elephants, 2 horses, 2 chariots,
// 2 cannons, 5 soldiers. 0 is no piece.
type Piece uint8

// NumPieces is the number of piece codes.
const NumPieces = 32

// codeKinds maps the code within a side (0..15) to its kind.
var codeKinds = [16]Kind{King, Advisor, Advisor, Elephant, Elephant, Horse, Horse,
	Chariot, Chariot, Cannon, Cannon, Soldier, Soldier, Soldier, Soldier, Soldier}

// Valid reports whether p is a piece code 1..32.
func (p Piece) Valid() bool { return p >= 1 && p <= NumPieces }

// Kind returns the piece's kind, NoKind for an invalid code.
func (p Piece) Kind() Kind {
	if !p.Valid() {
		return NoKind
	}
	return codeKinds[(p-1)%16]
}

// Side returns the piece's owner.
func (p Piece) Side() Side {
	if p > 16 {
		return Black
	}
	return Red
}

// Letter returns the piece's FEN letter: K A B N R C P for red, lower
// case for black (B elephant, N horse, R chariot, P soldier).
func (p Piece) Letter() byte {
	if !p.Valid() {
		return '.'
	}
	c := " KABNRCP"[p.Kind()]
	if p.Side() == Black {
		c += 'a' - 'A'
	}
	return c
}

// Board is a xiangqi position: the piece code on each point. Index it
// with At and Set.
type Board [90]Piece

// At returns the piece on s (0 if empty or s is invalid).
func (b *Board) At(s Square) Piece {
	if !s.Valid() {
		return 0
	}
	return b[s.index()]
}

// Set puts p on s, which must be valid.
func (b *Board) Set(s Square, p Piece) { b[s.index()] = p }

// Locations returns the piece list: the square of each piece code
// (index code-1), 0 for pieces not on the board.
func (b *Board) Locations() [NumPieces]Square {
	var loc [NumPieces]Square
	for i, p := range b {
		if p.Valid() {
			loc[p-1] = SquareAt(i%9, i/9+1)
		}
	}
	return loc
}

// FEN returns the piece placement field of a xiangqi FEN: ranks 10 to 1,
// files a to i, digits for runs of empty points.
func (b *Board) FEN() string {
	rb := b.rules()
	placement, _, _ := strings.Cut(rb.FEN(xq.Red), " ")
	return placement
}

// String draws the board as text, rank 10 at the top.
func (b *Board) String() string {
	var sb strings.Builder
	for r := 10; r >= 1; r-- {
		fmt.Fprintf(&sb, "%2d ", r)
		for f := 0; f < 9; f++ {
			sb.WriteByte(' ')
			sb.WriteByte(b[(r-1)*9+f].Letter())
		}
		sb.WriteByte('\n')
	}
	sb.WriteString("    a b c d e f g h i\n")
	return sb.String()
}

// StartBoard returns the standard opening position. Within each pair the
// lower code goes to the piece on the owner's left (file a side for red,
// file i side for black), soldiers likewise from the owner's left.
func StartBoard() Board {
	var b Board
	back := [9]Kind{Chariot, Horse, Elephant, Advisor, King, Advisor, Elephant, Horse, Chariot}
	for side := Side(0); side < 2; side++ {
		next := map[Kind]Piece{}
		base := Piece(16 * side)
		for code := Piece(1); code <= 16; code++ {
			if k := codeKinds[code-1]; next[k] == 0 {
				next[k] = base + code
			}
		}
		// place walks files from the owner's left, taking codes in order.
		place := func(rank int, files []int, k Kind) {
			for _, f := range files {
				if side == Black {
					f = 8 - f
				}
				r := rank
				if side == Black {
					r = 11 - rank
				}
				b.Set(SquareAt(f, r), next[k])
				next[k]++
			}
		}
		for f, k := range back {
			place(1, []int{f}, k)
		}
		place(3, []int{1, 7}, Cannon)
		place(4, []int{0, 2, 4, 6, 8}, Soldier)
	}
	return b
}

// checkMove reports why moving from -> to on b breaks the movement rules
// of xiangqi, or "" if it does not. It checks the piece's own geometry
// (palace, river, blocked horse legs and elephant eyes, cannon screens)
// with the project's one move generator (internal/xq), not whether the
// mover's king is left in check. Red is assumed to start on ranks 1..5.
func checkMove(b *Board, from, to Square) string {
	p, q := b.At(from), b.At(to)
	if !p.Valid() {
		return "no piece on " + from.String()
	}
	if q != 0 && q.Side() == p.Side() {
		return "captures own piece"
	}
	rb := b.rules()
	if !rb.IsPseudoMove(xq.Move{From: from.rules(), To: to.rules()}) {
		return "breaks the " + p.Kind().String() + "'s movement rules"
	}
	return ""
}

// rules returns the square in the numbering of the rules package,
// file + 9*(rank-1), which is also its index in a Board.
func (s Square) rules() xq.Square { return xq.Square(s.index()) }

// rules returns the board as the rules package sees it: kinds and sides,
// without the codes that tell two advisors apart.
func (b *Board) rules() xq.Board {
	var rb xq.Board
	for i, p := range b {
		if p.Valid() {
			rb.Put(xq.Square(i), xq.MakePiece(xq.Side(p.Side()), xq.Kind(p.Kind())))
		}
	}
	return rb
}
