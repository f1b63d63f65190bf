package cluster

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

	"github.com/tiersolve/tiersolve/solver"
)

// fsmHarness applies commands to an FSM as the raft log would, numbering
// the entries.
type fsmHarness struct {
	t     testing.TB
	fsm   *FSM
	index uint64
}

func newHarness(t testing.TB) *fsmHarness { return &fsmHarness{t: t, fsm: NewFSM()} }

func (h *fsmHarness) apply(c *command) any {
	b, err := json.Marshal(c)
	if err != nil {
		h.t.Fatal(err)
	}
	h.index++
	return h.fsm.Apply(&raft.Log{Index: h.index, Type: raft.LogCommand, Data: b})
}

func (h *fsmHarness) state() State {
	var s State
	h.fsm.View(func(st *State, _ uint64) {
		b, _ := json.Marshal(st)
		json.Unmarshal(b, &s)
	})
	return s
}

// chainRun is a run over tiers 0 -> 1 -> 2, tier 1 loopy.
func chainRun() *Run {
	return &Run{Game: "test", Option: "default", Settings: DefaultSettings, Created: time.Unix(1, 0).UTC(), Tiers: []*Tier{
		{Tier: 0, Name: "t0", Size: 100, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Loopy: true, Parents: []uint64{0}, Children: []uint64{2}},
		{Tier: 2, Name: "t2", Size: 100, Parents: []uint64{1}},
	}}
}

func blobOf(s string) Blob {
	return Blob{SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(s))), Size: int64(len(s))}
}

func tasksOf(h *fsmHarness) []leaderTask {
	var out []leaderTask
	h.fsm.View(func(s *State, _ uint64) { out = s.leaderTasks() })
	return out
}

