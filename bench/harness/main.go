// Command harness runs the project's performance jobs, each in a child
// process of its own, and reports their times, throughput and peak memory
// (the child's maximum resident set size) as an aligned table or JSON:
//
//	go run ./bench/harness [-suite level|reach|solve|all] [-large] [-json]
//
// Suites:
//
//	level  write a random 2^26-position tier (50% and 1% dense) with
//	       levelfile's race (auto), with only the winning type, with all
//	       four types compressed (exhaustive), and with the naive baseline;
//	       read each type; merge 8 partial files with 1 and 2 workers
//	reach  reachability of Connect Four 5x4 (with -large also 5x5 and 6x4)
//	       with 1 and 2 workers
//	solve  reachability then solving, same boards, and the memoized
//	       single-threaded baseline (5x4; with -large also 5x5)
//	all    level and solve (solve rows include the reach time)
//
// Every file goes to a temporary folder under -dir (default: the system's
// temporary folder), removed at the end, also after an interrupt. See
// bench/README.md for what each number means.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(harnessMain(os.Args[1:], os.Stdout, os.Stderr))
}

// config is the parsed command line.
type config struct {
	suite   string
	large   bool
	json    bool
	dir     string
	reps    int
	bits    int
	workers []int
}

func harnessMain(args []string, stdout, stderr io.Writer) int {
	// The hidden child mode: run one job and print its result.
	if len(args) == 2 && args[0] == "-child" {
		return childMain(args[1])
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "harness: %v\n", err)
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "harness: cannot find my own executable to run jobs: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := runSuites(ctx, cfg, exe, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "harness: %v\n", err)
		return 1
	}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.writeText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "harness: %v\n", err)
		return 1
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintf(stderr, "harness: %d job(s) failed\n", len(rep.Failures))
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("harness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.suite, "suite", "all", "what to run: level, reach, solve or all")
	fs.BoolVar(&cfg.large, "large", false, "also the large boards: Connect Four 5x5 and 6x4 (minutes each, gigabytes)")
	fs.BoolVar(&cfg.json, "json", false, "print JSON instead of tables")
	fs.StringVar(&cfg.dir, "dir", "", "parent folder of the temporary work folder (default: the system's temporary folder)")
	fs.IntVar(&cfg.reps, "reps", 3, "repetitions of each level-file measurement; the best counts")
	fs.IntVar(&cfg.bits, "bits", 26, "level suite: the tier has 2^bits positions")
	workers := fs.String("workers", "1,2", "worker counts of the solver runs, comma-separated")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./bench/harness [-suite level|reach|solve|all] [-large] [-json] [flags]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch cfg.suite {
	case "level", "reach", "solve", "all":
	default:
		return cfg, fmt.Errorf("-suite %q: want level, reach, solve or all", cfg.suite)
	}
	if cfg.reps < 1 {
		return cfg, fmt.Errorf("-reps %d: want at least 1", cfg.reps)
	}
	if cfg.bits < 8 || cfg.bits > 34 {
		return cfg, fmt.Errorf("-bits %d: want 8 to 34", cfg.bits)
	}
	for _, f := range strings.Split(*workers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-workers %q: want positive integers separated by commas", *workers)
		}
		cfg.workers = append(cfg.workers, n)
	}
	return cfg, nil
}

// board is a Connect Four size the solver suites run.
type board struct {
	w, h  int
	large bool
	memo  bool // also run the memo baseline
}

var boards = []board{
	{5, 4, false, true},
	{5, 5, true, true},
	{6, 4, true, false},
}

func (b board) option() string { return fmt.Sprintf("width=%d,height=%d", b.w, b.h) }

// densities of the level suite's tiers.
var densities = []float64{0.5, 0.01}

// runner starts jobs as child processes in a work folder.
type runner struct {
	exe  string
	root string
	log  io.Writer
	rep  *report
}

