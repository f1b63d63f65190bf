package state

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// TestFSMParts walks a loopy tier solved in 3 parts through its child
// tier's notes (one KidNotes unit) and its rounds as solver's lockstep
// does: the next level is the least of the parts' next levels, or the
// one after if notes were sent; ties, then records, which become the
// tier's solve units. Along the way: what a unit is given (its
// checkpoint and the rounds since, with the notes they read), the blobs
// kept live, the leases that wait for a part's worker, a completion
// without its report refused, and a report of a part's last round sent
// again after the next round started (its answer lost with a leader)
// known as accepted, its worker a holder a new leader presumes present.
func TestFSMParts(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&Command{Op: opCreate, Run: chainRun()}).(string)
	grantComplete := h.grantReport
	// Tier 0 reached and expanded, tier 1 closed, tier 2 solved.
	h.partsChain(id, Level{Parts: []uint64{0, 30, 60, 100}})
	if p := h.state().Runs[0].Tiers[1].Parts; p != nil {
		t.Fatalf("tier 1 in parts before its child's database is written: %+v", p)
	}
	h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: 2, DB: DB{Blob: blobOf("db2")}}})

	workers := []string{"w1", "w2", "w3"}
	ref := func(k int) api.UnitRef { return unitRef(id, 1, api.PhaseParts, k) }
	notes := api.Output{Tier: 1, Blob: blobOf("notes 0->1"), Role: api.RoleNotes, Part: 1}
	tied := api.Output{Tier: 1, Blob: blobOf("tied 2"), Role: api.RoleTied, Part: 2}
	held := api.Output{Tier: 1, Blob: blobOf("held 1"), Role: api.RoleHeld, Part: 1}
	// The child tier's notes: one unit, its 5 records.
	if p := h.state().Runs[0].Tiers[1].Parts; p == nil || p.Phase != api.PartsKids || len(p.Units) != 1 ||
		p.Units[0].Kind != api.KidNotes || p.Units[0].Child != 2 || p.Units[0].Hi != 5 {
		t.Fatalf("tier 1's parts before their first pass: %+v", p)
	}
	grantComplete(ref(0), "w3", &api.PartResult{Next: -1, Notes: 9, Rem: 4}, held, tied)
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
		{api.PartsFirst, -1, [3]report{{2, []api.Output{ckpt("c0")}}, {-1, []api.Output{ckpt("c1")}}, {5, []api.Output{ckpt("c2")}}}},
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
			for _, b := range []api.Blob{blobOf("c2"), held.Blob} {
				if _, ok := live[b.SHA256]; ok {
					t.Errorf("%s still live after a later checkpoint of its part", b.SHA256[:8])
				}
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
	if got, _ := r.PartsFor(t1, size/2, int64(whole), 256); got != 0 {
		t.Errorf("a tier that fits whole cut in %d parts", got)
	}
	if got, _ := r.PartsFor(t1, size/2, 0, 256); got != 0 {
		t.Errorf("a tier cut in %d parts for workers that do not say their memory", got)
	}
	largest := int64(whole / 3)
	parts, budget := r.PartsFor(t1, size/2, largest, 256)
	if parts < 2 || parts == 256 || budget != plan.CutBudget(uint64(largest)) {
		t.Fatalf("%d parts for a budget of %d, for a budget of a third of the tier's %d bytes", parts, budget, whole)
	}
	var kidSize uint64 = size / 2
	if plan.PartBytes(size, size/uint64(parts)+1, kidSize) > budget || plan.PartBytes(size, size/uint64(parts-1)+1, kidSize) <= budget {
		t.Errorf("%d parts is not the fewest that fit", parts)
	}
	// Workers too small for the room for their growth: cut for their
	// budget itself.
	least := plan.PartBytes(size, size/256+1, kidSize)
	if _, budget := r.PartsFor(t1, size/2, int64(least), 256); budget != least {
		t.Errorf("cut for a budget of %d on workers of %d, which no cut of that fits", budget, least)
	}
	t1.Level = &Level{Reachable: size / 2, Parts: []uint64{0, size / 2, size}}
	t1.Parts = r.newParts(t1)
	s := &State{Runs: []*Run{r}}
	// The child tier's notes: two units, each holding the child's set and
	// a chunk of its records, nothing of the tier.
	kid := t1.Parts.Units[0]
	if len(t1.Parts.Units) != 2 || kid.Kind != api.KidNotes || r.UnitBytes(t1, kid) != plan.KidNotesBytes(size/2, 2) {
		t.Fatalf("the child's notes: %+v, %d bytes", t1.Parts.Units, r.UnitBytes(t1, kid))
	}
	if msg := s.Blocked("r1", int64(r.UnitBytes(t1, kid))-1); !strings.Contains(msg, "tier t1 notes of child tier t2 needs about") {
		t.Errorf("blocked: %q", msg)
	}
	t1.Parts.startFirst(t1, make([][]api.Blob, 2), make([][]api.Blob, 2))
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
	// A first pass holds the part's window of the set, its cells and
	// tables and a section of notes; a later round the part's cells (two
	// bytes a hash from the level a byte does not hold) and tables or
	// what the largest part reported, and the notes it makes; neither any
	// child tier.
	u0, half := t1.Parts.Units[0], uint64(size/2)
	if got, want := r.UnitBytes(t1, u0), plan.PartFirstPassBytes(half, half); got != want {
		t.Errorf("a first pass: %d bytes, want %d", got, want)
	}
	t1.Parts.Phase, t1.Parts.Level = api.PartsWins, 3
	if got, want := r.UnitBytes(t1, u0), plan.PartRoundBytes(half, plan.PartHeldBytes(half)); got != want || got <= need {
		t.Errorf("a round of level 3: %d bytes, want %d, more than its first pass's %d", got, want, need)
	}
	t1.Parts.Level = 200
	if got, want := r.UnitBytes(t1, u0), plan.PartRoundBytes(half, 2*half+plan.PartSideBytes(half)); got != want {
		t.Errorf("a round of level 200: %d bytes, want %d (two bytes a cell)", got, want)
	}
	t1.Parts.Level, t1.Parts.Bytes = 3, 2*half
	if got, want := r.UnitBytes(t1, u0), plan.PartRoundBytes(half, 2*half); got != want {
		t.Errorf("a round after a part reported %d bytes: %d, want %d", 2*half, got, want)
	}
	t1.Parts.Phase, t1.Parts.Level, t1.Parts.Bytes = api.PartsFirst, -1, 0
	// The tier's closing is estimated on one thread, and leased so.
	closing := &Unit{Kind: api.Close, Hi: size}
	if got, want := r.UnitBytes(t1, closing), plan.CloseBytes(size, []uint64{size / 2}, 1); got != want {
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

// TestFSMPartsKids: a tier in 2 parts with two child tiers starts with
// a KidNotes unit per range of each child's records (the large child in
// two, at whole chunks; the small one whole), leased to any worker; a
// unit whose lease is lost is run again, its first worker's late
// completion refused and its outputs recorded only with the second's;
// outputs of a part's roles or for no part are refused. Once every unit
// is done, the first pass starts: each part's step carries the held
// files for it, then the won ones, in the units' order, its tied files
// are kept for ties, and the children's longest remoteness and tie are
// the largest reported. The held and won files stay live until the
// parts' first checkpoints, the tied ones after.
func TestFSMPartsKids(t *testing.T) {
	h := newHarness(t)
	const big = 3 << 20 // records of tier 2
	run := &Run{Format: Format, Game: "test", Option: "default", Settings: api.DefaultSettings, Created: time.Unix(1, 0).UTC(), Tiers: []*Tier{
		{Tier: 0, Name: "t0", Size: 100, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Loopy: true, Parents: []uint64{0}, Children: []uint64{2, 3}},
		{Tier: 2, Name: "t2", Size: 1 << 23, Parents: []uint64{1}},
		{Tier: 3, Name: "t3", Size: 100, Parents: []uint64{1}},
	}}
	id := h.apply(&Command{Op: opCreate, Run: run}).(string)
	grant := h.grant
	complete := func(ref api.UnitRef, worker string, tok uint64, part *api.PartResult, outs ...api.Output) error {
		err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Worker: worker, Token: tok, Outputs: outs, Part: part}}}).(error)
		return err
	}
	grantComplete := h.grantReport
	level := func(tier uint64, reachable, size uint64, parts []uint64) {
		h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: tier, Level: Level{Blob: blobOf(fmt.Sprint("level", tier)), Reachable: reachable,
			Ranges: []plan.Range{{Lo: 0, Hi: size}}, Parts: parts}}})
	}
	level(0, 10, 100, nil)
	grantComplete(unitRef(id, 0, api.PhaseReach, 0), "w1", nil, api.Output{Tier: 1, Blob: blobOf("p1")})
	grantComplete(unitRef(id, 1, api.PhaseReach, 0), "w1", nil, api.Output{Tier: 1, Blob: blobOf("closed")},
		api.Output{Tier: 2, Blob: blobOf("p2")}, api.Output{Tier: 3, Blob: blobOf("p3")})
	level(1, 30, 100, []uint64{0, 50, 100})
	level(2, big, 1<<23, nil)
	level(3, 10, 100, nil)
	for _, c := range []uint64{2, 3} {
		grantComplete(unitRef(id, c, api.PhaseSolve, 0), "w1", nil, api.Output{Tier: c, Blob: blobOf(fmt.Sprint("recs", c))})
		h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: c, DB: DB{Blob: blobOf(fmt.Sprint("db", c))}}})
	}

	ref := func(i int) api.UnitRef { return unitRef(id, 1, api.PhaseParts, i) }
	s := h.state()
	p := s.Runs[0].Tiers[1].Parts
	half := uint64(24 * plan.ChildChunk)
	want := []Unit{{Kind: api.KidNotes, Lo: 0, Hi: half, Child: 2}, {Kind: api.KidNotes, Lo: half, Hi: big, Child: 2}, {Kind: api.KidNotes, Lo: 0, Hi: 10, Child: 3}}
	if p == nil || p.Phase != api.PartsKids || len(p.Units) != len(want) {
		t.Fatalf("tier 1's parts: %+v, want %d KidNotes units", p, len(want))
	}
	for i, u := range p.Units {
		if *u != want[i] {
			t.Errorf("unit %d: %+v, want %+v", i, *u, want[i])
		}
	}
	// Any worker may take any of them, whatever it did before.
	var free []api.UnitRef
	h.fsm.View(func(s *State, _ uint64) {
		for r := range s.Free(Taker{Worker: "w2", Present: []string{"w1", "w2"}}) {
			free = append(free, r)
		}
	})
	if !slices.Equal(free, []api.UnitRef{ref(0), ref(1), ref(2)}) {
		t.Fatalf("free units %v, want the 3 KidNotes units", free)
	}
	tok := grant(ref(1), "w1")
	var a *api.Assignment
	h.fsm.View(func(st *State, _ uint64) { a = st.Assignment(ref(1), tok) })
	if a == nil || a.Kind != api.KidNotes || a.Lo != half || a.Hi != big || len(a.Kids) != 1 || a.Kids[0].Tier != 2 ||
		a.Kids[0].DB == nil || *a.Kids[0].DB != blobOf("db2") || a.Kids[0].Level != blobOf("level2") || a.Part == nil ||
		!slices.Equal(a.Part.Bounds, []uint64{0, 50, 100}) || a.Bytes != int64(plan.KidNotesBytes(1<<23, 2)) {
		t.Fatalf("the assignment of a KidNotes unit: %+v", a)
	}
	// Its lease is lost (expired: released through the log); another
	// worker runs it again, and the first's late completion is stale.
	h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: ref(1), Token: tok}})
	out := func(s, role string, part int) api.Output {
		return api.Output{Tier: 1, Blob: blobOf(s), Role: role, Part: part}
	}
	tok2 := grant(ref(1), "w2")
	if err := complete(ref(1), "w1", tok, &api.PartResult{Next: -1}, out("late", api.RoleHeld, 0)); !errors.Is(err, api.ErrStale) {
		t.Fatalf("a lost lease's completion: %v, want stale", err)
	}
	for _, bad := range []struct {
		part *api.PartResult
		outs []api.Output
	}{
		{nil, []api.Output{out("h10", api.RoleHeld, 0)}},
		{&api.PartResult{Next: -1}, []api.Output{out("n", api.RoleNotes, 0)}},
		{&api.PartResult{Next: -1}, []api.Output{out("c", api.RoleCheckpoint, 0)}},
		{&api.PartResult{Next: -1}, []api.Output{out("h", api.RoleHeld, 2)}},
	} {
		if err := complete(ref(1), "w2", tok2, bad.part, bad.outs...); !errors.Is(err, api.ErrBadOutputs) {
			t.Errorf("a KidNotes completion %+v %+v: %v, want bad outputs", bad.part, bad.outs, err)
		}
	}
	if err := complete(ref(1), "w2", tok2, &api.PartResult{Next: -1, Notes: 30, Rem: 9, Ties: true},
		out("h10", api.RoleHeld, 0), out("w10", api.RoleWon, 0), out("w11", api.RoleWon, 1)); err != nil {
		t.Fatal(err)
	}
	if p := h.state().Runs[0].Tiers[1].Parts; p.Phase != api.PartsKids || p.Units[1].Done == nil || p.Units[1].Done.Worker != "w2" {
		t.Fatalf("after one KidNotes unit: %+v", p)
	}
	grantComplete(ref(2), "w1", &api.PartResult{Next: -1, Notes: 3, Rem: 12}, out("h21", api.RoleHeld, 1))
	grantComplete(ref(0), "w1", &api.PartResult{Next: -1, Notes: 40, Rem: 7},
		out("h00", api.RoleHeld, 0), out("h01", api.RoleHeld, 1), out("w00", api.RoleWon, 0), out("t01", api.RoleTied, 1))

	s = h.state()
	p = s.Runs[0].Tiers[1].Parts
	blobs := func(names ...string) []api.Blob {
		var bs []api.Blob
		for _, n := range names {
			bs = append(bs, blobOf(n))
		}
		return bs
	}
	steps := [][]api.PartStep{
		{{Round: 0, Level: -1, In: blobs("h00", "h10"), Won: blobs("w00", "w10")}},
		{{Round: 0, Level: -1, In: blobs("h01", "h21"), Won: blobs("w11")}},
	}
	if p.Phase != api.PartsFirst || p.Round != 0 || len(p.Units) != 2 || p.Units[1].Kind != api.Part || p.Units[1].Lo != 50 ||
		p.KidRem != 12 || p.KidTie != 9 || p.KidNotes != 73 || p.Notes != 0 {
		t.Fatalf("after the KidNotes units: %+v", p)
	}
	for k, part := range p.Parts {
		if !reflect.DeepEqual(part.Steps, steps[k]) {
			t.Errorf("part %d's first pass: %+v, want %+v", k, part.Steps, steps[k])
		}
	}
	if !slices.Equal(p.Parts[0].Tied, nil) || !slices.Equal(p.Parts[1].Tied, blobs("t01")) {
		t.Errorf("tied files %v and %v, want none and t01", p.Parts[0].Tied, p.Parts[1].Tied)
	}
	var bytes int64
	for _, n := range []string{"h10", "w10", "w11", "h21", "h00", "h01", "w00", "t01"} {
		bytes += blobOf(n).Size
	}
	if p.KidNotesBytes != uint64(bytes) {
		t.Errorf("%d bytes of the children's notes, want %d", p.KidNotesBytes, bytes)
	}
	tok = grant(ref(1), "w2")
	h.fsm.View(func(st *State, _ uint64) { a = st.Assignment(ref(1), tok) })
	if a.Kind != api.Part || len(a.Kids) != 0 || a.Level == nil || a.Part.KidRem != 12 || a.Part.KidTie != 9 ||
		!reflect.DeepEqual(a.Part.Steps, steps[1]) || a.Bytes != int64(plan.PartFirstPassBytes(50, 50)) || !slices.Equal(a.Part.Window, []uint64{50, 100}) {
		t.Fatalf("a first pass's assignment: %+v, part %+v", a, a.Part)
	}
	isLive := func(names ...string) []bool {
		var live map[string]int64
		h.fsm.View(func(s *State, _ uint64) { live = s.LiveBlobs() })
		var got []bool
		for _, n := range names {
			_, ok := live[blobOf(n).SHA256]
			got = append(got, ok)
		}
		return got
	}
	if got := isLive("h00", "w10", "h21", "t01", "late"); !slices.Equal(got, []bool{true, true, true, true, false}) {
		t.Errorf("live during the first pass (h00 w10 h21 t01 late): %v", got)
	}
	if err := complete(ref(1), "w2", tok, &api.PartResult{Next: 3}, out("w11", api.RoleWon, 0)); !errors.Is(err, api.ErrBadOutputs) {
		t.Errorf("a first pass's KidNotes output: %v, want bad outputs", err)
	}
	if err := complete(ref(1), "w2", tok, &api.PartResult{Next: 3}, out("c1", api.RoleCheckpoint, 0)); err != nil {
		t.Fatal(err)
	}
	// Part 0 is not checkpointed yet: its files, and part 1's (a round
	// in progress), stay live.
	if got := isLive("h00", "w11", "c1"); !slices.Equal(got, []bool{true, true, true}) {
		t.Errorf("live with one first pass done (h00 w11 c1): %v", got)
	}
	grantComplete(ref(0), "w1", &api.PartResult{Next: 2}, out("c0", api.RoleCheckpoint, 0))
	if p := h.state().Runs[0].Tiers[1].Parts; p.Phase != api.PartsWins || p.Level != 2 || p.Round != 1 || len(p.Parts[0].Steps) != 1 || p.Parts[0].Steps[0].Won != nil {
		t.Fatalf("after the first pass: %+v", p)
	}
	if got := isLive("h00", "h01", "h10", "h21", "w00", "w10", "w11", "t01", "c0", "c1"); !slices.Equal(got,
		[]bool{false, false, false, false, false, false, false, true, true, true}) {
		t.Errorf("live after the parts' first checkpoints (held and won files, t01, c0, c1): %v", got)
	}
}

