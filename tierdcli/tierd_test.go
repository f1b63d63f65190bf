package tierdcli

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/cli"
)

func tierd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	code, stdout, stderr, _ = tierdLogged(t, args...)
	return code, stdout, stderr
}

// tierdLogged is tierd with its log records kept.
func tierdLogged(t *testing.T, args ...string) (code int, stdout, stderr, log string) {
	t.Helper()
	return runProgram(New(games.Default()), args...)
}

// runProgram runs p in-process on args with an empty stdin, and returns
// its exit code, its outputs and its log records.
func runProgram(p *Program, args ...string) (code int, stdout, stderr, log string) {
	var out, errb, logb bytes.Buffer
	e := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Log: slog.New(slog.NewTextHandler(&logb, nil))}
	code = p.Run(e, args)
	return code, out.String(), errb.String(), logb.String()
}

// solved solves game (with option, unless it is "") in-process into a
// new folder named folder, with solve's other flags, fails the test if
// the solve fails, and returns the folder.
func solved(t *testing.T, folder, game, option string, flags ...string) string {
	t.Helper()
	dir, _ := solvedPrinting(t, folder, game, option, flags...)
	return dir
}

// solvedJSON is solved with --json: it decodes the summary solve prints
// into sum.
func solvedJSON(t *testing.T, sum any, folder, game, option string, flags ...string) string {
	t.Helper()
	dir, stdout := solvedPrinting(t, folder, game, option, append(flags, "--json")...)
	if err := json.Unmarshal([]byte(stdout), sum); err != nil {
		t.Fatalf("solve --json: %v: %s", err, stdout)
	}
	return dir
}

// solvedPrinting is solved, and returns what solve printed as well.
func solvedPrinting(t *testing.T, folder, game, option string, flags ...string) (dir, stdout string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), folder)
	args := []string{"solve", "--game", game, "--out", dir}
	if option != "" {
		args = append(args, "--option", option)
	}
	code, stdout, stderr := tierd(t, append(args, flags...)...)
	if code != 0 {
		t.Fatalf("solve %s %s %q: exit %d: %s", game, option, flags, code, stderr)
	}
	return dir, stdout
}

func TestSolveQueryVerify(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := tierd(t, "reach", "--game", "tictactoe", "--out", dir, "--json")
	if code != 0 {
		t.Fatalf("reach: exit %d: %s", code, stderr)
	}
	var reach struct {
		Game  string `json:"game"`
		Tiers []struct {
			Tier, Reachable uint64
			Name            string
			Type            int
			Bytes           int64
		} `json:"tiers"`
		Total uint64 `json:"total"`
	}
	if err := json.Unmarshal([]byte(stdout), &reach); err != nil || reach.Game != "tictactoe" || reach.Total != 5478 || len(reach.Tiers) != 10 || reach.Tiers[9].Reachable != 78 || reach.Tiers[9].Bytes == 0 {
		t.Fatalf("reach --json: %v %s", err, stdout)
	}
	code, stdout, stderr = tierd(t, "solve", "--game", "tictactoe", "--out", dir, "--json")
	if code != 0 {
		t.Fatalf("solve: exit %d: %s", code, stderr)
	}
	var solve struct {
		Tiers []map[string]any `json:"tiers"`
		Start struct {
			Value      string `json:"value"`
			Remoteness int    `json:"remoteness"`
		} `json:"start"`
	}
	if err := json.Unmarshal([]byte(stdout), &solve); err != nil || solve.Start.Value != "tie" || solve.Start.Remoteness != 9 {
		t.Fatalf("solve --json: %v %s", err, stdout)
	}
	for _, k := range []string{"tier", "reachable", "win", "lose", "tie", "draw"} {
		if _, ok := solve.Tiers[0][k]; !ok {
			t.Errorf("solve --json tier lacks %q", k)
		}
	}
	// x to move can win at once: the win comes first among the moves.
	code, stdout, stderr = tierd(t, "query", "--game", "tictactoe", "--db", dir, "--json", "xx-/oo-/---")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	var q struct {
		Value      string `json:"value"`
		Remoteness int    `json:"remoteness"`
		Moves      []struct {
			Move, Value string
			Remoteness  int
		} `json:"moves"`
	}
	if err := json.Unmarshal([]byte(stdout), &q); err != nil || q.Value != "win" || q.Remoteness != 1 || q.Moves[0].Move != "c1" || q.Moves[0].Value != "win" {
		t.Fatalf("query: %v %s", err, stdout)
	}
	if code, _, stderr := tierd(t, "verify", "--db", dir); code != 0 {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	// A damaged database fails verification with exit 1.
	dbs, _ := filepath.Glob(filepath.Join(dir, "db", "*.vdb"))
	b, _ := os.ReadFile(dbs[3])
	b[len(b)/2] ^= 1
	os.WriteFile(dbs[3], b, 0o644)
	if code, _, stderr := tierd(t, "verify", "--db", dir); code != 1 || !strings.Contains(stderr, "SHA-256") {
		t.Fatalf("verify of a damaged run: exit %d: %s", code, stderr)
	}
}

func TestTierdErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"solve"}, 2, "--game is required"},
		{[]string{"solve", "--game", "chess"}, 2, "unknown game"},
		{[]string{"solve", "--game", "connect4", "--option", "width=9"}, 2, "width"},
		{[]string{"reach", "--game", "tictactoe"}, 2, "--out DIR is required"},
		{[]string{"solve", "--game", "connect4", "--out", dir, "--memory", "1MiB"}, 1, "largest tier hash space that fits"},
		{[]string{"query", "--game", "tictactoe", "--db", dir, "xxx/ooo/xxx"}, 1, ""},
		{[]string{"verify", "--db", filepath.Join(dir, "none")}, 1, "not a run folder"},
		{[]string{"games", "extra"}, 2, "unexpected argument"},
		{[]string{"plan"}, 2, "need --game"},
	}
	for _, tt := range tests {
		code, _, stderr := tierd(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("tierd %v: exit %d, %q; want exit %d containing %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

func TestPlan(t *testing.T) {
	code, stdout, stderr := tierd(t, "plan", "--game", "connect4", "--option", "width=6,height=5", "--memory", "20GiB", "--json")
	var p struct {
		Tiers      int    `json:"tiers"`
		Fits       bool   `json:"fits"`
		LargestFit uint64 `json:"largest_tier_that_fits"`
		Largest    uint64 `json:"largest_tier_hash_space"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &p) != nil || p.Tiers != 31 || !p.Fits || p.LargestFit < p.Largest {
		t.Fatalf("plan 6x5: exit %d %s %s", code, stdout, stderr)
	}
	code, stdout, _ = tierd(t, "plan", "--game", "connect4")
	if code != 1 || !strings.Contains(stdout, "does NOT fit") {
		t.Fatalf("plan 7x6 should not fit: %s", stdout)
	}
	// Dōbutsu shōgi's play tier (1.78e9 hashes) is solved in a byte a
	// hash, as are its child tiers: it fits 4 GiB, not 2.
	code, stdout, _ = tierd(t, "plan", "--game", "dshogi", "--symmetry", "--memory", "4GiB")
	if code != 0 || !strings.Contains(stdout, "one position per symmetry class") {
		t.Errorf("plan dshogi --symmetry: exit %d %s", code, stdout)
	}
	if code, stdout, _ = tierd(t, "plan", "--game", "dshogi", "--memory", "2GiB"); code != 1 {
		t.Errorf("plan dshogi: exit %d %s", code, stdout)
	}
}