func runSuites(ctx context.Context, cfg config, exe string, log io.Writer) (*report, error) {
	root, err := os.MkdirTemp(cfg.dir, "tiersolve-bench-")
	if err != nil {
		return nil, fmt.Errorf("work folder: %w", err)
	}
	defer os.RemoveAll(root)
	r := &runner{exe: exe, root: root, log: log, rep: newReport(cfg)}
	if cfg.suite == "level" || cfg.suite == "all" {
		for _, d := range densities {
			r.levelSuite(ctx, cfg, d)
		}
	}
	if cfg.suite != "level" {
		solve := cfg.suite != "reach"
		for _, b := range boards {
			if b.large && !cfg.large {
				continue
			}
			r.solverSuite(ctx, cfg, b, solve)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	return r.rep, nil
}

// levelSuite runs the level-file jobs of one density in order: prepare,
// the three writers, the four reads, the merges.
func (r *runner) levelSuite(ctx context.Context, cfg config, d float64) {
	dir := filepath.Join(r.root, fmt.Sprintf("level-%g", d))
	base := job{Density: d, Bits: cfg.bits, Reps: cfg.reps, Dir: dir}
	j := base
	j.Kind = kindPrepare
	prep, _, err := r.run(ctx, j, fmt.Sprintf("level density %g: prepare the files", d))
	if err != nil {
		return // the other jobs need its files
	}
	var autoRow *writeRow
	for _, v := range []string{"auto", "winner", "exhaustive", "naive"} {
		j := base
		j.Kind, j.Variant, j.Type = kindWrite, v, prep.Type
		res, rss, err := r.run(ctx, j, fmt.Sprintf("level density %g: write %s", d, v))
		if err != nil {
			continue
		}
		row := writeRow{Density: d, Variant: v, Type: res.Type, Seconds: res.Seconds, Bytes: res.Bytes,
			Positions: res.Count, RawDone: res.RawDone, PeakRSS: rss}
		row.MposPerSec = mpos(res.Count, res.Seconds)
		if v == "auto" {
			autoRow = &row
		}
		if autoRow != nil {
			row.TimeVsAuto = res.Seconds / autoRow.Seconds
			row.BytesVsAuto = float64(res.Bytes) / float64(autoRow.Bytes)
		}
		r.rep.Write = append(r.rep.Write, row)
	}
	for t := 0; t <= 3; t++ {
		j := base
		j.Kind, j.Type = kindRead, t
		res, rss, err := r.run(ctx, j, fmt.Sprintf("level density %g: read type %d", d, t))
		if err != nil {
			continue
		}
		r.rep.Read = append(r.rep.Read, readRow{Density: d, Type: t, Bytes: res.Bytes, Seconds: res.Seconds,
			MBPerSec: float64(res.Bytes) / res.Seconds / 1e6, MposPerSec: mpos(res.Count, res.Seconds), PeakRSS: rss})
	}
	var one float64
	for _, w := range cfg.workers {
		j := base
		j.Kind, j.Workers, j.Count = kindMerge, w, prep.Count
		res, rss, err := r.run(ctx, j, fmt.Sprintf("level density %g: merge %d files, %d workers", d, mergeFiles, w))
		if err != nil {
			continue
		}
		row := mergeRow{Density: d, Files: res.Files, Workers: w, Bytes: res.Bytes, Seconds: res.Seconds,
			MBPerSec: float64(res.Bytes) / res.Seconds / 1e6, MposPerSec: mpos(res.Count, res.Seconds), PeakRSS: rss}
		if w == 1 {
			one = res.Seconds
		}
		if one > 0 {
			row.Speedup = one / res.Seconds
		}
		r.rep.Merge = append(r.rep.Merge, row)
	}
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(r.log, "harness: %v\n", err)
	}
}

// solverSuite runs one board with each worker count, then the memo
// baseline when solving.
func (r *runner) solverSuite(ctx context.Context, cfg config, b board, solve bool) {
	what := "reach"
	if solve {
		what = "reach+solve"
	}
	var one float64
	for _, w := range cfg.workers {
		dir := filepath.Join(r.root, fmt.Sprintf("connect4-%dx%d-w%d", b.w, b.h, w))
		j := job{Kind: kindTier, Game: "connect4", Option: b.option(), Workers: w, Solve: solve, Dir: dir}
		res, rss, err := r.run(ctx, j, fmt.Sprintf("connect4 %dx%d: %s, %d workers", b.w, b.h, what, w))
		if err == nil {
			secs := res.ReachSec + res.SolveSec
			row := solverRow{Solver: "tiersolve", Game: "connect4", Option: b.option(), Workers: w,
				ReachSec: res.ReachSec, SolveSec: res.SolveSec, Positions: res.Positions,
				PeakRSS: rss, LevelBytes: res.LevelBytes, DBBytes: res.DBBytes, Start: res.Start}
			row.fill(secs)
			if w == 1 {
				one = secs
			}
			if one > 0 {
				row.Speedup = one / secs
			}
			r.rep.Solver = append(r.rep.Solver, row)
		}
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(r.log, "harness: %v\n", err)
		}
	}
	if !solve || !b.memo {
		return
	}
	j := job{Kind: kindMemo, Width: b.w, Height: b.h}
	res, rss, err := r.run(ctx, j, fmt.Sprintf("connect4 %dx%d: memo baseline", b.w, b.h))
	if err != nil {
		return
	}
	row := solverRow{Solver: "memo", Game: "connect4", Option: b.option(), Workers: 1,
		SolveSec: res.SolveSec, Positions: res.Positions, PeakRSS: rss, Start: res.Start}
	row.fill(res.SolveSec)
	r.rep.Solver = append(r.rep.Solver, row)
}

