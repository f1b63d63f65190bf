package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// ref names a unit.
func unitRef(run string, tier uint64, phase api.Phase, index int) api.UnitRef {
	return api.UnitRef{Run: run, Tier: tier, Phase: phase, Index: index}
}

// fsmHarness applies commands to an FSM as the raft log would, numbering
// the entries. When the test ends, it checks that every run's view (the
// API's answer) is the run's JSON.
type fsmHarness struct {
	t     testing.TB
	fsm   *FSM
	index uint64
}

func newHarness(t testing.TB) *fsmHarness {
	h := &fsmHarness{t: t, fsm: NewFSM()}
	t.Cleanup(h.checkViews)
	return h
}

func (h *fsmHarness) apply(c *Command) any {
	b, err := json.Marshal(c)
	if err != nil {
		h.t.Fatal(err)
	}
	h.index++
	return h.fsm.Apply(&raft.Log{Index: h.index, Type: raft.LogCommand, Data: b})
}

// grantComplete leases ref to worker w1 and completes it with outs; it
// returns the lease's token.
func (h *fsmHarness) grantComplete(ref api.UnitRef, outs ...api.Output) uint64 {
	h.t.Helper()
	return h.grantReport(ref, "w1", nil, outs...)
}

// grant leases ref to worker and returns the lease's token.
func (h *fsmHarness) grant(ref api.UnitRef, worker string) uint64 {
	h.t.Helper()
	tok, ok := h.apply(Grant(ref, worker, "")).(uint64)
	if !ok {
		h.t.Fatalf("grant %v refused", ref)
	}
	return tok
}

// grantReport leases ref to worker and completes it with outs and the
// report of a unit of a tier in parts (nil for other units); it returns
// the lease's token.
func (h *fsmHarness) grantReport(ref api.UnitRef, worker string, part *api.PartResult, outs ...api.Output) uint64 {
	h.t.Helper()
	tok := h.grant(ref, worker)
	if err, _ := h.apply(Complete(ref, Completion{Worker: worker, Token: tok, Outputs: outs, Part: part})).(error); err != nil {
		h.t.Fatalf("complete %v: %v", ref, err)
	}
	return tok
}

// partsChain takes chainRun's run id to its tier 1 in parts: tier 0
// reached and expanded, tier 1 closed and cut as lv says (its set's
// blob, count and ranges added), tier 2 solved; tier 2's database is the
// caller's to write.
func (h *fsmHarness) partsChain(id string, lv Level) {
	h.t.Helper()
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("level0"), Reachable: 10,
		Ranges: []plan.Range{{Lo: 0, Hi: 100}}}}})
	h.grantComplete(unitRef(id, 0, api.PhaseReach, 0), api.Output{Tier: 1, Blob: blobOf("p1")})
	h.grantComplete(unitRef(id, 1, api.PhaseReach, 0), api.Output{Tier: 1, Blob: blobOf("closed")}, api.Output{Tier: 2, Blob: blobOf("p2")})
	lv.Blob, lv.Reachable, lv.Ranges = blobOf("level1"), 30, []plan.Range{{Lo: 0, Hi: 100}}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 1, Level: lv}})
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 2, Level: Level{Blob: blobOf("level2"), Reachable: 5,
		Ranges: []plan.Range{{Lo: 0, Hi: 100}}}}})
	h.grantComplete(unitRef(id, 2, api.PhaseSolve, 0), api.Output{Tier: 2, Blob: blobOf("recs2")})
}

func (h *fsmHarness) state() State {
	var s State
	h.fsm.View(func(st *State, _ uint64) {
		b, _ := json.Marshal(st)
		json.Unmarshal(b, &s)
	})
	return s
}

// checkViews checks that every run's view is the run's JSON.
func (h *fsmHarness) checkViews() {
	h.fsm.View(func(s *State, _ uint64) {
		for _, r := range s.Runs {
			checkView(h.t, r)
		}
	})
}

// checkView checks that run r's view (the API's answer) is r's JSON, as
// GET /v1/runs/{id} answered when it was the state itself.
func checkView(t testing.TB, r *Run) {
	t.Helper()
	state, _ := json.Marshal(r)
	view, _ := json.Marshal(r.View())
	if !bytes.Equal(state, view) {
		t.Fatalf("run %s's view is\n%s\nnot\n%s", r.ID, view, state)
	}
}

