package cli

import (
	"bytes"
	"errors"
	"log/slog"
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
