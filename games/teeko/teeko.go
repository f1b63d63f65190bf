// Package teeko is Teeko, John Scarne's game on a 5x5 board, as a tier
// game: the rules and counts of GamesmanOne 1.3.0's "Standard" Teeko.
//
// Each side has four pieces; X moves first. In the drop phase the sides
// take turns placing a piece on any empty point, X, O, X, O, ... until all
// eight are on the board. Then they take turns moving one of their pieces
// to an empty point next to it (up to eight neighbours: orthogonal and
// diagonal). Four pieces of one side in a row (horizontally, vertically or
// diagonally) or on the corners of a 2x2 square form a pattern, and the
// side that forms one wins: a position in which a pattern stands is lost
// for the side to move, and has no moves. There are no captures, no
// passing and no rule against repetition: play that never ends is a draw.
//
// Tiers 0 to 7 are the drop phase, numbered by the pieces on the board
// (tier t has (t+1)/2 X and t/2 O, and the side to move is X when t is
// even); tier 8 holds the positions with all eight pieces, either side to
// move, and is loopy: every move stays in it. The hash is dense, every
// hash a board: the colex rank of the X points times C(25-x, o), plus the
// colex rank of the O points among the 25-x points X leaves empty; in the
// moving tier, twice that, plus 1 when O is to move.
//
// Text form: the side to move, "x:" or "o:", then the rows from top to
// bottom separated by '/', points '.', 'x' and 'o', e.g.
// "o:x..../...../..o../...../....x" (two X and one O dropped, O to move).
// Points are named by column letter and row number from the top ("a1" is
// the top left corner); a drop is named by its point ("c3") and a move by
// its two points ("c3-d4"). Parse accepts every board with the numbers of
// pieces and the side to move of some tier, except one on which both
// sides have a pattern (GamesmanOne calls those illegal: no move makes
// one).
//
// Symmetry: the 8 symmetries of the square keep the rules, the tier and
// the side to move (see Canonical).
package teeko

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// The board.
const (
	side   = 5           // points a row
	cells  = side * side // points on the board
	pieces = 4           // pieces a side
	full   = 1<<cells - 1

	// MovingTier is the tier of the moving phase, with all pieces on the
	// board; tiers 0 to 7 are the drop phase.
	MovingTier tiergame.Tier = 2 * pieces
)

// Game is Teeko. It has no options; the zero Game is ready to use and
// safe for concurrent use.
type Game struct{}

var (
	_ tiergame.Game      = Game{}
	_ tiergame.MoveNamer = Game{}
)

// New returns the game; it takes no options.
func New(opts tiergame.Options) (tiergame.Game, error) {
	if err := opts.Check(); err != nil {
		return nil, fmt.Errorf("teeko: %w", err)
	}
	return Game{}, nil
}

// tierInfo describes one tier's boards and hashes.
type tierInfo struct {
	x, o  int    // pieces of X and O on the board
	mover uint32 // the side to move in the drop phase: 0 for X, 1 for O
	// mulO is the number of O sets for one X set, C(25-x, o): a board's
	// index is colex(xs)*mulO + colex(compressed os).
	mulO uint64
	size uint64
	// shift is 1 in the moving tier, whose hashes hold the side to move
	// in their low bit, and 0 in the drop phase.
	shift uint
}

var tiers = func() (ts [MovingTier + 1]tierInfo) {
	for t := range ts {
		ti := &ts[t]
		ti.x, ti.o, ti.mover = (t+1)/2, t/2, uint32(t&1)
		ti.mulO = uint64(binom[cells-ti.x][ti.o])
		ti.size = uint64(binom[cells][ti.x]) * ti.mulO
		if tiergame.Tier(t) == MovingTier {
			ti.shift, ti.size = 1, 2*ti.size
		}
	}
	return ts
}()

// tierOf returns the description of tier t, or nil if there is none.
func tierOf(t tiergame.Tier) *tierInfo {
	if t > MovingTier {
		return nil
	}
	return &tiers[t]
}

// Name returns "teeko".
func (Game) Name() string { return "teeko" }

// Option returns "default": the game has no options.
func (Game) Option() string { return "default" }

// Start returns the empty board, X to move, in tier 0.
func (Game) Start() (tiergame.Tier, tiergame.Position) { return 0, 0 }

// TierSize returns C(25, x)*C(25-x, o) for a tier of the drop phase with x
// X and o O, twice C(25, 4)*C(21, 4) for the moving tier, and 0 for a tier
// that does not exist.
func (Game) TierSize(t tiergame.Tier) uint64 {
	if ti := tierOf(t); ti != nil {
		return ti.size
	}
	return 0
}

// ChildTiers returns t+1 for a tier of the drop phase and the moving tier
// itself for the moving tier.
func (Game) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	switch {
	case t < MovingTier:
		return []tiergame.Tier{t + 1}
	case t == MovingTier:
		return []tiergame.Tier{MovingTier}
	}
	return nil
}

// TierName returns "x2o1" for a tier of the drop phase and "moving" for
// the moving tier.
func (Game) TierName(t tiergame.Tier) string {
	switch ti := tierOf(t); {
	case ti == nil:
		return fmt.Sprintf("tier%d", t)
	case t == MovingTier:
		return "moving"
	default:
		return fmt.Sprintf("x%do%d", ti.x, ti.o)
	}
}

