package tierdcli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	httppprof "net/http/pprof"
	"os"
	"path/filepath"
	"runtime/pprof"

	"text/tabwriter"
	"time"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// jobFlags are the flags of reach and solve.
type jobFlags struct {
	prog              string // the program\'s name, in messages
	game, option, out *string
	workers, ranges   *int
	memory            *string
	keepPartials      *bool
	symmetry          *bool
	asJSON            *bool
	level             *int
	cpuProfile        *string
	from              *string
}

// job is an opened reach or solve run.
type job struct {
	run    *solver.Run
	ctx    context.Context // cancelled by SIGINT/SIGTERM
	asJSON bool
	done   func() // stops the profile and the signal handling, closes the run
}

// stopped turns the error that stopped a run into what the command
// returns: a run stopped by a signal (which recorded every finished tier)
// exits 128+signal with one line that says how to resume.
func (j *job) stopped(err error) error {
	var sig *stopSignal
	if !errors.As(context.Cause(j.ctx), &sig) {
		return err
	}
	return &cli.ExitError{Code: sig.exitCode(), Err: fmt.Errorf(
		"%v; every finished tier is recorded in %s: run the same command again to resume", sig, j.run.Dir)}
}

func newJobFlags(fs *flag.FlagSet, prog string) *jobFlags {
	return &jobFlags{
		prog:         prog,
		game:         fs.String("game", "", "game to solve (see "+prog+" games)"),
		option:       fs.String("option", "", "game options, K=V,... (see "+prog+" games)"),
		out:          fs.String("out", "", "run folder (solve: default tierd-GAME-OPTIONS)"),
		workers:      fs.Int("workers", 0, "worker goroutines (default: all cores)"),
		ranges:       fs.Int("ranges", 0, "ranges each tier is cut into (default: one per worker); the output does not depend on it"),
		memory:       fs.String("memory", "", "memory budget, e.g. 16GiB (default: 80% of the machine)"),
		keepPartials: fs.Bool("keep-partials", false, "keep the partial level files after merging them"),
		symmetry:     fs.Bool("symmetry", false, "keep one canonical position per symmetry class of the game (a run folder is symmetric or not)"),
		asJSON:       fs.Bool("json", false, "print the summary as JSON on stdout"),
		level:        fs.Int("level", levelfile.DefaultLevel, "gzip level of bitmaps (type 3) in full level files, 1 to 9"),
		cpuProfile:   fs.String("cpuprofile", "", "write a CPU profile (go tool pprof) to this file"),
		from:         fs.String("from", "", "start from the level files in DIR (levelctl import) instead of the start position"),
	}
}

// profile starts the CPU profile if asked; call the returned stop at the end.
func (jf *jobFlags) profile() (stop func(), err error) {
	return startProfile(*jf.cpuProfile)
}

// startProfile starts a CPU profile into path, if it is not empty; call
// the returned stop at the end.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// servePprof serves Go's profiles (net/http/pprof) on addr, if it is not
// empty, until the process ends: a heap profile taken while a worker
// runs says what its memory holds. They need no token, so addr should be
// a loopback address.
func servePprof(addr string, log *slog.Logger) error {
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", httppprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", httppprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", httppprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", httppprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", httppprof.Trace)
	log.Info("serving profiles", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	go http.Serve(ln, mux)
	return nil
}

// startJob parses the flags of reach or solve, opens the run, and starts
// the CPU profile and the signal handling.
func (p *Program) startJob(e *cli.Env, name string, args []string) (*job, error) {
	fs := p.flagSet(e, name)
	jf := newJobFlags(fs, p.Name())
	if err := cli.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, cli.UsageError("unexpected argument %q", fs.Arg(0))
	}
	r, err := jf.open(e, p.games, name == "solve")
	if err != nil {
		return nil, err
	}
	stopProfile, err := jf.profile()
	if err != nil {
		r.Close()
		return nil, err
	}
	ctx, stop := signalContext()
	return &job{run: r, ctx: ctx, asJSON: *jf.asJSON, done: func() { stop(); stopProfile(); r.Close() }}, nil
}

// open builds the game and opens the run.
func (jf *jobFlags) open(e *cli.Env, reg *games.Registry, defaultOut bool) (*solver.Run, error) {
	if *jf.game == "" {
		return nil, cli.UsageError("--game is required (see %s games)", jf.prog)
	}
	g, err := reg.New(*jf.game, *jf.option)
	if err != nil { // an unknown game or a bad option: the command line is wrong
		return nil, cli.UsageError("%v", err)
	}
	out := *jf.out
	if out == "" {
		if !defaultOut {
			return nil, cli.UsageError("--out DIR is required")
		}
		out = defaultFolder(g, *jf.symmetry)
		if abs, err := filepath.Abs(out); err == nil {
			out = abs
		}
		e.Log.Warn("no --out given: the run folder is " + out)
	}
	mem, err := parseBytes(*jf.memory)
	if err != nil {
		return nil, cli.UsageError("--memory %q: %v", *jf.memory, err)
	}
	if *jf.workers < 0 || *jf.ranges < 0 || *jf.level < 1 || *jf.level > 9 {
		return nil, cli.UsageError("--workers and --ranges must be >= 0, --level 1 to 9")
	}
	return solver.Open(solver.Config{
		Game: g, Dir: out, Workers: *jf.workers, Ranges: *jf.ranges, Memory: mem,
		KeepPartials: *jf.keepPartials, Symmetry: *jf.symmetry, Seeds: *jf.from,
		LevelOptions: levelfile.WriteOptions{Level: *jf.level},
		Log:          e.Log, Terminal: e.Stderr,
	})
}

