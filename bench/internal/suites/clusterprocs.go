package suites

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/tierdcli"
)

// TierdFlag is the hidden first argument that makes the harness's
// executable run as tierd (RunAsTierd): the cluster suite's processes
// variant starts its coordinators and workers that way, as separate
// processes of the same code as tierd.
const TierdFlag = "-tierd"

// RunAsTierd runs tierd with the bundled games and exits, if args (the
// command line without the program name) start with TierdFlag; else it
// returns.
func RunAsTierd(args []string) {
	if len(args) == 0 || args[0] != TierdFlag {
		return
	}
	os.Args = os.Args[1:] // tierdcli.Main reads os.Args[1:]
	tierdcli.Main(games.Default())
}

// ProfilesEnv names a folder where each process of the cluster suite's
// processes variant writes its CPU profile (c1.pprof … w1.pprof …) and
// its log (c1.log …), when set: where a cluster's CPU goes, as its users
// run it.
const ProfilesEnv = "TIERSOLVE_BENCH_PROFILES"

// procToken is the cluster token of the processes variant.
const procToken = "bench-cluster-token-0123456789abcdef"

// runClusterProcesses is the cluster as its users run it: 3 `tierd
// coordinator` processes and Workers `tierd worker --threads 1`
// processes on loopback (the harness's executable as tierd, TierdFlag).
// The time is the leader's, submit to done; cpu_s is the user and
// system time of every process over the same span (procCluster.solve).
func runClusterProcesses(ctx context.Context, env harness.JobEnv, a solveArgs) (harness.Sample, error) {
	exe, err := os.Executable()
	if err != nil {
		return harness.Sample{}, err
	}
	pc := &procCluster{exe: exe, dir: env.Dir}
	defer pc.stop()
	run, err := pc.solve(ctx, a.Workers, api.SubmitRequest{Game: a.Game, Option: a.Option})
	if err != nil {
		return harness.Sample{}, err
	}
	return harness.Sample{Seconds: run.summary.Seconds, Metrics: run.metrics, Facts: map[string]string{"start": startString(run.summary.Start)}}, nil
}

// coordinatorCount is how many coordinators a procCluster runs.
const coordinatorCount = 3

// procRun is a run a procCluster finished.
type procRun struct {
	client  *api.Client
	id      string
	summary *api.RunSummary
	// metrics are its positions (and per second of the leader's time,
	// submit to done), the raft log's figures, and every process's user
	// and system seconds over the run, from /proc/PID/stat read before
	// the submit and when the run is seen done: cpu_s_c1 … cpu_s_w1 …,
	// and their sums cpu_s, cpu_coordinators_s and cpu_workers_s.
	metrics map[string]float64
}

// solve starts the coordinators and workers, submits req and waits
// until the run is done.
func (pc *procCluster) solve(ctx context.Context, workers int, req api.SubmitRequest) (*procRun, error) {
	if err := pc.start(ctx, coordinatorCount, workers); err != nil {
		return nil, err
	}
	cl, err := api.NewClient(pc.urls, procToken, nil)
	if err != nil {
		return nil, err
	}
	cl.Patience = 30 * time.Second
	cpu0, err := pc.cpu()
	if err != nil {
		return nil, err
	}
	id, err := cl.Submit(ctx, req)
	if err != nil {
		return nil, err
	}
	// A run no worker can take would wait for ever (a budget below every
	// part's estimate): the same reason twice in a row, 20 s apart, ends
	// the job with it.
	waitCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	blocked := ""
	cl.Waiting = func(r *api.RunSummary) {
		if r.Blocked != "" && r.Blocked == blocked {
			cancel(fmt.Errorf("run %s waits: %s", r.ID, r.Blocked))
		}
		blocked = r.Blocked
	}
	sum, err := cl.WaitRun(waitCtx, id, 50*time.Millisecond)
	if cause := context.Cause(waitCtx); err != nil && cause != nil && ctx.Err() == nil {
		err = cause
	}
	if err != nil {
		return nil, pc.withLogs(ctx, err)
	}
	cpu1, err := pc.cpu()
	if err != nil {
		return nil, err
	}
	n, secs := float64(sum.Positions), sum.Seconds
	met := map[string]float64{"positions": n, "positions_per_s": perSecond(n, secs),
		"units": float64(sum.UnitsTotal), "raft_log_bytes": float64(sum.LogBytes), "raft_commands": float64(sum.Commands),
		"log_bytes_per_unit": float64(sum.LogBytes) / float64(max(sum.UnitsTotal, 1)),
		"log_bytes_per_tier": float64(sum.LogBytes) / float64(max(sum.TiersTotal, 1))}
	var coords, others float64
	for i := range cpu1 {
		d := cpu1[i] - cpu0[i]
		met["cpu_s_"+pc.names[i]] = d
		if i < coordinatorCount {
			coords += d
		} else {
			others += d
		}
	}
	met["cpu_s"], met["cpu_coordinators_s"], met["cpu_workers_s"] = coords+others, coords, others
	return &procRun{client: cl, id: id, summary: sum, metrics: met}, nil
}

// procCluster is coordinators and workers, each a process.
type procCluster struct {
	exe, dir string
	// workerArgs are added to every worker's command line.
	workerArgs []string
	urls       []string
	procs      []*exec.Cmd // the coordinators first
	names      []string    // of procs: c1, ..., w1, ...; each has NAME.log and its data folder NAME in dir
	// peaks are the processes' peak resident sets (VmHWM), read by stop
	// just before it stops each.
	peaks   []uint64
	stopped bool
}

