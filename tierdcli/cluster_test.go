package tierdcli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/faultnet"
	"github.com/tiersolve/tiersolve/internal/freeport"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/internal/poll"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// These tests run real tierd processes: three coordinators and workers on
// loopback TCP, with their data in temporary folders, and kill them.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// tierdBinary builds the tierd command (cmd/tierd) once for the
// package's tests.
func tierdBinary(t *testing.T) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tierd-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "tierd")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/tiersolve/tiersolve/cmd/tierd").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// procCluster is coordinators and workers as processes.
type procCluster struct {
	t       *testing.T
	bin     string
	dir     string
	token   string // the token file
	members []api.Member
	// binds, when set, are where the coordinators listen; members are
	// then the proxies in front of them, which they advertise.
	binds []api.Member
	net   *faultnet.Net
	// coordArgs are added to every coordinator's command line.
	coordArgs []string
	// workerMemory is the workers' --memory (default 1GiB).
	workerMemory string
	// workerBin, when set, is the binary startWorker runs instead of bin.
	workerBin string
	procs     map[string]*proc
	// ended are the processes signal stopped, by name.
	ended map[string]*proc
	mu    sync.Mutex
}

func newProcCluster(t *testing.T, n int) *procCluster {
	return newProcClusterOf(t, tierdBinary(t), n)
}

// newProcClusterOf is a cluster of n coordinators that runs the binary
// bin (a tierd, or a program of tierdcli).
func newProcClusterOf(t *testing.T, bin string, n int) *procCluster {
	c := &procCluster{t: t, bin: bin, dir: t.TempDir(), procs: map[string]*proc{}, ended: map[string]*proc{}}
	c.token = filepath.Join(c.dir, "token")
	if err := os.WriteFile(c.token, []byte("cluster-test-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addrs, err := freeport.Addrs(2 * n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		c.members = append(c.members, api.Member{ID: fmt.Sprintf("c%d", i+1), RaftAddr: addrs[2*i], HTTPAddr: addrs[2*i+1]})
	}
	t.Cleanup(c.killAll)
	return c
}

// proxied puts a proxy (internal/faultnet) in front of each coordinator's
// raft and HTTP addresses, which the coordinators advertise
// (--raft-advertise, --http-advertise) and everyone else dials.
func (c *procCluster) proxied() {
	c.net = faultnet.New()
	c.t.Cleanup(c.net.Close)
	c.binds = c.members
	c.members = nil
	for _, b := range c.binds {
		r, err := c.net.Proxy(b.ID+"-raft", b.RaftAddr)
		if err != nil {
			c.t.Fatal(err)
		}
		h, err := c.net.Proxy(b.ID+"-http", b.HTTPAddr)
		if err != nil {
			c.t.Fatal(err)
		}
		c.members = append(c.members, api.Member{ID: b.ID, RaftAddr: r.Addr(), HTTPAddr: "http://" + h.Addr()})
	}
}

func (c *procCluster) urls() string {
	var us []string
	for _, m := range c.members {
		us = append(us, httpURL(m))
	}
	return strings.Join(us, ",")
}

// httpURL is a member's HTTP base URL.
func httpURL(m api.Member) string {
	if strings.Contains(m.HTTPAddr, "://") {
		return m.HTTPAddr
	}
	return "http://" + m.HTTPAddr
}

// start runs a tierd process named name, its output in a log file.
func (c *procCluster) start(name string, args ...string) {
	c.t.Helper()
	c.startBin(name, c.bin, args...)
}

// startBin runs the binary bin as the process named name.
func (c *procCluster) startBin(name, bin string, args ...string) {
	c.t.Helper()
	c.startEnv(name, bin, nil, args...)
}

// startEnv runs bin as the process name, with env added to its
// environment.
func (c *procCluster) startEnv(name, bin string, env []string, args ...string) {
	c.t.Helper()
	log, err := os.OpenFile(filepath.Join(c.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); log.Close(); close(p.exited) }()
	c.mu.Lock()
	c.procs[name] = p
	c.mu.Unlock()
}

// proc is a running tierd process; exited is closed when it has ended.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	peak   uint64 // peak resident set in bytes, read just before signal stopped it
}

