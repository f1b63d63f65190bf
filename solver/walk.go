package solver

import (
	"errors"

	"github.com/tiersolve/tiersolve/internal/progress"
	"github.com/tiersolve/tiersolve/tiergame"
)

// errStop ends a walk early without an error.
var errStop = errors.New("stop")

// eachChildrenFirst calls f(i, t) for every tier t, the i-th in solving
// order (children first), showing progress as what; once every parent of
// a tier has had its turn, it drops the tier from cache, calling drop on
// it first if drop is not nil. Solve and Verify, plain or with chance, walk
// the tiers so, each keeping a child tier only while a parent needs it.
func eachChildrenFirst[T any](r *Run, what string, cache map[tiergame.Tier]T, drop func(T), f func(i int, t tiergame.Tier) error) error {
	order := r.Graph.SolveOrder()
	pending := map[tiergame.Tier]int{}
	for _, t := range order {
		pending[t] = len(r.Graph.Parents[t])
	}
	r.meter = progress.New(r.Terminal, r.Log, what, int64(len(order)), "tiers")
	defer r.meter.Finish()
	for i, t := range order {
		r.meter.Set(int64(i), "tier "+r.Game.TierName(t))
		if err := f(i, t); err != nil {
			return err
		}
		for _, c := range r.Graph.Children[t] {
			if pending[c]--; pending[c] == 0 {
				if drop != nil {
					drop(cache[c])
				}
				delete(cache, c)
			}
		}
	}
	return nil
}
