// Package chance solves the tiers of games with chance nodes
// (tiergame.Chance): each position's probability of winning, and the
// planes of those that have them, from the child tiers' values.
package chance

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Games with chance (tiergame.Chance) are solved to probabilities: the
// value of a position is the chance that the player to move wins (see
// tiergame.ChanceValue). Their tiers must not be loopy. A tier is solved
// in one parallel sweep over ranges like a loop-free tier, by
// SolveRange; where a range and its children are fully reachable
// and the game has a kernel (tiergame.ChanceKernel), the kernel solves it.

// Tier is a solved tier of a chance game in memory, for look-ups by
// its parents.
type Tier struct {
	tier tiergame.Tier
	set  *bitarray.Ranked
	vals []tiergame.Prob // by rank
	// byPos holds the values by position (noProb where a position is not
	// reachable), for tiers whose hash space is small or mostly reachable;
	// it is vals itself when every position is reachable.
	byPos []tiergame.Prob
	// planes holds k values a position by rank, for a game with planes
	// (chanceplanes.go); k is 0 without.
	planes []tiergame.Prob
	k      int
}

// noProb marks unreachable positions in Tier.byPos.
const noProb = ^tiergame.Prob(0)

// New indexes the values of tier t (by rank in set) for look-ups,
// on workers goroutines.
func New(t tiergame.Tier, set *bitarray.Ranked, vals []tiergame.Prob, workers int) *Tier {
	ct := &Tier{tier: t, set: set, vals: vals}
	switch {
	case set.Total() == set.Len():
		ct.byPos = vals
	case solved.WorthDense(set):
		ct.byPos = solved.ByPosition(set, vals, noProb, workers)
	}
	return ct
}

// Tier is the tier's number.
func (c *Tier) Tier() tiergame.Tier { return c.tier }

// Values returns the values by rank.
func (c *Tier) Values() []tiergame.Prob { return c.vals }

// lookup returns the value of position p. It is solved.Tier.Lookup for
// probabilities, written out twice on purpose: a generic version shared by
// both is not inlined and made Connect Four 6x4 about 2% slower (3 rounds
// of tierd solve, interleaved).
func (c *Tier) lookup(p tiergame.Position) (tiergame.Prob, bool) {
	if c.byPos != nil {
		if i := uint64(p) - c.set.Base(); i < uint64(len(c.byPos)) {
			v := c.byPos[i]
			return v, v != noProb
		}
		return 0, false
	}
	r, ok := c.set.Lookup(uint64(p))
	if !ok {
		return 0, false
	}
	return c.vals[r], true
}

// chanceKids finds the solved tier of each child.
type Kids []*Tier

func (cs Kids) Find(t tiergame.Tier, last *int) *Tier {
	if *last < len(cs) && cs[*last].tier == t {
		return cs[*last]
	}
	for i, c := range cs {
		if c.tier == t {
			*last = i
			return c
		}
	}
	return nil
}

// errNotChance is returned for games that do not implement tiergame.Chance.
var ErrNotChance = errors.New("the game has no chance nodes (tiergame.Chance)")

// kernelChunk is how many positions a kernel call solves: small enough to
// check for cancellation and report progress often.
const kernelChunk = 1 << 18

// SolveRange is the unit of solving work for a tier of a game with
// chance, the counterpart of SolveRange: it computes the value of every
// member of set in r from the values of its children, found in kids (t's
// solved child tiers), and stores the value of the i-th member of r in
// out[i] (out needs r.Count(set) values). done, if not nil, counts
// positions as they are solved.
func SolveRange(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, r plan.Range, kids []*Tier, out []tiergame.Prob, done *atomic.Uint64) error {
	cg, ok := g.(tiergame.Chance)
	if !ok {
		return fmt.Errorf("%s: %w", g.Name(), ErrNotChance)
	}
	if k, ok := g.(tiergame.ChanceKernel); ok && dense(set, r, kids) {
		return solveKernel(ctx, g, k, t, r, kids, out, done)
	}
	d := NewDeriver(g, cg, t, kids)
	i := 0
	return work.EachBatch(ctx, set.Set, r, func(ps []uint64) error {
		for _, p := range ps {
			v, err := d.Value(tiergame.Position(p))
			if err != nil {
				return err
			}
			out[i] = v
			i++
		}
		if done != nil {
			done.Add(uint64(len(ps)))
		}
		return nil
	})
}

