package bearoff

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"sync"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
)

// Match play: the exact chance of winning the match from a bearoff
// position, for every cube state, at one score.
//
// At a score the game's result is worth, to each player, the chance of
// winning the match from the score it leads to, which a match equity
// table gives (package met, gnubg's tables): a game won with the cube at
// value c moves the winner c points on. A MatchEval solves, by the exact
// recursion over rolls, plays, cube values and owners, every position
// between two sets of boards (those reachable from the boards asked for),
// both players on roll, children first by total pip count: the player on
// roll decides on the cube first (no double, or double to twice the value,
// the opponent taking, to own the cube, or passing, giving up the game at
// the current value), then rolls and plays the play that leaves the
// opponent, on roll in the same cube state, the smallest chance. The
// terminal values come from the table, so nothing but the table is
// approximate, unlike gnubg, which estimates the cube's efficiency in a
// bearoff from its money equities.
//
// The rules: a player may double when they own the cube or it is
// centered, the game is not the Crawford game, and the cube's value is
// below the points they need (gnubg's rule: a double beyond is of no use
// to them). After a game at a score where a player needed 1 point, the
// next game is post-Crawford; the game in which a player first needs 1
// point is the Crawford game, in which nobody doubles. No gammons, as in
// the money planes.

// Score is a match's score before a game: the points each player still
// needs (away), gnubg's player 0 and player 1, and whether the game is the
// Crawford game.
type Score struct {
	Length   int    // points the match is played to
	Away     [2]int // points player 0 and player 1 need, 1..Length
	Crawford bool   // the Crawford game: nobody may double
}

// ErrScore marks a score that no match of its length reaches.
var ErrScore = errors.New("bad match score")

// Check reports whether the score can occur in a match of its length.
func (s Score) Check() error {
	switch {
	case s.Length < 1 || s.Length > met.MaxLength:
		return fmt.Errorf("%w: a %d-point match (1 to %d)", ErrScore, s.Length, met.MaxLength)
	case s.Away[0] < 1 || s.Away[0] > s.Length || s.Away[1] < 1 || s.Away[1] > s.Length:
		return fmt.Errorf("%w: %d-away, %d-away in a %d-point match", ErrScore, s.Away[0], s.Away[1], s.Length)
	case s.Crawford && (s.Away[0] == 1) == (s.Away[1] == 1):
		return fmt.Errorf("%w: the Crawford game is played when one player (not both) needs 1 point", ErrScore)
	case s.postCrawford() && s.Length > 1 && max(s.Away[0], s.Away[1]) == s.Length:
		return fmt.Errorf("%w: %d-away, %d-away in a %d-point match is the Crawford game (a post-Crawford game comes after the trailer has won one)", ErrScore, s.Away[0], s.Away[1], s.Length)
	}
	return nil
}

// postCrawford reports whether the game is post-Crawford.
func (s Score) postCrawford() bool { return !s.Crawford && (s.Away[0] == 1 || s.Away[1] == 1) }

// String is "5-away 3-away of 7" with ", Crawford" or ", post-Crawford".
func (s Score) String() string {
	out := fmt.Sprintf("%d-away %d-away of %d", s.Away[0], s.Away[1], s.Length)
	switch {
	case s.Crawford:
		out += ", Crawford"
	case s.postCrawford():
		out += ", post-Crawford"
	}
	return out
}

// ParseScore reads "A-B", the points the player on roll (player 0) and
// the opponent need, in a match of length points.
func ParseScore(text string, length int) (Score, error) {
	as, bs, ok := strings.Cut(strings.TrimSpace(text), "-")
	a, err1 := strconv.Atoi(as)
	b, err2 := strconv.Atoi(bs)
	if !ok || err1 != nil || err2 != nil || strings.HasPrefix(bs, "+") || strings.HasPrefix(as, "+") {
		return Score{}, fmt.Errorf("%w: %q: want A-B, the points the player on roll and the opponent need (\"5-3\")", ErrScore, text)
	}
	s := Score{Length: length, Away: [2]int{a, b}}
	return s, s.Check()
}

