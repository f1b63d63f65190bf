// Package tictactoe is tic-tac-toe as a tier game.
//
// The tier is the number of pieces on the board (0 to 9); X moves first, so
// a tier of n pieces holds ceil(n/2) X and floor(n/2) O and the side to move
// follows from n. Play stops at three in a row: a position with a line is
// primitive and lost for the player to move; a full board without a line is
// a tie.
//
// Hash: cells are numbered 0..8 row by row from the top left. A position of
// tier n hashes to occ*C(n, ceil(n/2)) + xs, where occ is the colex rank of
// the set of occupied cells among the n-subsets of the 9 cells and xs the
// colex rank of the set of X among the n pieces taken in cell order. The
// hash is dense: TierSize(n) = C(9, n) * C(n, ceil(n/2)).
//
// Text form: the rows from top to bottom separated by '/', cells 'x', 'o'
// and '-' ("x-o/-x-/--o"). Moves are named by column letter and row number,
// row 1 being the top row: "a1" is the top left cell, "b2" the centre.
package tictactoe

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/games/internal/comb"
	"github.com/tiersolve/tiersolve/games/internal/grid"
	"github.com/tiersolve/tiersolve/tiergame"
)

const (
	cells = 9
	full  = 1<<cells - 1
)

// lines are the eight three-in-a-row masks.
var lines = [8]uint16{
	0007, 0070, 0700, // rows
	0111, 0222, 0444, // columns
	0421, 0124, // diagonals
}

// ErrInvalid is wrapped by the errors of Parse for text that is well formed
// but no reachable position.
var ErrInvalid = errors.New("tictactoe: invalid position")

// Game is tic-tac-toe. Its zero value is ready to use.
type Game struct{}

var (
	_ tiergame.Game      = Game{}
	_ tiergame.MoveNamer = Game{}
)

// New returns the game; tic-tac-toe has no options.
func New(opts tiergame.Options) (tiergame.Game, error) {
	if err := opts.Check(); err != nil {
		return nil, fmt.Errorf("tictactoe: %w", err)
	}
	return Game{}, nil
}

// Name returns "tictactoe".
func (Game) Name() string { return "tictactoe" }

// Option returns "default".
func (Game) Option() string { return "default" }

// Start returns the empty board in tier 0.
func (Game) Start() (tiergame.Tier, tiergame.Position) { return 0, 0 }

// TierSize returns C(9, n) * C(n, ceil(n/2)) for tier n, 0 past tier 9.
func (Game) TierSize(t tiergame.Tier) uint64 {
	if t > cells {
		return 0
	}
	n := int(t)
	return comb.Binom(cells, n) * comb.Binom(n, (n+1)/2)
}

// ChildTiers returns tier n+1 for n < 9.
func (Game) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	if t >= cells {
		return nil
	}
	return []tiergame.Tier{t + 1}
}

// TierName returns "n pieces" ("1 piece").
func (Game) TierName(t tiergame.Tier) string {
	if t == 1 {
		return "1 piece"
	}
	return fmt.Sprintf("%d pieces", t)
}

// Moves lists the children of p in cell order.
func (Game) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	x, o := unhash(int(t), p)
	if v := primitive(x, o); v != tiergame.Undecided {
		return v, dst
	}
	xToMove := t%2 == 0
	for free := full &^ (x | o); free != 0; free &= free - 1 {
		cell := free & -free
		cx, co := x, o
		if xToMove {
			cx |= cell
		} else {
			co |= cell
		}
		dst = append(dst, tiergame.Child{Tier: t + 1, Pos: hash(cx, co)})
	}
	return tiergame.Undecided, dst
}

// MoveNames names the moves of p in the order of Moves.
func (Game) MoveNames(t tiergame.Tier, p tiergame.Position) []string {
	x, o := unhash(int(t), p)
	if primitive(x, o) != tiergame.Undecided {
		return nil
	}
	var names []string
	for i := 0; i < cells; i++ {
		if (x|o)>>i&1 == 0 {
			names = append(names, fmt.Sprintf("%c%d", 'a'+i%3, i/3+1))
		}
	}
	return names
}

// Format returns the rows from the top, e.g. "x-o/-x-/--o".
func (Game) Format(t tiergame.Tier, p tiergame.Position) string {
	x, o := unhash(int(t), p)
	var b strings.Builder
	grid.Format(&b, uint64(x), uint64(o), 3, cells, '-')
	return b.String()
}

// Parse reads the form of Format. It rejects boards that no game reaches:
// wrong piece counts, lines for the side to move or for both sides, and
// lines the last move cannot have completed at once.
func (Game) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	if len(s) > 16 {
		return 0, 0, fmt.Errorf("tictactoe: position of %d bytes is too long", len(s))
	}
	xs, os, err := grid.Parse(s, 3, 3, '-')
	if err != nil {
		return 0, 0, fmt.Errorf("tictactoe: %w", err)
	}
	x, o := uint16(xs), uint16(os)
	if err := validate(x, o); err != nil {
		return 0, 0, fmt.Errorf("%w: %q: %s", ErrInvalid, s, err)
	}
	return tiergame.Tier(popcount(x | o)), hash(x, o), nil
}

// validate explains why x, o is not a reachable board, or returns nil.
func validate(x, o uint16) error {
	nx, no := popcount(x), popcount(o)
	if nx != no && nx != no+1 {
		return fmt.Errorf("%d x and %d o (x moves first)", nx, no)
	}
	last, other := x, o // the side that made the last move
	if nx == no {
		last, other = o, x
	}
	if hasLine(other) {
		return errors.New("the side to move has three in a row")
	}
	if !hasLine(last) {
		return nil
	}
	for m := last; m != 0; m &= m - 1 {
		if !hasLine(last &^ (m & -m)) {
			return nil // the last move was here and completed the lines
		}
	}
	return errors.New("lines that no single move completes")
}

func hasLine(b uint16) bool {
	for _, l := range lines {
		if b&l == l {
			return true
		}
	}
	return false
}

// primitive returns Lose when there is a line (made by the last mover),
// Tie on a full board and Undecided otherwise.
func primitive(x, o uint16) tiergame.Value {
	switch {
	case hasLine(x) || hasLine(o):
		return tiergame.Lose
	case x|o == full:
		return tiergame.Tie
	}
	return tiergame.Undecided
}

func hash(x, o uint16) tiergame.Position {
	occ := uint64(x | o)
	n := popcount(x | o)
	xs := comb.Compress(uint64(x), occ)
	return tiergame.Position(comb.Rank(occ)*comb.Binom(n, (n+1)/2) + comb.Rank(xs))
}

func unhash(n int, p tiergame.Position) (x, o uint16) {
	nx := (n + 1) / 2
	k := comb.Binom(n, nx)
	occ := comb.Unrank(uint64(p)/k, cells, n)
	xs := comb.Expand(comb.Unrank(uint64(p)%k, n, nx), occ)
	return uint16(xs), uint16(occ &^ xs)
}

func popcount(b uint16) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}