// chainRun is a run over tiers 0 -> 1 -> 2, tier 1 loopy.
func chainRun() *Run {
	return &Run{Format: Format, Game: "test", Option: "default", Settings: api.DefaultSettings, Created: time.Unix(1, 0).UTC(), Tiers: []*Tier{
		{Tier: 0, Name: "t0", Size: 100, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Loopy: true, Parents: []uint64{0}, Children: []uint64{2}},
		{Tier: 2, Name: "t2", Size: 100, Parents: []uint64{1}},
	}}
}

func blobOf(s string) api.Blob {
	return api.Blob{SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(s))), Size: int64(len(s))}
}

func tasksOf(h *fsmHarness) []Task {
	var out []Task
	h.fsm.View(func(s *State, _ uint64) { out = s.Tasks() })
	return out
}

// TestFSMRunLifecycle walks a run through every phase, checking the
// units and leader tasks the rules create.
func TestFSMRunLifecycle(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&Command{Op: opCreate, Run: chainRun()}).(string)
	if id != "r1" {
		t.Fatalf("run id %q", id)
	}
	if got := tasksOf(h); !slices.Equal(got, []Task{{TaskLevel, id, 0}}) {
		t.Fatalf("tasks at start: %v", got)
	}
	// Tier 0's level: two ranges, two expand units, cut apart from the
	// solve units' ranges.
	lv := Level{Blob: blobOf("level0"), Reachable: 10, Ranges: []plan.Range{{Lo: 0, Hi: 50}, {Lo: 50, Hi: 100}},
		Expand: []plan.Range{{Lo: 0, Hi: 30}, {Lo: 30, Hi: 100}}}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: lv}})
	s := h.state()
	if us := s.Runs[0].Tiers[0].Reach; len(us) != 2 || us[0].Kind != api.Expand || us[0].Hi != 30 || us[1].Lo != 30 {
		t.Fatalf("tier 0 reach units: %+v, want the expand ranges", us)
	}
	if len(tasksOf(h)) != 0 {
		t.Fatalf("tasks while expanding: %v", tasksOf(h))
	}
	grantComplete := func(ref api.UnitRef, outs ...api.Output) {
		t.Helper()
		tok, ok := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "w"}}).(uint64)
		if !ok {
			t.Fatalf("grant %v refused", ref)
		}
		if err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: tok, Outputs: outs}}}).(error); err != nil {
			t.Fatalf("complete %v: %v", ref, err)
		}
	}
	grantComplete(unitRef(id, 0, api.PhaseReach, 0), api.Output{Tier: 1, Blob: blobOf("p1a")})
	grantComplete(unitRef(id, 0, api.PhaseReach, 1), api.Output{Tier: 1, Blob: blobOf("p1bb")})
	// Tier 1 is loopy: its parents expanded, it gets one api.Close unit whose
	// inputs are the two partials.
	s = h.state()
	t1 := s.Runs[0].Tiers[1]
	if !s.Runs[0].Tiers[0].Expanded || len(t1.Reach) != 1 || t1.Reach[0].Kind != api.Close {
		t.Fatalf("tier 1 after tier 0 expanded: %+v", t1)
	}
	if in := s.Runs[0].CloseInputs(t1); len(in) != 2 {
		t.Fatalf("close inputs %v", in)
	}
	grantComplete(unitRef(id, 1, api.PhaseReach, 0), api.Output{Tier: 1, Blob: blobOf("closed")}, api.Output{Tier: 2, Blob: blobOf("p2")})
	s = h.state()
	if in := s.Runs[0].LevelInputs(s.Runs[0].Tiers[1]); len(in) != 1 || in[0] != blobOf("closed") {
		t.Fatalf("level inputs of the loopy tier: %v", in)
	}
	if got := tasksOf(h); len(got) != 2 { // tiers 1 and 2 can both be merged
		t.Fatalf("tasks after closing: %v", got)
	}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 1, Level: Level{Blob: blobOf("level1"), Reachable: 20}}})
	// Tier 2 in the leader's two steps: its cut, then its file.
	cut := Level{Reachable: 5, Ranges: []plan.Range{{Lo: 0, Hi: 100}}}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 2, Level: cut}})
	s = h.state()
	if t2, phase := s.Runs[0].Tiers[2], s.Runs[0].View().Tiers[2].Phase(); !t2.Expanded || t2.Solve != nil || phase != "merging" {
		t.Fatalf("tier 2 cut, not written: solvable or wrong phase %q: %+v", phase, t2)
	}
	if got := tasksOf(h); !slices.Contains(got, Task{TaskLevel, id, 2}) {
		t.Fatalf("no task to write tier 2's file after its cut: %v", got)
	}
	var live map[string]int64
	h.fsm.View(func(s *State, _ uint64) { live = s.LiveBlobs() })
	if _, ok := live[blobOf("p2").SHA256]; !ok {
		t.Fatal("tier 2's partial not live while its file is not written")
	}
	again := Level{Reachable: 5, Ranges: []plan.Range{{Lo: 0, Hi: 40}, {Lo: 40, Hi: 100}}}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 2, Level: again}}) // a redone cut: ignored
	again.Blob = blobOf("level2")
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 2, Level: again}})
	if lv := h.state().Runs[0].Tiers[2].Level; lv.Blob != blobOf("level2") || !slices.Equal(lv.Ranges, cut.Ranges) {
		t.Fatalf("tier 2 written: %+v, want the file with the first cut's ranges", lv)
	}
	h.fsm.View(func(s *State, _ uint64) { live = s.LiveBlobs() })
	if _, ok := live[blobOf("p2").SHA256]; ok {
		t.Fatal("tier 2's partial still live once its file is written")
	}
	// Tier 2 has no children: expanded at once, solvable once written.
	s = h.state()
	t2 := s.Runs[0].Tiers[2]
	if !t2.Expanded || len(t2.Reach) != 0 || len(t2.Solve) != 1 || t2.Solve[0].Kind != api.SolveRange {
		t.Fatalf("tier 2: %+v", t2)
	}
	if s.Runs[0].Tiers[1].Solve != nil {
		t.Fatal("tier 1 solvable before tier 2 is solved")
	}
	grantComplete(unitRef(id, 2, api.PhaseSolve, 0), api.Output{Tier: 2, Blob: blobOf("recs2")})
	if got := tasksOf(h); !slices.Equal(got, []Task{{TaskDB, id, 2}}) {
		t.Fatalf("tasks after solving tier 2: %v", got)
	}
	h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: 2, DB: DB{Blob: blobOf("db2")}}})
	s = h.state()
	if u := s.Runs[0].Tiers[1].Solve; len(u) != 1 || u[0].Kind != api.SolveTier {
		t.Fatalf("tier 1 solve units: %+v", u)
	}
	grantComplete(unitRef(id, 1, api.PhaseSolve, 0), api.Output{Tier: 1, Blob: blobOf("recs1")})
	h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: 1, DB: DB{Blob: blobOf("db1")}}})
	if us := h.state().Runs[0].Tiers[0].Solve; len(us) != 2 || us[0].Hi != 50 || us[1].Lo != 50 {
		t.Fatalf("tier 0 solve units: %+v, want the solve ranges", us)
	}
	grantComplete(unitRef(id, 0, api.PhaseSolve, 0), api.Output{Tier: 0, Blob: blobOf("recs0")})
	grantComplete(unitRef(id, 0, api.PhaseSolve, 1), api.Output{Tier: 0, Blob: blobOf("recs0b")})
	h.apply(&Command{Op: opDB, DB: &dbCmd{Run: id, Tier: 0, DB: DB{Blob: blobOf("db0")}}})
	if got := tasksOf(h); !slices.Equal(got, []Task{{TaskFinish, id, 0}}) {
		t.Fatalf("tasks when all solved: %v", got)
	}
	// Only the level files and databases stay live.
	h.fsm.View(func(s *State, _ uint64) { live = s.LiveBlobs() })
	if len(live) != 6 {
		t.Fatalf("live blobs of a solved run: %d, want 6", len(live))
	}
	h.apply(&Command{Op: opFinish, Finish: &finishCmd{Run: id, Start: &runfolder.StartRecord{Value: "win"}}})
	if s := h.state(); s.Runs[0].State != api.Done || len(tasksOf(h)) != 0 {
		t.Fatalf("finished run: %+v", s.Runs[0])
	}
	if err, _ := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: unitRef(id, 0, api.PhaseSolve, 0)}}).(error); !errors.Is(err, api.ErrNotRunning) {
		t.Fatalf("grant on a finished run: %v", err)
	}
}

