package solver

import (
	"errors"

	"github.com/tiersolve/tiersolve/internal/progress"
	"github.com/tiersolve/tiersolve/tiergame"
)

// errStop ends a walk early without an error.
var errStop = errors.New("stop")

// eachChildrenFirst calls f(i, t, release) for every tier t, the i-th in
// solving order (children first), showing progress as what; once every
// parent of a tier has had its turn, it drops the tier from cache,
// calling drop on it first if drop is not nil. Solve and Verify, plain or
// with chance, walk the tiers so, each keeping a child tier only while a
// parent needs it. f may call release (on its own goroutine) once it reads
// t's children no more, so that those no other parent needs are dropped
// then rather than after f.
func eachChildrenFirst[T any](r *Run, what string, cache map[tiergame.Tier]T, drop func(T), f func(i int, t tiergame.Tier, release func()) error) error {
	order := r.Graph.SolveOrder()
	pending := map[tiergame.Tier]int{}
	for _, t := range order {
		pending[t] = len(r.Graph.Parents[t])
	}
	r.meter = progress.New(r.Terminal, r.Log, what, int64(len(order)), "tiers")
	defer r.meter.Finish()
	for i, t := range order {
		r.meter.Set(int64(i), "tier "+r.Game.TierName(t))
		released := false
		release := func() {
			if released {
				return
			}
			released = true
			for _, c := range r.Graph.Children[t] {
				if pending[c]--; pending[c] == 0 {
					if drop != nil {
						drop(cache[c])
					}
					delete(cache, c)
				}
			}
		}
		if err := f(i, t, release); err != nil {
			return err
		}
		release()
	}
	return nil
}
