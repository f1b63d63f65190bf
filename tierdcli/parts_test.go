package tierdcli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/poll"
	"github.com/tiersolve/tiersolve/internal/race"
)

// submitParts submits a run whose loopy tiers are solved in parts.
func (c *procCluster) submitParts(game, option string, parts int) string {
	c.t.Helper()
	return c.submit(game, option, "--loopy-ranges", strconv.Itoa(parts))
}

// partHolder waits for a round of levels of a tier solved in parts whose
// unit is leased to one of workers (not in skip), at a level of at least
// minLevel, and returns that worker.
func (c *procCluster) partHolder(id string, minLevel int, skip string) (worker string, tier uint64, level int) {
	c.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		r := c.runJSON(id)
		if r.State != api.Running {
			c.t.Fatalf("run %s ended (%s) before a part was leased mid-level", id, r.State)
		}
		for _, tr := range r.Tiers {
			p := tr.Parts
			if p == nil || p.Phase != api.PartsWins && p.Phase != api.PartsTies || p.Level < minLevel {
				continue
			}
			for _, u := range p.Units {
				if u.Lease != nil && u.Done == nil && u.Lease.Worker != skip {
					return u.Lease.Worker, tr.Tier, p.Level
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatal("no part leased mid-level within 2 minutes")
	return "", 0, 0
}

// TestClusterLoopyParts: 3 coordinators and 3 workers as processes solve
// xiangqi K+R+N v K+A and Quixo 3x3 with every loopy tier split in 3
// parts (--loopy-ranges 3); a worker is SIGKILLed while it holds a part's
// level, and another paused (SIGSTOP) past its lease: the fetched runs
// are tierd solve's, byte for byte. Every worker's peak resident set
// stays within its --memory, a budget just above the leader's largest
// estimate of a unit (a part's round of K+R+N v K+A, about 50 MiB).
func TestClusterLoopyParts(t *testing.T) {
	const game, option = "xiangqi", "material=KRNvKA"
	const budget = 56 << 20
	c := newProcCluster(t, 3)
	c.workerMemory = fmt.Sprint(budget)
	c.startAll(true)
	for _, w := range []string{"w1", "w2", "w3"} {
		c.startWorker(w, 1)
	}
	id := c.submitParts(game, option, 3)
	small := c.submitParts("quixo", "size=3", 3)

	c.killAndPauseParts(id, "w4")

	c.waitDone(id)
	c.checkPartsMoved(id)
	sameFolders(t, embedded(t, game, option), c.fetch(id))
	c.waitDone(small)
	sameFolders(t, embedded(t, "quixo", "size=3"), c.fetch(small))
	for _, w := range []string{"w1", "w2", "w3", "w4"} {
		peak := c.peakRSS(w)
		t.Logf("worker %s: peak resident set %.1f MiB, --memory %d MiB", w, float64(peak)/(1<<20), budget>>20)
		if peak > budget {
			t.Errorf("worker %s: peak resident set %.1f MiB, over its --memory of %d MiB", w, float64(peak)/(1<<20), budget>>20)
		}
	}
}

// killAndPauseParts SIGKILLs a worker while it holds a part of run id
// at level 2 or more, starts worker spare in its place, then pauses
// (SIGSTOP) another holding a part at a later level past its lease, and
// lets it go on.
func (c *procCluster) killAndPauseParts(id, spare string) {
	c.t.Helper()
	killed, tier, level := c.partHolder(id, 2, "")
	c.signal(killed, syscall.SIGKILL)
	c.t.Logf("killed worker %s holding a part of tier %d at level %d", killed, tier, level)
	c.startWorker(spare, 1)

	paused, tier, level := c.partHolder(id, level+1, killed)
	c.mu.Lock()
	p := c.procs[paused]
	c.mu.Unlock()
	moved := c.partsMoved(id)
	p.cmd.Process.Signal(syscall.SIGSTOP)
	c.t.Logf("paused worker %s holding a part of tier %d at level %d", paused, tier, level)
	// Past its 2 s lease the part goes to another worker: a move more than
	// before the pause, and the killed worker's counted too (it may not be
	// yet when the pause starts).
	poll.Until(c.t, "the paused worker's part to move to another", 2*time.Minute, func() bool {
		n := c.partsMoved(id)
		return n > moved && n >= 2
	})
	p.cmd.Process.Signal(syscall.SIGCONT)
}

// partsMoved is how many rounds of parts of run id moved to another
// worker so far.
func (c *procCluster) partsMoved(id string) int {
	moves := 0
	for _, tr := range c.runJSON(id).Tiers {
		if tr.Parts != nil {
			moves += tr.Parts.Moves
		}
	}
	return moves
}

// checkPartsMoved checks run id after killAndPauseParts: some tiers were
// solved in parts, each to its end, and the parts of the lost and the
// paused worker went to others (2 rounds moved at least).
func (c *procCluster) checkPartsMoved(id string) {
	c.t.Helper()
	run := c.runJSON(id)
	parted, moves := 0, 0
	for _, tr := range run.Tiers {
		if tr.Parts != nil {
			parted++
			moves += tr.Parts.Moves
			if tr.Parts.Phase != api.PartsDone {
				c.t.Errorf("tier %d: parts in phase %s after the run", tr.Tier, tr.Parts.Phase)
			}
		}
	}
	c.t.Logf("run done in %.1f s: %d tiers in parts, %d rounds moved", run.Finished.Sub(run.Created).Seconds(), parted, moves)
	if parted == 0 {
		c.t.Fatal("no tier was solved in parts")
	}
	if moves < 2 {
		c.t.Errorf("%d rounds of parts moved to another worker, want at least 2", moves)
	}
}

// TestClusterLoopyPartsQuixo4x4 is TestClusterLoopyParts on Quixo 4x4
// (153 loopy tiers, 109 of them in parts): a worker SIGKILLed and one
// paused mid-level, the fetched run tierd solve's byte for byte. About 8
// minutes on 2 cores, so only with TIERSOLVE_LONG=1 (CI runs the same
// faults on Quixo 3x3 and xiangqi).
func TestClusterLoopyPartsQuixo4x4(t *testing.T) {
	if os.Getenv("TIERSOLVE_LONG") == "" {
		t.Skip("about 8 minutes: TIERSOLVE_LONG=1 runs it")
	}
	c := newProcCluster(t, 3)
	c.startAll(true)
	for _, w := range []string{"w1", "w2", "w3"} {
		c.startWorker(w, 1)
	}
	id := c.submitParts("quixo", "size=4", 3)
	c.killAndPauseParts(id, "w4")
	c.waitDoneWithin(id, 20*time.Minute)
	c.checkPartsMoved(id)
	sameFolders(t, embedded(t, "quixo", "size=4"), c.fetch(id))
}

// TestPlanCluster: tierd plan --cluster cuts a loopy tier too large for a
// worker's memory into parts (the fewest that fit), says what they
// exchange, and exits 1 when a tier fits no worker.
func TestPlanCluster(t *testing.T) {
	code, out, errs := tierd(t, "plan", "--game", "xiangqi", "--option", "material=KRNvKAABB", "--cluster", "--workers", "4", "--memory", "139MiB", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var plan clusterPlanJSON
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	top := plan.Tiers[len(plan.Tiers)-1]
	if top.Name != "KRNvKAABB" || top.Parts < 2 || top.Bytes > 139<<20 || top.NotesBytes == 0 || !plan.Fits {
		t.Errorf("top tier %+v, fits %v", top, plan.Fits)
	}
	for _, tr := range plan.Tiers {
		if tr.Hashes < 1e6 && tr.Parts > 0 {
			t.Errorf("a small tier in parts: %+v", tr)
		}
		if tr.CloseSeconds != 0 || tr.CloseRanges != 0 {
			t.Errorf("a closing for a tier of an exhaustive game (every legal position): %+v", tr)
		}
	}
	// Quixo's tiers are closed under their moves.
	code, out, errs = tierd(t, "plan", "--game", "quixo", "--option", "size=4", "--cluster", "--workers", "4", "--memory", "139MiB", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	plan = clusterPlanJSON{}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	for _, tr := range plan.Tiers {
		if !tr.Loopy || tr.CloseSeconds <= 0 || tr.CloseRanges < 1 {
			t.Errorf("a tier of quixo 4x4 without a closing: %+v", tr)
		}
	}
	code, out, _ = tierd(t, "plan", "--game", "xiangqi", "--option", "material=KRNvKAABB", "--cluster", "--workers", "4", "--memory", "16MiB")
	if code != 1 || !strings.Contains(out, "does NOT fit") {
		t.Errorf("a budget no tier fits: exit %d\n%s", code, out)
	}
	// A tier xiangqi's rules judge is planned whole: the cluster never
	// cuts it (the rules read the whole tier).
	for _, option := range []string{"material=KRNvKN", "material=KRNvKN,rules=chessdb"} {
		_, out, _ := tierd(t, "plan", "--game", "xiangqi", "--option", option, "--cluster", "--workers", "4", "--memory", "64MiB", "--json")
		var p clusterPlanJSON
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		top := p.Tiers[len(p.Tiers)-1]
		if judged := strings.Contains(option, "rules"); top.Name != "KRNvKN" || (top.Parts == 0) != judged {
			t.Errorf("%s: top tier %+v", option, top)
		}
	}
	if code, _, errs := tierd(t, "plan", "--game", "quixo", "--cluster", "--workers", "4"); code != 2 || !strings.Contains(errs, "--memory") {
		t.Errorf("--cluster without --memory: exit %d %s", code, errs)
	}
}

// TestClusterLoopyPartsLeaderKilled: the raft leader is SIGKILLed while
// a loopy tier solved in 3 parts on 3 workers is in its levels (a part's
// round leased at level 1 or later). Another coordinator takes over from
// the replicated rounds, and redoes nothing: the tier's round only goes
// on from where it was, never back; the round under way at the kill is
// finished by the leases it had (none expires, no result is refused or
// dropped), a lease granted by the dead leader whose answer it never
// sent is answered again; no part moves to another worker, and none is
// restored from its checkpoint and its rounds replayed (each worker keeps
// its part in memory across the change); and the fetched run is tierd
// solve's, byte for byte. The election (1 to 3 s) often outlasts the
// lease's time to live (2 s): the workers hear no coordinator for longer.
//
// It takes about 20 s: under the race detector (whose test binary, run as
// tierd, would be several times slower) it is skipped, and .ci/run runs it
// with the fault tests, without the race detector.
func TestClusterLoopyPartsLeaderKilled(t *testing.T) {
	if race.Enabled {
		t.Skip("too slow under the race detector: .ci/run runs it without")
	}
	const game, option = "xiangqi", "material=KRvKAB"
	// The test binary runs as tierd (as in the tests of pause_test.go):
	// no tierd to build.
	t.Setenv(envMain, "1")
	c := newProcClusterOf(t, os.Args[0], 3)
	c.startAll(true)
	for _, w := range []string{"w1", "w2", "w3"} {
		c.startWorker(w, 1)
	}
	t0 := time.Now()
	id := c.submitParts(game, option, 3)
	_, tier, _ := c.partHolder(id, 1, "")
	st, err := c.status()
	if err != nil || st.Leader == "" {
		t.Fatalf("no leader: %v", err)
	}
	var at *api.Parts
	for _, tr := range c.runJSON(id).Tiers {
		if tr.Tier == tier {
			at = tr.Parts
		}
	}
	if at == nil || at.Phase != api.PartsWins && at.Phase != api.PartsTies {
		t.Fatalf("tier %d's levels ended before the leader could be killed: %+v", tier, at)
	}
	c.signal(st.Leader, syscall.SIGKILL)
	killed := time.Now()
	t.Logf("killed the leader %s %.1f s after the submit: tier %d in parts, phase %s, level %d, round %d", st.Leader,
		killed.Sub(t0).Seconds(), tier, at.Phase, at.Level, at.Round)
	// The tier's round, as the leader sees it, until the run ends.
	round, answered := at.Round, false
	var after *api.Run
	for deadline := time.Now().Add(3 * time.Minute); after == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run did not end within 3 minutes of the kill")
		}
		r := c.tryRunJSON(id)
		if r == nil {
			continue
		}
		if !answered {
			answered = true
			t.Logf("a new leader answered %.1f s after the kill", time.Since(killed).Seconds())
		}
		for _, tr := range r.Tiers {
			if tr.Tier == tier && tr.Parts != nil {
				if tr.Parts.Round < round {
					t.Fatalf("tier %d at round %d, after round %d: the new leader went back", tier, tr.Parts.Round, round)
				}
				round = tr.Parts.Round
			}
		}
		switch r.State {
		case api.Failed:
			t.Fatalf("run failed: %s", r.Error)
		case api.Done:
			after = r
		}
	}
	t.Logf("run done %.1f s after the submit", time.Since(t0).Seconds())
	for _, tr := range after.Tiers {
		if tr.Tier != tier {
			continue
		}
		t.Logf("tier %d: %d rounds in all, %d after the kill; %d moved to another worker", tier, tr.Parts.Round, tr.Parts.Round-at.Round, tr.Parts.Moves)
		if tr.Parts.Moves != at.Moves {
			t.Errorf("tier %d: %d rounds of parts ran on another worker than the round before, after the leader's kill (no worker was lost)",
				tier, tr.Parts.Moves-at.Moves)
		}
	}
	for _, m := range c.members {
		if m.ID == st.Leader {
			continue
		}
		metrics := scrape(t, m.HTTPAddr)
		t.Logf("%s: elections won %v, leases expired %v, completions refused %v, leases answered again %v", m.ID, metrics["tierd_elections_won_total"],
			metrics["tierd_leases_expired_total"], metrics["tierd_completions_refused_total"], metrics["tierd_leases_answered_again_total"])
		if metrics["tierd_leases_expired_total"] != 0 || metrics["tierd_completions_refused_total"] != 0 {
			t.Errorf("%s: %v leases expired, %v completions refused: work under way at the kill was done again", m.ID,
				metrics["tierd_leases_expired_total"], metrics["tierd_completions_refused_total"])
		}
	}
	for _, w := range []string{"w1", "w2", "w3"} {
		log, _ := os.ReadFile(filepath.Join(c.dir, w+".log"))
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(l, "took a part over") || strings.Contains(l, "lease lost") || strings.Contains(l, "result not accepted") {
				t.Errorf("%s redid work: %s", w, l[strings.Index(l, "msg="):])
			}
		}
	}
	sameFolders(t, embeddedBy(t, os.Args[0], game, option), c.fetch(id))
}