// TestFSMRunLifecycle walks a run through every phase, checking the
// units and leader tasks the rules create.
func TestFSMRunLifecycle(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&command{Op: opCreate, Run: chainRun()}).(string)
	if id != "r1" {
		t.Fatalf("run id %q", id)
	}
	if got := tasksOf(h); !slices.Equal(got, []leaderTask{{taskLevel, id, 0}}) {
		t.Fatalf("tasks at start: %v", got)
	}
	// Tier 0's level: two ranges, two expand units, cut apart from the
	// solve units' ranges.
	lv := Level{Blob: blobOf("level0"), Reachable: 10, Ranges: []solver.Range{{Lo: 0, Hi: 50}, {Lo: 50, Hi: 100}},
		Expand: []solver.Range{{Lo: 0, Hi: 30}, {Lo: 30, Hi: 100}}}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: lv}})
	s := h.state()
	if us := s.Runs[0].Tiers[0].Reach; len(us) != 2 || us[0].Kind != Expand || us[0].Hi != 30 || us[1].Lo != 30 {
		t.Fatalf("tier 0 reach units: %+v, want the expand ranges", us)
	}
	if len(tasksOf(h)) != 0 {
		t.Fatalf("tasks while expanding: %v", tasksOf(h))
	}
	grantComplete := func(ref UnitRef, outs ...Output) {
		t.Helper()
		tok, ok := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "w"}}).(uint64)
		if !ok {
			t.Fatalf("grant %v refused", ref)
		}
		if err, _ := h.apply(&command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: tok, Outputs: outs}}}).(error); err != nil {
			t.Fatalf("complete %v: %v", ref, err)
		}
	}
	grantComplete(UnitRef{id, 0, PhaseReach, 0}, Output{Tier: 1, Blob: blobOf("p1a")})
	grantComplete(UnitRef{id, 0, PhaseReach, 1}, Output{Tier: 1, Blob: blobOf("p1bb")})
	// Tier 1 is loopy: its parents expanded, it gets one Close unit whose
	// inputs are the two partials.
	s = h.state()
	t1 := s.Runs[0].Tiers[1]
	if !s.Runs[0].Tiers[0].Expanded || len(t1.Reach) != 1 || t1.Reach[0].Kind != Close {
		t.Fatalf("tier 1 after tier 0 expanded: %+v", t1)
	}
	if in := s.Runs[0].closeInputs(t1); len(in) != 2 {
		t.Fatalf("close inputs %v", in)
	}
	grantComplete(UnitRef{id, 1, PhaseReach, 0}, Output{Tier: 1, Blob: blobOf("closed")}, Output{Tier: 2, Blob: blobOf("p2")})
	s = h.state()
	if in := s.Runs[0].levelInputs(s.Runs[0].Tiers[1]); len(in) != 1 || in[0] != blobOf("closed") {
		t.Fatalf("level inputs of the loopy tier: %v", in)
	}
	if got := tasksOf(h); len(got) != 2 { // tiers 1 and 2 can both be merged
		t.Fatalf("tasks after closing: %v", got)
	}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 1, Level: Level{Blob: blobOf("level1"), Reachable: 20}}})
	// Tier 2 in the leader's two steps: its cut, then its file.
	cut := Level{Reachable: 5, Ranges: []solver.Range{{Lo: 0, Hi: 100}}}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 2, Level: cut}})
	s = h.state()
	if t2 := s.Runs[0].Tiers[2]; !t2.Expanded || t2.Solve != nil || t2.Phase() != "merging" {
		t.Fatalf("tier 2 cut, not written: solvable or wrong phase %q: %+v", t2.Phase(), t2)
	}
	if got := tasksOf(h); !slices.Contains(got, leaderTask{taskLevel, id, 2}) {
		t.Fatalf("no task to write tier 2's file after its cut: %v", got)
	}
	var live map[string]int64
	h.fsm.View(func(s *State, _ uint64) { live = s.liveBlobs() })
	if _, ok := live[blobOf("p2").SHA256]; !ok {
		t.Fatal("tier 2's partial not live while its file is not written")
	}
	again := Level{Reachable: 5, Ranges: []solver.Range{{Lo: 0, Hi: 40}, {Lo: 40, Hi: 100}}}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 2, Level: again}}) // a redone cut: ignored
	again.Blob = blobOf("level2")
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 2, Level: again}})
	if lv := h.state().Runs[0].Tiers[2].Level; lv.Blob != blobOf("level2") || !slices.Equal(lv.Ranges, cut.Ranges) {
		t.Fatalf("tier 2 written: %+v, want the file with the first cut's ranges", lv)
	}
	h.fsm.View(func(s *State, _ uint64) { live = s.liveBlobs() })
	if _, ok := live[blobOf("p2").SHA256]; ok {
		t.Fatal("tier 2's partial still live once its file is written")
	}
	// Tier 2 has no children: expanded at once, solvable once written.
	s = h.state()
	t2 := s.Runs[0].Tiers[2]
	if !t2.Expanded || len(t2.Reach) != 0 || len(t2.Solve) != 1 || t2.Solve[0].Kind != SolveRange {
		t.Fatalf("tier 2: %+v", t2)
	}
	if s.Runs[0].Tiers[1].Solve != nil {
		t.Fatal("tier 1 solvable before tier 2 is solved")
	}
	grantComplete(UnitRef{id, 2, PhaseSolve, 0}, Output{Tier: 2, Blob: blobOf("recs2")})
	if got := tasksOf(h); !slices.Equal(got, []leaderTask{{taskDB, id, 2}}) {
		t.Fatalf("tasks after solving tier 2: %v", got)
	}
	h.apply(&command{Op: opDB, DB: &dbCmd{Run: id, Tier: 2, DB: DB{Blob: blobOf("db2")}}})
	s = h.state()
	if u := s.Runs[0].Tiers[1].Solve; len(u) != 1 || u[0].Kind != SolveTier {
		t.Fatalf("tier 1 solve units: %+v", u)
	}
	grantComplete(UnitRef{id, 1, PhaseSolve, 0}, Output{Tier: 1, Blob: blobOf("recs1")})
	h.apply(&command{Op: opDB, DB: &dbCmd{Run: id, Tier: 1, DB: DB{Blob: blobOf("db1")}}})
	if us := h.state().Runs[0].Tiers[0].Solve; len(us) != 2 || us[0].Hi != 50 || us[1].Lo != 50 {
		t.Fatalf("tier 0 solve units: %+v, want the solve ranges", us)
	}
	grantComplete(UnitRef{id, 0, PhaseSolve, 0}, Output{Tier: 0, Blob: blobOf("recs0")})
	grantComplete(UnitRef{id, 0, PhaseSolve, 1}, Output{Tier: 0, Blob: blobOf("recs0b")})
	h.apply(&command{Op: opDB, DB: &dbCmd{Run: id, Tier: 0, DB: DB{Blob: blobOf("db0")}}})
	if got := tasksOf(h); !slices.Equal(got, []leaderTask{{taskFinish, id, 0}}) {
		t.Fatalf("tasks when all solved: %v", got)
	}
	// Only the level files and databases stay live.
	h.fsm.View(func(s *State, _ uint64) { live = s.liveBlobs() })
	if len(live) != 6 {
		t.Fatalf("live blobs of a solved run: %d, want 6", len(live))
	}
	h.apply(&command{Op: opFinish, Finish: &finishCmd{Run: id, Start: &solver.StartRecord{Value: "win"}}})
	if s := h.state(); s.Runs[0].State != Done || len(tasksOf(h)) != 0 {
		t.Fatalf("finished run: %+v", s.Runs[0])
	}
	if err, _ := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: UnitRef{id, 0, PhaseSolve, 0}}}).(error); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("grant on a finished run: %v", err)
	}
}

