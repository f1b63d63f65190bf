// Package bearoff is the backgammon bearoff as a tier game with chance:
// each side has up to C checkers on the P points of its home board (options
// checkers, default 15, and points, default 6), the side on roll rolls two
// dice and plays them by the rules of backgammon, and the first side to
// bear off all its checkers wins. A position's value is the probability
// that the side on roll wins (cubeless, gammons not counted), the side on
// roll choosing for each of the 21 rolls the play that leaves the opponent
// the smallest chance: exactly what gnubg's two-sided bearoff databases
// hold.
//
// # Positions
//
// A side is identified by gnubg's one-sided bearoff index (Index), so a
// position is a pair (i, j): i the side on roll, j its opponent, gnubg's
// two-sided index i*N+j with N = C(C+P, P). Every pair is a position
// (Exhaustive), including those no game reaches, as in gnubg's databases:
// a side on roll without checkers has won, a side whose opponent has none
// has lost.
//
// # Tiers
//
// The tier of (i, j) is its total pip count pips(i)+pips(j). A play moves
// the mover's checkers down or off, so it lowers the mover's pip count by 1
// to 24 and leaves the opponent's alone: every move goes from tier T to
// one of T-24..T-1, and the tiers are acyclic. Within a tier, positions are
// grouped by the mover's pip count a (ascending), and the group (a, b =
// T-a) is laid out by (opponent, mover): the position of (i, j) is the
// group's start plus rank(j)*count(a) + rank(i), where rank is an index's
// rank among the boards of its pip count (in index order) and count(a)
// their number. So the children (j, i') of a mover i against consecutive
// opponents j are consecutive positions of the child tier: one side's
// move lists, computed once, serve every opponent, and a child look-up
// reads memory in order (see SolveChance).
//
// # The cube
//
// With option cube=money each position also holds the cubeful money
// equities of its three cube states (cube.go, tiergame.Planes), and
// MatchEval solves match play at a score on demand (match.go); cube
// decisions follow gnubg's rules (cubeaction.go).
//
// # Text form
//
// A position's text form is its gnubg Position ID (the side on roll as
// gnubg reads it; points numbered from each side's own home board).
// Moves are named as gnubg writes them ("6/off 5/3").
package bearoff

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
	"github.com/tiersolve/tiersolve/gamecodecs/xg"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Option limits and defaults.
const (
	DefaultCheckers = 15
	MaxCheckers     = 15
	DefaultPoints   = MaxPoints
)

// Errors of Parse, for callers that sort positions out with errors.Is.
var (
	// ErrNotBearoff marks a backgammon position that is not a bearoff:
	// a checker on the bar or outside its side's home board.
	ErrNotBearoff = errors.New("not a bearoff position")
	// ErrVariant marks a bearoff position with more checkers, or checkers
	// on higher points, than the variant has.
	ErrVariant = errors.New("bearoff position outside this variant")
)

// Game is the bearoff of one variant. It is immutable (its move lists are
// computed on first use) and safe for concurrent use.
type Game struct {
	points, checkers int
	maxPip           int
	sides            *oneSided
	n                int  // one-sided positions
	money            bool // option cube=money: the cubeful money planes (cube.go)

	// tiers[T].start[a-tiers[T].aLo] is the first position of the group of
	// mover pip count a; the last entry is the tier's size.
	tiers []tierInfo

	movesOnce sync.Once
	// lookups counts the boards whose moves were generated one at a time
	// before the move lists were built (see listsOrNil).
	lookups atomic.Int64
}

type tierInfo struct {
	aLo   int
	start []uint64
}

// New returns the variant described by options checkers (1..15), points
// (1..6) and cube (CubeNone, the default, or CubeMoney).
func New(o tiergame.Options) (tiergame.Game, error) {
	if err := o.Check("checkers", "points", "cube"); err != nil {
		return nil, fmt.Errorf("bearoff: %w", err)
	}
	c, err := o.Int("checkers", DefaultCheckers, 1, MaxCheckers)
	if err != nil {
		return nil, fmt.Errorf("bearoff: %w", err)
	}
	p, err := o.Int("points", DefaultPoints, 1, MaxPoints)
	if err != nil {
		return nil, fmt.Errorf("bearoff: %w", err)
	}
	cube, ok := o["cube"]
	if !ok {
		cube = CubeNone
	}
	return NewVariant(c, p, cube)
}

