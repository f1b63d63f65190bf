// Package dodgem is Colin Vout's Dodgem as a tier game, written with the
// exported API of tiersolve only, as an author outside this repository
// would write a game: the example that docs/writing-a-game.md walks
// through.
//
// The rules are those of Winning Ways (Berlekamp, Conway and Guy, ch. 22).
// On an n x n board Blue has n-1 cars on the left edge and Red n-1 cars
// on the bottom edge, the bottom left corner empty. Blue moves first. A
// Blue car moves one cell right (forward), up or down; a Red car one cell
// up (forward), left or right; always onto an empty cell. A car on the far
// edge (Blue's right edge, Red's top edge) may also drive off the board,
// forward, and is gone. A player who has driven every car off has won; a
// player to move whose cars are all blocked has won too, because the
// opponent must always leave them a move. Cars can shuffle sideways for
// ever: play that never ends is a draw. The 3x3 game is a win for the
// first player (Winning Ways); the 4x4 and 5x5 games are draws (des
// Jardins, 1996). Solved here: 3x3 (1,963 positions) a win for Blue in
// 19, 4x4 (393,900) and 5x5 (164,308,067) draws.
//
// Tiers are the cars on the board, Blue's and Red's: tier 10*b + r holds
// the positions with b Blue and r Red cars. A move on the board stays in
// the tier, so every tier with cars of both colours is loopy; driving a
// car off leads to the tier with one car fewer. The tiers in which one
// side has no car left hold only finished games, with the other side to
// move (and lost for it).
//
// Hash: cells are numbered row by row from the top left, 0 to n*n-1. A
// position of tier (b, r) hashes to (blue*C(n*n-b, r) + red)*2 + side,
// where blue is the colex rank of the set of Blue's cells among the
// b-subsets of the board, red the colex rank of the set of Red's cells
// among the r-subsets of the cells Blue leaves free, and side is 1 when Red
// is to move; a tier with a side empty has no side bit. The hash is dense:
// every hash of a tier is a position, and TierSize counts them exactly.
//
// Text form: the side to move, ':', then the rows from top to bottom
// separated by '/', cells 'b' (Blue), 'r' (Red) and '.' (empty): the 3x3
// start is "b:b../b../.rr". Cells are named by column letter and row
// number from the bottom ("a1" is the bottom left corner), and moves by
// their cells: "a2-b2", or "c2-off" for a car driving off.
package dodgem

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Spec registers the game with a tierd of your own:
//
//	tierdcli.Main(games.Default().With(dodgem.Spec))
var Spec = games.Spec{
	Name:    "dodgem",
	Summary: "Colin Vout's Dodgem on an n x n board, n-1 cars a side; tier = cars left of each side, loopy",
	Options: []games.Option{{Key: "size", Default: "3", Doc: "board side, 3 to 6"}},
	New:     New,
}

// Game is Dodgem on one board size. It is immutable and safe for
// concurrent use.
type Game struct {
	n     int // board side
	cells int // n*n
	// binom[m][k] is C(m, k) for m <= cells and k < n.
	binom [][]uint64
}

var (
	_ tiergame.Game      = (*Game)(nil)
	_ tiergame.Unmover   = (*Game)(nil)
	_ tiergame.MoveNamer = (*Game)(nil)
)

// New returns the variant of the options: size=N, the board side, 3 by
// default.
func New(opts tiergame.Options) (tiergame.Game, error) {
	if err := opts.Check("size"); err != nil {
		return nil, fmt.Errorf("dodgem: %w", err)
	}
	n, err := opts.Int("size", 3, 3, 6)
	if err != nil {
		return nil, fmt.Errorf("dodgem: %w", err)
	}
	return NewGame(n), nil
}

// NewGame returns Dodgem on an n x n board, 3 <= n <= 6.
func NewGame(n int) *Game {
	g := &Game{n: n, cells: n * n, binom: make([][]uint64, n*n+1)}
	for m := range g.binom {
		g.binom[m] = make([]uint64, n)
		g.binom[m][0] = 1
		for k := 1; k < n && k <= m; k++ {
			g.binom[m][k] = g.binom[m-1][k-1]
			if k < m {
				g.binom[m][k] += g.binom[m-1][k]
			}
		}
	}
	return g
}

