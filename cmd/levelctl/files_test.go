package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/tiersolve/tiersolve/internal/cli"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// levelctl runs a command in-process and returns its exit code and output.
func levelctl(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Log: slog.New(slog.DiscardHandler)}
	code = program.Run(e, args)
	return code, out.String(), errb.String()
}

// hasAll checks that a command's output holds each of want.
func hasAll(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestWriteInfoCatValidate(t *testing.T) {
	dir := t.TempDir()
	input := "17 3 99 4\n1000 5 3\n"
	want := "3\n4\n5\n17\n99\n1000\n"
	for _, typ := range []string{"auto", "0", "1", "2", "3"} {
		for _, dialect := range []string{"spec", "classic"} {
			out := filepath.Join(dir, fmt.Sprintf("t%s%s.dat.gz", typ, dialect))
			code, _, stderr := levelctl(t, input, "write", "--type", typ, "--dialect", dialect, "--game", "demo", "-o", out)
			if code != 0 {
				t.Fatalf("write --type %s: exit %d: %s", typ, code, stderr)
			}
			if !strings.Contains(stderr, out+": type ") {
				t.Errorf("write does not say which type won: %q", stderr)
			}
			code, stdout, stderr := levelctl(t, "", "cat", out)
			if code != 0 || stdout != want {
				t.Fatalf("cat: exit %d, %q %s", code, stdout, stderr)
			}
			code, stdout, _ = levelctl(t, "", "info", "--json", out)
			var info map[string]any
			if code != 0 || json.Unmarshal([]byte(stdout), &info) != nil {
				t.Fatalf("info --json: exit %d, %q", code, stdout)
			}
			for _, k := range []string{"type", "dialect", "min", "max", "bits_per_position", "count", "compressed_bytes"} {
				if _, ok := info[k]; !ok {
					t.Errorf("info --json lacks %q: %s", k, stdout)
				}
			}
			if info["min"] != 3.0 || info["max"] != 1000.0 || info["count"] != 6.0 || info["dialect"] != dialect || info["bits_per_position"] != 10.0 {
				t.Errorf("info --json: %s", stdout)
			}
			if typ != "auto" && info["type"] != float64(typ[0]-'0') {
				t.Errorf("info type %v, want %s", info["type"], typ)
			}
			if code, _, stderr := levelctl(t, "", "validate", out); code != 0 {
				t.Fatalf("validate: exit %d: %s", code, stderr)
			}
		}
	}
}

func TestClassicVectorsCLI(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/testvectors/levelfile/classic/*/*.dat.gz")
	if len(files) == 0 {
		t.Skip("no classic vectors")
	}
	code, stdout, stderr := levelctl(t, "", append([]string{"info", "--json"}, files...)...)
	if code != 0 || strings.Count(stdout, "\n") != len(files) || !strings.Contains(stdout, `"dialect":"classic"`) {
		t.Fatalf("info: exit %d: %s %s", code, stdout, stderr)
	}
	if code, _, stderr := levelctl(t, "", append([]string{"validate"}, files...)...); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, stderr)
	}
}

func TestConvertAndMerge(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "mg_o_1_0_0.dat.gz")
	b := filepath.Join(dir, "mg_o_1_500_3.dat.gz")
	levelctl(t, "1 2 3 600", "write", "--type", "0", "-o", a)
	levelctl(t, "500 501 2 999", "write", "--type", "3", "--dialect", "classic", "-o", b)
	full := filepath.Join(dir, "mg_o_1.dat.gz")
	code, _, stderr := levelctl(t, "", "merge", "-o", full, a, b)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if _, stdout, _ := levelctl(t, "", "cat", full); stdout != "1\n2\n3\n500\n501\n600\n999\n" {
		t.Fatalf("merged: %q", stdout)
	}
	conv := filepath.Join(dir, "conv.dat.gz")
	if code, _, stderr := levelctl(t, "", "convert", "--type", "1", "-o", conv, b); code != 0 {
		t.Fatalf("convert: %d %s", code, stderr)
	}
	_, stdout, _ := levelctl(t, "", "info", "--json", conv)
	if !strings.Contains(stdout, `"type":1`) || !strings.Contains(stdout, `"dialect":"classic"`) {
		t.Fatalf("convert keeps the dialect and sets the type: %s", stdout)
	}
}

func TestFileCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.dat.gz")
	os.WriteFile(bad, []byte("not gzip"), 0o644)
	good := filepath.Join(dir, "good.dat.gz")
	levelctl(t, "1 2", "write", "-o", good)
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"no command", "", nil, 2, "commands"},
		{"unknown command", "", []string{"frobnicate"}, 2, "unknown command"},
		{"write without -o", "1", []string{"write"}, 2, "-o OUT is required"},
		{"write bad type", "1", []string{"write", "--type", "7", "-o", "x"}, 2, "want auto"},
		{"write bad number", "1 2 x3", []string{"write", "-o", filepath.Join(dir, "x.dat.gz")}, 1, `stdin: word 3 "x3"`},
		{"write outside range", "1 50", []string{"write", "--start", "0", "--end", "10", "-o", filepath.Join(dir, "y.dat.gz")}, 1, "outside --start"},
		{"validate corrupt", "", []string{"validate", good, bad}, 1, bad},
		{"info corrupt", "", []string{"info", bad}, 1, bad},
		{"cat missing", "", []string{"cat", filepath.Join(dir, "none.dat.gz")}, 1, "none.dat.gz"},
		{"merge nothing", "", []string{"merge", "-o", "x"}, 2, "PARTIAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := levelctl(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d containing %q", code, stderr, tt.code, tt.want)
			}
		})
	}
	// No partial output is left behind by a failed write.
	if _, err := os.Stat(filepath.Join(dir, "x.dat.gz")); !os.IsNotExist(err) {
		t.Error("failed write left a file")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
