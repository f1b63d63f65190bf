package cli

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestExitCodes(t *testing.T) {
	p := &Program{Name: "prog", Summary: "does things"}
	p.Register(&Command{Name: "ok", Usage: "ok", Summary: "succeeds", Run: func(*Env, []string) error { return nil }})
	p.Register(&Command{Name: "fail", Usage: "fail", Summary: "fails", Run: func(*Env, []string) error { return errors.New("disk on fire\nsecond line") }})
	p.Register(&Command{Name: "quiet", Usage: "quiet", Summary: "reports itself", Run: func(*Env, []string) error { return ErrSilent }})
	p.Register(&Command{Name: "flags", Usage: "flags [-n N]", Summary: "has flags", Run: func(e *Env, args []string) error {
		fs := p.FlagSet(e, p.Command("flags"))
		fs.Int("n", 0, "a number")
		if err := ParseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return UsageError("unexpected %q", fs.Arg(0))
		}
		return nil
	}})
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, ExitUsage, "commands:"},
		{[]string{"nope"}, ExitUsage, `unknown command "nope"`},
		{[]string{"ok"}, ExitOK, ""},
		{[]string{"fail"}, ExitFail, "prog fail: disk on fire; second line\n"},
		{[]string{"quiet"}, ExitFail, ""},
		{[]string{"flags", "-n", "x"}, ExitUsage, "usage: prog flags [-n N]"},
		{[]string{"flags", "extra"}, ExitUsage, `prog flags: unexpected "extra"`},
		{[]string{"flags", "-n"}, ExitUsage, "prog flags: flag needs an argument: -n\nusage: prog flags [-n N] (prog flags -h for the flags)\n"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := p.Run(&Env{Stdout: &out, Stderr: &errb, Log: slog.New(slog.DiscardHandler)}, tt.args)
		if code != tt.code || !strings.Contains(errb.String(), tt.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d containing %q", tt.args, code, errb.String(), tt.code, tt.stderr)
		}
	}
	// Help asked for goes to stdout and exits 0.
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"flags", "-h"}, {"flags", "--help"}} {
		var out, errb bytes.Buffer
		code := p.Run(&Env{Stdout: &out, Stderr: &errb, Log: slog.New(slog.DiscardHandler)}, args)
		want := "commands:"
		if args[0] == "flags" {
			want = "usage: prog flags [-n N]\n\nhas flags\n\nflags:\n  -n int\n    \ta number\n"
		}
		if code != ExitOK || !strings.Contains(out.String(), want) || errb.Len() > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0 and %q on stdout", args, code, out.String(), errb.String(), want)
		}
	}
}

// parsed is what ParseFlags made of a command line, for comparisons.
type parsed struct {
	out  string
	n    int
	json bool
	args string // the positional arguments, joined by '|'
	err  string // "usage", "help" or ""
}

// parseTest parses args with a flag set of a value flag (-out), an
// integer flag (-n) and a boolean flag (-json).
func parseTest(args []string) parsed {
	res, pos := parseArgs(args)
	if res.err == "" {
		res.args = strings.Join(pos, "|")
	}
	return res
}

// parseArgs is parseTest with the positional arguments apart.
func parseArgs(args []string) (parsed, []string) {
	var stdout bytes.Buffer
	p := &Program{Name: "prog"}
	c := &Command{Name: "cmd", Usage: "cmd [--out DIR] [-n N] [--json] ARG..."}
	fs := p.FlagSet(&Env{Stdout: &stdout}, c)
	out := fs.String("out", "", "a folder")
	n := fs.Int("n", 0, "a number")
	asJSON := fs.Bool("json", false, "print JSON")
	err := ParseFlags(fs, args)
	switch {
	case errors.Is(err, ErrHelp):
		return parsed{err: "help"}, nil
	case errors.Is(err, ErrUsage):
		return parsed{err: "usage"}, nil
	case err != nil:
		return parsed{err: err.Error()}, nil
	}
	return parsed{out: *out, n: *n, json: *asJSON}, fs.Args()
}