func (c *procCluster) startCoordinator(i int, bootstrap bool) {
	m := c.members[i]
	args := []string{"coordinator", "--node-id", m.ID, "--raft-addr", m.RaftAddr, "--http-addr", m.HTTPAddr,
		"--data", filepath.Join(c.dir, m.ID), "--token-file", c.token, "--lease", "2s"}
	if c.binds != nil {
		b := c.binds[i]
		args = []string{"coordinator", "--node-id", m.ID, "--raft-addr", b.RaftAddr, "--http-addr", b.HTTPAddr,
			"--raft-advertise", m.RaftAddr, "--http-advertise", m.HTTPAddr,
			"--data", filepath.Join(c.dir, m.ID), "--token-file", c.token, "--lease", "2s"}
	}
	args = append(args, c.coordArgs...)
	if bootstrap {
		var bs []string
		for _, m := range c.members {
			bs = append(bs, m.ID+"="+m.RaftAddr+"="+m.HTTPAddr)
		}
		args = append(args, "--bootstrap", strings.Join(bs, ","))
	}
	c.start(m.ID, append(args, c.coordArgs...)...)
}

func (c *procCluster) startWorker(name string, threads int) {
	memory := c.workerMemory
	if memory == "" {
		memory = "1GiB"
	}
	bin := c.workerBin
	if bin == "" {
		bin = c.bin
	}
	c.startBin(name, bin, "worker", "--coordinators", c.urls(), "--token-file", c.token, "--data", filepath.Join(c.dir, name),
		"--threads", fmt.Sprint(threads), "--id", name, "--memory", memory)
}

// signal sends sig to the process name and, for SIGKILL, waits for it.
func (c *procCluster) signal(name string, sig syscall.Signal) {
	c.mu.Lock()
	p := c.procs[name]
	delete(c.procs, name)
	c.ended[name] = p
	c.mu.Unlock()
	if p == nil {
		c.t.Fatalf("no process %s", name)
	}
	p.peak = memsize.ReadResidentOf(p.cmd.Process.Pid).Peak
	p.cmd.Process.Signal(sig)
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		c.t.Errorf("%s did not end within a minute of %v", name, sig)
	}
}

// peakRSS stops the process name (SIGTERM) unless signal stopped it
// already, and returns its peak resident set in bytes: its VmHWM read
// just before it was stopped. Not the rusage's Maxrss: Linux counts in
// it the test binary's own resident set, which the child shared (vfork)
// until it ran exec.
func (c *procCluster) peakRSS(name string) int64 {
	c.t.Helper()
	c.mu.Lock()
	_, running := c.procs[name]
	c.mu.Unlock()
	if running {
		c.signal(name, syscall.SIGTERM)
	}
	c.mu.Lock()
	p := c.ended[name]
	c.mu.Unlock()
	if p == nil {
		c.t.Fatalf("no process %s", name)
	}
	<-p.exited
	if p.peak == 0 {
		c.t.Fatalf("%s: no peak resident set read before it stopped", name)
	}
	return int64(p.peak)
}