// MatchCube is a cube in match play: its value and owner (-1 centered,
// else the player, 0 or 1, who owns it).
type MatchCube struct {
	Value int
	Owner int
}

// Centered is the cube at 1 in the middle, as a game starts.
var centered = MatchCube{Value: 1, Owner: -1}

// MaxMatchMemory is the default bound of a MatchEval's memory.
const MaxMatchMemory = 4 << 30

// MatchEval holds the match winning chances at one score of every
// position between two sets of boards, both players on roll, in every
// cube state the score allows.
type MatchEval struct {
	g     *Game
	score Score
	// states are the cube states reachable from a centered cube at this
	// score; a cube at least as high as what both need is one state (the
	// game decides the match).
	states []MatchCube
	dead   int // the index of that state, or -1
	// Per player on roll p and state s: whether p may double, the state
	// after p doubles, and p's chance after winning or losing the game.
	canDouble [2][]bool
	doubled   [2][]int
	win, lose [2][]mwc
	sides     [2]coneSide
	// vals[p] holds, player p on roll, len(states) values a position,
	// after p's cube decision (the values rolling without doubling are
	// derived from the children's when asked for: Decision): group (a, b)
	// of mover pip count a and opponent pip count b starts at
	// start[p][a][b], and (m, o) is at rank(o)*count(a) + rank(m).
	vals  [2][]mwc
	start [2][][]int
}

// coneSide is a set of one player's boards closed under their plays,
// ranked by pip count.
type coneSide struct {
	byPip [][]uint32 // boards of each pip count, ascending
	rank  []int32    // rank of a board among those of its pip count; -1 outside
}

func (c *coneSide) count(a int) int {
	if a >= len(c.byPip) {
		return 0
	}
	return len(c.byPip[a])
}

// MatchOptions say what a MatchEval solves.
type MatchOptions struct {
	Table *met.Table // the match equity table
	Score Score
	// Boards[p] are player p's boards (one-sided indices): every board
	// reachable from one of them is solved, against every one of the
	// opponent's.
	Boards [2][]int
	// Cubes are cube states to hold besides those a centered cube leads
	// to at the score (and those they lead to), such as a cube at 1 owned
	// by a player.
	Cubes []MatchCube
	// MaxMemory bounds the memory of the values (0: MaxMatchMemory).
	MaxMemory uint64
}