// Name returns "dodgem".
func (g *Game) Name() string { return "dodgem" }

// Option returns "size=N".
func (g *Game) Option() string { return fmt.Sprintf("size=%d", g.n) }

// Players, as the side bit of the hash.
const (
	blue = 0
	red  = 1
)

// pos is a decoded position: each side's cells as a bit mask, and the
// side to move.
type pos struct {
	cars  [2]uint64
	mover int
}

// tierOf returns the tier of b Blue and r Red cars.
func tierOf(b, r int) tiergame.Tier { return tiergame.Tier(10*b + r) }

// counts returns the cars of each side in tier t, and false for a number
// that is no tier of the game.
func (g *Game) counts(t tiergame.Tier) (b, r int, ok bool) {
	b, r = int(t/10), int(t%10)
	return b, r, t < 100 && b < g.n && r < g.n && b+r > 0
}

// sides is 2 when both sides have cars and either may be to move, and 1
// when the game is over (only the loser can be to move).
func sides(b, r int) uint64 {
	if b == 0 || r == 0 {
		return 1
	}
	return 2
}

// Start returns Blue's cars on the left edge and Red's on the bottom
// edge, Blue to move.
func (g *Game) Start() (tiergame.Tier, tiergame.Position) {
	var p pos
	for i := 0; i < g.n-1; i++ {
		p.cars[blue] |= 1 << (i * g.n)            // the left column but its bottom cell
		p.cars[red] |= 1 << ((g.n-1)*g.n + i + 1) // the bottom row but its left cell
	}
	return g.hash(p)
}

// TierSize is C(n*n, b) * C(n*n-b, r) times the sides that may be to
// move: every hash is a position.
func (g *Game) TierSize(t tiergame.Tier) uint64 {
	b, r, ok := g.counts(t)
	if !ok {
		return 0
	}
	return g.binom[g.cells][b] * g.binom[g.cells-b][r] * sides(b, r)
}

// ChildTiers lists the tier itself (a move on the board) and the tiers
// with a car fewer of either side; a finished game's tier has none.
func (g *Game) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	b, r, ok := g.counts(t)
	if !ok || b == 0 || r == 0 {
		return nil
	}
	return []tiergame.Tier{t, tierOf(b-1, r), tierOf(b, r-1)}
}

// TierName returns "2 blue 1 red".
func (g *Game) TierName(t tiergame.Tier) string {
	b, r, _ := g.counts(t)
	return fmt.Sprintf("%d blue %d red", b, r)
}

// hash returns p's tier and hash.
func (g *Game) hash(p pos) (tiergame.Tier, tiergame.Position) {
	b, r := bits.OnesCount64(p.cars[blue]), bits.OnesCount64(p.cars[red])
	h := rankSet(p.cars[blue], g.binom)*g.binom[g.cells-b][r] + rankSet(squeeze(p.cars[red], p.cars[blue]), g.binom)
	if sides(b, r) == 2 {
		h = 2*h + uint64(p.mover)
	}
	return tierOf(b, r), tiergame.Position(h)
}

// unhash is the inverse of hash, for a hash inside its tier.
func (g *Game) unhash(t tiergame.Tier, h tiergame.Position) pos {
	b, r, _ := g.counts(t)
	var p pos
	x := uint64(h)
	switch {
	case sides(b, r) == 2:
		p.mover = int(x & 1)
		x >>= 1
	case b == 0:
		p.mover = red // Blue drove its last car off: Red is to move, and lost
	}
	free := g.binom[g.cells-b][r]
	p.cars[blue] = unrankSet(x/free, b, g.cells, g.binom)
	p.cars[red] = stretch(unrankSet(x%free, r, g.cells-b, g.binom), p.cars[blue])
	return p
}

// rankSet is the colex rank of a set of cells among the sets of its size:
// the sum of C(c, i+1) over its cells c, the i-th smallest being i.
func rankSet(set uint64, binom [][]uint64) uint64 {
	var rank uint64
	for i := 1; set != 0; i++ {
		c := bits.TrailingZeros64(set)
		set &= set - 1
		rank += binom[c][i]
	}
	return rank
}

