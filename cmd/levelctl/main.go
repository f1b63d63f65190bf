// Command levelctl is the operator's tool for level files and for the game
// formats bundled with the project. Each subcommand lives in its own file
// and registers itself with program in init.
package main

import (
	"log/slog"
	"os"

	"github.com/tiersolve/tiersolve/internal/cli"
)

var program = &cli.Program{
	Name:    "levelctl",
	Summary: "inspect, validate, write, convert and merge level files; decode game formats",
}

func main() {
	e := &cli.Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	os.Exit(program.Run(e, os.Args[1:]))
}