// defaultFolder names a run folder after the game and its options, and
// whether it is symmetric.
func defaultFolder(g tiergame.Game, symmetry bool) string {
	name := "tierd-" + g.Name() + "-" + levelfile.PortableOption(g.Option())
	if symmetry {
		name += "-symmetry"
	}
	return name
}

// parseBytes parses a memory size flag: "", "123", "16GiB", "512MB", "2G".
func parseBytes(s string) (uint64, error) { return memsize.Parse(s) }

func (p *Program) runGames(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "games")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected argument %q", fs.Arg(0))
	}
	if *asJSON {
		return json.NewEncoder(e.Stdout).Encode(p.games.All())
	}
	for _, s := range p.games.All() {
		fmt.Fprintf(e.Stdout, "%s\t%s\n", s.Name, s.Summary)
		for _, o := range s.Options {
			if o.Default == "" {
				fmt.Fprintf(e.Stdout, "    --option %s=...  %s\n", o.Key, o.Doc)
			} else {
				fmt.Fprintf(e.Stdout, "    --option %s=...  %s (default %s)\n", o.Key, o.Doc, o.Default)
			}
		}
	}
	return nil
}

// reachSummary is the JSON printed by reach --json.
type reachSummary struct {
	Game     string      `json:"game"`
	Option   string      `json:"option"`
	Symmetry bool        `json:"symmetry,omitempty"`
	Dir      string      `json:"dir"`
	Tiers    []reachTier `json:"tiers"`
	Total    uint64      `json:"total"`
	Seconds  float64     `json:"seconds"`
}

type reachTier struct {
	Tier      uint64 `json:"tier"`
	Name      string `json:"name"`
	Reachable uint64 `json:"reachable"`
	Type      int    `json:"type"`
	Bytes     int64  `json:"bytes"`
}

func (p *Program) runReach(e *cli.Env, args []string) error {
	return p.runJob(e, "reach", args, reportReach)
}

// runJob runs reach or solve (name): it parses the flags, opens the run,
// reaches every tier (and solves them, for solve), and hands the run and
// the seconds it took to report. A run stopped by a signal returns what
// stopped makes of its error.
func (p *Program) runJob(e *cli.Env, name string, args []string, report func(e *cli.Env, j *job, secs float64) error) error {
	j, err := p.startJob(e, name, args)
	if err != nil {
		return err
	}
	defer j.done()
	start := time.Now()
	if err := j.run.Reach(j.ctx); err != nil {
		return j.stopped(err)
	}
	if name == "solve" {
		if err := j.run.Solve(j.ctx); err != nil {
			return j.stopped(err)
		}
	}
	return report(e, j, time.Since(start).Seconds())
}