// start starts n coordinators, waits until each is ready (/readyz), then
// starts the workers.
func (pc *procCluster) start(ctx context.Context, n, workers int) error {
	token := filepath.Join(pc.dir, "token")
	if err := os.WriteFile(token, []byte(procToken+"\n"), 0o600); err != nil {
		return err
	}
	addrs, err := freePorts(2 * n)
	if err != nil {
		return err
	}
	var boot []string
	for i := range n {
		boot = append(boot, fmt.Sprintf("c%d=%s=%s", i+1, addrs[2*i], addrs[2*i+1]))
		pc.urls = append(pc.urls, "http://"+addrs[2*i+1])
	}
	for i := range n {
		id := fmt.Sprintf("c%d", i+1)
		if err := pc.run(id, "coordinator", "--node-id", id, "--raft-addr", addrs[2*i], "--http-addr", addrs[2*i+1],
			"--data", filepath.Join(pc.dir, id), "--token-file", token, "--bootstrap", strings.Join(boot, ",")); err != nil {
			return err
		}
	}
	for _, u := range pc.urls {
		if err := waitReady(ctx, u+"/readyz", 2*time.Minute); err != nil {
			return pc.withLogs(ctx, fmt.Errorf("coordinator %s: %w", u, err))
		}
	}
	for i := range workers {
		id := fmt.Sprintf("w%d", i+1)
		args := []string{"worker", "--coordinators", strings.Join(pc.urls, ","), "--token-file", token,
			"--data", filepath.Join(pc.dir, id), "--threads", "1", "--id", id, "--log-format", "json"}
		if err := pc.run(id, append(args, pc.workerArgs...)...); err != nil {
			return err
		}
	}
	return nil
}

// run starts the executable as tierd with args, its output in NAME.log.
func (pc *procCluster) run(name string, args ...string) error {
	log, err := os.Create(filepath.Join(pc.dir, name+".log"))
	if err != nil {
		return err
	}
	defer log.Close() // the child has its own descriptor
	if dir := os.Getenv(ProfilesEnv); dir != "" {
		// Each process profiles itself until stop's SIGTERM.
		args = append(args, "--cpuprofile", filepath.Join(dir, name+".pprof"))
	}
	cmd := exec.Command(pc.exe, append([]string{TierdFlag}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return err
	}
	pc.procs = append(pc.procs, cmd)
	pc.names = append(pc.names, name)
	return nil
}

// withLogs adds to err where the processes' logs are kept: copied out of
// the run's folder, which the harness removes after the job, into a new
// folder under the system's temporary folder. An interrupted run (ctx
// done) keeps none.
func (pc *procCluster) withLogs(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	keep, kerr := pc.keepLogs()
	if kerr != nil {
		return err
	}
	return fmt.Errorf("%w (the processes' logs are in %s)", err, keep)
}

// keepLogs copies the processes' logs into a new folder that outlives
// the job's, and returns it.
func (pc *procCluster) keepLogs() (string, error) {
	keep, err := os.MkdirTemp("", "tiersolve-bench-logs-")
	if err != nil {
		return "", err
	}
	for _, name := range pc.names {
		if b, readErr := os.ReadFile(filepath.Join(pc.dir, name+".log")); readErr == nil {
			os.WriteFile(filepath.Join(keep, name+".log"), b, 0o644)
		}
	}
	return keep, nil
}

// cpu is the user and system seconds of every process so far.
func (pc *procCluster) cpu() ([]float64, error) {
	out := make([]float64, len(pc.procs))
	for i, p := range pc.procs {
		s, err := processCPU(p.Process.Pid)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// stop ends the workers, then the coordinators (SIGTERM, then SIGKILL
// after 10 s), and waits for them; it reads each one's peak resident set
// first (peaks). Not the rusage's Maxrss of the finished process: Linux
// fills it with this process's resident set, which the child shared
// (vfork) until it ran exec. Only the first call does anything.
func (pc *procCluster) stop() {
	if pc.stopped {
		return
	}
	pc.stopped = true
	pc.peaks = make([]uint64, len(pc.procs))
	for i := len(pc.procs) - 1; i >= 0; i-- {
		p := pc.procs[i]
		pc.peaks[i] = memsize.ReadResidentOf(p.Process.Pid).Peak
		stopProcess(p, 10*time.Second)
	}
	if dir := os.Getenv(ProfilesEnv); dir != "" {
		for _, name := range pc.names { // beside their profiles: what each did, and when
			if b, err := os.ReadFile(filepath.Join(pc.dir, name+".log")); err == nil {
				os.WriteFile(filepath.Join(dir, name+".log"), b, 0o644)
			}
		}
	}
}

// stopProcess sends a started process SIGTERM and waits for it, killing
// it when it has not ended after grace.
func stopProcess(p *exec.Cmd, grace time.Duration) {
	_ = p.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		_ = p.Process.Kill()
		<-done
	}
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on
// every Linux architecture Go runs on.
const clockTicks = 100

// processCPU is a running process's user and system seconds so far, from
// /proc/PID/stat (Linux).
func processCPU(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("the CPU time of process %d: %w", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields counted from the last ')'. utime and stime are fields 14
	// and 15 of the line, the 12th and 13th after it.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return float64(utime+stime) / clockTicks, nil
}

// freePorts finds n free loopback addresses.
func freePorts(n int) ([]string, error) {
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		out = append(out, l.Addr().String())
	}
	return out, nil
}

// waitReady polls url until it answers 200, for at most d.
func waitReady(ctx context.Context, url string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