// unrankSet is the set of k cells below m whose colex rank is rank: its
// largest cell is the largest c with C(c, k) <= rank, and so on down.
func unrankSet(rank uint64, k, m int, binom [][]uint64) uint64 {
	var set uint64
	c := m - 1
	for i := k; i > 0; i-- {
		for binom[c][i] > rank {
			c--
		}
		set |= 1 << c
		rank -= binom[c][i]
		c--
	}
	return set
}

// squeeze renumbers the cells of set by their index among the cells
// outside taken (which set must avoid): Red's cells among those Blue
// leaves free.
func squeeze(set, taken uint64) uint64 {
	var out uint64
	for s := set; s != 0; s &= s - 1 {
		c := bits.TrailingZeros64(s)
		out |= 1 << (c - bits.OnesCount64(taken&(1<<c-1)))
	}
	return out
}

// stretch is the inverse of squeeze: the cell numbered i among those
// outside taken, for every i in set.
func stretch(set, taken uint64) uint64 {
	var out uint64
	free := ^taken
	for i := 0; set != 0; i++ {
		c := bits.TrailingZeros64(free)
		free &= free - 1
		if set&1 != 0 {
			out |= 1 << c
		}
		set >>= 1
	}
	return out
}

// A step is one of a car's three moves: forward first, then the two
// sideways ones.
type step struct{ dr, dc int }

var steps = [2][3]step{
	blue: {{0, 1}, {-1, 0}, {1, 0}},  // right, up, down
	red:  {{-1, 0}, {0, -1}, {0, 1}}, // up, left, right
}

// dest returns the cell a car of side s on cell c reaches by step k:
// -1 for off the board (forward from the far edge), -2 for no move (off
// a side edge).
func (g *Game) dest(s int, c int, k int) int {
	row, col := c/g.n+steps[s][k].dr, c%g.n+steps[s][k].dc
	switch {
	case row >= 0 && row < g.n && col >= 0 && col < g.n:
		return row*g.n + col
	case k == 0:
		return -1
	}
	return -2
}

// Moves lists the children of position p of tier t: for each car of the
// side to move, in the order of its cells, its forward move, then up or
// left, then down or right. A side with no car left has won, so the
// player to move has lost; a player to move with every car blocked has
// won.
func (g *Game) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	q := g.unhash(t, p)
	me, you := q.mover, 1-q.mover
	if q.cars[you] == 0 {
		return tiergame.Lose, dst
	}
	n := len(dst)
	occupied := q.cars[blue] | q.cars[red]
	for s := q.cars[me]; s != 0; s &= s - 1 {
		c := bits.TrailingZeros64(s)
		for k := range steps[me] {
			d := g.dest(me, c, k)
			if d == -2 || (d >= 0 && occupied>>d&1 != 0) {
				continue
			}
			child := q
			child.cars[me] &^= 1 << c
			if d >= 0 {
				child.cars[me] |= 1 << d
			}
			child.mover = you
			ct, cp := g.hash(child)
			dst = append(dst, tiergame.Child{Tier: ct, Pos: cp})
		}
	}
	if len(dst) == n {
		return tiergame.Win, dst // blocked: the opponent left no move
	}
	return tiergame.Undecided, dst
}

// Parents lists the positions of tier pt that move to position p of tier
// t: the side that just moved (not p's mover) either moved a car on the
// board, in the same tier, or drove one off its far edge, from the tier
// with one more car of its own. Each parent has a move (the one undone)
// and the other side has cars, so none is primitive.
func (g *Game) Parents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	b, r, ok := g.counts(t)
	pb, pr, pok := g.counts(pt)
	if !ok || !pok {
		return dst
	}
	q := g.unhash(t, p)
	me := 1 - q.mover // the side that moved last
	occupied := q.cars[blue] | q.cars[red]
	parent := q
	parent.mover = me
	switch {
	case pt == t && b > 0 && r > 0:
		// Undo a move on the board: the car on c came from a cell src
		// from which step k reaches c.
		for s := q.cars[me]; s != 0; s &= s - 1 {
			c := bits.TrailingZeros64(s)
			for k := range steps[me] {
				row, col := c/g.n-steps[me][k].dr, c%g.n-steps[me][k].dc
				if row < 0 || row >= g.n || col < 0 || col >= g.n || occupied>>(row*g.n+col)&1 != 0 {
					continue
				}
				parent.cars[me] = q.cars[me]&^(1<<c) | 1<<(row*g.n+col)
				_, h := g.hash(parent)
				dst = append(dst, h)
			}
		}
	case (me == blue && pb == b+1 && pr == r) || (me == red && pr == r+1 && pb == b):
		// Undo a car driving off: it stood on an empty cell of the far
		// edge.
		for i := 0; i < g.n; i++ {
			c := i*g.n + g.n - 1 // Blue's far edge, the right column
			if me == red {
				c = i // Red's, the top row
			}
			if occupied>>c&1 != 0 {
				continue
			}
			parent.cars[me] = q.cars[me] | 1<<c
			_, h := g.hash(parent)
			dst = append(dst, h)
		}
	}
	return dst
}