// TestFSMPartsSubs: a tier cut finer for its first passes
// (Level.FirstParts) has its child tiers' notes made for the sub-parts
// (their tied notes kept by part), and makes its first passes a sub-part
// a unit (api.FirstRange), each given its own notes; a sub-part whose
// unit fails is run again, a completion that is not one checkpoint is
// refused; once all are done, each part's first round gathers its
// sub-parts' checkpoints, in order, and the child notes are let go; the
// sub-parts' checkpoints go once the parts' own are written.
func TestFSMPartsSubs(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&Command{Op: opCreate, Run: chainRun()}).(string)
	grantComplete := h.grantReport
	live := func(b api.Blob) bool {
		var ok bool
		h.fsm.View(func(s *State, _ uint64) { _, ok = s.LiveBlobs()[b.SHA256] })
		return ok
	}
	bounds, fine := []uint64{0, 30, 60, 100}, []uint64{0, 15, 30, 45, 60, 80, 100}
	h.partsChain(id, Level{Parts: bounds, FirstParts: fine})
	h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: 2, DB: DB{Blob: blobOf("db2")}}})

	ref := func(k int) api.UnitRef { return unitRef(id, 1, api.PhaseParts, k) }
	held := api.Output{Tier: 1, Blob: blobOf("held 3"), Role: api.RoleHeld, Part: 3}
	won := api.Output{Tier: 1, Blob: blobOf("won 4"), Role: api.RoleWon, Part: 4}
	tied := api.Output{Tier: 1, Blob: blobOf("tied 5"), Role: api.RoleTied, Part: 5}
	tok := h.grant(ref(0), "w1")
	if s := h.state(); !slices.Equal(s.Assignment(ref(0), tok).Part.Bounds, fine) {
		t.Fatal("the child notes are not made for the sub-parts")
	}
	bad := api.Output{Tier: 1, Blob: blobOf("held 6"), Role: api.RoleHeld, Part: 6}
	err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref(0), Done: Completion{Worker: "w1", Token: tok, Outputs: []api.Output{bad},
		Part: &api.PartResult{Next: -1}}}}).(error)
	if !errors.Is(err, api.ErrBadOutputs) {
		t.Fatalf("notes for sub-part 6 of 6: %v", err)
	}
	h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: ref(0), Token: tok}})
	grantComplete(ref(0), "w1", &api.PartResult{Next: -1, Rem: 7}, held, won, tied)

	p := h.state().Runs[0].Tiers[1].Parts
	if p.Phase != api.PartsSubs || len(p.Units) != 6 {
		t.Fatalf("after the child notes: %+v", p)
	}
	for j, u := range p.Units {
		if u.Kind != api.FirstRange || u.Lo != fine[j] || u.Hi != fine[j+1] {
			t.Fatalf("sub-part %d: %+v", j, u)
		}
	}
	if tp := p.Parts[2].Tied; !slices.Equal(tp, []api.Blob{tied.Blob}) {
		t.Fatalf("part 2's tied notes: %v", tp)
	}
	// Sub-part 3 is part 1's second: its notes, under the finer cut, and
	// part 1's window of the set.
	tok = h.grant(ref(3), "w2")
	s := h.state()
	a := s.Assignment(ref(3), tok)
	if a == nil || a.Kind != api.FirstRange || a.Part == nil || a.Part.Part != 3 || !slices.Equal(a.Part.Bounds, fine) || a.Part.KidRem != 7 ||
		len(a.Part.Steps) != 1 || !slices.Equal(a.Part.Steps[0].In, []api.Blob{held.Blob}) || len(a.Part.Steps[0].Won) != 0 || a.Level == nil ||
		!slices.Equal(a.Part.Window, []uint64{30, 60}) || a.Bytes != int64(plan.PartFirstPassBytes(30, 15)) {
		t.Fatalf("sub-part 3's assignment: %+v", a)
	}
	// A completion with notes, or two checkpoints, is not a sub-part's.
	for _, outs := range [][]api.Output{
		{{Tier: 1, Blob: blobOf("n"), Role: api.RoleNotes}},
		{{Tier: 1, Blob: blobOf("a"), Role: api.RoleCheckpoint}, {Tier: 1, Blob: blobOf("b"), Role: api.RoleCheckpoint}},
	} {
		err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref(3), Done: Completion{Worker: "w2", Token: tok, Outputs: outs,
			Part: &api.PartResult{Next: -1}}}}).(error)
		if !errors.Is(err, api.ErrBadOutputs) {
			t.Fatalf("a sub-part completed with %d outputs: %v", len(outs), err)
		}
	}
	// Its worker fails: it is run again, elsewhere.
	h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: ref(3), Token: tok, Error: "killed"}})
	if u := h.state().Runs[0].Tiers[1].Parts.Units[3]; u.Lease != nil || u.Done != nil {
		t.Fatalf("sub-part 3 after its worker failed: %+v", u)
	}
	if !live(held.Blob) || !live(won.Blob) {
		t.Fatal("the child notes are not live while the sub-parts read them")
	}
	for j := range 6 {
		grantComplete(ref(j), fmt.Sprintf("w%d", j%3+1), &api.PartResult{Next: -1, Bytes: uint64(100 + j)},
			api.Output{Tier: 1, Blob: blobOf(fmt.Sprintf("sub %d", j)), Role: api.RoleCheckpoint})
	}
	// The largest part holds its sub-parts' bytes together: part 2's,
	// 104 + 105.
	p = h.state().Runs[0].Tiers[1].Parts
	if p.Phase != api.PartsFirst || p.Round != 0 || len(p.Units) != 3 || p.Bytes != 209 {
		t.Fatalf("after the sub-parts: %+v", p)
	}
	for k, part := range p.Parts {
		want := []api.Blob{blobOf(fmt.Sprintf("sub %d", 2*k)), blobOf(fmt.Sprintf("sub %d", 2*k+1))}
		if p.Units[k].Kind != api.Part || len(part.Steps) != 1 || !slices.Equal(part.Steps[0].Gather, want) || part.Steps[0].In != nil || part.Steps[0].Won != nil {
			t.Fatalf("part %d's first round: %+v", k, part.Steps)
		}
	}
	if live(held.Blob) || live(won.Blob) || !live(blobOf("sub 3")) {
		t.Error("after the sub-parts, the child notes are live or a sub-part's checkpoint is not")
	}
	tok = h.grant(ref(1), "w2")
	s = h.state()
	// It holds the part as its sub-parts reported it (209 bytes, above
	// the estimate of its 30 hashes).
	if a := s.Assignment(ref(1), tok); a == nil || a.Kind != api.Part || !slices.Equal(a.Part.SubBounds, fine) || !slices.Equal(a.Part.Bounds, bounds) ||
		!slices.Equal(a.Part.Window, []uint64{30, 60}) || a.Bytes != int64(plan.PartRoundBytes(30, max(plan.PartHeldBytes(30), 209))) {
		t.Fatalf("part 1's gathering round: %+v", a)
	}
	// While w2 has part 1's round, it takes no other part of the tier's
	// first round as long as a present worker has none; w1 takes any.
	freeFor := func(w string, peers ...api.WorkerInfo) []api.UnitRef {
		tk := Taker{Worker: w, Peers: peers}
		for _, p := range peers {
			tk.Present = append(tk.Present, p.ID)
		}
		var got []api.UnitRef
		h.fsm.View(func(s *State, _ uint64) {
			for r := range s.Free(tk) {
				got = append(got, r)
			}
		})
		return got
	}
	w1, w2 := api.WorkerInfo{ID: "w1"}, api.WorkerInfo{ID: "w2"}
	if got := freeFor("w2", w1, w2); len(got) != 0 {
		t.Errorf("w2, with part 1's first round, may take %v while w1 has none", got)
	}
	if got := freeFor("w1", w1, w2); !slices.Equal(got, []api.UnitRef{ref(0), ref(2)}) {
		t.Errorf("w1 may take %v, want parts 0 and 2", got)
	}
	if got := freeFor("w2", w2); !slices.Equal(got, []api.UnitRef{ref(0), ref(2)}) {
		t.Errorf("w2 alone may take %v, want parts 0 and 2", got)
	}
	// Nor does it wait for a worker too small for the part, or without
	// the run's game.
	for _, other := range []api.WorkerInfo{{ID: "w1", Memory: 1 << 10}, {ID: "w1", Games: []string{"quixo"}}} {
		if got := freeFor("w2", other, w2); !slices.Equal(got, []api.UnitRef{ref(0), ref(2)}) {
			t.Errorf("w2 may take %v beside %+v, want parts 0 and 2", got, other)
		}
	}
	h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: ref(1), Token: tok}})
	// A gathering may write a checkpoint, or none (part 1): its
	// sub-parts' then stand for it, and its next round replays from them.
	for k := range 3 {
		var outs []api.Output
		if k != 1 {
			outs = append(outs, api.Output{Tier: 1, Blob: blobOf(fmt.Sprintf("c%d", k)), Role: api.RoleCheckpoint})
		}
		grantComplete(ref(k), "w1", &api.PartResult{Next: 2}, outs...)
	}
	p = h.state().Runs[0].Tiers[1].Parts
	if p.Phase != api.PartsWins || p.Level != 2 || p.Parts[0].Checkpoint == nil || *p.Parts[0].Checkpoint != blobOf("c0") {
		t.Fatalf("after the first round: %+v", p)
	}
	if part := p.Parts[1]; part.Checkpoint != nil || len(part.Steps) != 2 || len(part.Steps[0].Gather) != 2 || part.Steps[1].Level != 2 {
		t.Fatalf("part 1 after a gathering without a checkpoint: %+v", part)
	}
	if live(blobOf("sub 1")) || !live(blobOf("c0")) || !live(blobOf("sub 3")) {
		t.Error("a sub-part's checkpoint is live after its part's, or the part's is not, or a part's gathering is not live without one")
	}
	// Part 1's next round, on a worker that does not hold it, replays it
	// from its gathering.
	tok = h.grant(ref(1), "w3")
	h.fsm.View(func(st *State, _ uint64) { a = st.Assignment(ref(1), tok) })
	if a == nil || a.Part.Checkpoint != nil || len(a.Part.Steps) != 2 || len(a.Part.Steps[0].Gather) != 2 || !slices.Equal(a.Part.SubBounds, fine) ||
		!slices.Equal(a.Part.Window, []uint64{30, 60}) {
		t.Fatalf("part 1's round after a gathering without a checkpoint: %+v", a)
	}
}