// reportReach prints what reach did: the tiers' counts and level files.
func reportReach(e *cli.Env, j *job, secs float64) error {
	r, m := j.run, j.run.Manifest
	sum := reachSummary{Game: m.Game, Option: m.Option, Symmetry: m.Symmetry, Dir: r.Dir, Total: m.Total, Seconds: secs}
	for _, t := range m.Tiers {
		sum.Tiers = append(sum.Tiers, reachTier{Tier: t.Tier, Name: t.Name, Reachable: t.Reachable, Type: t.LevelType, Bytes: t.Level.Bytes})
	}
	if j.asJSON {
		return json.NewEncoder(e.Stdout).Encode(sum)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tier\tname\treachable\ttype\tbytes\t")
	for _, t := range sum.Tiers {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t\n", t.Tier, t.Name, t.Reachable, t.Type, t.Bytes)
	}
	tw.Flush()
	if r.Worked() {
		fmt.Fprintf(e.Stdout, "%s (%s): %d %s in %d tiers, %.1fs, level files in %s\n",
			sum.Game, sum.Option, sum.Total, positionsWord(sum.Symmetry, "reachable positions"), len(sum.Tiers), sum.Seconds, r.Dir)
	} else {
		fmt.Fprintf(e.Stdout, "%s (%s): already reached: %d %s in %d tiers%s, level files in %s\n",
			sum.Game, sum.Option, sum.Total, positionsWord(sum.Symmetry, "reachable positions"), len(sum.Tiers), whenItRan(r.Times.ReachSeconds), r.Dir)
	}
	return nil
}

// solveSummary is the JSON printed by solve --json.
type solveSummary struct {
	Game     string      `json:"game"`
	Option   string      `json:"option"`
	Symmetry bool        `json:"symmetry,omitempty"`
	Dir      string      `json:"dir"`
	Tiers    []solveTier `json:"tiers"`
	Total    uint64      `json:"total"`
	Start    *startValue `json:"start,omitempty"`
	Seconds  float64     `json:"seconds"`
	// Profile and TierTimes are this session's serial and parallel
	// time, in all and per tier and phase (see solver.Profile).
	Profile   *solver.Profile   `json:"profile,omitempty"`
	TierTimes []solver.TierTime `json:"tier_times,omitempty"`
	// already, for a run that had nothing left to do, says so.
	already string
}

type solveTier struct {
	Tier      uint64 `json:"tier"`
	Name      string `json:"name"`
	Reachable uint64 `json:"reachable"`
	Win       uint64 `json:"win"`
	Lose      uint64 `json:"lose"`
	Tie       uint64 `json:"tie"`
	Draw      uint64 `json:"draw"`
}

type startValue struct {
	Position   string `json:"position"`
	Value      string `json:"value"`
	Remoteness int    `json:"remoteness"`
	// In a game with chance: the chance that the player to move wins,
	// and the equity 2*win-1.
	Win    *float64 `json:"win,omitempty"`
	Equity *float64 `json:"equity,omitempty"`
}

// startOf describes the start position's value, or nil when the run does
// not reach it (a run from seeds).
func startOf(st *runfolder.StartRecord) *startValue {
	if st == nil {
		return nil
	}
	sv := &startValue{Position: st.Position, Value: st.Value, Remoteness: st.Remoteness, Win: st.Win}
	if st.Win != nil {
		eq := 2**st.Win - 1
		sv.Equity = &eq
	}
	return sv
}

func (p *Program) runSolve(e *cli.Env, args []string) error {
	return p.runJob(e, "solve", args, p.reportSolve)
}

// reportSolve prints what solve did: the tiers' values and the start
// position's.
func (p *Program) reportSolve(e *cli.Env, j *job, secs float64) error {
	r := j.run
	sum := solveSummaryOf(r.Manifest, r.Dir, secs)
	if r.Worked() {
		prof := r.Profile()
		sum.Profile, sum.TierTimes = &prof, r.TierTimes()
	}
	if j.asJSON {
		return json.NewEncoder(e.Stdout).Encode(sum)
	}
	if !r.Worked() {
		sum.already = "already solved" + whenItRan(r.Times.ReachSeconds+r.Times.SolveSeconds)
	}
	printSolve(e.Stdout, p.Name(), sum)
	return nil
}

// whenItRan says how long a run that is already done took, if known.
func whenItRan(secs float64) string {
	if secs == 0 {
		return ""
	}
	return fmt.Sprintf(", in %.1fs when it ran", secs)
}

// solveSummaryOf summarizes a solved run's manifest.
func solveSummaryOf(m *runfolder.Manifest, dir string, secs float64) solveSummary {
	sum := solveSummary{Game: m.Game, Option: m.Option, Symmetry: m.Symmetry, Dir: dir, Total: m.Total, Seconds: secs, Start: startOf(m.Start)}
	for _, t := range m.Tiers {
		sum.Tiers = append(sum.Tiers, solveTier{Tier: t.Tier, Name: t.Name, Reachable: t.Reachable, Win: t.Win, Lose: t.Lose, Tie: t.Tie, Draw: t.Draw})
	}
	return sum
}

func printSolve(w io.Writer, prog string, sum solveSummary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tier\tname\treachable\twin\tlose\ttie\tdraw\t")
	for _, t := range sum.Tiers {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t\n", t.Tier, t.Name, t.Reachable, t.Win, t.Lose, t.Tie, t.Draw)
	}
	tw.Flush()
	if sum.already != "" {
		fmt.Fprintf(w, "%s (%s): %d %s, %s", sum.Game, sum.Option, sum.Total, positionsWord(sum.Symmetry, "positions"), sum.already)
	} else {
		fmt.Fprintf(w, "%s (%s): %d %s solved in %.1fs", sum.Game, sum.Option, sum.Total, positionsWord(sum.Symmetry, "positions"), sum.Seconds)
	}
	switch st := sum.Start; {
	case st == nil:
		fmt.Fprint(w, "; the start position is not reached from the seeds")
	case st.Win != nil:
		fmt.Fprintf(w, "; at the start position %s the player to move wins with probability %.6f (equity %+.6f)", st.Position, *st.Win, *st.Equity)
	case st.Value == "draw":
		fmt.Fprintf(w, "; the start position %s is a draw", st.Position)
	default:
		fmt.Fprintf(w, "; the start position %s is a %s in %d", st.Position, st.Value, st.Remoteness)
	}
	fmt.Fprintf(w, "\nresults in %s (%s query --db %s POSITION)\n", sum.Dir, prog, sum.Dir)
}

// positionsWord is what a run's count of positions counts: in a symmetric
// run, one canonical position per symmetry class.
func positionsWord(symmetry bool, what string) string {
	if symmetry {
		return "canonical " + what + " (one per symmetry class)"
	}
	return what
}
