package tierdcli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/internal/cli/clitest"
)

// TestFlagsInAnyOrder: every command of tierd takes its flags before,
// between and after its positional arguments, no boolean flag takes an
// argument for its value, and a flag without its value is exit 2.
func TestFlagsInAnyOrder(t *testing.T) {
	dir := solved(t, "run", "tictactoe", "")
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("flags-test-token-0123456789abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	// No coordinator listens there: the cluster's client commands fail
	// once they have read every flag.
	nobody := [][]string{{"--coordinators", "http://127.0.0.1:1"}, {"--token-file", token}, {"--timeout", "1ms"}}
	extra := []string{"extra"} // a command without positional arguments refuses one
	examples := map[string]clitest.Example{
		"games":       {Positional: extra, Flags: [][]string{{"--json"}}, Code: 2},
		"plan":        {Positional: extra, Flags: [][]string{{"--game", "tictactoe"}, {"--json"}}, Code: 2},
		"reach":       {Positional: extra, Flags: [][]string{{"--game", "tictactoe"}, {"--out", dir}}, Code: 2},
		"solve":       {Positional: extra, Flags: [][]string{{"--game", "tictactoe"}, {"--symmetry"}}, Code: 2},
		"verify":      {Positional: extra, Flags: [][]string{{"--db", dir}}, Code: 2},
		"query":       {Positional: []string{"xx-/oo-/---"}, Flags: [][]string{{"--db", dir}, {"--json"}}},
		"review":      {Positional: []string{"match.xg"}, Flags: [][]string{{"--db", dir}, {"--json"}}, Code: 1}, // not a bearoff run
		"coordinator": {Positional: extra, Flags: [][]string{{"--node-id", "c1"}, {"--data", dir}}, Code: 2},
		"worker":      {Positional: extra, Flags: append(nobody, []string{"--data", dir}), Code: 2},
		"submit":      {Positional: extra, Flags: append(nobody, []string{"--game", "tictactoe"}), Code: 2},
		"members":     {Positional: extra, Flags: nobody, Code: 2},
		"status":      {Positional: []string{"r1"}, Flags: append(nobody, []string{"--json"}), Code: 1},
		"fetch":       {Positional: []string{"r1"}, Flags: append(nobody, []string{"--out", t.TempDir()}), Code: 1},
		"serve":       {Positional: extra, Flags: [][]string{{"--db", dir}, {"--cache", "8MiB"}}, Code: 2},
	}
	clitest.CheckEveryCommand(t, New(nil).cli, func(args ...string) (int, string, string) { return tierd(t, args...) }, examples)
}