// NewGame returns the bearoff of up to checkers checkers on points points,
// cubeless.
func NewGame(checkers, points int) (*Game, error) { return NewVariant(checkers, points, CubeNone) }

// NewVariant returns the bearoff of up to checkers checkers on points
// points, with the cubeful money planes if cube is CubeMoney.
func NewVariant(checkers, points int, cube string) (*Game, error) {
	if checkers < 1 || checkers > MaxCheckers || points < 1 || points > MaxPoints {
		return nil, fmt.Errorf("bearoff: %d checkers on %d points: want 1..%d checkers on 1..%d points", checkers, points, MaxCheckers, MaxPoints)
	}
	if cube != CubeNone && cube != CubeMoney {
		return nil, fmt.Errorf("bearoff: option cube=%q: want %s (cubeless, the default) or %s (also the cubeful money equities)", cube, CubeNone, CubeMoney)
	}
	sides, err := newOneSided(points, checkers)
	if err != nil {
		return nil, err
	}
	g := &Game{points: points, checkers: checkers, maxPip: checkers * points, sides: sides, n: len(sides.boards), money: cube == CubeMoney}
	g.tiers = make([]tierInfo, 2*g.maxPip+1)
	for T := range g.tiers {
		ti := &g.tiers[T]
		ti.aLo = max(0, T-g.maxPip)
		ti.start = []uint64{0}
		for a := ti.aLo; a <= min(T, g.maxPip); a++ {
			ti.start = append(ti.start, ti.start[len(ti.start)-1]+g.count(a)*g.count(T-a))
		}
	}
	return g, nil
}

// count is the number of boards with pip count a.
func (g *Game) count(a int) uint64 { return uint64(len(g.sides.byPip[a])) }

// Checkers returns the most checkers a side has.
func (g *Game) Checkers() int { return g.checkers }

// Points returns the number of points a side's checkers may stand on.
func (g *Game) Points() int { return g.points }

// Sides returns N, the number of one-sided positions: gnubg indices are
// 0..N-1 and two-sided ones 0..N*N-1.
func (g *Game) Sides() int { return g.n }

// Name is "bearoff".
func (g *Game) Name() string { return "bearoff" }

// Option is "checkers=C,points=P", and ",cube=money" with the money planes.
func (g *Game) Option() string {
	o := fmt.Sprintf("checkers=%d,points=%d", g.checkers, g.points)
	if g.money {
		o += ",cube=" + CubeMoney
	}
	return o
}

// Exhaustive reports that every pair of sides is a position to solve.
func (g *Game) Exhaustive() bool { return true }

// Start is both sides with every checker on the highest point.
func (g *Game) Start() (tiergame.Tier, tiergame.Position) {
	var b Board
	b[g.points-1] = uint8(g.checkers)
	i := Index(b, g.points)
	return g.Position(i, i)
}

// TierSize is the number of pairs of sides with t pips in all.
func (g *Game) TierSize(t tiergame.Tier) uint64 {
	if int(t) >= len(g.tiers) {
		return 0
	}
	s := g.tiers[t].start
	return s[len(s)-1]
}

// ChildTiers lists the 24 tiers below t (fewer near the bottom).
func (g *Game) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	var out []tiergame.Tier
	for c := int(t) - 1; c >= max(0, int(t)-24); c-- {
		out = append(out, tiergame.Tier(c))
	}
	return out
}

// TierName is "42 pips".
func (g *Game) TierName(t tiergame.Tier) string { return fmt.Sprintf("%d pips", t) }

// Position returns the tier and position of mover i against opponent j
// (gnubg one-sided indices).
func (g *Game) Position(i, j int) (tiergame.Tier, tiergame.Position) {
	s := g.sides
	a, b := int(s.pips[i]), int(s.pips[j])
	t := a + b
	ti := &g.tiers[t]
	return tiergame.Tier(t), tiergame.Position(ti.start[a-ti.aLo] + uint64(s.rank[j])*g.count(a) + uint64(s.rank[i]))
}

// SidesOf returns the gnubg one-sided indices of the mover (i) and its
// opponent (j) at position p of tier t.
func (g *Game) SidesOf(t tiergame.Tier, p tiergame.Position) (i, j int) {
	ti := &g.tiers[t]
	k := sort.Search(len(ti.start)-1, func(k int) bool { return ti.start[k+1] > uint64(p) }) // the group of p
	a := ti.aLo + k
	off := uint64(p) - ti.start[k]
	ca := g.count(a)
	return int(g.sides.byPip[a][off%ca]), int(g.sides.byPip[int(t)-a][off/ca])
}

