package state

import (
	"testing"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// TestLeastBudget: the least budget of a run is set by its largest loopy
// tier: at least its closing (none for an exhaustive game), and at least the least of its solving
// whole and at the finest cut the run allows; a run without loopy tiers
// needs no budget of its own.
func TestLeastBudget(t *testing.T) {
	const size = 1 << 30
	r := chainRun()
	r.Tiers[1].Size, r.Tiers[2].Size = size, size/2
	r.Settings.CloseRanges = 1 // closed in one unit (closed by ranges: TestFSMClosingByRanges)
	closing := plan.CloseBytes(size, []uint64{size / 2}, 1)
	whole := plan.LoopyTierBytes(size, 0, [][2]uint64{{size / 2, 0}})
	for _, parts := range []int{0, 2, 16} {
		r.Settings.LoopyRanges = parts
		most := uint64(api.MaxLoopyRanges)
		if parts > 1 {
			most = uint64(parts) // a run that fixes its parts cannot cut finer
		}
		want := max(closing, min(whole, plan.PartBytes(size, size/most+1, size/2)))
		if need, tier := r.LeastBudget(); tier != "t1" || need != want || need < plan.BaseBytes {
			t.Errorf("loopy ranges %d: least budget %d (tier %q), want %d", parts, need, tier, want)
		}
	}
	// An exhaustive game's tiers are not closed: only the solving counts.
	r.Exhaustive, r.Settings.LoopyRanges = true, 16
	want := min(whole, plan.PartBytes(size, size/16+1, size/2))
	if need, _ := r.LeastBudget(); need != want || need >= closing {
		t.Errorf("an exhaustive run: least budget %d, want its solving's %d (its closing's %d not counted)", need, want, closing)
	}
	r.Tiers[1].Loopy = false
	if need, tier := r.LeastBudget(); need != 0 || tier != "" {
		t.Errorf("no loopy tier: %d (%q)", need, tier)
	}
}
