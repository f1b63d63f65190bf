package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/internal/cli/clitest"
)

// TestFlagsInAnyOrder: every command of levelctl takes its flags before,
// between and after its positional arguments, no boolean flag takes an
// argument for its value, and a flag without its value is exit 2.
func TestFlagsInAnyOrder(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "positions.txt")
	if err := os.WriteFile(input, []byte("17 3 99 4\n1000 5 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	level := filepath.Join(dir, "level.dat.gz")
	if code, _, stderr := levelctl(t, "", "write", "-o", level, input); code != 0 {
		t.Fatal(stderr)
	}
	ids := filepath.Join(dir, "ids.txt")
	if err := os.WriteFile(ids, []byte("AQAABAEAAAAAAA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seeds := filepath.Join(dir, "seeds")
	if code, _, stderr := levelctl(t, "", "import", "--game", "bearoff", "--option", "checkers=4", "--out", seeds, ids); code != 0 {
		t.Fatal(stderr)
	}
	out := func(name string) []string { return []string{"-o", filepath.Join(dir, name)} }
	// Every write names its type: with auto, the message says how far the
	// losing types got, which depends on timing.
	examples := map[string]clitest.Example{
		"info":     {Positional: []string{level, level}, Flags: [][]string{{"--json"}}},
		"validate": {Positional: []string{level, level}},
		"cat":      {Positional: []string{level}},
		"write":    {Positional: []string{input}, Flags: [][]string{out("written.dat.gz"), {"--type", "1"}, {"--game", "demo"}}},
		"convert":  {Positional: []string{level}, Flags: [][]string{out("converted.dat.gz"), {"--dialect", "classic"}, {"--type", "3"}}},
		"merge":    {Positional: []string{level, level}, Flags: [][]string{out("merged.dat.gz"), {"--type", "2"}}},
		"gnubg":    {Prefix: []string{"decode"}, Positional: []string{"4HPwATDgc/ABMA", "AQAABAEAAAAAAA"}, Flags: [][]string{{"--json"}}},
		"xg":       {Positional: []string{filepath.Join(dir, "none.xg")}, Flags: [][]string{{"--json"}}, Code: 1},
		"egf":      {Positional: []string{filepath.Join(dir, "none.egf")}, Flags: [][]string{{"--json"}}, Code: 1},
		// The folder holds the seeds already: refused, once the flags are read.
		"import": {Positional: []string{ids, ids}, Flags: [][]string{{"--game", "bearoff"}, {"--option", "checkers=4"}, {"--out", seeds}}, Code: 1},
	}
	clitest.CheckEveryCommand(t, program, func(args ...string) (int, string, string) { return levelctl(t, "", args...) }, examples)
}