func mpos(n uint64, secs float64) float64 { return float64(n) / secs / 1e6 }

// run starts the job in a child process and returns its result and peak
// RSS in bytes. A failure is logged and recorded in the report.
func (r *runner) run(ctx context.Context, j job, what string) (result, int64, error) {
	res, rss, err := r.runChild(ctx, j, what)
	if err != nil && ctx.Err() != nil {
		return res, rss, ctx.Err() // interrupted: runSuites says so once
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", what, err)
		fmt.Fprintf(r.log, "harness: %v\n", err)
		r.rep.Failures = append(r.rep.Failures, err.Error())
	}
	return res, rss, err
}

func (r *runner) runChild(ctx context.Context, j job, what string) (result, int64, error) {
	var res result
	if err := ctx.Err(); err != nil {
		return res, 0, err
	}
	spec, err := json.Marshal(j)
	if err != nil {
		return res, 0, err
	}
	fmt.Fprintf(r.log, "harness: %s ...", what)
	cmd := exec.CommandContext(ctx, r.exe, "-child", string(spec))
	var stdout strings.Builder
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	t0 := time.Now()
	err = cmd.Run()
	wall := time.Since(t0)
	var rss int64
	if cmd.ProcessState != nil {
		rss = peakRSS(cmd.ProcessState)
	}
	if err != nil {
		fmt.Fprintln(r.log, " stopped")
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return res, rss, fmt.Errorf("%w: %s", err, msg)
		}
		return res, rss, err
	}
	if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil {
		fmt.Fprintln(r.log, " stopped")
		return res, rss, fmt.Errorf("child printed %q: %w", stdout.String(), err)
	}
	fmt.Fprintf(r.log, " %.1fs, peak RSS %s\n", wall.Seconds(), mib(rss))
	return res, rss, nil
}

// tailBuffer keeps the last max bytes written to it: a child's error
// message without unbounded memory for a chatty child.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// machine describes where the numbers were taken.
type machine struct {
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	CPUs      int    `json:"cpus"`
	Time      string `json:"time"`
}

func thisMachine() machine {
	return machine{GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		CPUs: runtime.NumCPU(), Time: time.Now().UTC().Format(time.RFC3339)}
}
