// Command tierd runs tier-solving jobs: reachability (level files) and
// solving (value databases) of the bundled games on this machine, and
// queries and verification of the results.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"sync"
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
