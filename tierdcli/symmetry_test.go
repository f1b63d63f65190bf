package tierdcli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSymmetryCommands: solve --symmetry keeps the canonical positions
// (765 for tic-tac-toe) and says so; query canonicalizes and lists the
// moves of the position asked; verify honours the setting; resuming with
// the other setting is refused (exit 1, one line).
func TestSymmetryCommands(t *testing.T) {
	var sum struct {
		Symmetry bool   `json:"symmetry"`
		Total    uint64 `json:"total"`
		Start    struct {
			Value string `json:"value"`
		} `json:"start"`
	}
	dir := solvedJSON(t, &sum, "run", "tictactoe", "", "--symmetry")
	if !sum.Symmetry || sum.Total != 765 || sum.Start.Value != "tie" {
		t.Fatalf("solve --symmetry --json: %+v", sum)
	}
	// The top right corner is the canonical top left corner turned; its
	// moves are its own.
	code, stdout, stderr := tierd(t, "query", "--db", dir, "--json", "--", "--x/---/---")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	var q struct {
		Position, Canonical, Value string
		Remoteness                 int
		Moves                      []struct{ Move, Position, Value string }
	}
	if err := json.Unmarshal([]byte(stdout), &q); err != nil || q.Position != "--x/---/---" || q.Canonical != "x--/---/---" ||
		q.Value != "tie" || q.Remoteness != 8 || len(q.Moves) != 8 || q.Moves[0].Move != "b2" || q.Moves[0].Position != "--x/-o-/---" {
		t.Fatalf("query: %v %s", err, stdout)
	}
	if code, stdout, stderr := tierd(t, "verify", "--db", dir); code != 0 || !strings.Contains(stdout, "765 positions") ||
		!strings.Contains(stdout, "the full game's positions") {
		t.Fatalf("verify: exit %d: %s %s", code, stdout, stderr)
	}
	// The 765 classes stand for tic-tac-toe's 5478 positions.
	code, stdout, stderr = tierd(t, "verify", "--db", dir, "--json")
	var v struct {
		Full []struct{ Positions uint64 } `json:"full_game"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || code != 0 || len(v.Full) != 10 {
		t.Fatalf("verify --json: exit %d, %v: %s %s", code, err, stdout, stderr)
	}
	var total uint64
	for _, c := range v.Full {
		total += c.Positions
	}
	if total != 5478 {
		t.Errorf("verify --json: the full game has %d positions, want 5478", total)
	}
	code, _, stderr = tierd(t, "solve", "--game", "tictactoe", "--out", dir)
	if code != 1 || !strings.Contains(stderr, "holds a symmetric run") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("resume without --symmetry: exit %d: %q", code, stderr)
	}
	code, _, stderr = tierd(t, "solve", "--game", "tictactoe", "--symmetry", "--out", dir)
	if code != 0 {
		t.Fatalf("resume with --symmetry: exit %d: %s", code, stderr)
	}
}
