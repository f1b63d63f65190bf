// Command tierd runs tier-solving jobs: reachability (level files) and
// solving (value databases) of the bundled games on this machine, and
// queries and verification of the results.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/tiersolve/tiersolve/internal/cli"
)

var program = &cli.Program{
	Name:    "tierd",
	Summary: "solve tier games: reachable positions into level files, values into databases",
}

func main() {
	level := slog.LevelInfo
	if term.IsTerminal(int(os.Stderr.Fd())) {
		level = slog.LevelWarn // the progress line says it all
	}
	e := &cli.Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	}
	os.Exit(program.Run(e, os.Args[1:]))
}

// signalContext is cancelled by SIGINT or SIGTERM, so a run stops between
// batches and the manifest keeps what is done.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