// decode returns the board and the side to move (0 for X) of hash p of
// tier ti.
func decode(ti *tierInfo, p uint64) (xs, os, mover uint32) {
	mover = ti.mover
	if ti.shift != 0 {
		mover = uint32(p & 1)
	}
	i := p >> ti.shift
	xs = unrank[ti.x][i/ti.mulO]
	return xs, expand(unrank[ti.o][i%ti.mulO], xs), mover
}

// encode returns the hash of board (xs, os) with mover to move in tier ti.
func encode(ti *tierInfo, xs, os, mover uint32) tiergame.Position {
	return tiergame.Position(index(xs, os, ti.mulO)<<ti.shift | uint64(mover&uint32(ti.shift)))
}

// hasPattern reports whether the set of cells m is one of the patterns
// (m holds four cells or fewer).
func hasPattern(m uint32) bool {
	return patternSlots[uint64(m)*patternMul>>56] == m
}

// primitive returns Lose when a pattern stands on board (xs, os), and
// Undecided otherwise.
func primitive(xs, os uint32) tiergame.Value {
	if hasPattern(xs) || hasPattern(os) {
		return tiergame.Lose
	}
	return tiergame.Undecided
}

// Format returns the text form of position p of tier t, e.g.
// "o:x..../...../..o../...../....x".
func (Game) Format(t tiergame.Tier, p tiergame.Position) string {
	ti := tierOf(t)
	if ti == nil || uint64(p) >= ti.size {
		return fmt.Sprintf("(tier %d position %d: no such position)", t, p)
	}
	xs, os, mover := decode(ti, uint64(p))
	return formatBoard(xs, os, mover)
}

func formatBoard(xs, os, mover uint32) string {
	var b strings.Builder
	b.WriteString([]string{"x:", "o:"}[mover&1])
	for c := range cells {
		if c > 0 && c%side == 0 {
			b.WriteByte('/')
		}
		switch {
		case xs>>c&1 != 0:
			b.WriteByte('x')
		case os>>c&1 != 0:
			b.WriteByte('o')
		default:
			b.WriteByte('.')
		}
	}
	return b.String()
}

// Parse reads the text form of Format.
func (Game) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	xs, os, mover, err := parseBoard(s)
	if err != nil {
		return 0, 0, fmt.Errorf("teeko: %q: %w", s, err)
	}
	nx, no := bits.OnesCount32(xs), bits.OnesCount32(os)
	t := tiergame.Tier(nx + no)
	switch {
	case nx > pieces || no > pieces:
		return 0, 0, fmt.Errorf("teeko: %q: %d x and %d o: at most %d a side", s, nx, no, pieces)
	case nx != no && nx != no+1:
		return 0, 0, fmt.Errorf("teeko: %q: %d x and %d o: x drops first, so it has as many as o or one more", s, nx, no)
	case t < MovingTier && mover != uint32(nx-no):
		return 0, 0, fmt.Errorf("teeko: %q: %d x and %d o: %s is to move", s, nx, no, []string{"x", "o"}[nx-no])
	case hasPattern(xs) && hasPattern(os):
		return 0, 0, fmt.Errorf("teeko: %q: both sides have a pattern", s)
	}
	return t, encode(&tiers[t], xs, os, mover), nil
}

// parseBoard reads a side to move and a board in the text form.
func parseBoard(s string) (xs, os, mover uint32, err error) {
	switch {
	case strings.HasPrefix(s, "x:"):
	case strings.HasPrefix(s, "o:"):
		mover = 1
	default:
		return 0, 0, 0, fmt.Errorf(`want "x:" or "o:" (the side to move) before the rows`)
	}
	rows := strings.Split(s[2:], "/")
	if len(rows) != side {
		return 0, 0, 0, fmt.Errorf("%d rows, want %d separated by '/'", len(rows), side)
	}
	for r, row := range rows {
		if len(row) != side {
			return 0, 0, 0, fmt.Errorf("row %d: %q: want %d points", r+1, row, side)
		}
		for c := range side {
			switch row[c] {
			case 'x':
				xs |= 1 << (r*side + c)
			case 'o':
				os |= 1 << (r*side + c)
			case '.':
			default:
				return 0, 0, 0, fmt.Errorf("row %d: %q: want '.', 'x' or 'o'", r+1, row)
			}
		}
	}
	return xs, os, mover, nil
}

// pointName names cell c: column letter and row number from the top.
func pointName(c int) string {
	return fmt.Sprintf("%c%d", 'a'+c%side, c/side+1)
}

// MoveNames names the moves of p in the order of Moves: "c3" drops a
// piece on c3, "c3-d4" moves the piece on c3 to d4.
func (Game) MoveNames(t tiergame.Tier, p tiergame.Position) []string {
	ti := tierOf(t)
	xs, os, mover := decode(ti, uint64(p))
	if primitive(xs, os) != tiergame.Undecided {
		return nil
	}
	empty := full &^ (xs | os)
	var names []string
	if t < MovingTier {
		for m := empty; m != 0; m &= m - 1 {
			names = append(names, pointName(bits.TrailingZeros32(m)))
		}
		return names
	}
	own := xs
	if mover == 1 {
		own = os
	}
	for m := own; m != 0; m &= m - 1 {
		a := bits.TrailingZeros32(m)
		for n := neighbours[a] & empty; n != 0; n &= n - 1 {
			names = append(names, pointName(a)+"-"+pointName(bits.TrailingZeros32(n)))
		}
	}
	return names
}
