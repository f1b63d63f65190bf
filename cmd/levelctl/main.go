// Command levelctl is the operator's tool for level files and for the game
// formats bundled with the project. Each subcommand lives in its own file
// and registers itself with program in init.
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