// dense reports whether every position of r is a member of set and every
// child tier is held by position.
func dense(set *bitarray.Ranked, r plan.Range, kids []*Tier) bool {
	if r.Count(set) != r.Hi-r.Lo {
		return false
	}
	for _, k := range kids {
		if k.byPos == nil || len(k.byPos) != len(k.vals) {
			return false
		}
	}
	return true
}

// solveKernel runs the game's kernel over r in chunks; out[k] receives
// the value of position r.Lo+k.
func solveKernel(ctx context.Context, g tiergame.Game, k tiergame.ChanceKernel, t tiergame.Tier, r plan.Range, kids []*Tier, out []tiergame.Prob, done *atomic.Uint64) error {
	last := 0
	vals := func(c tiergame.Tier) []tiergame.Prob {
		if ct := Kids(kids).Find(c, &last); ct != nil {
			return ct.byPos
		}
		return nil
	}
	for lo := r.Lo; lo < r.Hi; lo += kernelChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(r.Hi, lo+kernelChunk)
		if err := k.SolveChance(t, tiergame.Position(lo), tiergame.Position(hi), vals, out[lo-r.Lo:hi-r.Lo]); err != nil {
			return fmt.Errorf("%s: tier %d: %w", g.Name(), t, err)
		}
		if done != nil {
			done.Add(hi - lo)
		}
	}
	return nil
}

// deriver computes positions' values from their children's, one at a
// time, for solving and verifying.
type Deriver struct {
	g       tiergame.Game
	cg      tiergame.Chance
	t       tiergame.Tier
	kids    Kids
	weights []uint64
	total   uint64
	last    int
	moves   []tiergame.Child
	ends    []int
}

func NewDeriver(g tiergame.Game, cg tiergame.Chance, t tiergame.Tier, kids []*Tier) *Deriver {
	d := &Deriver{g: g, cg: cg, t: t, kids: kids, moves: make([]tiergame.Child, 0, 256)}
	for _, o := range cg.Outcomes() {
		d.weights = append(d.weights, uint64(o.Weight))
		d.total += uint64(o.Weight)
	}
	return d
}

// value computes the value of position p.
func (d *Deriver) Value(p tiergame.Position) (tiergame.Prob, error) {
	v, cs, ends := d.cg.ChanceMoves(d.t, p, d.moves[:0], d.ends[:0])
	d.moves, d.ends = cs, ends
	if v != tiergame.Undecided {
		return tiergame.ProbOf(v), nil
	}
	if len(ends) != len(d.weights) || d.total == 0 {
		return 0, fmt.Errorf("%s: tier %d position %d: %d outcomes with moves, the game has %d", d.g.Name(), d.t, p, len(ends), len(d.weights))
	}
	var acc uint64
	lo := 0
	for k, hi := range ends {
		if hi <= lo {
			return 0, fmt.Errorf("%s: tier %d position %d: outcome %d allows no move", d.g.Name(), d.t, p, k)
		}
		best := tiergame.ProbOne
		for _, ch := range cs[lo:hi] {
			st := d.kids.Find(ch.Tier, &d.last)
			if st == nil {
				return 0, fmt.Errorf("%s: move from tier %d position %d to tier %d, which is not solved (a child tier missing from ChildTiers?)", d.g.Name(), d.t, p, ch.Tier)
			}
			cv, ok := st.lookup(ch.Pos)
			if !ok {
				return 0, fmt.Errorf("%s: child %d of tier %d position %d is not in tier %d's level file", d.g.Name(), ch.Pos, d.t, p, ch.Tier)
			}
			best = min(best, cv)
		}
		acc += d.weights[k] * uint64(best)
		lo = hi
	}
	return tiergame.ChanceValue(acc, d.total), nil
}

// Set is the tier's reachable positions, ranked.
func (c *Tier) Set() *bitarray.Ranked { return c.set }
