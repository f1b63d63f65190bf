// Package tierdcli is the tierd command as a library: a program's own
// main registers its games and gets every command of tierd with them
// (solve, reach, query, verify, review, plan, games, and the cluster's
// coordinator, worker, submit, status, fetch and members).
//
//	func main() {
//		tierdcli.Main(games.Default().With(mygame.Spec))
//	}
//
// The program calls itself by the name of its executable (strip solve
// -h prints "usage: strip solve ..."); New(reg).Named("strip").Main()
// gives it a name of its own.
//
// A cluster runs a game when its coordinators and workers run a binary
// that registers it: a worker leases only units of the games it has.
package tierdcli

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/cli"
)

// Env is what a command may touch: its input, its outputs and its logger
// (Program.Run's commands never use os.Stdout and the like directly).
type Env = cli.Env

// Program is tierd with a registry of games.
type Program struct {
	games *games.Registry
	cli   *cli.Program
}

// New returns tierd with the games of reg (games.Default() for the
// bundled games), named "tierd" (see Named).
func New(reg *games.Registry) *Program {
	p := &Program{games: reg, cli: &cli.Program{
		Name:    "tierd",
		Summary: "solve tier games: reachable positions into level files, values into databases",
	}}
	for _, c := range p.commands() {
		p.cli.Register(c)
	}
	return p
}

// commands are tierd's commands, all in one table: the embedded runs,
// the readers of solved runs, the cluster's, and serve. Usage is the
// synopsis after the program's name; the list that -h prints is sorted
// by name, whatever the order here.
func (p *Program) commands() []*cli.Command {
	return []*cli.Command{
		{Name: "games", Run: p.runGames,
			Usage:   "games [--json]",
			Summary: "list the bundled games and their options"},
		{Name: "reach", Run: p.runReach,
			Usage:   "reach --game NAME [--option K=V,...] [--symmetry] [--workers N] --out DIR [--json]",
			Summary: "find every tier's reachable positions and write the level files"},
		{Name: "solve", Run: p.runSolve,
			Usage:   "solve --game NAME [--option K=V,...] [--symmetry] [--from DIR] [--workers N] [--out DIR] [--json]",
			Summary: "reachability then solving: level files and value databases (resumes a stopped run)"},
		{Name: "plan", Run: p.runPlan,
			Usage:   "plan --game NAME [--option K=V,...] [--symmetry] [--workers N] [--memory SIZE] [--cluster [--threads T]] [--json]",
			Summary: "estimate a run's memory before running it, and the largest tier that fits; with --cluster, on N workers of SIZE each"},
		{Name: "query", Run: p.runQuery,
			Usage:   "query --db DIR [--game NAME] [--option K=V,...] [--json] [--roll D1D2] [--cube centered|owned|opponent] [--match N --score A-B [--crawford] [--cube-value V] [--met FILE]] POSITION",
			Summary: "print a position's value and remoteness and every move's, best first (with dice: its chance to win, and every play of a roll; in a bearoff, the cube action in money play or at a match score)"},
		{Name: "verify", Run: p.runVerify,
			Usage:   "verify --db DIR [--workers N]",
			Summary: "check a solved run: file checksums, and every value re-derived from its children"},
		{Name: "review", Run: p.runReview,
			Usage:   "review --db DIR [--json] FILE",
			Summary: "review a game against a solved run: a match's bearoff plays (FILE.xg, bearoff run), or a xiangqi game's endgame moves (FILE.egf, xiangqi run)"},
		{Name: "coordinator", Run: p.runCoordinator,
			Usage:   "coordinator --node-id ID --raft-addr HOST:PORT --http-addr HOST:PORT --data DIR --token-file F [--worker-token-file F] [--read-token-file F] [--raft-advertise HOST:PORT] [--http-advertise URL] [--bootstrap ID=RAFTADDR=HTTPADDR,...] [--store s3://BUCKET/PREFIX?endpoint=URL&region=R]",
			Summary: "run a cluster coordinator: raft-replicated run state, leases, merges, artifact store"},
		{Name: "worker", Run: p.runWorker,
			Usage:   "worker --coordinators URL[,URL...] --token-file F --data DIR [--threads N]",
			Summary: "run a cluster worker: lease units of work, run them, upload the results"},
		{Name: "submit", Run: p.runSubmit,
			Usage:   "submit --coordinators URLS --token-file F --game NAME [--option K=V,...] [--symmetry]",
			Summary: "start a solving run on a cluster; prints the run id last"},
		{Name: "status", Run: p.runStatus,
			Usage:   "status --coordinators URLS --token-file F [--json] [RUN]",
			Summary: "show a cluster's runs, tiers and workers"},
		{Name: "members", Run: p.runMembers,
			Usage:   "members --coordinators URLS --token-file F [--add ID=RAFTADDR=HTTPADDR | --remove ID]",
			Summary: "list the coordinators, or replace one: add a new (empty) one, remove a lost one"},
		{Name: "fetch", Run: p.runFetch,
			Usage:   "fetch --coordinators URLS --token-file F --out DIR [--through-coordinators] RUN",
			Summary: "download a finished cluster run in the layout of a solve"},
		{Name: "serve", Run: p.runServe,
			Usage:   "serve --db DIR[,DIR...] [--http-addr HOST:PORT] [--cache SIZE] [--scratch DIR] [--drain-delay DURATION]",
			Summary: "serve solved runs over HTTP, read-only: a page at /, the answers of query at /api/v1/, the GamesCrafters universal API at /universal/v1/; SIGTERM drains and stops"},
	}
}

