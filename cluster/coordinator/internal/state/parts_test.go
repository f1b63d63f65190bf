package state

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver"
)

// TestFSMParts walks a loopy tier solved in 3 parts through its rounds
// as solver's lockstep does: the next level is the least of the parts'
// next levels, or the one after if notes were sent; ties, then records,
// which become the tier's solve units. Along the way: what a unit is
// given (its checkpoint and the rounds since, with the notes they read),
// the blobs kept live, the leases that wait for a part's worker, a
// completion without its report refused, and a report of a part's last
// round sent again after the next round started (its answer lost with a
// leader) known as accepted, its worker a holder a new leader presumes
// present.
func TestFSMParts(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&Command{Op: opCreate, Run: chainRun()}).(string)
	grantComplete := func(ref api.UnitRef, worker string, part *api.PartResult, outs ...api.Output) uint64 {
		t.Helper()
		tok, ok := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: worker}}).(uint64)
		if !ok {
			t.Fatalf("grant %v refused", ref)
		}
		done := Completion{Worker: worker, Token: tok, Outputs: outs, Part: part}
		if err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: done}}).(error); err != nil {
			t.Fatalf("complete %v: %v", ref, err)
		}
		return tok
	}
	// Tier 0 reached and expanded, tier 1 closed, tier 2 solved.
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("level0"), Reachable: 10,
		Ranges: []solver.Range{{Lo: 0, Hi: 100}}}}})
	grantComplete(unitRef(id, 0, api.PhaseReach, 0), "w1", nil, api.Output{Tier: 1, Blob: blobOf("p1")})
	grantComplete(unitRef(id, 1, api.PhaseReach, 0), "w1", nil, api.Output{Tier: 1, Blob: blobOf("closed")}, api.Output{Tier: 2, Blob: blobOf("p2")})
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 1, Level: Level{Blob: blobOf("level1"), Reachable: 30,
		Ranges: []solver.Range{{Lo: 0, Hi: 100}}, Parts: []uint64{0, 30, 60, 100}}}})
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 2, Level: Level{Blob: blobOf("level2"), Reachable: 5,
		Ranges: []solver.Range{{Lo: 0, Hi: 100}}}}})
	grantComplete(unitRef(id, 2, api.PhaseSolve, 0), "w1", nil, api.Output{Tier: 2, Blob: blobOf("recs2")})
	if p := h.state().Runs[0].Tiers[1].Parts; p != nil {
		t.Fatalf("tier 1 in parts before its child's database is written: %+v", p)
	}
	h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: 2, DB: DB{Blob: blobOf("db2")}}})

	workers := []string{"w1", "w2", "w3"}
	ref := func(k int) api.UnitRef { return unitRef(id, 1, api.PhaseParts, k) }
	notes := api.Output{Tier: 1, Blob: blobOf("notes 0->1"), Role: api.RoleNotes, Part: 1}
	tied := api.Output{Tier: 1, Blob: blobOf("tied 2"), Role: api.RoleTied}
	ckpt := func(s string) api.Output { return api.Output{Tier: 1, Blob: blobOf(s), Role: api.RoleCheckpoint} }
	// Each round: the phase and level it runs, and what each part
	// reports: its next level and outputs.
	type report struct {
		next int
		outs []api.Output
	}
	var last [3]uint64 // the tokens of the parts' last rounds
	rounds := []struct {
		phase   string
		level   int
		reports [3]report
	}{
		{api.PartsFirst, -1, [3]report{{2, []api.Output{ckpt("c0")}}, {-1, []api.Output{ckpt("c1")}}, {5, []api.Output{ckpt("c2"), tied}}}},
		{api.PartsWins, 2, [3]report{{-1, []api.Output{notes}}, {-1, nil}, {5, nil}}},
		{api.PartsWins, 3, [3]report{{-1, nil}, {4, nil}, {5, []api.Output{ckpt("c2 at 2")}}}},
		{api.PartsWins, 4, [3]report{{-1, nil}, {-1, nil}, {5, nil}}},
		{api.PartsWins, 5, [3]report{{-1, nil}, {-1, nil}, {-1, nil}}},
		{api.PartsTies, -1, [3]report{{-1, nil}, {-1, nil}, {-1, nil}}},
	}
	for i, rd := range rounds {
		s := h.state()
		p := s.Runs[0].Tiers[1].Parts
		if p == nil || p.Phase != rd.phase || p.Level != rd.level || p.Round != i || len(p.Units) != 3 {
			t.Fatalf("round %d: parts %+v, want phase %s level %d", i, p, rd.phase, rd.level)
		}
		if i == 3 {
			// Part 1: its first pass's checkpoint, then rounds 1 to 3, the
			// second with the notes part 0 sent it; part 2 from its
			// checkpoint of round 2.
			a := s.Assignment(ref(1), 0)
			if a != nil {
				t.Fatal("an assignment for a unit not leased")
			}
			if w := p.Parts[1]; w.Checkpoint == nil || *w.Checkpoint != blobOf("c1") || len(w.Steps) != 3 ||
				!slices.Equal(w.Steps[1].In, []api.Blob{notes.Blob}) || w.Steps[2].Level != 4 {
				t.Fatalf("part 1 at round 3: %+v", w)
			}
			if w := p.Parts[2]; *w.Checkpoint != blobOf("c2 at 2") || w.CheckpointRound != 2 || len(w.Steps) != 1 {
				t.Fatalf("part 2 at round 3: %+v", w)
			}
			var live map[string]int64
			h.fsm.View(func(s *State, _ uint64) { live = s.LiveBlobs() })
			for _, b := range []api.Blob{notes.Blob, tied.Blob, blobOf("c1"), blobOf("c2 at 2")} {
				if _, ok := live[b.SHA256]; !ok {
					t.Errorf("%s not live at round 3", b.SHA256[:8])
				}
			}
			if _, ok := live[blobOf("c2").SHA256]; ok {
				t.Error("part 2's first checkpoint still live after its second")
			}
		}
		if i > 0 {
			// The last round's reports, sent again, are accepted as they
			// were, and change nothing; their tokens are not lost.
			for k := range last {
				done := Completion{Worker: workers[k], Token: last[k], Part: &api.PartResult{Next: rd.reports[k].next}}
				if err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref(k), Done: done}}).(error); err != nil {
					t.Fatalf("round %d: part %d's report of round %d sent again: %v", i, k, i-1, err)
				}
				if s := h.state(); !s.AcceptedToken(last[k]) {
					t.Errorf("round %d: token %d of part %d's last round not known as accepted", i, last[k], k)
				}
			}
			if p := h.state().Runs[0].Tiers[1].Parts; p.Round != i || slices.ContainsFunc(p.Units, func(u *Unit) bool { return u.Done != nil }) {
				t.Fatalf("round %d: reports sent again moved the parts to %+v", i, p)
			}
			if s := h.state(); !slices.Equal(s.Holders(), workers) {
				t.Errorf("round %d: holders %v, want %v", i, s.Holders(), workers)
			}
			// A part's round waits for its worker while it is present.
			var got []api.UnitRef
			h.fsm.View(func(s *State, _ uint64) {
				for r := range s.Free(Taker{Worker: "w2", Present: workers}) {
					got = append(got, r)
				}
			})
			if !slices.Equal(got, []api.UnitRef{ref(1)}) {
				t.Fatalf("round %d: w2 may take %v, want its own part's unit only", i, got)
			}
		}
		for k, rp := range rd.reports {
			if i == 0 && k == 0 {
				tok := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref(0), Worker: "w1"}}).(uint64)
				err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref(0), Done: Completion{Worker: "w1", Token: tok,
					Outputs: rp.outs}}}).(error)
				if !errors.Is(err, api.ErrBadOutputs) {
					t.Fatalf("a part's completion without its report: %v", err)
				}
				h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: ref(0), Token: tok}})
			}
			last[k] = grantComplete(ref(k), workers[k], &api.PartResult{Next: rp.next}, rp.outs...)
		}
	}
	s := h.state()
	p := s.Runs[0].Tiers[1].Parts
	if p.Phase != api.PartsRecords || p.Round != 6 || !p.Parts[2].Steps[len(p.Parts[2].Steps)-1].Records {
		t.Fatalf("after ties: %+v", p)
	}
	if w := p.Parts[2]; !slices.Equal(w.Steps[len(w.Steps)-2].In, []api.Blob{tied.Blob}) || !w.Steps[len(w.Steps)-2].Ties {
		t.Fatalf("part 2's ties did not start with its tied notes: %+v", w.Steps)
	}
	for k := range 3 {
		grantComplete(ref(k), workers[k], &api.PartResult{Next: -1}, api.Output{Tier: 1, Blob: blobOf("recs1 " + workers[k]), Role: api.RoleRecords})
	}
	s = h.state()
	t1 := s.Runs[0].Tiers[1]
	if t1.Parts.Phase != api.PartsDone || len(t1.Solve) != 3 || t1.Parts.NotesBytes != uint64(notes.Blob.Size) {
		t.Fatalf("tier 1 after its records: %+v, solve %+v", t1.Parts, t1.Solve)
	}
	if got := tasksOf(h); !slices.Contains(got, Task{TaskDB, id, 1}) {
		t.Fatalf("no task to merge tier 1's database: %v", got)
	}
	h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: 1, DB: DB{Blob: blobOf("db1")}}})
	var live map[string]int64
	h.fsm.View(func(s *State, _ uint64) { live = s.LiveBlobs() })
	for _, b := range []api.Blob{notes.Blob, tied.Blob, blobOf("c1"), blobOf("recs1 w1")} {
		if _, ok := live[b.SHA256]; ok {
			t.Errorf("%s still live once the tier's database is written", b.SHA256[:8])
		}
	}
}