// NewMatchEval solves, at a score, the positions o names, both players on
// roll, in every cube state from a centered cube and o.Cubes. It fails
// with ErrTooLarge if that would take more than o.MaxMemory bytes.
func (g *Game) NewMatchEval(ctx context.Context, o MatchOptions) (*MatchEval, error) {
	s, t := o.Score, o.Table
	if err := s.Check(); err != nil {
		return nil, err
	}
	if s.Length > t.Length {
		return nil, fmt.Errorf("%w: a %d-point match, the table %q goes to %d", met.ErrLength, s.Length, t.Name, t.Length)
	}
	e := &MatchEval{g: g, score: s, dead: -1}
	if err := e.cubeStates(t, o.Cubes); err != nil {
		return nil, err
	}
	for p, bs := range o.Boards {
		for _, b := range bs {
			if b < 0 || b >= g.n {
				return nil, fmt.Errorf("bearoff: board %d outside the variant's %d", b, g.n)
			}
		}
		e.sides[p] = g.cone(bs)
	}
	size := e.size()
	maxMemory := o.MaxMemory
	if maxMemory == 0 {
		maxMemory = MaxMatchMemory
	}
	if need := 2 * size * uint64(len(e.states)) * 4; need > maxMemory { // an mwc a state and position
		return nil, fmt.Errorf("%w: the match winning chances of %d positions in %d cube states need %.1f GiB, more than %.1f GiB",
			ErrTooLarge, 2*size, len(e.states), float64(need)/(1<<30), float64(maxMemory)/(1<<30))
	}
	e.layout()
	if err := e.solve(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// ErrTooLarge marks a match evaluation that would not fit its memory.
var ErrTooLarge = errors.New("match evaluation too large")

// cone returns the boards reachable from any of from by plays, from
// included.
func (g *Game) cone(from []int) coneSide {
	s := g.moveLists()
	in := make([]bool, g.n)
	stack := []int{}
	for _, b := range from {
		if !in[b] {
			in[b] = true
			stack = append(stack, b)
		}
	}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k := range rolls {
			for _, c := range s.moves(b, k) {
				if !in[c] {
					in[c] = true
					stack = append(stack, int(c))
				}
			}
		}
	}
	c := coneSide{rank: make([]int32, g.n)}
	for b, ok := range in {
		c.rank[b] = -1
		if !ok {
			continue
		}
		p := int(s.pips[b])
		for len(c.byPip) <= p {
			c.byPip = append(c.byPip, nil)
		}
		c.rank[b] = int32(len(c.byPip[p]))
		c.byPip[p] = append(c.byPip[p], uint32(b))
	}
	return c
}

// size is the number of positions with a given player on roll.
func (e *MatchEval) size() uint64 {
	var n [2]uint64
	for p := range e.sides {
		for _, bs := range e.sides[p].byPip {
			n[p] += uint64(len(bs))
		}
	}
	return n[0] * n[1]
}

// cubeStates lists the cube states from a centered cube and from extra,
// and the values of winning and losing in each.
func (e *MatchEval) cubeStates(t *met.Table, extra []MatchCube) error {
	s := e.score
	index := map[MatchCube]int{}
	var add func(c MatchCube) int
	add = func(c MatchCube) int {
		if c.Value >= s.Away[0] && c.Value >= s.Away[1] {
			c.Owner = -1 // the game decides the match: the owner matters no more
			if e.dead >= 0 {
				return e.dead
			}
		}
		if k, ok := index[c]; ok {
			return k
		}
		k := len(e.states)
		index[c] = k
		e.states = append(e.states, c)
		if c.Value >= s.Away[0] && c.Value >= s.Away[1] {
			e.dead = k
		}
		for p := range 2 {
			e.canDouble[p] = append(e.canDouble[p], false)
			e.doubled[p] = append(e.doubled[p], -1)
		}
		for p := range 2 {
			if !s.Crawford && (c.Owner == -1 || c.Owner == p) && c.Value < s.Away[p] {
				e.canDouble[p][k] = true
				e.doubled[p][k] = add(MatchCube{Value: 2 * c.Value, Owner: 1 - p})
			}
		}
		return k
	}
	add(centered)
	for _, c := range extra {
		if c.Value < 1 || c.Value&(c.Value-1) != 0 || c.Owner < -1 || c.Owner > 1 || c.Owner == -1 && c.Value != 1 {
			return fmt.Errorf("%w: a cube at %d owned by %s", ErrScore, c.Value, ownerName(c.Owner))
		}
		if c.Value > 1<<20 {
			c.Value = 1 << 20 // beyond any match: the game decides it
		}
		add(c)
	}
	post := s.Crawford || s.postCrawford() // the next game is post-Crawford
	for p := range 2 {
		e.win[p] = make([]mwc, len(e.states))
		e.lose[p] = make([]mwc, len(e.states))
		for k, c := range e.states {
			w, err := e.chance(t, p, p, c.Value, post)
			if err != nil {
				return err
			}
			l, err := e.chance(t, p, 1-p, c.Value, post)
			if err != nil {
				return err
			}
			e.win[p][k], e.lose[p][k] = toMWC(w), toMWC(l)
		}
	}
	return nil
}

// chance is player p's chance to win the match after player winner wins a
// game worth points.
func (e *MatchEval) chance(t *met.Table, p, winner, points int, post bool) (float64, error) {
	away := e.score.Away
	away[winner] -= points
	w, err := t.Win(away[0], away[1], post)
	if p == 1 {
		w = 1 - w
	}
	return w, err
}

// layout places the groups of both players on roll.
func (e *MatchEval) layout() {
	k := len(e.states)
	for p := range 2 {
		m, o := &e.sides[p], &e.sides[1-p]
		e.start[p] = make([][]int, len(m.byPip))
		n := 0
		for a := range m.byPip {
			e.start[p][a] = make([]int, len(o.byPip))
			for b := range o.byPip {
				e.start[p][a][b] = n
				n += m.count(a) * o.count(b)
			}
		}
		e.vals[p] = make([]mwc, k*n)
	}
}

// index is the position of mover board m against opponent board o,
// player p on roll, or -1 outside the sets.
func (e *MatchEval) index(p, m, o int) int {
	mc, oc := &e.sides[p], &e.sides[1-p]
	if m < 0 || m >= len(mc.rank) || o < 0 || o >= len(oc.rank) || mc.rank[m] < 0 || oc.rank[o] < 0 {
		return -1
	}
	a, b := int(e.g.sides.pips[m]), int(e.g.sides.pips[o])
	return e.start[p][a][b] + int(oc.rank[o])*mc.count(a) + int(mc.rank[m])
}

// solve computes every position, tier by tier of total pip count, the
// groups of a tier (both players on roll) cut among the cores.
func (e *MatchEval) solve(ctx context.Context) error {
	maxT := len(e.sides[0].byPip) + len(e.sides[1].byPip) - 2
	workers := runtime.GOMAXPROCS(0)
	scratch := make([]matchScratch, workers)
	type job struct{ p, a, b, lo, hi int }
	for T := 0; T <= maxT; T++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var jobs []job
		for p := range 2 {
			m, o := &e.sides[p], &e.sides[1-p]
			for a := max(0, T-len(o.byPip)+1); a <= min(T, len(m.byPip)-1); a++ {
				ca, cb := m.count(a), o.count(T-a)
				if ca == 0 || cb == 0 {
					continue
				}
				parts := min(ca, max(1, ca*cb/(1<<14)))
				for x := range parts {
					jobs = append(jobs, job{p, a, T - a, x * ca / parts, (x + 1) * ca / parts})
				}
			}
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := range min(workers, len(jobs)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := next.Add(1) - 1; n < int64(len(jobs)); n = next.Add(1) - 1 {
					j := jobs[n]
					e.group(&scratch[w], j.p, j.a, j.b, j.lo, j.hi)
				}
			}()
		}
		wg.Wait()
	}
	return nil
}

