package solved

import (
	"context"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Values and remoteness, from the view of the player to move:
//
//   - a primitive position has its primitive value and remoteness 0;
//   - Win if some move leads to a Lose: remoteness = 1 + the smallest
//     remoteness among the losing children (win as fast as possible);
//   - Lose if every move leads to a Win: 1 + the largest remoteness among
//     them (lose as slowly as possible);
//   - otherwise Tie if some move leads to a Tie: 1 + the smallest remoteness
//     among the tying children;
//   - otherwise Draw (only loopy games: play goes on forever), remoteness 0.
//
// So a player prefers Win, then Tie, then Draw, then Lose.

// worthDense reports whether a tier's records are worth keeping by
// position: its hash space is small or mostly reachable, so a lookup is
// one array access instead of a rank computation, for little memory more.
func WorthDense(set *bitarray.Ranked) bool {
	return plan.Dense(set.Len(), set.Total())
}

// byPosition spreads records held by rank over the tier's hash space, none
// where a position is not reachable, on workers goroutines.
func ByPosition[R any](set *bitarray.Ranked, recs []R, none R, workers int) []R {
	byPos := make([]R, set.Len())
	var eg errgroup.Group
	eg.SetLimit(workers)
	for _, r := range plan.SplitRanges(set, workers) {
		eg.Go(func() error {
			lo, hi := r.Lo-set.Base(), r.Hi-set.Base()
			for i := lo; i < hi; i++ {
				byPos[i] = none
			}
			rank := plan.FirstRank(set, r)
			for p := range set.Range(r.Lo, r.Hi) {
				byPos[p-set.Base()] = recs[rank]
				rank++
			}
			return nil
		})
	}
	eg.Wait()
	return byPos
}

// children finds the solved tier of each child without a map in the loop.
type Children []*Tier

// of returns the solved tier of each of tiers, nil where there is none.
func (cs Children) Of(tiers []tiergame.Tier) []*Tier {
	out := make([]*Tier, len(tiers))
	last := 0
	for i, t := range tiers {
		out[i] = cs.Find(t, &last)
	}
	return out
}

func (cs Children) Find(t tiergame.Tier, last *int) *Tier {
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

// combiner accumulates child records into a parent's record.
type Combiner struct {
	MinLose, MaxWin, MinTie int
	NotAllWin, Any          bool
}

func NewCombiner() Combiner { return Combiner{MinLose: 1 << 30, MaxWin: -1, MinTie: 1 << 30} }

func (c *Combiner) Add(r valuedb.Record) {
	c.Any = true
	switch r.Value() {
	case tiergame.Lose:
		c.MinLose = min(c.MinLose, r.Remoteness())
		c.NotAllWin = true
	case tiergame.Win:
		c.MaxWin = max(c.MaxWin, r.Remoteness())
	case tiergame.Tie:
		c.MinTie = min(c.MinTie, r.Remoteness())
		c.NotAllWin = true
	default:
		c.NotAllWin = true
	}
}

// record is the parent's record; ok is false if there were no children.
func (c *Combiner) Record() (valuedb.Record, error) {
	var v tiergame.Value
	var rem int
	switch {
	case !c.Any:
		return 0, fmt.Errorf("a position that is not primitive has no moves")
	case c.MinLose < 1<<30:
		v, rem = tiergame.Win, c.MinLose+1
	case !c.NotAllWin:
		v, rem = tiergame.Lose, c.MaxWin+1
	case c.MinTie < 1<<30:
		v, rem = tiergame.Tie, c.MinTie+1
	default:
		v = tiergame.Draw
	}
	if rem > valuedb.MaxRemoteness {
		return 0, fmt.Errorf("remoteness %d exceeds %d", rem, valuedb.MaxRemoteness)
	}
	return valuedb.Make(v, rem), nil
}

// SolveRange is the unit of solving work for a tier that is not loopy: it
// computes the record of every member of set in r from the records of its
// children, found in kids (t's solved child tiers), and stores the record
// of the i-th member of r in out[i] (out needs r.Count(set) records).
// done, if not nil, counts positions as they are solved.
func SolveRange(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, r plan.Range, kids []*Tier, out []valuedb.Record, done *atomic.Uint64) error {
	moves := make([]tiergame.Child, 0, 64)
	cur := tiergame.NewCursor(g, t)
	last := 0
	rank := 0
	return work.EachBatch(ctx, set.Set, r, func(ps []uint64) error {
		for _, p := range ps {
			v, cs := cur.Moves(tiergame.Position(p), moves[:0])
			moves = cs
			if v != tiergame.Undecided {
				out[rank] = valuedb.Make(v, 0)
				rank++
				continue
			}
			c := NewCombiner()
			for _, ch := range cs {
				st := Children(kids).Find(ch.Tier, &last)
				if st == nil {
					return fmt.Errorf("%s: move from tier %d position %d to tier %d, which is not solved (a child tier missing from ChildTiers?)", g.Name(), t, p, ch.Tier)
				}
				rec, ok := st.Lookup(ch.Pos)
				if !ok {
					return fmt.Errorf("%s: child %d of tier %d position %d is not in tier %d's level file", g.Name(), ch.Pos, t, p, ch.Tier)
				}
				c.Add(rec)
			}
			rec, err := c.Record()
			if err != nil {
				return fmt.Errorf("%s: tier %d position %d: %w", g.Name(), t, p, err)
			}
			out[rank] = rec
			rank++
		}
		if done != nil {
			done.Add(uint64(len(ps)))
		}
		return nil
	})
}