// Board returns the board of one-sided index i.
func (g *Game) Board(i int) Board { return g.sides.boards[i] }

// Format returns the gnubg Position ID of position p.
func (g *Game) Format(t tiergame.Tier, p tiergame.Position) string {
	i, j := g.SidesOf(t, p)
	var b gnubgid.Board
	for k := 0; k < g.points; k++ {
		b[0][k] = int(g.sides.boards[j][k])
		b[1][k] = int(g.sides.boards[i][k])
	}
	id, err := gnubgid.EncodePosition(b)
	if err != nil { // cannot happen: a bearoff has at most 15 checkers a side and no contact
		panic(fmt.Sprintf("bearoff: encoding tier %d position %d: %v", t, p, err))
	}
	return id
}

// Parse reads a gnubg Position ID. It fails with ErrNotBearoff for a
// position with a checker on the bar or outside its home board, and with
// ErrVariant for one with more checkers or higher points than the variant.
func (g *Game) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	b, err := gnubgid.DecodePosition(s)
	if err != nil {
		return 0, 0, err
	}
	i, j, err := g.FromBoard(b)
	if err != nil {
		return 0, 0, fmt.Errorf("position ID %s: %w", s, err)
	}
	t, p := g.Position(i, j)
	return t, p, nil
}

// FromBoard returns the one-sided indices of the side on roll (b[1]) and
// its opponent (b[0]) of a gnubg board.
func (g *Game) FromBoard(b gnubgid.Board) (i, j int, err error) {
	for side := range b { // a bearoff at all?
		for slot := MaxPoints; slot < len(b[side]); slot++ {
			if b[side][slot] != 0 {
				return 0, 0, fmt.Errorf("%w: a checker on %s", ErrNotBearoff, slotName(slot))
			}
		}
	}
	var idx [2]int
	for side := range b {
		var bd Board
		for slot, n := range b[side][:MaxPoints] {
			switch {
			case n < 0 || n > MaxCheckers:
				return 0, 0, fmt.Errorf("bearoff: %d checkers on a point", n)
			case n > 0 && slot >= g.points:
				return 0, 0, fmt.Errorf("%w: a checker on point %d, the variant has %d", ErrVariant, slot+1, g.points)
			}
			bd[slot] = uint8(n)
		}
		if c := bd.Checkers(); c > g.checkers {
			return 0, 0, fmt.Errorf("%w: %d checkers on one side, the variant has %d", ErrVariant, c, g.checkers)
		}
		idx[side] = Index(bd, g.points)
	}
	return idx[1], idx[0], nil
}

func slotName(slot int) string {
	if slot == 24 {
		return "the bar"
	}
	return fmt.Sprintf("point %d", slot+1)
}

// Outcomes returns the 21 rolls, "11", "21", "22", ..., "66", doubles
// with weight 1 and the others 2.
func (g *Game) Outcomes() []tiergame.Outcome {
	out := make([]tiergame.Outcome, len(rolls))
	for k, r := range rolls {
		out[k] = tiergame.Outcome{Name: fmt.Sprintf("%d%d", r[0], r[1]), Weight: rollWeight(k)}
	}
	return out
}

func rollWeight(k int) uint32 {
	if rolls[k][0] == rolls[k][1] {
		return 1
	}
	return 2
}

// Roll returns the outcome index of the roll d0-d1 (either order).
func Roll(d0, d1 int) (int, error) {
	if d0 < 1 || d0 > 6 || d1 < 1 || d1 > 6 {
		return 0, fmt.Errorf("bearoff: no roll %d-%d", d0, d1)
	}
	return rollIndex[d0][d1], nil
}

// primitive returns the value of a position that has no moves.
func primitive(i, j int) tiergame.Value {
	switch {
	case i == 0:
		return tiergame.Win // the side on roll has borne off (never reached in play)
	case j == 0:
		return tiergame.Lose
	}
	return tiergame.Undecided
}

// listsAfter is how many boards chanceMoves generates the moves of one at
// a time before it builds every board's move lists (a second or two for
// 15 checkers): a few queries stay quick, a solver pays once.
const listsAfter = 1024

