// Package clitest checks, for every command of a cli.Program, what
// cli.ParseFlags promises: flags before, between and after the positional
// arguments mean the same, a boolean flag never takes the next argument,
// and a flag that needs a value and has none is a usage error (exit 2).
package clitest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/internal/cli"
)

// Run runs the program on a command line and returns its exit code and
// outputs.
type Run func(args ...string) (code int, stdout, stderr string)

// Example is a command line of one command, for CheckEveryCommand.
type Example struct {
	// Prefix stays first, after the command's name: a sub-command
	// ("decode" of levelctl gnubg).
	Prefix []string
	// Positional are the positional arguments, in their order.
	Positional []string
	// Flags are flags, each with its value if it takes one.
	Flags [][]string
	// Code is the exit code of the command line in every order.
	Code int
}

// Flag is a flag as a command's -h lists it.
type Flag struct {
	Name       string
	TakesValue bool
}

// Flags lists the flags of a command (after prefix) from its -h.
func Flags(t *testing.T, run Run, command string, prefix ...string) []Flag {
	t.Helper()
	code, stdout, stderr := run(append(append([]string{command}, prefix...), "-h")...)
	if code != cli.ExitOK && code != cli.ExitFail {
		t.Fatalf("%s -h: exit %d: %s", command, code, stderr)
	}
	var out []Flag
	for _, line := range strings.Split(stdout+stderr, "\n") {
		// PrintDefaults: "  -name" for a boolean, "  -name type" for a
		// flag that takes a value, then a tab and the usage.
		head, _, _ := strings.Cut(line, "\t")
		if !strings.HasPrefix(head, "  -") {
			continue
		}
		f := strings.Fields(head)
		out = append(out, Flag{Name: strings.TrimPrefix(f[0], "-"), TakesValue: len(f) > 1})
	}
	return out
}

// CheckEveryCommand checks every command of p:
//   - its example, which every command must have, gives the same exit
//     code (the example's) and the same outputs with its flags first, last,
//     and after each of its positional arguments;
//   - every boolean flag followed by a word does what the word followed
//     by the flag does: the flag did not take the word for its value;
//   - every flag that takes a value, given last without one, is a usage
//     error (exit 2) that names the flag.
func CheckEveryCommand(t *testing.T, p *cli.Program, run Run, examples map[string]Example) {
	t.Helper()
	for _, c := range p.Commands() {
		ex, ok := examples[c.Name]
		if !ok {
			t.Errorf("%s %s has no example: add one to the test", p.Name, c.Name)
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			checkOrders(t, run, c.Name, ex)
			for _, f := range Flags(t, run, c.Name, ex.Prefix...) {
				base := append([]string{c.Name}, ex.Prefix...)
				if !f.TakesValue {
					a := append(append([]string(nil), base...), "--"+f.Name, "word")
					b := append(append([]string(nil), base...), "word", "--"+f.Name)
					same(t, run, a, b)
					continue
				}
				args := append(append([]string(nil), base...), "--"+f.Name)
				code, _, stderr := run(args...)
				if code != cli.ExitUsage || !strings.Contains(stderr, "flag needs an argument: -"+f.Name) {
					t.Errorf("%q (no value): exit %d, %q; want exit 2 saying the flag needs an argument", args, code, stderr)
				}
			}
		})
	}
}

// checkOrders runs an example with its flags at every place.
func checkOrders(t *testing.T, run Run, command string, ex Example) {
	t.Helper()
	var flags []string
	for _, f := range ex.Flags {
		flags = append(flags, f...)
	}
	var first []string
	for at := 0; at <= len(ex.Positional); at++ {
		args := append([]string{command}, ex.Prefix...)
		args = append(args, ex.Positional[:at]...)
		args = append(args, flags...)
		args = append(args, ex.Positional[at:]...)
		if at == 0 {
			first = args
			if code, stdout, stderr := run(args...); code != ex.Code {
				t.Errorf("%q: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, ex.Code, stdout, stderr)
			}
			continue
		}
		same(t, run, first, args)
	}
	// The flags one by one after each positional argument, in turn.
	if len(ex.Flags) > 1 && len(ex.Positional) > 0 {
		args := append([]string{command}, ex.Prefix...)
		for i, pos := range ex.Positional {
			args = append(args, pos)
			if i < len(ex.Flags) {
				args = append(args, ex.Flags[i]...)
			}
		}
		for _, f := range ex.Flags[min(len(ex.Positional), len(ex.Flags)):] {
			args = append(args, f...)
		}
		same(t, run, first, args)
	}
}

// same checks that two command lines give the same exit code and outputs.
func same(t *testing.T, run Run, a, b []string) {
	t.Helper()
	ca, oa, ea := run(a...)
	cb, ob, eb := run(b...)
	if ca != cb || oa != ob || ea != eb {
		t.Errorf("%q and %q differ:\n%s\n----\n%s", a, b, describe(ca, oa, ea), describe(cb, ob, eb))
	}
}

func describe(code int, stdout, stderr string) string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
}