// matchScratch is a worker's scratch space: values against every
// opponent of a pip count.
type matchScratch struct {
	nd, best []mwc
	acc      []uint64
}

// group computes movers of ranks [lo, hi) of group (a, b), player p on
// roll, against every opponent of pip count b: their values after their
// own cube decision (after).
func (e *MatchEval) group(sc *matchScratch, p, a, b, lo, hi int) {
	k := len(e.states)
	m, o := &e.sides[p], &e.sides[1-p]
	ca, cb := m.count(a), o.count(b)
	out := e.vals[p]
	base := e.start[p][a][b]
	sc.nd, sc.best, sc.acc = grow(sc.nd, k*cb), grow(sc.best, k*cb), grow(sc.acc, k*cb)
	nd, best := sc.nd, sc.best
	put := func(ri int) { // nd: k values for each opponent
		for rj := range cb {
			e.after(p, nd[k*rj:k*(rj+1)], out[k*(base+rj*ca+ri):k*(base+rj*ca+ri+1)])
		}
	}
	switch {
	case a == 0 || b == 0: // a side has no checkers: the mover won or lost
		v := e.win[p]
		if a != 0 {
			v = e.lose[p]
		}
		for x := range nd {
			nd[x] = v[x%k]
		}
		for ri := lo; ri < hi; ri++ {
			put(ri)
		}
		return
	}
	for ri := lo; ri < hi; ri++ {
		e.noDouble(p, int(m.byPip[a][ri]), b, nd, best, sc.acc)
		put(ri)
	}
}

