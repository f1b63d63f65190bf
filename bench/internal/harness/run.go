package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// Runner runs planned groups.
type Runner struct {
	// Exe is the harness's own executable, started with -child for jobs.
	Exe string
	// Work is the folder under which groups and runs get their folders.
	Work     string
	Config   Config
	Settings results.Settings
	// Progress is called before every run with a description of it.
	Progress func(what string)
}

// sampleOf is one run's outcome.
type sampleOf struct {
	Sample
	rss int64
	err error
}

// Run runs one planned group: setup, warm-up rounds, measured rounds,
// and returns its summary. Failures are recorded in the result, not
// returned; the group's folder is removed at the end.
func (r *Runner) Run(ctx context.Context, p Planned) results.Group {
	g := p.Group
	out := results.Group{ID: g.ID, Suite: p.Suite.Name, Table: g.Table, Title: g.Title, Params: g.Params,
		Reference: g.Reference, Command: p.Command()}
	if g.Skip != "" {
		out.Skipped = g.Skip
		return out
	}
	shared := filepath.Join(r.Work, safeName(g.ID))
	if err := os.MkdirAll(shared, 0o755); err != nil {
		out.Error = err.Error()
		return out
	}
	defer os.RemoveAll(shared)
	if g.Setup != nil {
		r.progress(g.ID + ": setup")
		if s := r.runJob(ctx, p.Suite, g.Setup, shared); s.err != nil {
			out.Error = "setup: " + s.err.Error()
			return out
		}
	}
	n := len(g.Variants)
	samples := make([][]sampleOf, n) // [variant][round]
	failed := make([]error, n)
	warmup, rounds := g.Rounds(r.Settings.WarmupRounds, r.Settings.Rounds)
	for round := -warmup; round < rounds; round++ {
		for k := range n {
			i := (k + max(round, 0)) % n // rotate the order from round to round
			if failed[i] != nil {
				if round >= 0 {
					samples[i] = append(samples[i], sampleOf{err: failed[i]})
				}
				continue
			}
			v := g.Variants[i]
			what := fmt.Sprintf("%s: %s", g.ID, v.Name)
			if round < 0 {
				what += " (warm-up)"
			} else {
				what += fmt.Sprintf(" (round %d of %d)", round+1, rounds)
			}
			r.progress(what)
			s := r.runVariant(ctx, p.Suite, v, shared)
			if s.err != nil {
				failed[i] = s.err
			}
			if round >= 0 {
				samples[i] = append(samples[i], s)
			}
			if ctx.Err() != nil {
				out.Error = "interrupted"
				return out
			}
		}
	}
	out.Variants = summarize(g, samples)
	if g.Amdahl {
		out.Amdahl = fitAmdahl(g, samples)
	}
	return out
}

func (r *Runner) progress(what string) {
	if r.Progress != nil {
		r.Progress(what)
	}
}

func (r *Runner) runVariant(ctx context.Context, s *Suite, v Variant, shared string) sampleOf {
	if v.Job != nil {
		return r.runJob(ctx, s, v.Job, shared)
	}
	return r.runCommand(ctx, v.Command)
}

// runJob runs a job of suite s in a child process, in a fresh folder.
func (r *Runner) runJob(ctx context.Context, s *Suite, j *Job, shared string) sampleOf {
	dir, err := os.MkdirTemp(r.Work, "run-")
	if err != nil {
		return sampleOf{err: err}
	}
	defer os.RemoveAll(dir)
	args, err := json.Marshal(j.Args)
	if err != nil {
		return sampleOf{err: fmt.Errorf("job %s: %w", j.Kind, err)}
	}
	spec, err := json.Marshal(childSpec{Suite: s.Name, Kind: j.Kind, Args: args, Dir: dir, Shared: shared,
		MinSample: r.Settings.MinSampleSeconds, Config: r.Config})
	if err != nil {
		return sampleOf{err: err}
	}
	cmd := exec.CommandContext(ctx, r.Exe, childFlag, string(spec))
	// An interrupted run asks the child to stop (it cancels its job's
	// context, ChildMain) rather than killing it: a job that started
	// processes of its own stops them, instead of leaving them running.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = childStopWait
	var stdout strings.Builder
	stderr := NewTailBuffer(4 << 10)
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	err = cmd.Run()
	out := sampleOf{rss: rssOf(cmd)}
	if err != nil {
		out.err = withOutput(err, stderr)
		return out
	}
	var res childResult
	if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil {
		out.err = fmt.Errorf("job %s printed %q: %w", j.Kind, stdout.String(), err)
	}
	out.Sample = res.Sample
	if res.PeakRSS > 0 {
		out.rss = int64(res.PeakRSS)
	}
	return out
}

// childStopWait is how long an interrupted child has to stop before it
// is killed.
const childStopWait = 2 * time.Minute

