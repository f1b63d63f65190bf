package tierdcli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/poll"
)

// Processes paused (SIGSTOP) for longer than the election timeout or the
// lease, then resumed (SIGCONT): what they do when they wake must change
// no result. The coordinators and workers are the test binary run as
// tierd (built with the race detector when the tests are), behind
// proxies they advertise.

// newPausingCluster is n coordinators of the test binary run as tierd,
// behind proxies (procCluster.proxied).
func newPausingCluster(t *testing.T, n int) *procCluster {
	t.Setenv(envMain, "1")
	c := newProcClusterOf(t, os.Args[0], n)
	c.proxied()
	return c
}

// pause stops (SIGSTOP) or resumes (SIGCONT) the process name.
func (c *procCluster) pause(name string, stop bool) {
	c.t.Helper()
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	sig := syscall.SIGCONT
	if stop {
		sig = syscall.SIGSTOP
	}
	if p == nil || p.cmd.Process.Signal(sig) != nil {
		c.t.Fatalf("cannot signal %s", name)
	}
	// The signal is sent, not yet taken: wait until the kernel has
	// stopped (or resumed) the process, so that nothing the test does
	// next reaches it before.
	stat := fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid)
	poll.Until(c.t, name+" stopped or resumed", 10*time.Second, func() bool {
		b, err := os.ReadFile(stat)
		if err != nil {
			return false
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		return len(f) > 0 && (f[0] == "T") == stop
	})
}

// get asks coordinator i itself (its listening address, not its proxy)
// for path, within limit, and decodes a 200 answer into out.
func (c *procCluster) get(i int, path string, limit time.Duration, out any) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+c.binds[i].HTTPAddr+path, nil)
	tok, _ := os.ReadFile(c.token)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && out != nil {
		return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
	}
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// index is the position of coordinator id.
func (c *procCluster) index(id string) int {
	for i, m := range c.members {
		if m.ID == id {
			return i
		}
	}
	c.t.Fatalf("no coordinator %s", id)
	return -1
}

// submitSmall submits Connect Four 4x4 cut into small units.
func (c *procCluster) submitSmall() string {
	c.t.Helper()
	return c.submitC4("width=4,height=4")
}

// submitC4 submits a run of Connect Four of option, cut into small
// units (up to 4 a tier, of at least 64 positions).
func (c *procCluster) submitC4(option string) string {
	c.t.Helper()
	return c.submitCut(c4Game, option, "4", "64")
}

// TestPausedLeader: the leader is paused until the others have elected
// a new one and gone on with the run. A status request sent to it while
// it sleeps is not answered from its stale state when it wakes (it
// checks that it still leads: 503, and the client asks another); it
// follows the new leader, and the run ends with tierd solve's bytes.
func TestPausedLeader(t *testing.T) {
	c := newPausingCluster(t, 3)
	c.startAll(true)
	c.startWorker("w1", 1)
	c.startWorker("w2", 1)
	id := c.submitSmall()
	st := c.waitFor("the run under way", 2*time.Minute, func(st *api.StatusResponse) bool {
		r := runState(st, id)
		return r != nil && r.Reached >= 4 && st.Leader != ""
	})
	old := c.index(st.Leader)
	c.pause(st.Leader, true)
	paused := time.Now()
	// A read sent to the paused leader waits in its socket.
	type answer struct {
		code int
		st   api.StatusResponse
		err  error
	}
	const reads = 16 // several, so that some are read before raft's own goroutines run
	stale := make(chan answer, reads)
	for range reads {
		go func() {
			var a answer
			a.code, a.err = c.get(old, "/v1/status", 2*time.Minute, &a.st)
			stale <- a
		}()
	}
	var fresh api.StatusResponse
	poll.Until(t, "a new leader going on with the run", 2*time.Minute, func() bool {
		for i := range c.members {
			var s api.StatusResponse
			if i == old {
				continue
			}
			if code, err := c.get(i, "/v1/status", 5*time.Second, &s); err == nil && code == 200 && s.Leader != st.Leader && s.Leader != "" {
				if r := runState(&s, id); r != nil && r.UnitsDone > runState(st, id).UnitsDone {
					fresh = s
					return true
				}
			}
		}
		return false
	})
	t.Logf("%s paused; %s leads after %v, %d units done", st.Leader, fresh.Leader, time.Since(paused), runState(&fresh, id).UnitsDone)
	c.pause(st.Leader, false)
	codes := map[int]int{}
	for range reads {
		a := <-stale
		switch {
		case a.err != nil:
			t.Fatalf("a read sent to the paused leader: %v", a.err)
		case a.code == http.StatusOK && (a.st.Leader == st.Leader || runState(&a.st, id).UnitsDone < runState(&fresh, id).UnitsDone):
			t.Errorf("the woken leader answered from its stale state: leader %s, %d units done (the new leader %s had %d)",
				a.st.Leader, runState(&a.st, id).UnitsDone, fresh.Leader, runState(&fresh, id).UnitsDone)
		}
		codes[a.code]++
	}
	t.Logf("the reads sent to the paused leader were answered (by status code) %v", codes)
	poll.Until(t, "the old leader following", time.Minute, func() bool {
		var h struct{ State, Leader string }
		code, err := c.get(old, "/v1/health", 5*time.Second, &h)
		return err == nil && code == 200 && h.State == "Follower" && h.Leader != "" && h.Leader != st.Leader
	})
	c.waitDone(id)
	sameFolders(t, embedded(t, c4Game, "width=4,height=4"), c.fetch(id))
}

