package tierdcli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
)

// submitParts submits a run whose loopy tiers are solved in parts.
func (c *procCluster) submitParts(game, option string, parts int) string {
	c.t.Helper()
	code, out, errs := c.run(c.client("submit", "--game", game, "--option", option, "--max-ranges", "8", "--min-range", "20000",
		"--loopy-ranges", strconv.Itoa(parts))...)
	if code != 0 {
		c.t.Fatalf("submit: exit %d: %s", code, errs)
	}
	f := strings.Fields(out)
	return f[len(f)-1]
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

	killed, tier, level := c.partHolder(id, 2, "")
	c.signal(killed, syscall.SIGKILL)
	t.Logf("killed worker %s holding a part of tier %d at level %d", killed, tier, level)
	c.startWorker("w4", 1)

	paused, tier, level := c.partHolder(id, level+1, killed)
	c.mu.Lock()
	p := c.procs[paused]
	c.mu.Unlock()
	p.cmd.Process.Signal(syscall.SIGSTOP)
	t.Logf("paused worker %s holding a part of tier %d at level %d", paused, tier, level)
	time.Sleep(5 * time.Second) // past its 2 s lease: the part goes to another worker
	p.cmd.Process.Signal(syscall.SIGCONT)

	c.waitDone(id)
	run := c.runJSON(id)
	t.Logf("run done in %.1f s", run.Finished.Sub(run.Created).Seconds())
	parted, moves := 0, 0
	for _, tr := range run.Tiers {
		if tr.Parts != nil {
			parted++
			moves += tr.Parts.Moves
			if tr.Parts.Phase != api.PartsDone {
				t.Errorf("tier %d: parts in phase %s after the run", tr.Tier, tr.Parts.Phase)
			}
		}
	}
	if parted == 0 {
		t.Fatal("no tier was solved in parts")
	}
	// The parts of the lost and the paused worker went to others.
	if moves < 2 {
		t.Errorf("%d rounds of parts moved to another worker, want at least 2", moves)
	}
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
	}
	code, out, _ = tierd(t, "plan", "--game", "xiangqi", "--option", "material=KRNvKAABB", "--cluster", "--workers", "4", "--memory", "16MiB")
	if code != 1 || !strings.Contains(out, "does NOT fit") {
		t.Errorf("a budget no tier fits: exit %d\n%s", code, out)
	}
	if code, _, errs := tierd(t, "plan", "--game", "quixo", "--cluster", "--workers", "4"); code != 2 || !strings.Contains(errs, "--memory") {
		t.Errorf("--cluster without --memory: exit %d %s", code, errs)
	}
}