// TestFSMFencing: only the current lease's token completes a unit.
func TestFSMFencing(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&command{Op: opCreate, Run: chainRun()}).(string)
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 1, Ranges: []solver.Range{{Lo: 0, Hi: 100}}}}})
	ref := UnitRef{id, 0, PhaseReach, 0}
	out := []Output{{Tier: 1, Blob: blobOf("x")}}
	complete := func(tok uint64, outs []Output) error {
		err, _ := h.apply(&command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: tok, Outputs: outs}}}).(error)
		return err
	}
	tok1 := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "a"}}).(uint64)
	if err, _ := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "b"}}).(error); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("second grant of a leased unit: %v", err)
	}
	h.apply(&command{Op: opRelease, Release: &releaseCmd{Ref: ref, Token: tok1}}) // expired
	if err := complete(tok1, out); !errors.Is(err, ErrStale) {
		t.Fatalf("completion after expiry: %v", err)
	}
	tok2 := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "b"}}).(uint64)
	if err := complete(tok1, out); !errors.Is(err, ErrStale) {
		t.Fatalf("completion with the old token: %v", err)
	}
	if err, _ := h.apply(&command{Op: opRelease, Release: &releaseCmd{Ref: ref, Token: tok1}}).(error); !errors.Is(err, ErrStale) {
		t.Fatalf("release with the old token: %v", err)
	}
	if err := complete(tok2, []Output{{Tier: 2, Blob: blobOf("x")}}); !errors.Is(err, ErrBadOutputs) {
		t.Fatalf("completion with an output for a tier that is not a child: %v", err)
	}
	if err := complete(tok2, []Output{{Tier: 1, Blob: Blob{SHA256: "../../etc/passwd"}}}); !errors.Is(err, ErrBadOutputs) {
		t.Fatalf("completion naming a path: %v", err)
	}
	if err := complete(tok2, out); err != nil {
		t.Fatal(err)
	}
	if err := complete(tok2, out); err != nil {
		t.Fatalf("a retried completion: %v", err)
	}
	if err := complete(tok1, out); !errors.Is(err, ErrStale) {
		t.Fatalf("an old completion after the unit is done: %v", err)
	}
	// Failures: three fail the run.
	h2 := newHarness(t)
	id2 := h2.apply(&command{Op: opCreate, Run: chainRun()}).(string)
	h2.apply(&command{Op: opLevel, Level: &levelCmd{Run: id2, Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 1, Ranges: []solver.Range{{Lo: 0, Hi: 100}}}}})
	for i := range maxFailures {
		tok := h2.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: UnitRef{id2, 0, PhaseReach, 0}, Worker: "a"}}).(uint64)
		h2.apply(&command{Op: opRelease, Release: &releaseCmd{Ref: UnitRef{id2, 0, PhaseReach, 0}, Token: tok, Error: fmt.Sprint("boom ", i)}})
	}
	if s := h2.state(); s.Runs[0].State != Failed || s.Runs[0].Error == "" {
		t.Fatalf("run after %d failures: %s %q", maxFailures, s.Runs[0].State, s.Runs[0].Error)
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
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	g := NewFSM()
	if err := g.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
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
func randomCommands(h *fsmHarness, rng *rand.Rand, n int) []*command {
	id := h.apply(&command{Op: opCreate, Run: chainRun()}).(string)
	var ranges []solver.Range
	for i := range 20 {
		ranges = append(ranges, solver.Range{Lo: uint64(5 * i), Hi: uint64(5*i + 5)})
	}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 100, Ranges: ranges}}})
	var cmds []*command
	var tokens []uint64
	for range n {
		ref := UnitRef{id, 0, PhaseReach, rng.IntN(len(ranges))}
		var c *command
		switch k := rng.IntN(3); {
		case k == 0 || len(tokens) == 0:
			c = &command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "w"}}
		case k == 1:
			c = &command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: tokens[rng.IntN(len(tokens))],
				Outputs: []Output{{Tier: 1, Blob: blobOf("o")}}}}}
		default:
			c = &command{Op: opRelease, Release: &releaseCmd{Ref: ref, Token: tokens[rng.IntN(len(tokens))]}}
		}
		if tok, ok := h.apply(c).(uint64); ok {
			tokens = append(tokens, tok)
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// TestLeaseRulesAgainstModel drives the FSM and the leader's lease clock
// with random grants, completions, heartbeats, clock advances and leader
// changes, and checks every answer against a simple model of the rules:
//   - a unit is granted only when it has no lease and is not done;
//   - a completion is accepted only with the token of the unit's current
//     lease, and exactly once (a retry of the accepted one is a no-op);
//   - a lease expires only after a full TTL without a grant, heartbeat or
//     leader change, and then its holder can no longer complete it.
func TestLeaseRulesAgainstModel(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { leaseModelRun(t, seed) })
	}
}

