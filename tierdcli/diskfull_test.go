package tierdcli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/poll"
	"github.com/tiersolve/tiersolve/internal/race"
)

// TestLeaderDiskFull: every coordinator keeps its data on a tmpfs of its
// own, in a private mount namespace (unshare, where the kernel allows
// unprivileged user namespaces; skipped elsewhere). Mid-run the leader's
// tmpfs is filled (a file written into it through /proc/PID/root until
// ENOSPC) while the workers are paused. It stops accepting work it cannot record and another
// coordinator takes over; no unit committed before is lost or redone, and
// the run ends with tierd solve's bytes. Under the race detector the
// workers are the plain tierd (the coordinators keep it): solving Connect
// Four 5x4 with it made the test minutes long, and .ci/run runs it again
// without it.
func TestLeaderDiskFull(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	c := newPausingCluster(t, 3)
	if race.Enabled {
		c.workerBin = tierdBinary(t)
	}
	mnts := make([]string, len(c.members))
	var bs []string
	for _, m := range c.members {
		bs = append(bs, m.ID+"="+m.RaftAddr+"="+m.HTTPAddr)
	}
	for i, m := range c.members {
		mnts[i] = t.TempDir()
		b := c.binds[i]
		script := `mount -t tmpfs -o size=64m tmpfs "$1" || exit 99; shift; exec "$@"`
		c.startEnv(m.ID, "unshare", nil, "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", mnts[i], c.bin,
			"coordinator", "--node-id", m.ID, "--raft-addr", b.RaftAddr, "--http-addr", b.HTTPAddr,
			"--raft-advertise", m.RaftAddr, "--http-advertise", m.HTTPAddr, "--data", filepath.Join(mnts[i], "data"),
			"--token-file", c.token, "--lease", "2s", "--bootstrap", strings.Join(bs, ","))
	}
	c.mu.Lock()
	first := c.procs["c1"]
	c.mu.Unlock()
	// A sign either way: c1 ends (no tmpfs in a user namespace here), or
	// the coordinators elect a leader on their tmpfs.
	poll.Until(t, "c1 to end or a leader", 2*time.Minute, func() bool {
		select {
		case <-first.exited:
			if code := first.cmd.ProcessState.ExitCode(); code == 99 || code == 1 {
				log, _ := os.ReadFile(filepath.Join(c.dir, "c1.log"))
				t.Skipf("no tmpfs in a user namespace here: %s", log)
			}
			t.Fatalf("c1 ended with exit %d", first.cmd.ProcessState.ExitCode())
		default:
		}
		st, err := c.status()
		return err == nil && st.Leader != ""
	})
	c.startWorker("w1", 1)
	c.startWorker("w2", 1)
	// Connect Four 5x4 rather than 4x4: its run is long enough (about 170
	// units, seconds on a loaded machine) not to end between the status
	// seen here and the workers' pause.
	const option = "width=5,height=4"
	id := c.submitC4(option)
	st := c.waitFor("the run under way", 2*time.Minute, func(st *api.StatusResponse) bool {
		r := runState(st, id)
		return r != nil && r.Reached >= 6 && st.Leader != ""
	})
	// The workers sleep while the disk fills, so that the run cannot end
	// before the leader has work to record on a full disk.
	c.pause("w1", true)
	c.pause("w2", true)
	before := c.runJSON(id)
	if before.State == api.Done {
		t.Fatal("the run ended before the workers were paused: nothing is left to record on a full disk")
	}
	old := c.index(st.Leader)
	c.mu.Lock()
	pid := c.procs[st.Leader].cmd.Process.Pid
	c.mu.Unlock()
	filled, err := fill(fmt.Sprintf("/proc/%d/root%s/filler", pid, mnts[old]))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the leader's disk: %v", err)
	}
	t.Logf("filled %s's disk (%d MB more)", st.Leader, filled>>20)
	c.pause("w1", false)
	c.pause("w2", false)
	st = c.waitFor("another leader", 2*time.Minute, func(s *api.StatusResponse) bool { return s.Leader != "" && s.Leader != st.Leader })
	t.Logf("%s leads", st.Leader)
	c.waitDone(id)
	after := c.runJSON(id)
	for i, tr := range before.Tiers {
		for j, u := range tr.Reach {
			if u.Done != nil && after.Tiers[i].Reach[j].Done.Token != u.Done.Token {
				t.Errorf("tier %d reach unit %d was committed before the disk filled and redone after", tr.Tier, j)
			}
		}
		for j, u := range tr.Solve {
			if u.Done != nil && after.Tiers[i].Solve[j].Done.Token != u.Done.Token {
				t.Errorf("tier %d solve unit %d was committed before the disk filled and redone after", tr.Tier, j)
			}
		}
	}
	sameFolders(t, embedded(t, c4Game, option), c.fetch(id))
}

// fill writes zeros to path until the write fails, and returns how many
// bytes it wrote and the error.
func fill(path string) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		k, err := f.Write(buf)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
}