// runCommand runs an outside program in a fresh folder and times it.
func (r *Runner) runCommand(ctx context.Context, argv []string) sampleOf {
	if len(argv) == 0 {
		return sampleOf{err: fmt.Errorf("a variant with neither a job nor a command")}
	}
	dir, err := os.MkdirTemp(r.Work, "run-")
	if err != nil {
		return sampleOf{err: err}
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	out := NewTailBuffer(4 << 10)
	cmd.Stdout, cmd.Stderr = out, out
	t0 := time.Now()
	err = cmd.Run()
	s := sampleOf{Sample: Sample{Seconds: time.Since(t0).Seconds()}, rss: rssOf(cmd)}
	if ps := cmd.ProcessState; ps != nil {
		// The CPU time of the program and of the children it waited for.
		s.Metrics = map[string]float64{"cpu_s": (ps.UserTime() + ps.SystemTime()).Seconds()}
	}
	if err != nil {
		s.err = withOutput(fmt.Errorf("%s: %w", strings.Join(argv, " "), err), out)
	}
	return s
}

func rssOf(cmd *exec.Cmd) int64 {
	if cmd.ProcessState == nil {
		return 0
	}
	return peakRSS(cmd.ProcessState)
}

// withOutput adds the last line of a failed process's output to err.
func withOutput(err error, out *TailBuffer) error {
	msg := strings.TrimSpace(out.String())
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if msg == "" {
		return err
	}
	return fmt.Errorf("%w: %s", err, msg)
}

// summarize turns the samples of every variant into its results.
func summarize(g Group, samples [][]sampleOf) []results.Variant {
	times := make([][]float64, len(samples))
	for i, ss := range samples {
		for _, s := range ss {
			x := math.NaN()
			if s.err == nil {
				x = s.Seconds
			}
			times[i] = append(times[i], x)
		}
	}
	ref := slices.IndexFunc(g.Variants, func(v Variant) bool { return v.Name == g.Reference })
	out := make([]results.Variant, len(samples))
	for i, v := range g.Variants {
		rv := results.Variant{Name: v.Name, Kind: v.Kind, Params: v.Params, Seconds: results.Summarize(times[i])}
		if rv.Kind == "" {
			rv.Kind = results.KindSubject
		}
		if ref >= 0 && i != ref {
			st := results.Summarize(results.Ratios(times[i], times[ref]))
			rv.Ratio = &st
		}
		metrics := map[string][]float64{}
		for round, s := range samples[i] {
			if s.err != nil {
				rv.Error = s.err.Error()
				continue
			}
			for k, x := range s.Metrics {
				metrics[k] = appendAt(metrics[k], round, x)
			}
			if s.rss > 0 {
				metrics["peak_rss_bytes"] = appendAt(metrics["peak_rss_bytes"], round, float64(s.rss))
			}
			if len(s.Facts) > 0 {
				rv.Facts = s.Facts
			}
		}
		if g.Amdahl && ref >= 0 {
			metrics["speedup"] = results.Ratios(times[ref], times[i])
		}
		if ref >= 0 && i != ref {
			for _, k := range g.RatioMetrics {
				metrics[k+"_ratio"] = results.Ratios(metricByRound(samples[i], k), metricByRound(samples[ref], k))
			}
		}
		if len(metrics) > 0 {
			rv.Metrics = map[string]results.Stat{}
			for k, xs := range metrics {
				rv.Metrics[k] = results.Summarize(xs)
			}
		}
		out[i] = rv
	}
	return out
}

// metricByRound is a metric's value in every round, NaN where a round
// failed or did not report it.
func metricByRound(ss []sampleOf, key string) []float64 {
	xs := make([]float64, len(ss))
	for round, s := range ss {
		x, ok := s.Metrics[key]
		if s.err != nil || !ok {
			x = math.NaN()
		}
		xs[round] = x
	}
	return xs
}

// appendAt sets xs[round] = x, padding missed rounds with NaN.
func appendAt(xs []float64, round int, x float64) []float64 {
	for len(xs) < round {
		xs = append(xs, math.NaN())
	}
	return append(xs, x)
}

// fitAmdahl fits the serial fraction round by round, from each round's
// speed-ups over the reference (the one-worker variant).
func fitAmdahl(g Group, samples [][]sampleOf) *results.Amdahl {
	ref := slices.IndexFunc(g.Variants, func(v Variant) bool { return v.Name == g.Reference })
	if ref < 0 {
		return nil
	}
	var fits []float64
	for round := range len(samples[ref]) {
		var workers []int
		var speedups []float64
		for i, v := range g.Variants {
			if round >= len(samples[i]) || samples[i][round].err != nil || samples[ref][round].err != nil {
				continue
			}
			workers = append(workers, int(v.Params["workers"]))
			speedups = append(speedups, samples[ref][round].Seconds/samples[i][round].Seconds)
		}
		if s, ok := results.FitAmdahl(workers, speedups); ok {
			fits = append(fits, s)
		}
	}
	if len(fits) == 0 {
		return nil
	}
	a := &results.Amdahl{SerialFraction: results.Summarize(fits)}
	if s := a.SerialFraction.Median; s > 0 {
		a.MaxSpeedup = 1 / s
	}
	return a
}

// safeName turns a group ID into a folder name.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '%' || r == '^' || r == ' ' {
			return '_'
		}
		return r
	}, id)
}

// TailBuffer keeps the last max bytes written to it: a child's error
// message without unbounded memory for a chatty child.
type TailBuffer struct {
	max int
	b   []byte
}

// NewTailBuffer returns a TailBuffer that keeps the last max bytes.
func NewTailBuffer(max int) *TailBuffer { return &TailBuffer{max: max} }

// Write keeps the tail of what was written so far; it never fails.
func (t *TailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// String returns the bytes kept.
func (t *TailBuffer) String() string { return string(t.b) }