type modelUnit struct {
	lease     uint64 // current lease token, 0 if none
	done      uint64 // accepted token, 0 if not done
	completed int    // completions accepted
}

func leaseModelRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	const ttl = 10 * time.Second
	h := newHarness(t)
	id := h.apply(&command{Op: opCreate, Run: chainRun()}).(string)
	const nUnits = 6
	var ranges []solver.Range
	for i := range nUnits {
		ranges = append(ranges, solver.Range{Lo: uint64(10 * i), Hi: uint64(10*i + 10)})
	}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 60, Ranges: ranges}}})
	clock := newLeaseClock(ttl)
	now := time.Unix(1000, 0)
	model := make([]modelUnit, nUnits)
	deadline := map[uint64]time.Time{} // the model's own deadlines
	owner := map[uint64]int{}          // token -> unit
	var issued []uint64
	ref := func(u int) UnitRef { return UnitRef{id, 0, PhaseReach, u} }
	out := []Output{{Tier: 1, Blob: blobOf("o")}}
	for step := range 400 {
		u := rng.IntN(nUnits)
		switch op := rng.IntN(7); op {
		case 0, 1: // grant
			res := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: ref(u), Worker: "w"}})
			want := model[u].lease == 0 && model[u].done == 0
			tok, ok := res.(uint64)
			if ok != want {
				t.Fatalf("step %d: grant of unit %d: got %v, model says ok=%v (%+v)", step, u, res, want, model[u])
			}
			if ok {
				model[u].lease = tok
				owner[tok] = u
				issued = append(issued, tok)
				clock.start(now, tok)
				deadline[tok] = now.Add(ttl)
			}
		case 2: // a completion with some token ever issued for any unit
			if len(issued) == 0 {
				continue
			}
			tok := issued[rng.IntN(len(issued))]
			v := owner[tok]
			err, _ := h.apply(&command{Op: opComplete, Complete: &completeCmd{Ref: ref(v), Done: Completion{Token: tok, Outputs: out}}}).(error)
			switch {
			case model[v].done == tok:
				if err != nil {
					t.Fatalf("step %d: a retried completion refused: %v", step, err)
				}
			case model[v].lease == tok:
				if err != nil {
					t.Fatalf("step %d: the current lease's completion refused: %v", step, err)
				}
				model[v].done, model[v].lease = tok, 0
				model[v].completed++
				clock.forget(tok)
				delete(deadline, tok)
			default:
				if !errors.Is(err, ErrStale) {
					t.Fatalf("step %d: stale token %d on unit %d (%+v) accepted: %v", step, tok, v, model[v], err)
				}
			}
		case 3: // heartbeat for a random issued token
			if len(issued) == 0 {
				continue
			}
			tok := issued[rng.IntN(len(issued))]
			_, live := deadline[tok]
			if got := clock.renew(now, tok); got != live {
				t.Fatalf("step %d: renew of token %d: %v, model says %v", step, tok, got, live)
			}
			if live {
				deadline[tok] = now.Add(ttl)
			}
		case 4, 5: // time passes; the leader expires what is due
			now = now.Add(time.Duration(rng.IntN(8)) * time.Second)
			expired := clock.expired(now)
			slices.Sort(expired)
			var want []uint64
			for tok, d := range deadline {
				if now.After(d) {
					want = append(want, tok)
				}
			}
			slices.Sort(want)
			if !slices.Equal(expired, want) {
				t.Fatalf("step %d: expired %v, model %v", step, expired, want)
			}
			for _, tok := range expired {
				clock.forget(tok)
				delete(deadline, tok)
				v := owner[tok]
				err, _ := h.apply(&command{Op: opRelease, Release: &releaseCmd{Ref: ref(v), Token: tok}}).(error)
				if model[v].lease != tok {
					t.Fatalf("step %d: clock expired token %d that the model does not hold", step, tok)
				}
				if err != nil {
					t.Fatalf("step %d: expiring token %d: %v", step, tok, err)
				}
				model[v].lease = 0
			}
		case 6: // a new leader: every lease of the state gets a full ttl
			var tokens []uint64
			h.fsm.View(func(s *State, _ uint64) {
				for _, r := range s.Runs {
					eachLease(r, func(_ UnitRef, le *Lease) { tokens = append(tokens, le.Token) })
				}
			})
			clock = newLeaseClock(ttl)
			clock.reset(now, tokens)
			deadline = map[uint64]time.Time{}
			for _, tok := range tokens {
				deadline[tok] = now.Add(ttl)
			}
		}
		for i, m := range model {
			if m.completed > 1 {
				t.Fatalf("unit %d completed %d times", i, m.completed)
			}
		}
	}
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
		h.apply(&command{Op: opCreate, Run: chainRun()})
		h.apply(&command{Op: opLevel, Level: &levelCmd{Run: "r1", Tier: 0, Level: Level{Blob: blobOf("l"), Reachable: 1, Ranges: []solver.Range{{Lo: 0, Hi: 100}}}}})
		h.index++
		h.fsm.Apply(&raft.Log{Index: h.index, Type: raft.LogCommand, Data: data})
		h.fsm.View(func(s *State, _ uint64) { s.leaderTasks(); s.liveBlobs() })
		restored(t, h.fsm)
	})
}

