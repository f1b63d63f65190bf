// Package harness runs the benchmark suites: it plans the groups of the
// suites asked for, runs every variant of a group in rounds (a warm-up
// first, then the measured rounds, the variants interleaved within each
// round), each run in a child process of its own so that its peak memory
// is its own, and summarizes the samples into results.Results.
//
// A suite (type Suite) says what to measure; the harness does the rest.
// To add a suite, write a Suite value (see package suites) and add it to
// suites.All: its Groups, the Jobs its variants run, and optionally the
// Columns its tables show and the Charts it draws.
package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/chart"
	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// Suite is a family of measurements, selected by name with --suite.
type Suite struct {
	// Name is what --suite selects and the first part of every group ID.
	Name string
	// Doc is one line for --list and the report.
	Doc string
	// Groups returns every group of the suite, each with its Level; the
	// harness picks those the command line asks for. It must be cheap
	// and deterministic (it is called in the parent only).
	Groups func(cfg Config) []Group
	// Jobs are the kinds of job the variants of this suite run, by name.
	// A job runs in a child process.
	Jobs map[string]JobFunc
	// Columns are the metrics and facts the suite's report tables show
	// for each variant, after its time.
	Columns []Column
	// Charts draws the suite's charts from the finished results (only
	// this suite's groups are passed). Optional.
	Charts func(groups []results.Group) []chart.Chart
}

// Level says which runs include a group.
type Level int

const (
	// Quick groups run in every run (and in --quick runs).
	Quick Level = iota
	// Full groups run in full runs only.
	Full
	// Explicit groups run only when --suite names them by ID: they take
	// too long for a full run (the estimate says how long).
	Explicit
)

// Group is one comparison: its variants run in the same rounds,
// interleaved, and the ratios to the reference are taken round by round.
type Group struct {
	// ID is "suite/name" (the suite's Name first), unique and stable.
	ID string
	// Table groups rows in the report: groups of a suite with the same
	// Table (e.g. "write", "read") share a table.
	Table string
	Title string
	Level Level
	// Params are numeric parameters the report and the charts use.
	Params map[string]float64
	// Reference names the variant ratios are taken against ("" for
	// none). The order of the variants rotates from round to round, so
	// that a drift of the machine's speed does not always favour one.
	Reference string
	// RatioMetrics are metrics whose ratio to the reference's is taken
	// round by round too, as the time's: the metric NAME_ratio of every
	// other variant (e.g. cpu_s_ratio).
	RatioMetrics []string
	// Setup, when set, runs once in a child before the rounds, with
	// JobEnv.Shared the group's folder (for inputs the variants read).
	Setup *Job
	// Variants are the contenders. An empty list is not allowed.
	Variants []Variant
	// Estimate is the expected wall time of one round (all variants,
	// child start-up included), for the plan shown before a run.
	Estimate time.Duration
	// Skip, when set, says why the group cannot run here (a missing
	// input); it is reported as skipped, not as a failure.
	Skip string
	// Amdahl asks for a fit of the serial fraction over the variants'
	// "workers" param (their speed-up is against the reference, which
	// should be the one-worker variant).
	Amdahl bool
	// Once runs the group in one measured round and no warm-up, whatever
	// --rounds and --warmup say: for a group whose round takes an hour.
	Once bool
}

// Rounds is how many warm-up and measured rounds the group runs when the
// command line asks for warmup and rounds.
func (g Group) Rounds(warmup, rounds int) (w, r int) {
	if g.Once {
		return 0, 1
	}
	return warmup, rounds
}

// Cost is the expected wall time of the group's rounds (its Estimate
// each, the setup in none), or 0 for a skipped group.
func (g Group) Cost(warmup, rounds int) time.Duration {
	if g.Skip != "" {
		return 0
	}
	w, r := g.Rounds(warmup, rounds)
	return time.Duration(w+r) * g.Estimate
}