// Run runs the command line args (without the program name) and returns
// the exit code: 0 success, 1 a failure, 2 a wrong command line,
// 128+signal for a run stopped by SIGINT or SIGTERM.
func (p *Program) Run(e *Env, args []string) int { return p.cli.Run(e, args) }

// Named sets the program's name, which its usage, its errors and the
// commands it suggests (in the line after a solve, in its hints) use,
// and returns p.
func (p *Program) Named(name string) *Program {
	p.cli.Name = name
	return p
}

// Name is the program's name.
func (p *Program) Name() string { return p.cli.Name }

// Main runs tierd with the games of reg on the process's command line
// and exits with its code. The program is named after its executable
// (os.Args[0] without its folder or a .exe): tierd for cmd/tierd, and
// your own name for your own main.
func Main(reg *games.Registry) {
	New(reg).Named(executableName()).Main()
}

// executableName is the name the process was started by, without its
// folder or a .exe ("tierd" if there is none).
func executableName() string {
	if len(os.Args) == 0 || os.Args[0] == "" {
		return "tierd"
	}
	return strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
}

// Main runs p on the process's command line and exits with its code:
// the commands print to the process's standard output and error, and
// log (log/slog) to standard error, warnings only on a terminal, where
// a progress line shows the rest.
func (p *Program) Main() {
	level := slog.LevelInfo
	if term.IsTerminal(int(os.Stderr.Fd())) {
		level = slog.LevelWarn // the progress line says it all
	}
	e := &Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	}
	os.Exit(p.Run(e, os.Args[1:]))
}

// flagSet returns the flag set of the command called name.
func (p *Program) flagSet(e *cli.Env, name string) *flag.FlagSet {
	return p.cli.FlagSet(e, p.cli.Command(name))
}

// signalContext is cancelled by the first SIGINT or SIGTERM, its cause a
// *stopSignal, so a run stops between batches and records what it
// finished. A second signal ends the process at once: after the first,
// the signals get their default action back.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&stopSignal{s.(syscall.Signal)})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// stopSignal is the cause of a context cancelled by a signal.
type stopSignal struct{ sig syscall.Signal }

func (s *stopSignal) Error() string { return "stopped by " + signalName(s.sig) }

// exitCode is the shell's code for a process ended by the signal.
func (s *stopSignal) exitCode() int { return 128 + int(s.sig) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