// listsOrNil returns the move lists, building them once listsAfter boards
// have been asked for; nil before.
func (g *Game) listsOrNil() *oneSided {
	if g.lookups.Load() < listsAfter && g.lookups.Add(1) <= listsAfter {
		return nil
	}
	return g.moveLists()
}

// boardMoves appends to dst the boards roll k leaves on board i,
// ascending, without the move lists.
func (g *Game) boardMoves(i, k int, lv *levels, dst []uint32) []uint32 {
	n := len(dst)
	for _, key := range lv.results(g.sides.boards[i], g.points, rolls[k]) {
		dst = append(dst, uint32(Index(unpack(key), g.points)))
	}
	slices.Sort(dst[n:])
	return dst
}

// moveLists returns the one-sided move lists, computing them once.
func (g *Game) moveLists() *oneSided {
	g.movesOnce.Do(g.sides.computeMoves)
	return g.sides
}

// Moves lists the children of every roll.
func (g *Game) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	v, dst, _ := g.chanceMoves(t, p, dst, nil, false)
	return v, dst
}

// ChanceMoves lists the children of each roll, in the order of Outcomes.
func (g *Game) ChanceMoves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child, ends []int) (tiergame.Value, []tiergame.Child, []int) {
	return g.chanceMoves(t, p, dst, ends, true)
}

// chanceMoves appends the children of every roll to dst, and if grouped
// the end of each roll's children to ends.
func (g *Game) chanceMoves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child, ends []int, grouped bool) (tiergame.Value, []tiergame.Child, []int) {
	i, j := g.SidesOf(t, p)
	if v := primitive(i, j); v != tiergame.Undecided {
		return v, dst, ends
	}
	s := g.listsOrNil()
	var lv levels
	var buf []uint32
	for k := range rolls {
		var tos []uint32
		if s != nil {
			tos = s.moves(i, k)
		} else {
			buf = g.boardMoves(i, k, &lv, buf[:0])
			tos = buf
		}
		for _, to := range tos {
			ct, cp := g.Position(j, int(to))
			dst = append(dst, tiergame.Child{Tier: ct, Pos: cp})
		}
		if grouped {
			ends = append(ends, len(dst))
		}
	}
	return tiergame.Undecided, dst, ends
}

// MoveNames names the children of Moves: each play preceded by its roll
// ("21 6/5 6/4").
func (g *Game) MoveNames(t tiergame.Tier, p tiergame.Position) []string {
	var names []string
	for k, o := range g.Outcomes() {
		for _, n := range g.ChanceMoveNames(t, p, k) {
			names = append(names, o.Name+" "+n)
		}
	}
	return names
}

// ChanceMoveNames names the plays of roll k as gnubg does ("6/off 5/3").
func (g *Game) ChanceMoveNames(t tiergame.Tier, p tiergame.Position, k int) []string {
	i, j := g.SidesOf(t, p)
	if primitive(i, j) != tiergame.Undecided {
		return nil
	}
	var names []string
	for _, pl := range g.Plays(i, k) {
		names = append(names, pl.Name)
	}
	return names
}

// NamedPlay is a play of a roll: the mover's index after it, and its name.
type NamedPlay struct {
	To   int
	Name string
}

// Plays returns the plays of roll k for mover i, in the order of
// ChanceMoves, named as gnubg names them.
func (g *Game) Plays(i, k int) []NamedPlay {
	b := g.sides.boards[i]
	ps := plays(b, g.points, rolls[k])
	out := make([]NamedPlay, len(ps))
	for n, pl := range ps {
		out[n] = NamedPlay{To: Index(pl.After, g.points), Name: moveName(b, pl.Steps)}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].To < out[b].To })
	return out
}

// moveName formats steps played from b the way gnubg does.
func moveName(b Board, steps []step) string {
	var pos xg.Position
	for k, n := range b {
		pos[k+1] = int8(n)
	}
	xs := make([]xg.Step, len(steps))
	for k, s := range steps {
		xs[k] = xg.Step{From: s.From, To: s.To}
	}
	return xg.FormatMove(pos, xs)
}

// Key returns gnubg's two-sided index of mover i against opponent j,
// i*N+j, by which its databases are laid out.
func (g *Game) Key(i, j int) uint64 { return uint64(i)*uint64(g.n) + uint64(j) }