// TestPausedWorker: a worker is paused in the middle of a unit (its
// game blocks on a chosen position until the test lets it go on), for
// longer than its lease, then resumed: its late result is not accepted
// (the unit is done with another lease), and the run ends with tierd
// solve's bytes.
func TestPausedWorker(t *testing.T) {
	c := newPausingCluster(t, 3)
	c.startAll(true)
	mark := filepath.Join(t.TempDir(), "blocked")
	c.startEnv("w1", c.bin, []string{fmt.Sprintf("%s=8:1", envBlock), envMark + "=" + mark}, "worker", "--coordinators", c.urls(),
		"--token-file", c.token, "--data", filepath.Join(c.dir, "w1"), "--threads", "1", "--id", "w1", "--memory", "1GiB")
	id := c.submitSmall()
	poll.Until(t, "w1 in the middle of a unit of tier 8", 2*time.Minute, func() bool {
		_, err := os.Stat(mark)
		return err == nil
	})
	c.pause("w1", true)
	var ref api.UnitRef
	var token uint64
	r := c.runJSON(id)
	for _, tr := range r.Tiers {
		for i, u := range append(tr.Reach[:len(tr.Reach):len(tr.Reach)], tr.Solve...) {
			if u.Lease != nil && u.Lease.Worker == "w1" {
				ph, k := api.PhaseReach, i
				if i >= len(tr.Reach) {
					ph, k = api.PhaseSolve, i-len(tr.Reach)
				}
				ref, token = api.UnitRef{Run: id, Tier: tr.Tier, Phase: ph, Index: k}, u.Lease.Token
			}
		}
	}
	if token == 0 {
		t.Fatal("the blocked worker holds no lease")
	}
	unit := func(r *api.Run) *api.Unit {
		for _, tr := range r.Tiers {
			if tr.Tier == ref.Tier {
				if ref.Phase == api.PhaseSolve {
					return tr.Solve[ref.Index]
				}
				return tr.Reach[ref.Index]
			}
		}
		return nil
	}
	c.startWorker("w2", 1)
	poll.Until(t, "the paused worker's lease expired and the unit done by another", 2*time.Minute, func() bool {
		u := unit(c.runJSON(id))
		return u.Done != nil && u.Done.Worker != "w1"
	})
	c.pause("w1", false)
	c.mu.Lock()
	c.procs["w1"].cmd.Process.Signal(syscall.SIGUSR1) // its game goes on
	c.mu.Unlock()
	c.waitDone(id)
	if u := unit(c.runJSON(id)); u.Done == nil || u.Done.Token == token {
		t.Errorf("unit %v: %+v, want it done with a lease other than the paused worker's %d", ref, u.Done, token)
	}
	poll.Until(t, "w1 giving its late unit up", time.Minute, func() bool {
		log, _ := os.ReadFile(filepath.Join(c.dir, "w1.log"))
		return strings.Contains(string(log), "lease lost") || strings.Contains(string(log), "result not accepted")
	})
	log, _ := os.ReadFile(filepath.Join(c.dir, "w1.log"))
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, "lease lost") || strings.Contains(l, "result not accepted") {
			t.Logf("w1 woke: %s", l[strings.Index(l, "msg="):])
		}
	}
	sameFolders(t, embedded(t, c4Game, "width=4,height=4"), c.fetch(id))
}