// TestLongWhole: a loopy tier that fits whole is cut for time only when
// its share of the run's hashes times the threads passes longShare, it
// holds at least two MinRange, and there is more than one thread.
func TestLongWhole(t *testing.T) {
	r := chainRun() // three tiers of 100 hashes
	r.Tiers = append(r.Tiers, &Tier{Tier: 3, Name: "t3", Size: 2000})
	r.Settings.MinRange = 10
	t1 := r.Tier(1)
	for _, tc := range []struct {
		count   uint64
		threads int
		want    bool
	}{
		{30, 4, true},    // 100/2300 times 4: 0.17
		{30, 3, false},   // 0.13
		{19, 4, false},   // under two MinRange
		{1000, 1, false}, // one thread: nothing to spread over
	} {
		if got := r.LongWhole(t1, tc.count, tc.threads); got != tc.want {
			t.Errorf("%d positions, %d threads: %v, want %v", tc.count, tc.threads, got, tc.want)
		}
	}
}

// TestAffineRoom: two tiers in rounds at once on workers that keep one
// part each. The tier ahead (offered first) takes a worker per part; the
// other waits for it to end rather than share a worker's memory with it,
// and so does its part's holder once a part ahead lands beside it. A part
// of the tier ahead goes to a worker with room, and to one without only
// when none has room; two parts that fit together share a worker.
func TestAffineRoom(t *testing.T) {
	const hashes = 1 << 24
	inRounds := func(name string, tier uint64, workers ...string) *Tier {
		p := &Parts{Phase: api.PartsWins, Level: 0}
		for k, w := range workers {
			p.Units = append(p.Units, &Unit{Kind: api.Part, Lo: uint64(k) * hashes, Hi: uint64(k+1) * hashes})
			p.Parts = append(p.Parts, &Part{Next: 0, Worker: w})
		}
		return &Tier{Tier: tier, Name: name, Size: uint64(len(workers)) * hashes, Loopy: true, Parts: p}
	}
	behind, ahead := inRounds("behind", 0, "", ""), inRounds("ahead", 1, "w1", "w2", "", "")
	r := &Run{Game: "test", Tiers: []*Tier{behind, ahead}}
	need, kept := r.UnitBytes(ahead, ahead.Parts.Units[0]), ahead.partKept(0)
	one := int64(need + kept/2) // one part, not two
	peers := func(memory int64, ids ...string) []api.WorkerInfo {
		var out []api.WorkerInfo
		for _, id := range ids {
			out = append(out, api.WorkerInfo{ID: id, Memory: memory})
		}
		return out
	}
	all := []string{"w1", "w2", "w3", "w4"}
	taker := func(w string, memory int64, present ...string) Taker {
		return Taker{Worker: w, Memory: memory, Present: present, Peers: peers(memory, present...)}
	}
	for _, tc := range []struct {
		name string
		t    *Tier
		i    int
		tk   Taker
		wait bool
	}{
		{"a part to its holder", ahead, 0, taker("w1", one, all...), false},
		{"not to another worker", ahead, 0, taker("w3", one, all...), true},
		{"a new part to a worker with none", ahead, 2, taker("w3", one, all...), false},
		{"not to one with a part while another has none", ahead, 2, taker("w1", one, all...), true},
		{"to one with a part when every one has", ahead, 2, taker("w1", one, "w1", "w2"), false},
		{"or one with room for two", ahead, 2, taker("w1", 2*one, all...), true}, // crowded still spreads
		{"behind: not beside a part ahead", behind, 0, taker("w1", one, "w1", "w2"), true},
		{"behind: beside one when it fits", behind, 0, taker("w1", 2*one, "w1", "w2"), false},
		{"behind: to a worker with none", behind, 0, taker("w3", one, all...), false},
		{"behind: without a budget, as before", behind, 0, taker("w1", 0, "w1", "w2"), false},
	} {
		if got := r.affine(tc.t, tc.i, tc.tk); got != tc.wait {
			t.Errorf("%s: waits %v, want %v", tc.name, got, tc.wait)
		}
	}

	// Part 0 behind is held by w3; part 2 ahead lands on w3 too (every
	// worker had one). Part 0's next round waits for the tier ahead,
	// whoever asks; part 2 ahead stays on w3 while part 3 goes to w4.
	behind.Parts.Parts[0].Worker = "w3"
	ahead.Parts.Parts[2].Worker = "w3"
	ahead.Parts.Parts[3].Worker = "w4"
	for _, w := range all {
		if !r.affine(behind, 0, taker(w, one, all...)) {
			t.Errorf("behind's part 0 may go to %s beside the parts ahead", w)
		}
	}
	if r.affine(ahead, 2, taker("w3", one, all...)) || !r.affine(ahead, 2, taker("w1", one, all...)) {
		t.Error("ahead's part 2 does not stay on w3")
	}
	// Once the tier ahead is done, its holder takes it back.
	ahead.Parts.Phase = api.PartsDone
	if r.affine(behind, 0, taker("w3", one, all...)) || !r.affine(behind, 0, taker("w1", one, all...)) {
		t.Error("behind's part 0 does not go back to w3 once the tier ahead is done")
	}
	// A worker with no room left for the first tier in rounds takes the
	// part when none has room: it cannot wait.
	ahead.Parts.Phase = api.PartsWins
	behind.Parts.Phase = api.PartsDone
	ahead.Parts.Parts[3].Worker = ""
	ahead.Parts.Units = append(ahead.Parts.Units, &Unit{Kind: api.Part, Lo: 4 * hashes, Hi: 5 * hashes})
	ahead.Parts.Parts = append(ahead.Parts.Parts, &Part{Next: 0, Worker: "w4"})
	if r.affine(ahead, 3, taker("w1", one, all...)) {
		t.Error("the first tier in rounds waits for room no worker has")
	}
}

// TestPartsOrder: a worker is offered the parts it ran the last round
// of first, the one it ran last (the likeliest in its memory) first of
// them; the child tiers' ranges in their order.
func TestPartsOrder(t *testing.T) {
	p := &Parts{Phase: api.PartsWins, Parts: []*Part{{Worker: "w1", Token: 5}, {Worker: "w2", Token: 7}, {Worker: "w1", Token: 9}, {}},
		Units: make([]*Unit, 4)}
	for _, tc := range []struct {
		worker string
		want   []int
	}{
		{"w1", []int{2, 0, 1, 3}},
		{"w2", []int{1, 0, 2, 3}},
		{"w3", []int{0, 1, 2, 3}},
		{"", []int{0, 1, 2, 3}},
	} {
		if got := p.order(tc.worker); !slices.Equal(got, tc.want) {
			t.Errorf("%q is offered %v, want %v", tc.worker, got, tc.want)
		}
	}
	p.Phase = api.PartsKids
	if got := p.order("w1"); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("the child tiers' ranges offered as %v", got)
	}
}