// TestFSMFencing: only the current lease's token completes a unit.
func TestFSMFencing(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&Command{Op: opCreate, Run: chainRun()}).(string)
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 1, Ranges: []plan.Range{{Lo: 0, Hi: 100}}}}})
	ref := unitRef(id, 0, api.PhaseReach, 0)
	out := []api.Output{{Tier: 1, Blob: blobOf("x")}}
	complete := func(tok uint64, outs []api.Output) error {
		err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: tok, Outputs: outs}}}).(error)
		return err
	}
	tok1 := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "a"}}).(uint64)
	if err, _ := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "b"}}).(error); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("second grant of a leased unit: %v", err)
	}
	h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: ref, Token: tok1}}) // expired
	if err := complete(tok1, out); !errors.Is(err, api.ErrStale) {
		t.Fatalf("completion after expiry: %v", err)
	}
	tok2 := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "b"}}).(uint64)
	if err := complete(tok1, out); !errors.Is(err, api.ErrStale) {
		t.Fatalf("completion with the old token: %v", err)
	}
	if err, _ := h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: ref, Token: tok1}}).(error); !errors.Is(err, api.ErrStale) {
		t.Fatalf("release with the old token: %v", err)
	}
	if err := complete(tok2, []api.Output{{Tier: 2, Blob: blobOf("x")}}); !errors.Is(err, api.ErrBadOutputs) {
		t.Fatalf("completion with an output for a tier that is not a child: %v", err)
	}
	if err := complete(tok2, []api.Output{{Tier: 1, Blob: api.Blob{SHA256: "../../etc/passwd"}}}); !errors.Is(err, api.ErrBadOutputs) {
		t.Fatalf("completion naming a path: %v", err)
	}
	if err := complete(tok2, out); err != nil {
		t.Fatal(err)
	}
	if err := complete(tok2, out); err != nil {
		t.Fatalf("a retried completion: %v", err)
	}
	if err := complete(tok1, out); !errors.Is(err, api.ErrStale) {
		t.Fatalf("an old completion after the unit is done: %v", err)
	}
	// Failures: three fail the run.
	h2 := newHarness(t)
	id2 := h2.apply(&Command{Op: opCreate, Run: chainRun()}).(string)
	h2.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id2, Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 1, Ranges: []plan.Range{{Lo: 0, Hi: 100}}}}})
	for i := range MaxFailures {
		tok := h2.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: unitRef(id2, 0, api.PhaseReach, 0), Worker: "a"}}).(uint64)
		h2.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: unitRef(id2, 0, api.PhaseReach, 0), Token: tok, Error: fmt.Sprint("boom ", i)}})
	}
	if s := h2.state(); s.Runs[0].State != api.Failed || s.Runs[0].Error == "" {
		t.Fatalf("run after %d failures: %s %q", MaxFailures, s.Runs[0].State, s.Runs[0].Error)
	}
}