// noDouble computes into nd the values of mover board m, player p on roll,
// rolling without doubling, against every opponent board of pip count b
// (len(states) values each), from the values after their cube decision
// of the children; best and acc are scratch space of nd's size.
func (e *MatchEval) noDouble(p, m, b int, nd, best []mwc, acc []uint64) {
	k := len(e.states)
	q := 1 - p
	cb := e.sides[q].count(b)
	s := e.g.moveLists()
	vals, starts, rank, pips := e.vals[q], e.start[q][b], e.sides[p].rank, s.pips
	clear(acc)
	row := func(c uint32) []mwc {
		return vals[k*(starts[pips[c]]+int(rank[c])*cb):][:len(nd)]
	}
	for roll := range rolls {
		// The children (o, c), o on roll, for every o of pip count b:
		// consecutive in q's group (b, pips(c)).
		ms := s.moves(m, roll)
		w := uint64(rollWeight(roll))
		if len(ms) == 1 {
			addTimes(acc, row(ms[0]), w)
			continue
		}
		copy(best, row(ms[0]))
		for _, c := range ms[1 : len(ms)-1] {
			minInto(best, row(c))
		}
		addMinTimes(acc, best, row(ms[len(ms)-1]), w)
	}
	for x, v := range acc {
		nd[x] = meanLeft(v)
	}
}

// mwc is a match winning chance in fixed point, mwcOne being certainty,
// as a tiergame.Prob: minima and sums in integers are exact, deterministic
// and quick (a float64 minimum handles NaNs and signed zeros), four bytes
// halve the memory read (the evaluation is bound by it), and 31 bits keep
// far more than the tables' five or six decimals, rounded to nearest at
// each level as tiergame.ChanceValue rounds.
type mwc = uint32

const mwcOne mwc = 1 << 31

// toMWC returns the fixed point of a chance f in [0, 1].
func toMWC(f float64) mwc { return mwc(math.Round(f * float64(mwcOne))) }

// mwcFloat returns v as a float64.
func mwcFloat(v mwc) float64 { return float64(v) / float64(mwcOne) }

// meanLeft is the mover's chance from acc, the weighted sum over the
// rolls of the smallest chance a play leaves the opponent: one minus its
// mean, rounded to nearest.
func meanLeft(acc uint64) mwc { return mwcOne - mwc((acc+totalWeight/2)/totalWeight) }

// after writes to dst the values of a position, player p on roll, after
// their cube decision, from nd, its values when they roll without
// doubling: where p may double, the better of no double and a double, the
// opponent choosing between take and pass.
func (e *MatchEval) after(p int, nd, dst []mwc) {
	for st, v := range nd {
		if e.canDouble[p][st] {
			v = max(v, min(nd[e.doubled[p][st]], e.win[p][st]))
		}
		dst[st] = v
	}
}

// Score returns the score the evaluation is at.
func (e *MatchEval) Score() Score { return e.score }