// Variant is one contender of a group: a job of the suite, or an outside
// program.
type Variant struct {
	Name string
	// Kind is results.KindSubject, KindBaseline or KindPeer.
	Kind   string
	Params map[string]float64
	// Job runs in a child process of the harness.
	Job *Job
	// Command is an outside program and its arguments, run in a fresh
	// empty folder and timed as a whole process (Job must be nil).
	Command []string
}

// Job is one run of one of a suite's job kinds with its arguments.
type Job struct {
	Kind string
	Args any // encoded as JSON for the child; the JobFunc decodes it
}

// NewJob returns a job of the given kind.
func NewJob(kind string, args any) *Job { return &Job{Kind: kind, Args: args} }

// JobFunc runs one job in the child process and measures it.
type JobFunc func(ctx context.Context, env JobEnv, args json.RawMessage) (Sample, error)

// JobEnv is where and how a job runs.
type JobEnv struct {
	// Dir is an empty folder for this run alone, removed after it.
	Dir string
	// Shared is the group's folder, where Setup put its inputs (read
	// only for the variants).
	Shared string
	// MinSample: a job that takes less should repeat itself until it has
	// taken this long and report the mean (see Repeat).
	MinSample time.Duration
	// Config is the run's configuration.
	Config Config
}

// Sample is what one run of a job measured.
type Sample struct {
	// Seconds is the time the variant is compared by: of the whole job,
	// or of one repetition.
	Seconds float64 `json:"seconds"`
	// Metrics are other figures, e.g. "mpos_per_s", "bytes".
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Facts are results as text, the same in every round.
	Facts map[string]string `json:"facts,omitempty"`
}

// Column is a metric or a fact shown in a suite's tables.
type Column struct {
	// Key is a metric name, or "fact:NAME" for a fact.
	Key    string
	Header string
	// Format prints the metric's median, e.g. "%.1f"; "bytes" prints a
	// byte count in B/KiB/MiB/GiB, "si" a number with a metric prefix
	// (1.5k, 20M). Facts are printed as they are.
	Format string
}

// Config is what the command line asked for, as the suites see it.
type Config struct {
	Quick bool
	// Cores is the number of CPUs the machine has: scaling goes up to it.
	Cores int
	// Root is the module's root folder ("" when unknown).
	Root string
	// XGCorpus is the folder of real .xg files for the codecs suite.
	XGCorpus string
	// Runs is a folder of solved runs (tierd solve's run folders, or a
	// folder of them) the serve suite serves; a run it lacks is solved in
	// the group's folder first.
	Runs string
	// Gamesman is GamesmanOne's gamesman binary and GamesmanData the
	// folder where its `gamesman solve` wrote its data/, for the serve
	// suite's comparison with `gamesman query`.
	Gamesman, GamesmanData string
	// GamesmanUni is GamesmanUni's built dist/ folder (its base URL
	// pointed at 127.0.0.1:18765), for the serve suite's browser check.
	GamesmanUni string
	// Out is the report's folder (--out), where a suite may leave files
	// for a person (the serve suite's screenshots).
	Out string
}

// Repeat runs f at least once and until min has elapsed, and returns the
// mean seconds per run and the number of runs. A job whose one run is
// short uses it so that its sample is not timer noise.
func Repeat(min time.Duration, f func() error) (seconds float64, runs int, err error) {
	t0 := time.Now()
	for {
		if err := f(); err != nil {
			return 0, runs, err
		}
		runs++
		if el := time.Since(t0); el >= min {
			return el.Seconds() / float64(runs), runs, nil
		}
	}
}

// DecodeArgs decodes a job's arguments into v, with a clear error.
func DecodeArgs(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("job arguments %s: %w", args, err)
	}
	return nil
}

// JobOf is the JobFunc of f, a job that takes its arguments as an A: it
// decodes them (DecodeArgs) before calling f, so that a job, and a job
// that runs another, deals in its own argument type only.
func JobOf[A any](f func(ctx context.Context, env JobEnv, args A) (Sample, error)) JobFunc {
	return func(ctx context.Context, env JobEnv, raw json.RawMessage) (Sample, error) {
		var a A
		if err := DecodeArgs(raw, &a); err != nil {
			return Sample{}, err
		}
		return f(ctx, env, a)
	}
}
