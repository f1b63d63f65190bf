package state

import (
	"fmt"
	"iter"
	"slices"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// A Taker asks for a unit of work.
type Taker struct {
	// Worker is who asks ("": any worker).
	Worker string
	// Games are the games it runs (empty: any).
	Games []string
	// Holding are the lease tokens of the units whose results it holds in
	// memory (api.LeaseRequest.Holding): it may take, provisionally, the
	// units that read them.
	Holding []uint64
	// Present are the workers the leader heard from lately: a part's
	// round waits for the worker that did its last one, if present (it
	// holds the part in memory). Nil: no wait.
	Present []string
	// Peers are the workers the leader heard from lately, with their
	// budgets and games: a part no present worker holds waits for one of
	// them that has no part and could take it (Run.crowded). Nil: no wait.
	Peers []api.WorkerInfo
	// Memory is its budget (api.LeaseRequest.Memory): it takes no unit
	// estimated larger (UnitBytes). 0: any.
	Memory int64
	// Request names its lease request (api.LeaseRequest.Request), if it
	// does: a lease granted for it is answered again (State.Granted).
	Request string
}

// fits reports whether unit u of tier t fits tk's memory, or is the next
// round of a part tk holds already (it ran the part's last round: the
// estimate may have grown with what the part reported, the part has
// not).
func (tk Taker) fits(r *Run, t *Tier, u *Unit) bool {
	return tk.Memory <= 0 || r.UnitBytes(t, u) <= uint64(tk.Memory) || tk.Worker != "" && t.holder(u) == tk.Worker
}

// Free yields the units that could be leased now to tk, in the order
// they are leased: the oldest run first; reach units parents first, then
// solve units children first, among them those tk may take
// provisionally (readyFor) if it holds, in memory, the child units they
// read. Only units of runs of tk's games.
func (s *State) Free(tk Taker) iter.Seq[api.UnitRef] {
	return func(yield func(api.UnitRef) bool) {
		free := func(r *Run, t *Tier, phase api.Phase, us []*Unit) bool {
			for i, u := range us {
				if u.Lease == nil && u.Done == nil && tk.fits(r, t, u) && !yield(api.UnitRef{Run: r.ID, Tier: t.Tier, Phase: phase, Index: i}) {
					return false
				}
			}
			return true
		}
		for _, r := range s.Runs {
			if r.State != api.Running || r.Format != Format || len(tk.Games) > 0 && !slices.Contains(tk.Games, r.Game) {
				continue
			}
			for _, t := range r.Tiers {
				if !free(r, t, api.PhaseReach, t.Reach) {
					return
				}
			}
			for k := len(r.Tiers) - 1; k >= 0; k-- {
				t := r.Tiers[k]
				ready := r.readyFor(t, "") || tk.Worker != "" && r.readyFor(t, tk.Worker) && r.childUnitsIn(t, tk.Holding)
				if t.Solve != nil && ready && !free(r, t, api.PhaseSolve, t.Solve) {
					return
				}
				if t.Parts == nil {
					continue
				}
				for _, i := range t.Parts.order(tk.Worker) {
					u := t.Parts.Units[i]
					if u.Lease == nil && u.Done == nil && !r.affine(t, i, tk) && tk.fits(r, t, u) &&
						!yield(api.UnitRef{Run: r.ID, Tier: t.Tier, Phase: api.PhaseParts, Index: i}) {
						return
					}
				}
			}
		}
	}
}

// Pick chooses the next unit to lease to tk; it returns false if there
// is none.
func (s *State) Pick(tk Taker) (api.UnitRef, bool) {
	for ref := range s.Free(tk) {
		return ref, true
	}
	return api.UnitRef{}, false
}

// CountFree counts the units that could be leased now to any worker.
func (s *State) CountFree() int {
	n := 0
	for range s.Free(Taker{}) {
		n++
	}
	return n
}

// ReadyForAny reports whether unit ref may be leased to any worker (it
// is not a unit only one may take provisionally).
func (s *State) ReadyForAny(ref api.UnitRef) bool {
	r, t, u := s.Unit(ref)
	return u == nil || ref.Phase != api.PhaseSolve || r.readyFor(t, "")
}

// Blocked says why run id's free units wait for a worker when the
// largest budget of the workers present is largest (api.RunSummary.Blocked):
// the first unit estimated larger, or "" if every one fits.
func (s *State) Blocked(id string, largest int64) string {
	r := s.Run(id)
	if r == nil || largest <= 0 {
		return ""
	}
	for ref := range s.Free(Taker{}) {
		_, t, u := s.Unit(ref)
		if ref.Run != id || u == nil || t.holder(u) != "" {
			continue // a part's round goes to the worker that holds it
		}
		if n := r.UnitBytes(t, u); n > uint64(largest) {
			what, fix := fmt.Sprintf("tier %s", t.Name), "start a worker with more --memory, or submit with more --loopy-ranges"
			switch {
			case u.Kind == api.KidNotes:
				what += fmt.Sprintf(" notes of child tier %s", r.Tier(u.Child).Name)
			case ref.Phase == api.PhaseParts:
				what += fmt.Sprintf(" part %d of %d", ref.Index, len(t.Parts.Units))
			case u.Kind == api.Close:
				// Closing in one unit holds the whole tier, however it is
				// solved.
				what, fix = "closing "+what, "start a worker with more --memory, or submit with more --close-ranges"
			case u.Kind == api.CloseRange:
				what, fix = fmt.Sprintf("closing %s range %d", what, ref.Index%r.closeRanges(t)), "start a worker with more --memory, or submit with more --close-ranges"
			}
			return fmt.Sprintf("%s needs about %s, more than the largest worker budget (%s): %s",
				what, plan.BytesString(n), plan.BytesString(uint64(largest)), fix)
		}
	}
	return ""
}
