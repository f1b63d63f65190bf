// Command levelctl is the operator's tool for level files and for the game
// formats bundled with the project. Each subcommand lives in its own file;
// the table of commands (main.go) names them all.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/tiersolve/tiersolve/internal/atomicfile"
	"github.com/tiersolve/tiersolve/internal/cli"
)

var program = &cli.Program{
	Name:    "levelctl",
	Summary: "inspect, validate, write, convert and merge level files; decode game formats",
}

func init() {
	for _, c := range commands() {
		program.Register(c)
	}
}

// commands are levelctl's commands, all in one table: the level files',
// then the game formats'. Usage is the synopsis after the program's name;
// the list that -h prints is sorted by name, whatever the order here.
func commands() []*cli.Command {
	return []*cli.Command{
		{Name: "info", Run: runInfo,
			Usage:   "info [--json] FILE...",
			Summary: "print type, dialect, min, max, bits per position, count and size of level files"},
		{Name: "validate", Run: runValidate,
			Usage:   "validate FILE...",
			Summary: "check level files completely; exit 1 if any is invalid"},
		{Name: "cat", Run: runCat,
			Usage:   "cat FILE",
			Summary: "print the reachable positions of a level file, ascending, one per line"},
		{Name: "write", Run: runWrite,
			Usage:   "write [--type auto|0|1|2|3] [--dialect spec|classic] [--game NAME] [--symmetric] [--start S --end E] [--level N] -o OUT [INPUT]",
			Summary: "write positions (whitespace-separated decimals from INPUT or stdin) as a level file"},
		{Name: "convert", Run: runConvert,
			Usage:   "convert [--type auto|0|1|2|3] [--dialect spec|classic] [--level N] -o OUT IN",
			Summary: "rewrite a level file with another type or dialect (the input's dialect by default)"},
		{Name: "merge", Run: runMerge,
			Usage:   "merge [--type auto|0|1|2|3] [--dialect spec|classic] [--level N] -o OUT PARTIAL...",
			Summary: "write the union of partial level files as one full level file"},
		{Name: "import", Run: runImport,
			Usage:   "import --game NAME [--option K=V,...] --out DIR [--json] SOURCE...",
			Summary: "turn the positions of .xg matches, gnubg Position ID lists and EGF xiangqi games into level files a run can start from (tierd solve --from)"},
		{Name: "xg", Run: runXG,
			Usage:   "xg [--json | --positions] FILE",
			Summary: "print an eXtreme Gammon .xg/.xgp match: summary, records or positions"},
		{Name: "gnubg", Run: runGnubg,
			Usage:   "gnubg decode [--json] ID... | gnubg encode < JSON-lines",
			Summary: "decode and encode GNU Backgammon position and match IDs"},
		{Name: "egf", Run: runEGF,
			Usage:   "egf [--json] FILE",
			Summary: "print the header, moves and positions of a Xie Xie EGF xiangqi game"},
	}
}

func main() { os.Exit(runMain(func() {})) }

// runMain runs the command line of the process and returns its exit code;
// ready is called once the signals are handled (tests wait for it before
// they send one).
func runMain(ready func()) int {
	e := &cli.Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	stopOnSignal(e.Stderr)
	ready()
	return program.Run(e, os.Args[1:])
}

// stopOnSignal makes SIGINT and SIGTERM end the process at once without
// leaving a temporary file: an output being written keeps what it had.
func stopOnSignal(stderr io.Writer) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := (<-sigs).(syscall.Signal)
		atomicfile.RemovePending()
		name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[s]
		fmt.Fprintf(stderr, "levelctl: stopped by %s; no output file was replaced\n", name)
		os.Exit(128 + int(s))
	}()
}