func (c *procCluster) killAll() {
	c.mu.Lock()
	names := make([]string, 0, len(c.procs))
	for n := range c.procs {
		names = append(names, n)
	}
	c.mu.Unlock()
	for _, n := range names {
		c.signal(n, syscall.SIGKILL)
	}
	if c.t.Failed() {
		logs, _ := filepath.Glob(filepath.Join(c.dir, "*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			c.t.Logf("---- %s (last lines)\n%s", filepath.Base(l), strings.Join(lines[max(0, len(lines)-15):], "\n"))
		}
	}
}

// run runs tierd to completion and returns its exit code and output.
func (c *procCluster) run(args ...string) (int, string, string) {
	cmd := exec.Command(c.bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// client adds the cluster flags to a client command (after its name,
// before its arguments).
func (c *procCluster) client(cmd string, args ...string) []string {
	return append([]string{cmd, "--coordinators", c.urls(), "--token-file", c.token}, args...)
}

// submit submits a run of game with option, cut into units of up to 8
// ranges a tier of at least 20000 positions each, and returns its id.
func (c *procCluster) submit(game, option string, flags ...string) string {
	c.t.Helper()
	return c.submitCut(game, option, "8", "20000", flags...)
}

// submitCut submits a run of game with option, cut into units of up to
// maxRanges ranges a tier of at least minRange positions each, with
// submit's other flags, and returns the run's id (the last word
// submit prints).
func (c *procCluster) submitCut(game, option, maxRanges, minRange string, flags ...string) string {
	c.t.Helper()
	args := append([]string{"--game", game, "--option", option, "--max-ranges", maxRanges, "--min-range", minRange}, flags...)
	code, out, errs := c.run(c.client("submit", args...)...)
	if code != 0 {
		c.t.Fatalf("submit: exit %d: %s", code, errs)
	}
	f := strings.Fields(out)
	return f[len(f)-1]
}

func (c *procCluster) status() (*api.StatusResponse, error) {
	code, out, errs := c.run(c.client("status", "--json", "--timeout", "5s")...)
	if code != 0 {
		return nil, fmt.Errorf("status: exit %d: %s", code, errs)
	}
	var st api.StatusResponse
	return &st, json.Unmarshal([]byte(out), &st)
}

// waitFor polls the status until cond holds.
func (c *procCluster) waitFor(what string, limit time.Duration, cond func(*api.StatusResponse) bool) *api.StatusResponse {
	c.t.Helper()
	var st *api.StatusResponse
	poll.UntilNil(c.t, what, limit, func() error {
		s, err := c.status()
		switch {
		case err != nil:
			return err
		case !cond(s):
			return errors.New("the status does not say so yet")
		}
		st = s
		return nil
	})
	return st
}

func runState(st *api.StatusResponse, id string) *api.RunSummary {
	for i := range st.Runs {
		if st.Runs[i].ID == id {
			return &st.Runs[i]
		}
	}
	return nil
}

// waitDone waits up to 3 minutes for run id to be done, and fails the
// test if it fails.
func (c *procCluster) waitDone(id string) {
	c.t.Helper()
	c.waitDoneWithin(id, 3*time.Minute)
}

// waitDoneWithin is waitDone for a run of up to d.
func (c *procCluster) waitDoneWithin(id string, d time.Duration) {
	c.t.Helper()
	c.waitFor("run "+id+" done", d, func(st *api.StatusResponse) bool {
		r := runState(st, id)
		if r != nil && r.State == api.Failed {
			c.t.Fatalf("run %s failed: %s", id, r.Error)
		}
		return r != nil && r.State == api.Done
	})
}

// fetch fetches a run and checks it with tierd verify.
func (c *procCluster) fetch(id string) string {
	c.t.Helper()
	out := filepath.Join(c.t.TempDir(), "fetched")
	// The form of the cluster's issue: flags after the run.
	if code, _, errs := c.run(c.client("fetch", id, "--out", out)...); code != 0 {
		c.t.Fatalf("fetch: exit %d: %s", code, errs)
	}
	if code, stdout, errs := c.run("verify", "--db", out); code != 0 {
		c.t.Fatalf("verify of the fetched run: exit %d: %s %s", code, stdout, errs)
	}
	return out
}

var (
	embeddedMu   sync.Mutex
	embeddedRuns = map[string]string{}
)

// embedded returns the folder of tierd solve's run of a game, made once.
func embedded(t *testing.T, game, option string) string {
	return embeddedBy(t, tierdBinary(t), game, option)
}

// embeddedBy is embedded, run by the binary bin (a tierd, or the test
// binary as tierd).
func embeddedBy(t *testing.T, bin, game, option string) string {
	embeddedMu.Lock()
	defer embeddedMu.Unlock()
	key := game + " " + option
	if dir, ok := embeddedRuns[key]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "tierd-embedded")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "solve", "--game", game, "--option", option, "--out", dir, "--workers", "2").CombinedOutput()
	if err != nil {
		t.Fatalf("tierd solve: %v\n%s", err, out)
	}
	embeddedRuns[key] = dir
	return dir
}

// removeShared removes the folders made once for the package's tests: the
// tierd binary's and the embedded runs'.
func removeShared() {
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	embeddedMu.Lock()
	defer embeddedMu.Unlock()
	for _, dir := range embeddedRuns {
		os.RemoveAll(dir)
	}
}

// sameFolders checks that a fetched run equals the embedded one: level
// files decompressed (and compressed), databases and manifests byte for
// byte.
func sameFolders(t *testing.T, want, got string) {
	t.Helper()
	wm, err := runfolder.LoadManifest(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range wm.Tiers {
		for _, rel := range []string{rec.Level.Path, rec.DB.Path} {
			a, err1 := os.ReadFile(filepath.Join(want, rel))
			b, err2 := os.ReadFile(filepath.Join(got, rel))
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", rel, err1, err2)
			}
			if strings.HasSuffix(rel, ".gz") && !bytes.Equal(gunzipped(t, a), gunzipped(t, b)) {
				t.Errorf("%s: decompressed level files differ", rel)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs", rel)
			}
		}
	}
	a, _ := os.ReadFile(filepath.Join(want, runfolder.ManifestName))
	b, _ := os.ReadFile(filepath.Join(got, runfolder.ManifestName))
	if !bytes.Equal(a, b) {
		t.Errorf("manifests differ")
	}
}

func gunzipped(t *testing.T, b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (c *procCluster) startAll(bootstrap bool) {
	for i := range c.members {
		c.startCoordinator(i, bootstrap)
	}
	c.waitFor("a leader", time.Minute, func(st *api.StatusResponse) bool { return st.Leader != "" })
}

const (
	c4Game   = "connect4"
	c4Option = "width=5,height=4"
)

// TestClusterSolve: 3 coordinators + 2 workers solve Connect Four 5x4;
// the fetched files are the embedded run's, byte for byte, and a wrong
// token is refused with exit 1.
func TestClusterSolve(t *testing.T) {
	c := newProcCluster(t, 3)
	c.startAll(true)
	c.startWorker("w1", 1)
	c.startWorker("w2", 1)
	// submit --wait returns once the run is done.
	code, out, errs := c.run(c.client("submit", "--game", c4Game, "--option", c4Option, "--max-ranges", "8", "--min-range", "20000", "--wait")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], "run r") || !strings.Contains(lines[1], " done in ") {
		t.Fatalf("submit --wait: exit %d, %q, %s", code, out, errs)
	}
	id := strings.Fields(lines[1])[1]
	if st := runState(c.waitFor("the run's status", 10*time.Second, func(*api.StatusResponse) bool { return true }), id); st == nil || st.State != api.Done {
		t.Fatalf("after submit --wait, the run is %+v", st)
	}
	sameFolders(t, embedded(t, c4Game, c4Option), c.fetch(id))
	// status --wait of a finished run answers at once; it needs a RUN.
	if code, out, errs := c.run(c.client("status", "--wait", "--json", id)...); code != 0 || !strings.Contains(out, `"state":"done"`) {
		t.Errorf("status --wait %s: exit %d, %q, %s", id, code, out, errs)
	}
	if code, _, errs := c.run(c.client("status", "--wait")...); code != 2 || !strings.Contains(errs, "--wait needs a RUN") {
		t.Errorf("status --wait without a run: exit %d, %s", code, errs)
	}
	if code, _, errs := c.run(c.client("status", "--wait", "r999999")...); code != 1 || !strings.Contains(errs, "no run r999999") {
		t.Errorf("status --wait of no such run: exit %d, %s", code, errs)
	}

	bad := filepath.Join(c.dir, "bad-token")
	os.WriteFile(bad, []byte("not-the-cluster-token-0123456789"), 0o600)
	code, _, errs = c.run("status", "--coordinators", c.urls(), "--token-file", bad)
	if code != 1 || !strings.Contains(errs, "refused the token") {
		t.Errorf("status with a wrong token: exit %d, %q", code, errs)
	}
	code, _, errs = c.run(c.client("fetch", "--out", t.TempDir(), "r999999")...)
	if code != 1 {
		t.Errorf("fetch of a missing run: exit %d: %s", code, errs)
	}
}

// TestClusterAdvertise: coordinators that listen on addresses of their
// own and advertise proxies in front of them (--raft-advertise,
// --http-advertise) are reached through the proxies: the leader is named
// by its proxy, and a run through them ends with tierd solve's bytes.
func TestClusterAdvertise(t *testing.T) {
	c := newProcCluster(t, 3)
	c.proxied()
	st := func() *api.StatusResponse {
		c.startAll(true)
		c.startWorker("w1", 2)
		id := c.submit("tictactoe", "")
		c.waitDone(id)
		sameFolders(t, embedded(t, "tictactoe", ""), c.fetch(id))
		st, err := c.status()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}()
	code, out, errs := c.run(c.client("members")...)
	if code != 0 {
		t.Fatalf("members: exit %d: %s", code, errs)
	}
	for _, m := range c.members {
		if !strings.Contains(out, m.RaftAddr) || !strings.Contains(out, m.HTTPAddr) {
			t.Errorf("tierd members does not list %s at its advertised addresses %s %s:\n%s", m.ID, m.RaftAddr, m.HTTPAddr, out)
		}
	}
	for _, m := range c.members {
		if m.ID != st.Leader {
			continue
		}
		req, _ := http.NewRequest("GET", "http://"+c.binds[0].HTTPAddr+"/v1/status", nil)
		tok, _ := os.ReadFile(c.token)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get(api.HeaderLeader); got != m.HTTPAddr {
			t.Errorf("clients are sent to %q, want the leader's advertised %s", got, m.HTTPAddr)
		}
	}
}

// TestClusterScopedTokens: coordinators with a worker token and a read
// token besides the admin token. tierd submit with the worker token and
// tierd worker with the read token exit 1 saying which token the request
// needs; a worker with the worker token solves the run the admin token
// submitted; tierd status and tierd fetch work with the read token (the
// fetched run is tierd solve's bytes); the refusals are in /metrics by
// scope.
func TestClusterScopedTokens(t *testing.T) {
	c := newProcCluster(t, 3)
	workerTok, readTok := filepath.Join(c.dir, "worker-token"), filepath.Join(c.dir, "read-token")
	os.WriteFile(workerTok, []byte("worker-token-0123456789abcdef\n"), 0o600)
	os.WriteFile(readTok, []byte("read-token-0123456789abcdef\n"), 0o600)
	c.coordArgs = []string{"--worker-token-file", workerTok, "--read-token-file", readTok}
	c.startAll(true)
	with := func(tok, cmd string, args ...string) []string {
		return append([]string{cmd, "--coordinators", c.urls(), "--token-file", tok}, args...)
	}
	code, _, errs := c.run(with(workerTok, "submit", "--game", "tictactoe")...)
	if code != 1 || !strings.Contains(errs, "POST /v1/runs needs the admin token, not the worker token") {
		t.Errorf("submit with the worker token: exit %d: %q", code, errs)
	}
	code, _, errs = c.run(with(readTok, "worker", "--data", t.TempDir(), "--threads", "1")...)
	if code != 1 || !strings.Contains(errs, "POST /v1/lease needs the worker token (or the admin token), not the read token") {
		t.Errorf("worker with the read token: exit %d: %q", code, errs)
	}
	id := c.submit("tictactoe", "")
	c.start("w1", with(workerTok, "worker", "--data", filepath.Join(c.dir, "w1"), "--threads", "2", "--id", "w1")...)
	c.waitDone(id)
	if code, out, errs := c.run(with(readTok, "status", id)...); code != 0 || !strings.Contains(out, "done") {
		t.Errorf("status with the read token: exit %d: %s %s", code, out, errs)
	}
	out := filepath.Join(t.TempDir(), "fetched")
	if code, _, errs := c.run(with(readTok, "fetch", "--out", out, id)...); code != 0 {
		t.Fatalf("fetch with the read token: exit %d: %s", code, errs)
	}
	sameFolders(t, embedded(t, "tictactoe", ""), out)
	var refused []string
	for _, m := range c.members {
		req, _ := http.NewRequest("GET", httpURL(m)+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer read-token-0123456789abcdef")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "tierd_forbidden_requests_total{") {
				refused = append(refused, m.ID+" "+l)
			}
		}
	}
	joined := strings.Join(refused, "\n")
	if !strings.Contains(joined, `needs="admin",token="worker"`) || !strings.Contains(joined, `needs="worker",token="read"`) {
		t.Errorf("refusals in /metrics:\n%s", joined)
	}
}

// TestClusterFaults: the leader is SIGKILLed mid-run and a worker
// SIGKILLed while it holds a lease; the run completes with the embedded
// run's bytes.
func TestClusterFaults(t *testing.T) {
	c := newProcCluster(t, 3)
	c.startAll(true)
	c.startWorker("w1", 1)
	c.startWorker("w2", 1)
	id := c.submit(c4Game, c4Option)
	// A worker with a lease, once the run is under way.
	st := c.waitFor("a worker holding a lease", time.Minute, func(st *api.StatusResponse) bool {
		r := runState(st, id)
		if r == nil || r.Reached < 8 {
			return false
		}
		for _, w := range st.Workers {
			if w.ID == "w1" && w.Leases > 0 {
				return true
			}
		}
		return false
	})
	c.signal("w1", syscall.SIGKILL)
	t.Logf("killed worker w1 holding a lease; run at %d tiers reached", runState(st, id).Reached)
	st = c.waitFor("more progress", time.Minute, func(st *api.StatusResponse) bool {
		r := runState(st, id)
		return r != nil && r.Reached >= 14 && st.Leader != ""
	})
	if runState(st, id).State == api.Done {
		t.Fatal("the run finished before the leader could be killed")
	}
	c.signal(st.Leader, syscall.SIGKILL)
	t.Logf("killed the leader %s; run at %d tiers reached, %d solved", st.Leader, runState(st, id).Reached, runState(st, id).TiersDone)
	c.waitDone(id)
	st, err := c.status()
	if err != nil {
		t.Fatal(err)
	}
	if st.Leader == "" {
		t.Fatal("no leader after the run")
	}
	sameFolders(t, embedded(t, c4Game, c4Option), c.fetch(id))
}

// runJSON reads a run's whole state from a coordinator.
func (c *procCluster) runJSON(id string) *api.Run {
	c.t.Helper()
	r := c.tryRunJSON(id)
	if r == nil {
		c.t.Fatal("no coordinator answered")
	}
	return r
}

// tryRunJSON reads a run's whole state from the leader (a follower
// forwards the request), or returns nil when no coordinator answers
// within 10 s (an election is under way).
func (c *procCluster) tryRunJSON(id string) *api.Run {
	tok, _ := os.ReadFile(c.token)
	client := &http.Client{Timeout: 10 * time.Second}
	for _, m := range c.members {
		req, _ := http.NewRequest("GET", httpURL(m)+"/v1/runs/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		var r api.Run
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err == nil && resp.StatusCode == 200 {
			return &r
		}
	}
	return nil
}

// TestClusterRestart: every coordinator stopped and restarted (without
// --bootstrap) keeps a finished run, and fetch gives the same files; a run
// stopped mid-way resumes without redoing its finished units.
func TestClusterRestart(t *testing.T) {
	c := newProcCluster(t, 3)
	c.startAll(true)
	c.startWorker("w1", 2)
	done := c.submit(c4Game, c4Option)
	c.waitDone(done)
	before := c.fetch(done)

	// A second run, stopped in the middle: coordinators and worker killed.
	mid := c.submit(c4Game, c4Option)
	c.waitFor("the second run half way", time.Minute, func(st *api.StatusResponse) bool {
		r := runState(st, mid)
		return r != nil && r.Reached >= 12
	})
	snap := c.runJSON(mid)
	for _, name := range []string{"w1", "c1", "c2", "c3"} {
		c.signal(name, syscall.SIGKILL)
	}
	if snap.State == api.Done {
		t.Fatal("the second run finished before the stop")
	}

	c.startAll(false)
	st, err := c.status()
	if err != nil {
		t.Fatal(err)
	}
	if r := runState(st, done); r == nil || r.State != api.Done {
		t.Fatalf("after the restart, the first run is %+v", r)
	}
	sameFolders(t, before, c.fetch(done))

	c.startWorker("w1", 2)
	c.waitDone(mid)
	after := c.runJSON(mid)
	redone := 0
	for i, t0 := range snap.Tiers {
		t1 := after.Tiers[i]
		// A tier cut before the stop keeps its ranges, and one whose level
		// file was written keeps the file.
		switch {
		case t0.Level == nil:
		case t1.Level == nil || !slices.Equal(t1.Level.Ranges, t0.Level.Ranges):
			t.Errorf("tier %d: its cut changed after the restart", t0.Tier)
		case t0.Level.Blob.SHA256 != "" && t1.Level.Blob.SHA256 != t0.Level.Blob.SHA256:
			t.Errorf("tier %d: its level file changed after the restart", t0.Tier)
		}
		for j, u := range t0.Reach {
			if u.Done != nil && t1.Reach[j].Done.Token != u.Done.Token {
				redone++
			}
		}
	}
	if redone > 0 {
		t.Errorf("%d finished units were done again after the restart", redone)
	}
	sameFolders(t, embedded(t, c4Game, c4Option), c.fetch(mid))
}

// TestSayBlocked: the commands that wait for a run say why it waits once
// each time the reason changes, and nothing while no reason is given.
func TestSayBlocked(t *testing.T) {
	var out strings.Builder
	say := sayBlocked(&out)
	for _, reason := range []string{"", "tier A needs more", "tier A needs more", "", "tier B needs more", "tier B needs more"} {
		say(&api.RunSummary{ID: "r1", Blocked: reason})
	}
	want := "run r1 waits: tier A needs more\nrun r1 waits: tier B needs more\n"
	if out.String() != want {
		t.Errorf("said %q, want %q", out.String(), want)
	}
}
