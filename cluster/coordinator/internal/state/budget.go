package state

import (
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// LeastBudget is a worker budget below which some unit of the run cannot
// be made to fit, as far as the tiers' hash spaces tell before the run
// starts: for each loopy tier, its closing unless the game is exhaustive
// (one unit over the whole tier,
// plan.CloseBytes, or its largest range: plan.CloseRangeBytes) and the
// least its solving can take, whole with no
// position counted (plan.LoopyTierBytes) or at the finest cut the run
// allows (plan.PartBytes: its LoopyRanges, else api.MaxLoopyRanges
// parts). It is a lower bound: a run refused for it could never finish
// on such workers. tier names the tier that sets it ("" for a run with
// no loopy tier).
func (r *Run) LeastBudget() (bytes uint64, tier string) {
	most := api.MaxLoopyRanges
	if r.Settings.LoopyRanges > 1 {
		most = r.Settings.LoopyRanges
	}
	for _, t := range r.Tiers {
		if !t.Loopy {
			continue
		}
		var kidSpaces [][2]uint64 // no position counted
		var kid uint64
		for _, size := range r.kidSizes(t) {
			kidSpaces = append(kidSpaces, [2]uint64{size, 0})
			kid = max(kid, size)
		}
		need := min(plan.LoopyTierBytes(t.Size, 0, kidSpaces), plan.PartBytes(t.Size, t.Size/uint64(most)+1, kid))
		if !r.Exhaustive { // an exhaustive game's tiers are not closed (reachUnits)
			for _, u := range r.closingUnits(t) {
				need = max(need, r.UnitBytes(t, u))
			}
		}
		if need > bytes {
			bytes, tier = need, t.Name
		}
	}
	return bytes, tier
}
