package state

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// TestFSMRecut: a loopy tier whose level was cut for workers large
// enough while its child tier was not reached yet, whose whole-tier unit
// then needs more than the largest budget present once the child is
// counted, is named for a recut (Oversized) and cut into parts (Recut)
// while its unit is free; its parts start once the child is written. A
// recut is refused while the unit is leased, and no tier is named when
// the workers have no budget, one can take the tier whole, or its parts
// would not fit either.
func TestFSMRecut(t *testing.T) {
	const size = 1 << 30
	h := newHarness(t)
	run := chainRun()
	run.Tiers[1].Size, run.Tiers[2].Size = size, size/2
	run.Settings.CloseRanges = 1 // closed in one unit, which this test stands for
	id := h.apply(&Command{Op: opCreate, Run: run}).(string)
	whole := []plan.Range{{Lo: 0, Hi: size}}
	h.apply(SetLevel(id, 0, Level{Blob: blobOf("level0"), Reachable: 10, Ranges: []plan.Range{{Lo: 0, Hi: 100}}}))
	h.grantComplete(unitRef(id, 0, api.PhaseReach, 0), api.Output{Tier: 1, Blob: blobOf("p1")})
	h.grantComplete(unitRef(id, 1, api.PhaseReach, 0), api.Output{Tier: 1, Blob: blobOf("closed")}, api.Output{Tier: 2, Blob: blobOf("p2")})

	// Tier 1's level is merged before its child is reached: the leader's
	// estimate counts no child, and the tier fits a budget of budget.
	var budget int64
	h.fsm.View(func(s *State, _ uint64) {
		r := s.Run(id)
		budget = int64(r.LoopyBytes(r.Tier(1), size/2))
		if got, _ := r.PartsFor(r.Tier(1), size/2, budget, api.MaxLoopyRanges); got != 0 {
			t.Fatalf("cut in %d parts at its level", got)
		}
	})
	h.apply(SetLevel(id, 1, Level{Blob: blobOf("level1"), Reachable: size / 2, Ranges: whole}))
	h.apply(SetLevel(id, 2, Level{Blob: blobOf("level2"), Reachable: size / 2, Ranges: []plan.Range{{Lo: 0, Hi: size / 2}}}))
	h.grantComplete(unitRef(id, 2, api.PhaseSolve, 0), api.Output{Tier: 2, Blob: blobOf("recs2")})

	oversized := func(largest int64) []Task {
		var out []Task
		h.fsm.View(func(s *State, _ uint64) { out = s.Oversized(largest) })
		return out
	}
	var need uint64
	h.fsm.View(func(s *State, _ uint64) {
		r := s.Run(id)
		t1 := r.Tier(1)
		if len(t1.Solve) != 1 || t1.Solve[0].Kind != api.SolveTier {
			t.Fatalf("tier 1's solve units: %+v", t1.Solve)
		}
		need = r.UnitBytes(t1, t1.Solve[0])
		if msg := s.Blocked(id, budget); msg == "" {
			t.Fatal("the whole-tier unit fits the budget it was cut for, with its child counted")
		}
	})
	if need <= uint64(budget) {
		t.Fatalf("the whole tier needs %d bytes with its child, not more than the %d without", need, budget)
	}
	want := []Task{{TaskRecut, id, 1}}
	if got := oversized(budget); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("oversized at a budget of %d: %v, want %v", budget, got, want)
	}
	for _, largest := range []int64{0, int64(need), 40 << 20} {
		if got := oversized(largest); len(got) != 0 {
			t.Errorf("oversized at a budget of %d: %v", largest, got)
		}
	}

	// Refused while the unit is leased; taken once it is free again.
	bounds := []uint64{0, size / 2, size}
	ref := unitRef(id, 1, api.PhaseSolve, 0)
	tok := h.apply(Grant(ref, "big", "")).(uint64)
	if err, _ := h.apply(Recut(id, 1, bounds, nil)).(error); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a recut of a tier whose unit is leased: %v", err)
	}
	h.apply(Release(ref, tok, ""))
	if err, _ := h.apply(Recut(id, 1, []uint64{0, size}, nil)).(error); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a recut into one part: %v", err)
	}
	if err, _ := h.apply(Recut(id, 1, bounds, nil)).(error); err != nil {
		t.Fatal(err)
	}
	s := h.state()
	t1 := s.Runs[0].Tiers[1]
	if t1.Solve != nil || !t1.partitioned() || t1.Parts != nil || t1.Level.Blob != blobOf("level1") || len(t1.Level.Ranges) != 1 {
		t.Fatalf("tier 1 after its recut: solve %+v, level %+v, parts %+v", t1.Solve, t1.Level, t1.Parts)
	}
	if got := oversized(budget); len(got) != 0 {
		t.Errorf("oversized after the recut: %v", got)
	}
	if err, _ := h.apply(Recut(id, 1, bounds, nil)).(error); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a second recut: %v", err)
	}
	h.apply(SetDB(id, 2, DB{Blob: blobOf("db2")}))
	if p := h.state().Runs[0].Tiers[1].Parts; p == nil || p.Phase != api.PartsKids || len(p.Parts) != 2 {
		t.Fatalf("tier 1's parts once its child is written: %+v", p)
	}
}

