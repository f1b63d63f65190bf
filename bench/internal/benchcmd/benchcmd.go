// Package benchcmd is the command line of the benchmark harness, shared
// by `go run ./bench` and its alias `go run ./bench/harness`.
package benchcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/report"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/internal/progress"
)

// Usage is the synopsis.
const Usage = "go run ./bench [--quick] [--suite NAMES] [--out DIR] [--compare OLD.json] [--peer NAME[@GROUP]=COMMAND]... [--list]"

// options are the parsed flags.
type options struct {
	quick     bool
	suites    []string
	out       string
	compare   string
	peers     []harness.Peer
	rounds    int
	warmup    int
	minSample time.Duration
	xgCorpus  string
	runs      string
	gamesman  string
	g1Data    string
	uni       string
	tmp       string
	list      bool
	render    string
}

// Main runs the command with args (without the program name) and returns
// its exit code: 0 success, 1 a job failed, 2 a wrong command line.
func Main(args []string, suites []harness.Suite, stdout, stderr io.Writer) int {
	if harness.IsChild(args) {
		return harness.ChildMain(args, suites, stdout, stderr)
	}
	root := harness.ModuleRoot()
	opts, err := parse(args, suites, root, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\nusage: %s\n", err, Usage)
		return 2
	}
	cfg := harness.Config{Quick: opts.quick, Cores: runtimeCores(), Root: root, XGCorpus: opts.xgCorpus,
		Runs: opts.runs, Gamesman: opts.gamesman, GamesmanData: opts.g1Data, GamesmanUni: opts.uni, Out: opts.out}
	plan, err := harness.Plan(suites, opts.suites, cfg, opts.peers)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	if opts.render != "" {
		return render(opts, suites, stdout, stderr)
	}
	if opts.list {
		listPlan(stdout, suites, plan, opts)
		return 0
	}
	var old *results.Results
	if opts.compare != "" {
		if old, err = results.Read(opts.compare); err != nil {
			fmt.Fprintf(stderr, "bench: --compare: %v\n", err)
			return 2
		}
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "bench: cannot find my own executable to run jobs: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, failed, err := run(ctx, exe, cfg, plan, opts, args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	var changes []results.Change
	if old != nil {
		changes = results.Compare(old, res)
		if changes == nil {
			changes = []results.Change{}
		}
		fmt.Fprintf(stdout, "compared with %s:\n", opts.compare)
		if err := results.WriteChanges(stdout, changes); err != nil {
			return 1
		}
	}
	if err := report.Write(opts.out, res, suites, changes, opts.compare); err != nil {
		fmt.Fprintf(stderr, "bench: writing the report: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s, %s and %s/ in %s\n", report.ReportFile, report.JSONFile, report.ChartDir, opts.out)
	switch {
	case res.Interrupted:
		fmt.Fprintln(stderr, "bench: interrupted; the report holds the groups that finished")
		return 1
	case failed > 0:
		fmt.Fprintf(stderr, "bench: %d group(s) had failures (see the report)\n", failed)
		return 1
	}
	return 0
}

func parse(args []string, suites []harness.Suite, root string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var names string
	var all []string
	for _, s := range suites {
		all = append(all, s.Name)
	}
	fs.BoolVar(&o.quick, "quick", false, "only the small cases (about a minute and a half): the CI smoke test")
	fs.StringVar(&names, "suite", strings.Join(all, ","), "comma-separated suite names or group IDs (or patterns) to run; see --list")
	defOut := "bench-results"
	if root != "" {
		defOut = filepath.Join(root, "bench", "results")
	}
	fs.StringVar(&o.out, "out", defOut, "folder for results.json, REPORT.md and charts/")
	fs.StringVar(&o.compare, "compare", "", "an earlier `results.json`: print what got faster or slower beyond the noise band")
	fs.Func("peer", "an outside program `NAME[@GROUP]=COMMAND` (run with sh -c in a fresh folder), timed as a whole process; with @GROUP in the rounds of that group (repeatable)", func(s string) error {
		p, err := harness.ParsePeer(s)
		if err == nil {
			o.peers = append(o.peers, p)
		}
		return err
	})
	fs.IntVar(&o.rounds, "rounds", 3, "measured runs of every variant (the median counts)")
	fs.IntVar(&o.warmup, "warmup", 1, "warm-up runs of every variant before the measured ones")
	fs.DurationVar(&o.minSample, "min-sample", 100*time.Millisecond, "a job shorter than this repeats its operation within one run")
	fs.StringVar(&o.xgCorpus, "xg-corpus", defaultCorpus(root), "folder of real .xg matches for the codecs suite")
	fs.StringVar(&o.runs, "runs", "", "folder of solved runs (tierd solve --out folders, or a folder of them) for the serve suite; a run not there is solved first")
	fs.StringVar(&o.gamesman, "gamesman", lookPath("gamesman"), "GamesmanOne's gamesman binary, for serve/gamesmanone-quixo-4x4")
	fs.StringVar(&o.g1Data, "gamesman-data", "", "the folder where `gamesman solve quixo 1` ran (it holds data/), for serve/gamesmanone-quixo-4x4")
	fs.StringVar(&o.uni, "gamesmanuni", "", "GamesmanUni's built dist/ folder (API http://127.0.0.1:18765/universal/v1/), for serve/gamesmanuni")
	fs.StringVar(&o.tmp, "tmp", "", "folder for the runs' files (default: the system's temporary folder; it sets the disk measured)")
	fs.StringVar(&o.render, "render", "", "write REPORT.md and the charts into --out from an existing `results.json`, without running anything")
	fs.BoolVar(&o.list, "list", false, "print the suites, the groups this command would run and the estimated time, then exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\nRuns the benchmark suites and writes results.json, REPORT.md and SVG charts (bench/README.md).\n\nflags:\n", Usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, n := range strings.Split(names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			o.suites = append(o.suites, n)
		}
	}
	if len(o.suites) == 0 && len(o.peers) == 0 {
		return o, errors.New("--suite names nothing")
	}
	if o.rounds < 1 || o.warmup < 0 {
		return o, fmt.Errorf("--rounds %d --warmup %d: want at least 1 round and no negative warm-up", o.rounds, o.warmup)
	}
	return o, nil
}

// render rewrites the report of an earlier run.
func render(o options, suites []harness.Suite, stdout, stderr io.Writer) int {
	res, err := results.Read(o.render)
	if err != nil {
		fmt.Fprintf(stderr, "bench: --render: %v\n", err)
		return 2
	}
	if err := report.Write(o.out, res, suites, nil, ""); err != nil {
		fmt.Fprintf(stderr, "bench: writing the report: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s and %s/ in %s\n", report.ReportFile, report.ChartDir, o.out)
	return 0
}

// lookPath is the path of a program on PATH, or "".
func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// defaultCorpus is the shared XG corpus beside the checkout, where the
// project's tests read it in place, or "".
func defaultCorpus(root string) string {
	if env := os.Getenv("TIERSOLVE_XG_CORPUS"); env != "" {
		return env
	}
	var candidates []string
	if root != "" {
		candidates = append(candidates, filepath.Join(root, "..", "shared", "corpus", "xg"))
	}
	candidates = append(candidates, "/work/shared/corpus/xg")
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
	}
	return ""
}

// run executes the plan and returns the results and the number of
// groups with a failure. A run stopped by ctx returns what finished.
func run(ctx context.Context, exe string, cfg harness.Config, plan []harness.Planned, o options, args []string, stderr io.Writer) (*results.Results, int, error) {
	work, err := os.MkdirTemp(o.tmp, "tiersolve-bench-")
	if err != nil {
		return nil, 0, fmt.Errorf("work folder: %w", err)
	}
	defer os.RemoveAll(work)
	settings := results.Settings{WarmupRounds: o.warmup, Rounds: o.rounds, MinSampleSeconds: o.minSample.Seconds()}
	res := &results.Results{Schema: results.Schema, Command: commandLine(args), Quick: o.quick, Started: time.Now(),
		Machine: harness.ThisMachine(cfg.Root), Settings: settings, Groups: []results.Group{}}
	runs := harness.Runs(plan, o.warmup, o.rounds)
	est := harness.Estimate(plan, o.warmup, o.rounds)
	fmt.Fprintf(stderr, "bench: %d groups, %d runs, estimated %s (%s); results in %s\n",
		len(plan), runs, est.Round(time.Second), roundsString(plan, o), o.out)

	tty := isTerminal(stderr)
	log := slog.New(slog.NewTextHandler(stderr, nil))
	meter := progress.New(stderr, log, "bench", int64(runs), "runs")
	done := 0
	var estDone time.Duration
	r := &harness.Runner{Exe: exe, Work: work, Config: cfg, Settings: settings}
	var current time.Duration // estimate of the group running
	r.Progress = func(what string) {
		elapsed := time.Since(res.Started)
		left := est - estDone - current/2
		if estDone+current/2 > 0 {
			// Scale the estimate by how the finished part compared.
			left = time.Duration(float64(left) * elapsed.Seconds() / (estDone + current/2).Seconds())
		}
		meter.Set(int64(done), fmt.Sprintf("about %s left; %s", max(left, 0).Round(time.Second), what))
		done++
	}
	failed := 0
	for _, p := range plan {
		current = p.Group.Cost(o.warmup, o.rounds)
		g := r.Run(ctx, p)
		if ctx.Err() != nil {
			res.Interrupted = true
			break
		}
		estDone += current
		current = 0
		res.Groups = append(res.Groups, g)
		if failedGroup(g) {
			failed++
		}
		line := summaryLine(g)
		if tty {
			line = "\r\033[K" + line
		}
		fmt.Fprintln(stderr, line)
	}
	meter.Set(int64(done), "done")
	meter.Finish()
	res.WallSeconds = time.Since(res.Started).Seconds()
	res.Machine.LoadEnd = harness.LoadAverage()
	return res, failed, nil
}

func failedGroup(g results.Group) bool {
	if g.Error != "" {
		return true
	}
	for _, v := range g.Variants {
		if v.Error != "" {
			return true
		}
	}
	return false
}

// summaryLine is a group's result in one line for the terminal or log.
func summaryLine(g results.Group) string {
	switch {
	case g.Skipped != "":
		return fmt.Sprintf("%s: skipped: %s", g.ID, g.Skipped)
	case g.Error != "":
		return fmt.Sprintf("%s: failed: %s", g.ID, g.Error)
	}
	var parts []string
	for _, v := range g.Variants {
		s := fmt.Sprintf("%s %s ±%.0f%%", v.Name, report.Seconds(v.Seconds.Median), 100*v.Seconds.Spread())
		if v.Ratio != nil && v.Ratio.N > 0 {
			s += " (" + report.Ratio(v.Ratio.Median) + ")"
		}
		if v.Error != "" {
			s = v.Name + " failed: " + v.Error
		}
		parts = append(parts, s)
	}
	line := g.ID + ": " + strings.Join(parts, ", ")
	if g.Amdahl != nil {
		line += fmt.Sprintf("; serial fraction %.3f", g.Amdahl.SerialFraction.Median)
	}
	return line
}

// listPlan prints the suites and the planned groups with estimates.
func listPlan(w io.Writer, suites []harness.Suite, plan []harness.Planned, o options) {
	fmt.Fprintln(w, "suites:")
	for _, s := range suites {
		fmt.Fprintf(w, "  %-8s %s\n", s.Name, s.Doc)
	}
	fmt.Fprintf(w, "\ngroups this command runs (%s):\n", roundsString(plan, o))
	for _, p := range plan {
		est, note := p.Group.Cost(o.warmup, o.rounds), ""
		switch {
		case p.Group.Skip != "":
			note = " (skipped: " + p.Group.Skip + ")"
		case p.Group.Once:
			note = " (one round)"
		}
		fmt.Fprintf(w, "  %-32s %8s  %s%s\n", p.Group.ID, est.Round(time.Second), p.Group.Title, note)
	}
	fmt.Fprintf(w, "\n%d groups, %d runs, estimated %s\n", len(plan), harness.Runs(plan, o.warmup, o.rounds),
		harness.Estimate(plan, o.warmup, o.rounds).Round(time.Second))
	var explicit []string
	for _, s := range suites {
		for _, g := range s.Groups(harness.Config{Cores: runtimeCores()}) {
			if g.Level == harness.Explicit {
				explicit = append(explicit, fmt.Sprintf("  %-32s %8s  %s", g.ID,
					g.Cost(o.warmup, o.rounds).Round(time.Second), g.Title))
			}
		}
	}
	if len(explicit) > 0 {
		fmt.Fprintln(w, "\nlong groups that run only when named with --suite ID:")
		fmt.Fprintln(w, strings.Join(explicit, "\n"))
	}
}

// roundsString says how many rounds the groups of plan run.
func roundsString(plan []harness.Planned, o options) string {
	s := fmt.Sprintf("%d warm-up + %d measured rounds", o.warmup, o.rounds)
	if slices.ContainsFunc(plan, func(p harness.Planned) bool { return p.Group.Once }) {
		s += "; one round without a warm-up for a group marked so"
	}
	return s
}

// commandLine is how the run was started, for the report.
func commandLine(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if strings.ContainsAny(a, " '\"$%^*?") {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.TrimSpace("go run ./bench " + strings.Join(quoted, " "))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