// TestPartsMemory: a worker is leased no unit estimated larger than its
// budget; the status names what waits, and why; a tier is cut into the
// fewest parts that fit the largest budget, none if it fits whole.
func TestPartsMemory(t *testing.T) {
	r := chainRun()
	r.ID, r.State = "r1", api.Running
	const size = 1 << 30
	t1 := r.Tiers[1]
	t1.Size, r.Tiers[2].Size = size, size/2
	r.Tiers[2].Level = &Level{Reachable: size / 4}
	whole := r.LoopyBytes(t1, size/2)
	if got := r.PartsFor(t1, size/2, int64(whole), 256); got != 0 {
		t.Errorf("a tier that fits whole cut in %d parts", got)
	}
	if got := r.PartsFor(t1, size/2, 0, 256); got != 0 {
		t.Errorf("a tier cut in %d parts for workers that do not say their memory", got)
	}
	budget := int64(whole / 3)
	parts := r.PartsFor(t1, size/2, budget, 256)
	if parts < 2 || parts == 256 {
		t.Fatalf("%d parts for a budget of a third of the tier's %d bytes", parts, whole)
	}
	var kid uint64 = size / 2
	if solver.PartBytes(size, size/uint64(parts)+1, kid) > uint64(budget) || solver.PartBytes(size, size/uint64(parts-1)+1, kid) <= uint64(budget) {
		t.Errorf("%d parts is not the fewest that fit", parts)
	}
	t1.Level = &Level{Reachable: size / 2, Parts: []uint64{0, size / 2, size}}
	t1.Parts = newParts(t1)
	s := &State{Runs: []*Run{r}}
	need := r.UnitBytes(t1, t1.Parts.Units[0])
	free := func(memory int64) int {
		n := 0
		for range s.Free(Taker{Worker: "w", Memory: memory}) {
			n++
		}
		return n
	}
	if free(int64(need)) != 2 || free(int64(need)-1) != 0 || free(0) != 2 {
		t.Errorf("free units for budgets %d, %d and none: %d, %d, %d; want 2, 0, 2", need, need-1, free(int64(need)), free(int64(need)-1), free(0))
	}
	if msg := s.Blocked("r1", int64(need)-1); !strings.Contains(msg, "tier t1 part 0 of 2 needs about") {
		t.Errorf("blocked: %q", msg)
	}
	if msg := s.Blocked("r1", int64(need)); msg != "" {
		t.Errorf("blocked although a worker can take it: %q", msg)
	}
	// A part's next round goes to the worker that holds it, even when
	// what it reported grew the estimate past its budget.
	t1.Parts.Parts[0].Worker = "w"
	if free(int64(need)-1) != 1 {
		t.Errorf("the worker holding part 0 may not take its next round")
	}
	for ref := range s.Free(Taker{Worker: "other", Memory: int64(need) - 1}) {
		t.Errorf("%v leased to a worker too small for it", ref)
	}
	// A first pass reads the child tiers; a later round holds the part's
	// cells (two bytes a hash from the level a byte does not hold) or
	// what the largest part reported, and no child tier.
	u0 := t1.Parts.Units[0]
	if got, want := r.UnitBytes(t1, u0), solver.PartFirstPassBytes(size, size/2, size/2); got != want {
		t.Errorf("a first pass: %d bytes, want %d", got, want)
	}
	t1.Parts.Phase, t1.Parts.Level = api.PartsWins, 3
	if got, want := r.UnitBytes(t1, u0), solver.PartRoundBytes(size, size/2); got != want || got >= need {
		t.Errorf("a round of level 3: %d bytes, want %d, less than its first pass's %d", got, want, need)
	}
	t1.Parts.Level = 200
	if got, want := r.UnitBytes(t1, u0), solver.PartRoundBytes(size, size); got != want {
		t.Errorf("a round of level 200: %d bytes, want %d (two bytes a cell)", got, want)
	}
	t1.Parts.Level, t1.Parts.Bytes = 3, size
	if got, want := r.UnitBytes(t1, u0), solver.PartRoundBytes(size, size); got != want {
		t.Errorf("a round after a part reported %d bytes: %d, want %d", uint64(size), got, want)
	}
	t1.Parts.Phase, t1.Parts.Level, t1.Parts.Bytes = api.PartsFirst, -1, 0
	// The tier's closing is estimated on one thread, and leased so.
	closing := &Unit{Kind: api.Close, Hi: size}
	if got, want := r.UnitBytes(t1, closing), solver.CloseBytes(size, []uint64{size / 2}, 1); got != want {
		t.Errorf("closing the tier: %d bytes, want %d", got, want)
	}
	tk := Taker{Worker: "other", Memory: int64(r.UnitBytes(t1, closing))}
	if !tk.fits(r, t1, closing) {
		t.Error("closing does not fit its estimate")
	}
	if tk.Memory--; tk.fits(r, t1, closing) {
		t.Error("closing fits a budget below its estimate")
	}
	t1.Parts, t1.Reach = nil, []*Unit{closing}
	if msg := s.Blocked("r1", tk.Memory); !strings.Contains(msg, "closing tier t1 needs about") || strings.Contains(msg, "--loopy-ranges") {
		t.Errorf("blocked by closing: %q", msg)
	}
}