// TestFSMRecutParts: a tier in parts whose first round waits for a
// worker larger than any present (its sub-parts reported holding more
// than the budget) is named for a recut while none of its units is
// leased, and cut again into more parts: the parts so far are dropped
// (their checkpoints no longer live) and start again, from the child
// tiers' notes. A recut into as many parts, or while a unit is leased,
// is refused; once the parts' levels run, none is named.
func TestFSMRecutParts(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&Command{Op: opCreate, Run: chainRun()}).(string)
	bounds, fine := []uint64{0, 30, 60, 100}, []uint64{0, 15, 30, 45, 60, 80, 100}
	h.partsChain(id, Level{Parts: bounds, FirstParts: fine})
	h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: 2, DB: DB{Blob: blobOf("db2")}}})
	ref := func(k int) api.UnitRef { return unitRef(id, 1, api.PhaseParts, k) }
	h.grantReport(ref(0), "w1", &api.PartResult{Next: -1},
		api.Output{Tier: 1, Blob: blobOf("held 3"), Role: api.RoleHeld, Part: 3})
	const held = 50 << 20 // what each sub-part reports holding
	for j := range 6 {
		h.grantReport(ref(j), "w1", &api.PartResult{Next: -1, Bytes: held},
			api.Output{Tier: 1, Blob: blobOf(fmt.Sprintf("sub %d", j)), Role: api.RoleCheckpoint})
	}
	h.grantReport(ref(0), "w1", &api.PartResult{Next: -1}) // part 0 gathered; parts 1 and 2 wait
	var need uint64
	h.fsm.View(func(s *State, _ uint64) {
		r := s.Run(id)
		t1 := r.Tier(1)
		need = max(r.UnitBytes(t1, t1.Parts.Units[1]), r.UnitBytes(t1, t1.Parts.Units[2]))
	})
	if need < 2*held {
		t.Fatalf("a gathering is estimated at %d bytes, less than its sub-parts' %d", need, 2*held)
	}
	oversized := func(largest int64) []Task {
		var out []Task
		h.fsm.View(func(s *State, _ uint64) { out = s.Oversized(largest) })
		return out
	}
	want := Task{TaskRecut, id, 1}
	if got := oversized(int64(need) - 1); len(got) != 1 || got[0] != want {
		t.Fatalf("oversized below a gathering's estimate: %v, want %v", got, want)
	}
	if got := oversized(int64(need)); len(got) != 0 {
		t.Fatalf("oversized at a gathering's estimate: %v", got)
	}

	// Leased: neither named nor cut; as many parts: refused.
	finer, finerSubs := []uint64{0, 20, 40, 60, 100}, []uint64{0, 10, 20, 30, 40, 50, 60, 80, 100}
	tok := h.grant(ref(2), "w2")
	if got := oversized(int64(need) - 1); len(got) != 0 {
		t.Errorf("oversized while a part's unit is leased: %v", got)
	}
	if err, _ := h.apply(Recut(id, 1, finer, finerSubs)).(error); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a recut while a part's unit is leased: %v", err)
	}
	h.apply(Release(ref(2), tok, ""))
	if err, _ := h.apply(Recut(id, 1, []uint64{0, 50, 70, 100}, nil)).(error); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a recut into as many parts: %v", err)
	}
	if err, _ := h.apply(Recut(id, 1, finer, finerSubs)).(error); err != nil {
		t.Fatal(err)
	}
	s := h.state()
	t1 := s.Runs[0].Tiers[1]
	if !slices.Equal(t1.Level.Parts, finer) || !slices.Equal(t1.Level.FirstParts, finerSubs) || t1.Level.Blob != blobOf("level1") {
		t.Fatalf("tier 1's level after its recut: %+v", t1.Level)
	}
	if p := t1.Parts; p == nil || p.Phase != api.PartsKids || len(p.Parts) != 4 || p.Bytes != 0 || len(p.Units) == 0 || p.Units[0].Kind != api.KidNotes {
		t.Fatalf("tier 1's parts after its recut: %+v", p)
	}
	if _, ok := s.LiveBlobs()[blobOf("sub 3").SHA256]; ok {
		t.Error("a sub-part's checkpoint of the coarser cut is still live")
	}
	if got := oversized(1); len(got) != 0 {
		t.Errorf("oversized while the finer parts make their child notes: %v", got)
	}

	// Through the finer first passes to the first level: no longer
	// recuttable, whatever the budgets.
	h.grantReport(ref(0), "w1", &api.PartResult{Next: -1})
	for j := range 8 {
		h.grantReport(ref(j), "w1", &api.PartResult{Next: -1, Bytes: 1},
			api.Output{Tier: 1, Blob: blobOf(fmt.Sprintf("finer sub %d", j)), Role: api.RoleCheckpoint})
	}
	for k := range 4 {
		h.grantReport(ref(k), "w1", &api.PartResult{Next: 1})
	}
	if p := h.state().Runs[0].Tiers[1].Parts; p.Phase != api.PartsWins {
		t.Fatalf("after the finer parts' first round: %+v", p)
	}
	if got := oversized(1); len(got) != 0 {
		t.Errorf("oversized once the levels run: %v", got)
	}
	if err, _ := h.apply(Recut(id, 1, []uint64{0, 10, 20, 40, 60, 100}, nil)).(error); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a recut once the levels run: %v", err)
	}
}