// TestFSMSubmitIdempotent: a submission retried with its request id (its
// first answer lost to a reset connection) names the run it created
// instead of creating another; other ids, or none, create runs.
func TestFSMSubmitIdempotent(t *testing.T) {
	h := newHarness(t)
	with := func(id string) *Run { r := chainRun(); r.RequestID = id; return r }
	first := h.apply(&command{Op: opCreate, Run: with("req-1")}).(string)
	if again := h.apply(&command{Op: opCreate, Run: with("req-1")}).(string); again != first {
		t.Errorf("a retried submission created run %s besides %s", again, first)
	}
	other := h.apply(&command{Op: opCreate, Run: with("req-2")}).(string)
	plain := h.apply(&command{Op: opCreate, Run: with("")}).(string)
	plain2 := h.apply(&command{Op: opCreate, Run: with("")}).(string)
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
	run := &Run{Game: "test", Option: "default", Settings: DefaultSettings, Created: time.Unix(1, 0).UTC(), Tiers: []*Tier{
		{Tier: 0, Name: "t0", Size: 100, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Parents: []uint64{0}},
	}}
	id := h.apply(&command{Op: opCreate, Run: run}).(string)
	two := []solver.Range{{Lo: 0, Hi: 50}, {Lo: 50, Hi: 100}}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l0"), Reachable: 10, Ranges: two}}})
	grant := func(ref UnitRef, worker string) (uint64, error) {
		t.Helper()
		switch res := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: worker}}).(type) {
		case uint64:
			return res, nil
		case error:
			return 0, res
		default:
			t.Fatalf("grant %v: %v", ref, res)
			return 0, nil
		}
	}
	complete := func(ref UnitRef, token uint64, outs ...Output) error {
		err, _ := h.apply(&command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: token, Outputs: outs}}}).(error)
		return err
	}
	for i := range 2 {
		ref := UnitRef{id, 0, PhaseReach, i}
		tok, err := grant(ref, "w")
		if err != nil {
			t.Fatal(err)
		}
		if err := complete(ref, tok, Output{Tier: 1, Blob: blobOf(fmt.Sprint("p1-", i))}); err != nil {
			t.Fatal(err)
		}
	}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 1, Level: Level{Blob: blobOf("l1"), Reachable: 10, Ranges: two}}})
	kid := func(i int) UnitRef { return UnitRef{id, 1, PhaseSolve, i} }
	parent := func(i int) UnitRef { return UnitRef{id, 0, PhaseSolve, i} }
	tok0, _ := grant(kid(0), "w")
	if err := complete(kid(0), tok0, Output{Tier: 1, Blob: blobOf("r1-0")}); err != nil {
		t.Fatal(err)
	}
	if s := h.state(); s.Runs[0].Tiers[0].Solve != nil {
		t.Fatal("tier 0 solvable while a unit of tier 1 is free")
	}
	tok1, _ := grant(kid(1), "w")
	var forW, forWSaysNot, forX, forAny []UnitRef
	h.fsm.View(func(s *State, _ uint64) {
		forW = slices.Collect(freeUnitsFor(s, nil, "w", []uint64{tok0, tok1}))
		forWSaysNot = slices.Collect(freeUnitsFor(s, nil, "w", nil)) // a restarted process, or an older worker
		forX = slices.Collect(freeUnitsFor(s, nil, "x", []uint64{tok1}))
		forAny = slices.Collect(freeUnits(s, nil))
	})
	if !slices.Equal(forW, []UnitRef{parent(0), parent(1)}) || len(forWSaysNot) != 0 || len(forX) != 0 || len(forAny) != 0 {
		t.Fatalf("free units while w holds tier 1's last: for w %v, for w not holding it %v, for x %v, for any %v", forW, forWSaysNot, forX, forAny)
	}
	if _, err := grant(parent(0), "x"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("tier 0's unit granted to another worker: %v", err)
	}
	p0, err := grant(parent(0), "w")
	if err != nil {
		t.Fatalf("provisional grant: %v", err)
	}
	var a *Assignment
	h.fsm.View(func(s *State, _ uint64) { a = assignment(s, parent(0), p0) })
	if k := a.Kids[0]; len(k.Records) != 2 || k.Records[0] != blobOf("r1-0") || k.Records[1] != (Blob{}) ||
		len(k.Mine) != 1 || k.Mine[0] != (MineUnit{Ref: kid(1), Token: tok1, Lo: 50, Hi: 100}) {
		t.Fatalf("provisional assignment's kid: %+v", k)
	}
	if err := complete(parent(0), p0, Output{Tier: 0, Blob: blobOf("r0-0")}); !errors.Is(err, ErrNotReady) {
		t.Fatalf("completion before the child's last unit: %v", err)
	}
	// w's lease on the child's last unit expires, and x takes it: tier 0
	// is no one's provisionally any more, and p0 waits for x's result.
	h.apply(&command{Op: opRelease, Release: &releaseCmd{Ref: kid(1), Token: tok1}})
	if _, err := grant(parent(1), "w"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("provisional grant after the child's lease was released: %v", err)
	}
	tokX, _ := grant(kid(1), "x")
	if _, err := grant(parent(1), "w"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("provisional grant while another worker holds the child's unit: %v", err)
	}
	if err := complete(kid(1), tokX, Output{Tier: 1, Blob: blobOf("r1-1")}); err != nil {
		t.Fatal(err)
	}
	if err := complete(parent(0), p0, Output{Tier: 0, Blob: blobOf("r0-0")}); err != nil {
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
// once every child unit is done.
func TestProvisionalRulesAgainstModel(t *testing.T) {
	for seed := range uint64(30) {
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
	run := &Run{Game: "test", Option: "default", Settings: DefaultSettings, Created: time.Unix(1, 0).UTC(), Tiers: []*Tier{
		{Tier: 0, Name: "t0", Size: 100, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Parents: []uint64{0}},
	}}
	id := h.apply(&command{Op: opCreate, Run: run}).(string)
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 0, Level: Level{Blob: blobOf("l0"), Reachable: 10,
		Ranges: []solver.Range{{Lo: 0, Hi: 50}, {Lo: 50, Hi: 100}}}}})
	for i := range 2 {
		ref := UnitRef{id, 0, PhaseReach, i}
		tok := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: "w"}}).(uint64)
		h.apply(&command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: Completion{Token: tok, Outputs: []Output{{Tier: 1, Blob: blobOf(fmt.Sprint("p", i))}}}}})
	}
	h.apply(&command{Op: opLevel, Level: &levelCmd{Run: id, Tier: 1, Level: Level{Blob: blobOf("l1"), Reachable: 10,
		Ranges: []solver.Range{{Lo: 0, Hi: 30}, {Lo: 30, Hi: 60}, {Lo: 60, Hi: 100}}}}})

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
	ref := func(parent bool, u int) UnitRef {
		if parent {
			return UnitRef{id, 0, PhaseSolve, u}
		}
		return UnitRef{id, 1, PhaseSolve, u}
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
			res := h.apply(&command{Op: opGrant, Grant: &grantCmd{Ref: ref(parent, u), Worker: w}})
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
			err, _ := h.apply(&command{Op: opComplete, Complete: &completeCmd{Ref: ref(it.parent, it.unit),
				Done: Completion{Token: it.token, Outputs: []Output{{Tier: ref(it.parent, it.unit).Tier, Blob: blobOf("r")}}}}}).(error)
			switch {
			case m.done == it.token:
				if err != nil {
					t.Fatalf("step %d: a retried completion refused: %v", step, err)
				}
			case m.token != it.token:
				if !errors.Is(err, ErrStale) {
					t.Fatalf("step %d: a stale completion of %v: %v", step, ref(it.parent, it.unit), err)
				}
			case it.parent && !kidsDone():
				if !errors.Is(err, ErrNotReady) {
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
			h.apply(&command{Op: opRelease, Release: &releaseCmd{Ref: ref(parent, u), Token: units[u].token}})
			units[u].token, units[u].worker = 0, ""
		case 4: // what the leader would offer each worker, as it says
			var got []UnitRef
			h.fsm.View(func(s *State, _ uint64) { got = slices.Collect(freeUnitsFor(s, nil, "w", []uint64{1 << 62})) })
			for _, r := range got {
				if r.Tier == 0 && r.Phase == PhaseSolve && !kidsDone() {
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