// cellName is "a1" for the bottom left cell.
func (g *Game) cellName(c int) string {
	return fmt.Sprintf("%c%d", 'a'+c%g.n, g.n-c/g.n)
}

// MoveNames names the moves of p in the order of Moves: "a2-b2", or
// "c2-off" for a car driving off.
func (g *Game) MoveNames(t tiergame.Tier, p tiergame.Position) []string {
	q := g.unhash(t, p)
	me := q.mover
	if q.cars[1-me] == 0 {
		return nil
	}
	var names []string
	occupied := q.cars[blue] | q.cars[red]
	for s := q.cars[me]; s != 0; s &= s - 1 {
		c := bits.TrailingZeros64(s)
		for k := range steps[me] {
			switch d := g.dest(me, c, k); {
			case d == -1:
				names = append(names, g.cellName(c)+"-off")
			case d >= 0 && occupied>>d&1 == 0:
				names = append(names, g.cellName(c)+"-"+g.cellName(d))
			}
		}
	}
	return names
}

// sideChars are the text form's letters of the sides.
const sideChars = "br"

// Format returns the text form of a position: "b:b../b../.rr".
func (g *Game) Format(t tiergame.Tier, p tiergame.Position) string {
	q := g.unhash(t, p)
	var sb strings.Builder
	sb.WriteByte(sideChars[q.mover])
	sb.WriteByte(':')
	for c := 0; c < g.cells; c++ {
		if c > 0 && c%g.n == 0 {
			sb.WriteByte('/')
		}
		switch {
		case q.cars[blue]>>c&1 != 0:
			sb.WriteByte('b')
		case q.cars[red]>>c&1 != 0:
			sb.WriteByte('r')
		default:
			sb.WriteByte('.')
		}
	}
	return sb.String()
}

// Parse reads the text form of a position. Any placement of at most n-1
// cars a side is a position, with either side to move, but for a finished
// game: a side with no car left has won, and cannot be to move.
func (g *Game) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	side, board, ok := strings.Cut(s, ":")
	var q pos
	switch side {
	case "b":
		q.mover = blue
	case "r":
		q.mover = red
	default:
		ok = false
	}
	rows := strings.Split(board, "/")
	if !ok || len(rows) != g.n {
		return 0, 0, fmt.Errorf("dodgem: %q: want the side to move (b or r), ':', and %d rows separated by '/'", s, g.n)
	}
	for i, row := range rows {
		if len(row) != g.n {
			return 0, 0, fmt.Errorf("dodgem: %q: row %d has %d cells, want %d", s, i+1, len(row), g.n)
		}
		for j := range len(row) {
			c := i*g.n + j
			switch row[j] {
			case 'b':
				q.cars[blue] |= 1 << c
			case 'r':
				q.cars[red] |= 1 << c
			case '.':
			default:
				return 0, 0, fmt.Errorf("dodgem: %q: cell %q is not b, r or '.'", s, row[j])
			}
		}
	}
	b, r := bits.OnesCount64(q.cars[blue]), bits.OnesCount64(q.cars[red])
	switch {
	case b >= g.n || r >= g.n:
		return 0, 0, fmt.Errorf("dodgem: %q: %d blue and %d red cars; a side has at most %d", s, b, r, g.n-1)
	case q.cars[1-q.mover] == 0 && q.cars[q.mover] == 0:
		return 0, 0, fmt.Errorf("dodgem: %q: no cars on the board", s)
	case q.cars[q.mover] == 0:
		return 0, 0, fmt.Errorf("dodgem: %q: the side to move has no car left: it has won, and the game is over", s)
	}
	t, p := g.hash(q)
	return t, p, nil
}