// memSink is a raft.SnapshotSink in memory.
type memSink struct{ bytes.Buffer }

func (m *memSink) ID() string    { return "mem" }
func (m *memSink) Cancel() error { return nil }
func (m *memSink) Close() error  { return nil }

// restored is a new FSM restored from a snapshot of f.
func restored(t testing.TB, f *FSM) *FSM {
	t.Helper()
	g := NewFSM()
	if err := g.Restore(io.NopCloser(bytes.NewReader(snapshotBytes(t, f)))); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFSMSnapshotRestore: a restored FSM equals the original, and goes on
// to apply the same commands with the same results.
func TestFSMSnapshotRestore(t *testing.T) {
	h := newHarness(t)
	rng := rand.New(rand.NewPCG(1, 2))
	cmds := randomCommands(h, rng, 300)
	h2 := &fsmHarness{t: t, fsm: restored(t, h.fsm), index: h.index}
	a, _ := json.Marshal(h.state())
	b, _ := json.Marshal(h2.state())
	if !bytes.Equal(a, b) {
		t.Fatal("restored state differs")
	}
	for _, c := range cmds[:100] { // the same commands again, on both
		r1, r2 := h.apply(c), h2.apply(c)
		if fmt.Sprint(r1) != fmt.Sprint(r2) {
			t.Fatalf("after restore, %s gives %v, original %v", c.Op, r2, r1)
		}
	}
	a, _ = json.Marshal(h.state())
	b, _ = json.Marshal(h2.state())
	if !bytes.Equal(a, b) {
		t.Fatal("states differ after the same commands")
	}
	if err := NewFSM().Restore(io.NopCloser(bytes.NewReader([]byte("{not json")))); err == nil {
		t.Fatal("a damaged snapshot restored")
	}
}

// randomCommands applies n random grant/complete/release commands to a
// run of one tier with many units, and returns them.
func randomCommands(h *fsmHarness, rng *rand.Rand, n int) []*Command {
	id := h.apply(&Command{Op: opCreate, Run: chainRun()}).(string)
	var ranges []plan.Range
	for i := range 20 {
		ranges = append(ranges, plan.Range{Lo: uint64(5 * i), Hi: uint64(5*i + 5)})
	}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 100, Ranges: ranges}}})
	var cmds []*Command
	var tokens []uint64
	for range n {
		ref := unitRef(id, 0, api.PhaseReach, rng.IntN(len(ranges)))
		var c *Command
		switch k := rng.IntN(3); {
		case k == 0 || len(tokens) == 0:
			c = &Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "w"}}
		case k == 1:
			c = &Command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: tokens[rng.IntN(len(tokens))],
				Outputs: []api.Output{{Tier: 1, Blob: blobOf("o")}}}}}
		default:
			c = &Command{Op: opRelease, Release: &releaseCmd{Ref: ref, Token: tokens[rng.IntN(len(tokens))]}}
		}
		if tok, ok := h.apply(c).(uint64); ok {
			tokens = append(tokens, tok)
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// FuzzApply: whatever bytes reach the log, applying them never panics and
// a snapshot of the result restores.
func FuzzApply(f *testing.F) {
	h := newHarness(f)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range randomCommands(h, rng, 30) {
		b, _ := json.Marshal(c)
		f.Add(b)
	}
	f.Add([]byte(`{"op":"grant","grant":{"ref":{"run":"r1","tier":0,"phase":"reach","index":-1}}}`))
	f.Add([]byte(`{"op":"complete","complete":{"ref":{"run":"r1","tier":18446744073709551615,"phase":"solve","index":0}}}`))
	f.Add([]byte(`{"op":"finish"}`))
	f.Add([]byte(`{"op":"create","run":{"tiers":[{"tier":0,"parents":[5]}]}}`))
	f.Add([]byte(`{"op":"create","run":{"tiers":[{"tier":0,"children":[0]},{"tier":0}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHarness(t)
		h.apply(&Command{Op: opCreate, Run: chainRun()})
		h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: "r1", Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 1, Ranges: []plan.Range{{Lo: 0, Hi: 100}}}}})
		h.index++
		h.fsm.Apply(&raft.Log{Index: h.index, Type: raft.LogCommand, Data: data})
		h.fsm.View(func(s *State, _ uint64) { s.Tasks(); s.LiveBlobs() })
		restored(t, h.fsm)
	})
}

// TestFSMSubmitIdempotent: a submission retried with its request id (its
// first answer lost to a reset connection) names the run it created
// instead of creating another; other ids, or none, create runs.
func TestFSMSubmitIdempotent(t *testing.T) {
	h := newHarness(t)
	with := func(id string) *Run { r := chainRun(); r.RequestID = id; return r }
	first := h.apply(&Command{Op: opCreate, Run: with("req-1")}).(string)
	if again := h.apply(&Command{Op: opCreate, Run: with("req-1")}).(string); again != first {
		t.Errorf("a retried submission created run %s besides %s", again, first)
	}
	other := h.apply(&Command{Op: opCreate, Run: with("req-2")}).(string)
	plain := h.apply(&Command{Op: opCreate, Run: with("")}).(string)
	plain2 := h.apply(&Command{Op: opCreate, Run: with("")}).(string)
	if other == first || plain == other || plain2 == plain {
		t.Errorf("runs %s %s %s %s: want distinct runs for distinct submissions", first, other, plain, plain2)
	}
	if n := len(h.state().Runs); n != 4 {
		t.Errorf("%d runs, want 4", n)
	}
}

// TestFSMProvisionalLease: a tier's solve units may be leased to the
// worker that holds the last units of its child tier before they are
// done (and to no other worker), and their completion waits for those.
func TestFSMProvisionalLease(t *testing.T) {
	h := newHarness(t)
	run := &Run{Format: Format, Game: "test", Option: "default", Settings: api.DefaultSettings, Created: time.Unix(1, 0).UTC(), Tiers: []*Tier{
		{Tier: 0, Name: "t0", Size: 100, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Parents: []uint64{0}},
	}}
	id := h.apply(&Command{Op: opCreate, Run: run}).(string)
	two := []plan.Range{{Lo: 0, Hi: 50}, {Lo: 50, Hi: 100}}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l0"), Reachable: 10, Ranges: two}}})
	grant := func(ref api.UnitRef, worker string) (uint64, error) {
		t.Helper()
		switch res := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: worker}}).(type) {
		case uint64:
			return res, nil
		case error:
			return 0, res
		default:
			t.Fatalf("grant %v: %v", ref, res)
			return 0, nil
		}
	}
	complete := func(ref api.UnitRef, token uint64, outs ...api.Output) error {
		err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: token, Outputs: outs}}}).(error)
		return err
	}
	for i := range 2 {
		ref := unitRef(id, 0, api.PhaseReach, i)
		tok, err := grant(ref, "w")
		if err != nil {
			t.Fatal(err)
		}
		if err := complete(ref, tok, api.Output{Tier: 1, Blob: blobOf(fmt.Sprint("p1-", i))}); err != nil {
			t.Fatal(err)
		}
	}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 1, Level: Level{Blob: blobOf("l1"), Reachable: 10, Ranges: two}}})
	kid := func(i int) api.UnitRef { return unitRef(id, 1, api.PhaseSolve, i) }
	parent := func(i int) api.UnitRef { return unitRef(id, 0, api.PhaseSolve, i) }
	tok0, _ := grant(kid(0), "w")
	if err := complete(kid(0), tok0, api.Output{Tier: 1, Blob: blobOf("r1-0")}); err != nil {
		t.Fatal(err)
	}
	if s := h.state(); s.Runs[0].Tiers[0].Solve != nil {
		t.Fatal("tier 0 solvable while a unit of tier 1 is free")
	}
	tok1, _ := grant(kid(1), "w")
	var forW, forWSaysNot, forX, forAny []api.UnitRef
	h.fsm.View(func(s *State, _ uint64) {
		forW = slices.Collect(s.Free(Taker{Worker: "w", Holding: []uint64{tok0, tok1}}))
		forWSaysNot = slices.Collect(s.Free(Taker{Worker: "w", Holding: nil})) // a restarted process, or an older worker
		forX = slices.Collect(s.Free(Taker{Worker: "x", Holding: []uint64{tok1}}))
		forAny = slices.Collect(s.Free(Taker{}))
	})
	if !slices.Equal(forW, []api.UnitRef{parent(0), parent(1)}) || len(forWSaysNot) != 0 || len(forX) != 0 || len(forAny) != 0 {
		t.Fatalf("free units while w holds tier 1's last: for w %v, for w not holding it %v, for x %v, for any %v", forW, forWSaysNot, forX, forAny)
	}
	if _, err := grant(parent(0), "x"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("tier 0's unit granted to another worker: %v", err)
	}
	p0, err := grant(parent(0), "w")
	if err != nil {
		t.Fatalf("provisional grant: %v", err)
	}
	var a *api.Assignment
	h.fsm.View(func(s *State, _ uint64) { a = s.Assignment(parent(0), p0) })
	if k := a.Kids[0]; len(k.Records) != 2 || k.Records[0] != blobOf("r1-0") || k.Records[1] != (api.Blob{}) ||
		len(k.Mine) != 1 || k.Mine[0] != (api.MineUnit{Ref: kid(1), Token: tok1, Lo: 50, Hi: 100}) {
		t.Fatalf("provisional assignment's kid: %+v", k)
	}
	if err := complete(parent(0), p0, api.Output{Tier: 0, Blob: blobOf("r0-0")}); !errors.Is(err, api.ErrNotReady) {
		t.Fatalf("completion before the child's last unit: %v", err)
	}
	// w's lease on the child's last unit expires, and x takes it: tier 0
	// is no one's provisionally any more, and p0 waits for x's result.
	h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: kid(1), Token: tok1}})
	if _, err := grant(parent(1), "w"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("provisional grant after the child's lease was released: %v", err)
	}
	tokX, _ := grant(kid(1), "x")
	if _, err := grant(parent(1), "w"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("provisional grant while another worker holds the child's unit: %v", err)
	}
	if err := complete(kid(1), tokX, api.Output{Tier: 1, Blob: blobOf("r1-1")}); err != nil {
		t.Fatal(err)
	}
	if err := complete(parent(0), p0, api.Output{Tier: 0, Blob: blobOf("r0-0")}); err != nil {
		t.Fatalf("completion once the child is solved: %v", err)
	}
	if _, err := grant(parent(1), "x"); err != nil {
		t.Fatalf("grant once the child is solved: %v", err)
	}
}

// TestProvisionalRulesAgainstModel drives a parent tier and its child
// tier's solve units with random grants to two workers, completions with
// any token ever issued and releases, and checks every answer of the FSM
// against a simple model of the rules: a parent unit may be leased to a
// worker once every child unit not done is leased to that worker (or all
// are done), and its completion, with its current token, is accepted only
// once every child unit is done. Under the race detector 8 random runs
// of the 30 (the FSM applies one command at a time; .ci/run runs them
// all without it).
func TestProvisionalRulesAgainstModel(t *testing.T) {
	seeds := 30
	if race.Enabled {
		seeds = 8
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { provisionalModelRun(t, seed) })
	}
}

type modelLease struct {
	token  uint64 // current lease, 0 if none
	worker string
	done   uint64 // accepted token, 0 if not done
}

func provisionalModelRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	h := newHarness(t)
	run := &Run{Format: Format, Game: "test", Option: "default", Settings: api.DefaultSettings, Created: time.Unix(1, 0).UTC(), Tiers: []*Tier{
		{Tier: 0, Name: "t0", Size: 100, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Parents: []uint64{0}},
	}}
	id := h.apply(&Command{Op: opCreate, Run: run}).(string)
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l0"), Reachable: 10,
		Ranges: []plan.Range{{Lo: 0, Hi: 50}, {Lo: 50, Hi: 100}}}}})
	for i := range 2 {
		ref := unitRef(id, 0, api.PhaseReach, i)
		tok := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "w"}}).(uint64)
		h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: tok, Outputs: []api.Output{{Tier: 1, Blob: blobOf(fmt.Sprint("p", i))}}}}})
	}
	h.apply(&Command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 1, Level: Level{Blob: blobOf("l1"), Reachable: 10,
		Ranges: []plan.Range{{Lo: 0, Hi: 30}, {Lo: 30, Hi: 60}, {Lo: 60, Hi: 100}}}}})

	kids, parents := make([]modelLease, 3), make([]modelLease, 2)
	parentsExist := false
	workers := []string{"w", "x"}
	type issuedToken struct {
		parent bool
		unit   int
		token  uint64
	}
	var issued []issuedToken
	kidsDone := func() bool {
		for _, k := range kids {
			if k.done == 0 {
				return false
			}
		}
		return true
	}
	heldBy := func(w string) bool { // every child unit not done is leased to w
		for _, k := range kids {
			if k.done == 0 && (k.token == 0 || k.worker != w) {
				return false
			}
		}
		return true
	}
	noteParents := func() { // the FSM creates them once, and keeps them
		if kidsDone() {
			parentsExist = true
		}
		for _, w := range workers {
			if heldBy(w) && !kidsDone() {
				parentsExist = true
			}
		}
	}
	ref := func(parent bool, u int) api.UnitRef {
		if parent {
			return unitRef(id, 0, api.PhaseSolve, u)
		}
		return unitRef(id, 1, api.PhaseSolve, u)
	}
	for step := range 500 {
		parent := rng.IntN(2) == 0
		units := kids
		if parent {
			units = parents
		}
		u := rng.IntN(len(units))
		switch rng.IntN(5) {
		case 0, 1: // grant
			w := workers[rng.IntN(2)]
			res := h.apply(&Command{Op: opGrant, Grant: &grantCmd{Ref: ref(parent, u), Worker: w}})
			want := units[u].token == 0 && units[u].done == 0
			if parent {
				want = want && parentsExist && (kidsDone() || heldBy(w))
			}
			tok, ok := res.(uint64)
			if ok != want {
				t.Fatalf("step %d: grant of %v to %s: %v, the model says %v (kids %+v, parents %+v)", step, ref(parent, u), w, res, want, kids, parents)
			}
			if ok {
				units[u].token, units[u].worker = tok, w
				issued = append(issued, issuedToken{parent, u, tok})
			}
		case 2: // a completion with a token ever issued
			if len(issued) == 0 {
				continue
			}
			it := issued[rng.IntN(len(issued))]
			units := kids
			if it.parent {
				units = parents
			}
			m := &units[it.unit]
			err, _ := h.apply(&Command{Op: opComplete, Complete: &completeCmd{Ref: ref(it.parent, it.unit),
				Done: Completion{Token: it.token, Outputs: []api.Output{{Tier: ref(it.parent, it.unit).Tier, Blob: blobOf("r")}}}}}).(error)
			switch {
			case m.done == it.token:
				if err != nil {
					t.Fatalf("step %d: a retried completion refused: %v", step, err)
				}
			case m.token != it.token:
				if !errors.Is(err, api.ErrStale) {
					t.Fatalf("step %d: a stale completion of %v: %v", step, ref(it.parent, it.unit), err)
				}
			case it.parent && !kidsDone():
				if !errors.Is(err, api.ErrNotReady) {
					t.Fatalf("step %d: a parent's completion before its children's: %v (kids %+v)", step, err, kids)
				}
			default:
				if err != nil {
					t.Fatalf("step %d: the current lease's completion of %v refused: %v", step, ref(it.parent, it.unit), err)
				}
				m.done, m.token, m.worker = it.token, 0, ""
			}
		case 3: // a lease expires or is given back
			if units[u].token == 0 {
				continue
			}
			h.apply(&Command{Op: opRelease, Release: &releaseCmd{Ref: ref(parent, u), Token: units[u].token}})
			units[u].token, units[u].worker = 0, ""
		case 4: // what the leader would offer each worker, as it says
			var got []api.UnitRef
			h.fsm.View(func(s *State, _ uint64) { got = slices.Collect(s.Free(Taker{Worker: "w", Holding: []uint64{1 << 62}})) })
			for _, r := range got {
				if r.Tier == 0 && r.Phase == api.PhaseSolve && !kidsDone() {
					t.Fatalf("step %d: %v offered to a worker that holds none of the child units", step, r)
				}
			}
		}
		noteParents()
		if s := h.state(); (s.Runs[0].Tiers[0].Solve != nil) != parentsExist {
			t.Fatalf("step %d: parent units exist %v, the model says %v", step, s.Runs[0].Tiers[0].Solve != nil, parentsExist)
		}
	}
}

// TestFSMExhaustiveRunIsNotClosed: the tiers of an exhaustive game are
// every legal hash (reach.FullTier), so none is expanded or closed, a
// loopy start tier included: each is expanded at once, and its level is
// the leader's to make.
func TestFSMExhaustiveRunIsNotClosed(t *testing.T) {
	h := newHarness(t)
	run := &Run{Format: Format, Game: "test", Option: "default", Settings: api.DefaultSettings, Created: time.Unix(1, 0).UTC(), Exhaustive: true, Tiers: []*Tier{
		{Tier: 0, Name: "t0", Size: 100, Loopy: true, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Loopy: true, Parents: []uint64{0}, Children: []uint64{2}},
		{Tier: 2, Name: "t2", Size: 100, Parents: []uint64{1}},
	}}
	id := h.apply(&Command{Op: opCreate, Run: run}).(string)
	want := []Task{{TaskLevel, id, 0}, {TaskLevel, id, 1}, {TaskLevel, id, 2}}
	if got := tasksOf(h); !slices.Equal(got, want) {
		t.Fatalf("tasks at start: %v, want %v", got, want)
	}
	for _, tr := range h.state().Runs[0].Tiers[:2] {
		if len(tr.Reach) != 0 || !tr.Expanded {
			t.Errorf("tier %d: reach units %+v, expanded %v; want none, expanded", tr.Tier, tr.Reach, tr.Expanded)
		}
	}
}
