package state

import (
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// TestFSMClosingByRanges walks a loopy tier closed in 2 ranges: the first
// round reads the parents' partials; a range that sent notes brings a
// second round, whose units read their range's checkpoint and the other
// range's notes; a round without notes ends the closing, and the last
// round's checkpoints are the tier's level inputs, its children's
// partials from every round theirs. Outputs of the wrong roles are
// refused; a run that leaves the count to the cluster closes a small tier
// in one unit.
func TestFSMClosingByRanges(t *testing.T) {
	h := newHarness(t)
	run := chainRun()
	run.Settings.CloseRanges = 2
	id := h.apply(Create(run)).(string)
	h.apply(SetLevel(id, 0, Level{Blob: blobOf("level0"), Reachable: 10, Ranges: []plan.Range{{Lo: 0, Hi: 100}}}))
	h.grantComplete(unitRef(id, 0, api.PhaseReach, 0), api.Output{Tier: 1, Blob: blobOf("p1")})
	ref := func(i int) api.UnitRef { return unitRef(id, 1, api.PhaseReach, i) }
	assignment := func(i int) *api.Assignment {
		t.Helper()
		tok := h.apply(Grant(ref(i), "w2", "")).(uint64)
		var a *api.Assignment
		h.fsm.View(func(s *State, _ uint64) { a = s.Assignment(ref(i), tok) })
		h.apply(Release(ref(i), tok, ""))
		return a
	}
	t1 := func() *Tier { return h.state().Runs[0].Tiers[1] }
	if us := t1().Reach; len(us) != 2 || us[0].Kind != api.CloseRange || us[0].Lo != 0 || us[0].Hi != 64 || us[1].Lo != 64 || us[1].Hi != 100 {
		t.Fatalf("tier 1's first round: %+v", us)
	}
	if a := assignment(1); a.Level != nil || !slices.Equal(a.Partials, []api.Blob{blobOf("p1")}) {
		t.Fatalf("a first round's inputs: level %v, partials %v", a.Level, a.Partials)
	}
	ck := func(s string) api.Output { return api.Output{Tier: 1, Blob: blobOf(s), Role: api.RoleCheckpoint} }
	notes := func(s string) api.Output { return api.Output{Tier: 1, Blob: blobOf(s), Role: api.RoleNotes} }
	kid := func(s string) api.Output { return api.Output{Tier: 2, Blob: blobOf(s)} }
	for _, bad := range [][]api.Output{{ck("a"), ck("b")}, {notes("a"), notes("b")}, {{Tier: 1, Blob: blobOf("a")}}, {{Tier: 2, Blob: blobOf("a"), Role: api.RoleNotes}}} {
		tok := h.apply(Grant(ref(0), "w1", "")).(uint64)
		if err, _ := h.apply(Complete(ref(0), Completion{Worker: "w1", Token: tok, Outputs: bad})).(error); err == nil {
			t.Errorf("outputs %+v accepted", bad)
		}
		h.apply(Release(ref(0), tok, ""))
	}
	h.grantComplete(ref(0), notes("n0"), ck("c0"), kid("k0"))
	h.grantComplete(ref(1), ck("c1"))
	if n := len(t1().Reach); n != 4 || t1().Expanded {
		t.Fatalf("after a round with notes: %d units, expanded %v", n, t1().Expanded)
	}
	if a := assignment(2); *a.Level != blobOf("c0") || len(a.Partials) != 0 {
		t.Errorf("range 0's second round: level %v, partials %v", a.Level, a.Partials)
	}
	if a := assignment(3); *a.Level != blobOf("c1") || !slices.Equal(a.Partials, []api.Blob{blobOf("n0")}) {
		t.Errorf("range 1's second round: level %v, partials %v", a.Level, a.Partials)
	}
	h.grantComplete(ref(2), ck("c0"))
	h.grantComplete(ref(3), ck("c1 2"), kid("k1"))
	if n := len(t1().Reach); n != 4 || !t1().Expanded {
		t.Fatalf("after a round without notes: %d units, expanded %v", n, t1().Expanded)
	}
	var level, child []api.Blob
	h.fsm.View(func(s *State, _ uint64) {
		r := s.Run(id)
		level, child = r.LevelInputs(r.Tier(1)), r.CloseInputs(r.Tier(2))
	})
	if !slices.Equal(level, []api.Blob{blobOf("c0"), blobOf("c1 2")}) || !slices.Equal(child, []api.Blob{blobOf("k0"), blobOf("k1")}) {
		t.Errorf("tier 1's level inputs %v, tier 2's %v", level, child)
	}
	if !slices.Contains(tasksOf(h), Task{TaskLevel, id, 1}) {
		t.Errorf("no level task for tier 1: %v", tasksOf(h))
	}

	// Left to the cluster, a small tier is closed in one unit.
	h2 := newHarness(t)
	id2 := h2.apply(Create(chainRun())).(string)
	h2.apply(SetLevel(id2, 0, Level{Blob: blobOf("level0"), Reachable: 10, Ranges: []plan.Range{{Lo: 0, Hi: 100}}}))
	tok := h2.apply(Grant(unitRef(id2, 0, api.PhaseReach, 0), "w1", "")).(uint64)
	h2.apply(Complete(unitRef(id2, 0, api.PhaseReach, 0), Completion{Worker: "w1", Token: tok, Outputs: []api.Output{{Tier: 1, Blob: blobOf("p1")}}}))
	if us := h2.state().Runs[0].Tiers[1].Reach; len(us) != 1 || us[0].Kind != api.Close {
		t.Errorf("a small tier's closing: %+v", us)
	}
}