// state returns the index of cube c, an error if the score does not allow
// it (a cube no play of the match reaches, or owned by a player who would
// not have taken it).
func (e *MatchEval) state(c MatchCube) (int, error) {
	if c.Value >= e.score.Away[0] && c.Value >= e.score.Away[1] && e.dead >= 0 {
		return e.dead, nil
	}
	for k, s := range e.states {
		if s == c {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w: a cube at %d owned by %s does not occur at %v", ErrScore, c.Value, ownerName(c.Owner), e.score)
}

func ownerName(o int) string {
	if o < 0 {
		return "nobody"
	}
	return "player " + strconv.Itoa(o)
}

// lookup returns the values after the cube decision (one per state) of
// mover board m against opponent board o, player p on roll.
func (e *MatchEval) lookup(p, m, o int) ([]mwc, error) {
	i := e.index(p, m, o)
	if i < 0 {
		return nil, fmt.Errorf("bearoff: position outside the match evaluation (boards %d, %d)", m, o)
	}
	k := len(e.states)
	return e.vals[p][k*i : k*(i+1)], nil
}

// Decision returns the cube decision, in match winning chances, of player
// p on roll with board m against the opponent's board o, cube c.
func (e *MatchEval) Decision(p, m, o int, c MatchCube) (CubeDecision, error) {
	st, err := e.state(c)
	if err != nil {
		return CubeDecision{}, err
	}
	if _, err := e.lookup(p, m, o); err != nil {
		return CubeDecision{}, err
	}
	// The values rolling without doubling, from the children's, against
	// o (the last of its pip count computed alone).
	k := len(e.states)
	nd := make([]mwc, k)
	switch {
	case m == 0:
		copy(nd, e.win[p])
	case o == 0:
		copy(nd, e.lose[p])
	default:
		e.noDoubleOne(p, m, o, nd)
	}
	if !e.canDouble[p][st] {
		return noCube(mwcFloat(nd[st])), nil
	}
	return Decide(mwcFloat(nd[st]), mwcFloat(nd[e.doubled[p][st]]), mwcFloat(e.win[p][st])), nil
}

// noDoubleOne computes into nd the values of mover board m against
// opponent board o, player p on roll, rolling without doubling.
func (e *MatchEval) noDoubleOne(p, m, o int, nd []mwc) {
	k := len(e.states)
	s := e.g.moveLists()
	acc := make([]uint64, k)
	best := make([]mwc, k)
	for roll := range rolls {
		for n, c := range s.moves(m, roll) {
			v, _ := e.lookup(1-p, o, int(c)) // in the cone: m's is closed under plays
			if n == 0 {
				copy(best, v)
				continue
			}
			for x := range best {
				best[x] = min(best[x], v[x])
			}
		}
		for x, v := range best {
			acc[x] += uint64(rollWeight(roll)) * uint64(v)
		}
	}
	for x, v := range acc {
		nd[x] = meanLeft(v)
	}
}

// AfterPlay returns player p's chance to win the match after playing from
// board m to board to against the opponent's board o, cube c: the
// opponent, on roll, takes their own cube decision first.
func (e *MatchEval) AfterPlay(p, m, to, o int, c MatchCube) (float64, error) {
	st, err := e.state(c)
	if err != nil {
		return 0, err
	}
	v, err := e.lookup(1-p, o, to)
	if err != nil {
		return 0, err
	}
	return mwcFloat(mwcOne - v[st]), nil
}

// Covers reports whether the evaluation holds boards b0 of player 0 and
// b1 of player 1.
func (e *MatchEval) Covers(b0, b1 int) bool { return e.index(0, b0, b1) >= 0 }

// States returns the cube states the score allows.
func (e *MatchEval) States() []MatchCube { return slices.Clone(e.states) }

// minInto sets best to the element-wise minimum of best and row.
func minInto(best, row []mwc) {
	row = row[:len(best)]
	for x, v := range row {
		best[x] = min(best[x], v)
	}
}

// addTimes adds w times row to acc.
func addTimes(acc []uint64, row []mwc, w uint64) {
	row = row[:len(acc)]
	for x, v := range row {
		acc[x] += w * uint64(v)
	}
}

// addMinTimes adds to acc w times the element-wise minimum of best and row.
func addMinTimes(acc []uint64, best, row []mwc, w uint64) {
	best, row = best[:len(acc)], row[:len(acc)]
	for x, v := range row {
		acc[x] += w * uint64(min(best[x], v))
	}
}
