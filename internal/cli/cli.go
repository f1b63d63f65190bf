// Package cli is the scaffolding shared by the project's commands: a
// program of subcommands, each with its own flag.FlagSet, errors printed
// as one line, and exit codes that scripts can rely on.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
)

// Exit codes: 0 success, 1 a command failed (or found invalid input), 2
// the command line was wrong.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// Env is what a command may touch, so tests can run commands in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Log    *slog.Logger
}

// Command is one subcommand.
type Command struct {
	Name    string // as typed: "solve"
	Usage   string // the synopsis after the program name
	Summary string // one line for the command list
	// Run executes the command. An error wrapping ErrUsage exits 2,
	// ErrSilent exits 1 quietly, any other error is printed and exits 1.
	Run func(e *Env, args []string) error
}

// Errors that commands return to choose the exit code.
var (
	// ErrUsage marks command-line mistakes (exit code 2).
	ErrUsage = errors.New("usage")
	// ErrSilent is returned by commands that already reported their
	// failures: exit 1, print nothing more.
	ErrSilent = errors.New("failed")
	// ErrHelp is returned by ParseFlags once it printed the help asked
	// for: exit 0.
	ErrHelp = errors.New("help shown")
)

// ExitError is an error that exits with Code, its message printed as the
// command's one line (a command stopped by a signal exits 128+signal).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageError returns an error that exits 2 with the given message.
func UsageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// Program is a command with subcommands.
type Program struct {
	Name, Summary string
	commands      map[string]*Command
}

// Register adds a subcommand.
func (p *Program) Register(c *Command) {
	if p.commands == nil {
		p.commands = map[string]*Command{}
	}
	if _, dup := p.commands[c.Name]; dup {
		panic(p.Name + ": command registered twice: " + c.Name)
	}
	p.commands[c.Name] = c
}

// Command returns a registered subcommand.
func (p *Program) Command(name string) *Command { return p.commands[name] }

// Commands returns the registered subcommands, sorted by name.
func (p *Program) Commands() []*Command {
	names := make([]string, 0, len(p.commands))
	for n := range p.commands {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*Command, len(names))
	for i, n := range names {
		out[i] = p.commands[n]
	}
	return out
}

// FlagSet returns a FlagSet for c whose errors are returned (not printed
// twice) and whose -h prints the command's usage on stdout.
func (p *Program) FlagSet(e *Env, c *Command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	out := &flagOutput{stdout: e.Stdout}
	out.usage = func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s %s\n\n%s\n", p.Name, c.Usage, c.Summary)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "\nflags:")
			fs.SetOutput(w)
			fs.PrintDefaults()
			fs.SetOutput(out)
		}
	}
	fs.SetOutput(out)
	fs.Usage = func() {} // ParseFlags reports errors and help itself
	return fs
}

// flagOutput is a FlagSet's output: the flag package's own messages are
// dropped, since ParseFlags reports a mistake once (Run prints it) and
// prints the help asked for with -h on stdout.
type flagOutput struct {
	stdout io.Writer
	usage  func(io.Writer)
}

func (*flagOutput) Write(b []byte) (int, error) { return len(b), nil }

// ParseFlags parses args into fs, turning flag errors into usage errors;
// -h or --help prints the usage on stdout and ends the command with
// ErrHelp (exit 0).
//
// Flags may come before, between and after the positional arguments
// (cmd --out DIR RUN and cmd RUN --out DIR are the same), as with git or
// kubectl; fs.Args() are the positional arguments in their order. "--"
// ends the flags: what follows is positional even if it starts with '-'.
// A flag that takes a value takes the next argument, whatever it is; a
// boolean flag never does (-json=false sets one false), so no positional
// argument is ever taken for a flag's value.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case len(a) < 2 || a[0] != '-': // "-" alone is positional (stdin)
			positional = append(positional, a)
		default:
			flags = append(flags, a)
			if takesValue(fs, a) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	// flags holds only flags and their values, so fs.Parse reads them all
	// (or fails on one); then the positional arguments become fs.Args().
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			if o, ok := fs.Output().(*flagOutput); ok {
				o.usage(o.stdout)
			}
			return ErrHelp
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return fs.Parse(append([]string{"--"}, positional...))
}

// takesValue reports whether arg is a flag of fs that takes the next
// argument as its value: a known flag, not boolean, without "=value".
// The flag package decides the same way, so the two agree on every
// argument.
func takesValue(fs *flag.FlagSet, arg string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false // an unknown flag: fs.Parse reports it
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// Run dispatches args to a subcommand and returns the exit code.
func (p *Program) Run(e *Env, args []string) int {
	if len(args) == 0 {
		p.help(e.Stderr)
		return ExitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		p.help(e.Stdout)
		return ExitOK
	}
	c, ok := p.commands[args[0]]
	if !ok {
		fmt.Fprintf(e.Stderr, "%s: unknown command %q (run %s help)\n", p.Name, args[0], p.Name)
		return ExitUsage
	}
	err := c.Run(e, args[1:])
	var exit *ExitError
	switch {
	case errors.As(err, &exit):
		fmt.Fprintf(e.Stderr, "%s %s: %s\n", p.Name, c.Name, oneLine(exit.Error()))
		return exit.Code
	case err == nil, errors.Is(err, ErrHelp):
		return ExitOK
	case errors.Is(err, ErrSilent):
		return ExitFail
	case errors.Is(err, ErrUsage):
		msg := strings.TrimPrefix(err.Error(), ErrUsage.Error()+": ")
		fmt.Fprintf(e.Stderr, "%s %s: %s\nusage: %s %s (%s %s -h for the flags)\n", p.Name, c.Name, msg, p.Name, c.Usage, p.Name, c.Name)
		return ExitUsage
	default:
		fmt.Fprintf(e.Stderr, "%s %s: %s\n", p.Name, c.Name, oneLine(err.Error()))
		return ExitFail
	}
}

// oneLine keeps an error message on one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }

func (p *Program) help(w io.Writer) {
	fmt.Fprintf(w, "%s: %s\n\ncommands:\n", p.Name, p.Summary)
	for _, c := range p.Commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nrun '%s COMMAND -h' for a command's flags\n", p.Name)
}