func TestParseFlagsAnyOrder(t *testing.T) {
	tests := []struct {
		args []string
		want parsed
	}{
		{[]string{"--out", "D", "a", "b"}, parsed{out: "D", args: "a|b"}},
		{[]string{"a", "--out", "D", "b"}, parsed{out: "D", args: "a|b"}},
		{[]string{"a", "b", "--out", "D"}, parsed{out: "D", args: "a|b"}},
		{[]string{"a", "--out=D", "b", "-n", "3"}, parsed{out: "D", n: 3, args: "a|b"}},
		{[]string{"a", "-out", "D", "--out", "E"}, parsed{out: "E", args: "a"}}, // the last wins, as in flag
		// A boolean flag never takes the next argument.
		{[]string{"--json", "a"}, parsed{json: true, args: "a"}},
		{[]string{"a", "--json", "b"}, parsed{json: true, args: "a|b"}},
		{[]string{"a", "--json=false", "b"}, parsed{args: "a|b"}},
		// A value flag takes the next argument, whatever it is.
		{[]string{"a", "-n", "-3"}, parsed{n: -3, args: "a"}},
		{[]string{"--out", "--", "a"}, parsed{out: "--", args: "a"}},
		{[]string{"--out", "-json", "a"}, parsed{out: "-json", args: "a"}},
		// "--" ends the flags; "-" alone is an argument.
		{[]string{"a", "--", "-x-/---/---", "--out", "E"}, parsed{args: "a|-x-/---/---|--out|E"}},
		{[]string{"--json", "--", "--"}, parsed{json: true, args: "--"}},
		{[]string{"-", "--json"}, parsed{json: true, args: "-"}},
		{[]string{}, parsed{}},
		// Mistakes are usage errors (exit 2), wherever they are.
		{[]string{"a", "--out"}, parsed{err: "usage"}},
		{[]string{"a", "-n"}, parsed{err: "usage"}},
		{[]string{"a", "-n", "x"}, parsed{err: "usage"}},
		{[]string{"a", "--nope", "b"}, parsed{err: "usage"}},
		{[]string{"a", "-x-/---/---"}, parsed{err: "usage"}},
		{[]string{"---out", "D"}, parsed{err: "usage"}},
		{[]string{"a", "--json=maybe"}, parsed{err: "usage"}},
		{[]string{"a", "-h"}, parsed{err: "help"}},
		{[]string{"a", "--help", "b"}, parsed{err: "help"}},
	}
	for _, tc := range tests {
		if got := parseTest(tc.args); got != tc.want {
			t.Errorf("ParseFlags(%q) = %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

// TestParseFlagsShuffled: flags with their values and positional
// arguments in any interleaving parse to the same values and the same
// positional arguments, in their order (a simple model: the last value of
// each flag wins).
func TestParseFlagsShuffled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var flagItems [][]string
		var positional []string
		want := parsed{}
		for range rng.IntN(6) {
			switch rng.IntN(4) {
			case 0:
				v := fmt.Sprintf("d%d", rng.IntN(10))
				flagItems = append(flagItems, []string{"--out", v})
			case 1:
				flagItems = append(flagItems, []string{"-n", fmt.Sprint(rng.IntN(21) - 10)})
			case 2:
				flagItems = append(flagItems, []string{"--json"})
			case 3:
				flagItems = append(flagItems, []string{fmt.Sprintf("-out=e%d", rng.IntN(10))})
			}
		}
		for range rng.IntN(4) {
			positional = append(positional, fmt.Sprintf("p%d", rng.IntN(100)))
		}
		// The model: flags in their order, the last value wins.
		for _, f := range flagItems {
			switch {
			case f[0] == "--out":
				want.out = f[1]
			case f[0] == "-n":
				want.n, _ = strconv.Atoi(f[1])
			case f[0] == "--json":
				want.json = true
			default:
				want.out = strings.TrimPrefix(f[0], "-out=")
			}
		}
		want.args = strings.Join(positional, "|")
		// Merge the two lists at random, keeping each one's order.
		var args []string
		fi, pi := 0, 0
		for fi < len(flagItems) || pi < len(positional) {
			if pi == len(positional) || fi < len(flagItems) && rng.IntN(2) == 0 {
				args = append(args, flagItems[fi]...)
				fi++
			} else {
				args = append(args, positional[pi])
				pi++
			}
		}
		if got := parseTest(args); got != want {
			t.Fatalf("ParseFlags(%q) = %+v, want %+v", args, got, want)
		}
	}
}

// FuzzParseFlags: any command line parses without a panic, and one that
// parses means the same written canonically: every flag first as
// -name=value, then "--" and the positional arguments.
func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{"a\x00--out\x00D", "--\x00-x", "-n\x00-3\x00b", "--json\x00a", "-\x00--out=", "---x", "a\x00--out", "-h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		got, pos := parseArgs(args)
		if got.err != "" {
			return
		}
		canon := append([]string{"-out=" + got.out, fmt.Sprintf("-n=%d", got.n), fmt.Sprintf("-json=%v", got.json), "--"}, pos...)
		if again, pos2 := parseArgs(canon); again != got || !slices.Equal(pos, pos2) {
			t.Fatalf("ParseFlags(%q) = %+v %q, but its canonical form %q gives %+v %q", args, got, pos, canon, again, pos2)
		}
	})
}
