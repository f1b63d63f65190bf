// Command levelctl is the operator's tool for level files and for the game
// formats bundled with the project.
//
// Each subcommand lives in its own file and registers itself in init; this
// file holds the dispatch, the exit codes and the error printing.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
)

// Exit codes: 0 success, 1 a command failed (or found invalid input),
// 2 the command line was wrong.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// command is one levelctl subcommand.
type command struct {
	name    string // as typed: "info", "gnubg"
	usage   string // the synopsis after "levelctl "
	summary string // one line for the command list
	// run executes the command. Errors are printed as one line; an error
	// wrapping errUsage exits 2, any other 1.
	run func(env *env, args []string) error
}

// env is what a command may touch, so tests can run commands in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
}

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

// errSilent is returned by commands that already reported their failures
// (validate prints one line per bad file): exit 1, print nothing more.
var errSilent = errors.New("failed")

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("levelctl: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError returns an error that exits 2 with the given message.
func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// newFlagSet returns a FlagSet for c whose errors are returned, not printed
// twice, and whose -h prints the command's usage.
func (c *command) newFlagSet(e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: levelctl %s\n\n%s\n", c.usage, c.summary)
		if hasFlags(fs) {
			fmt.Fprintln(e.stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args into fs, turning flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errSilent
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func main() {
	e := &env{
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	os.Exit(run(e, os.Args[1:]))
}

// run dispatches args to a subcommand and returns the exit code.
func run(e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printHelp(e.stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "levelctl: unknown command %q (run levelctl help)\n", args[0])
		return exitUsage
	}
	err := c.run(e, args[1:])
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errSilent):
		return exitFail
	case errors.Is(err, errUsage):
		msg := strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
		fmt.Fprintf(e.stderr, "levelctl %s: %s\nusage: levelctl %s\n", c.name, msg, c.usage)
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "levelctl %s: %v\n", c.name, err)
		return exitFail
	}
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "levelctl: inspect, validate, write, convert and merge level files; decode game formats")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nrun 'levelctl COMMAND -h' for a command's flags")
}
