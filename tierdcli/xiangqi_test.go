package tierdcli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestXiangqi solves K+R v K, queries it, and reviews the endgame of the
// fixture game (testdata/egf) against it.
func TestXiangqi(t *testing.T) {
	var sum struct {
		Tiers []struct {
			Name                 string
			Reachable, Win, Draw uint64
			Lose                 uint64
		} `json:"tiers"`
	}
	dir := solvedJSON(t, &sum, "krk", "xiangqi", "material=KRvK")
	if len(sum.Tiers) != 2 {
		t.Fatalf("solve --json: %+v", sum)
	}

	// Mate in one: the chariot to the general's file, or along the back
	// rank; the moves in ICCS, best first.
	code, stdout, stderr := tierd(t, "query", "--db", dir, "--json", "3k5/9/9/9/9/9/9/9/9/R3K4 w")
	var q struct {
		Value      string `json:"value"`
		Remoteness int    `json:"remoteness"`
		Moves      []struct {
			Move       string `json:"move"`
			Value      string `json:"value"`
			Remoteness int    `json:"remoteness"`
		} `json:"moves"`
	}
	if err := json.Unmarshal([]byte(stdout), &q); code != 0 || err != nil || q.Value != "win" || q.Remoteness != 1 || len(q.Moves) < 10 {
		t.Fatalf("query: exit %d %v %s %s", code, err, stdout, stderr)
	}
	if m := q.Moves[0]; m.Move != "a0a8" && m.Move != "a0d0" || m.Remoteness != 0 {
		t.Errorf("best move %+v, want a0a8 or a0d0, mate at once", m)
	}
	for i := 1; i < len(q.Moves); i++ {
		if q.Moves[i].Remoteness < q.Moves[i-1].Remoteness && q.Moves[i].Value == q.Moves[i-1].Value {
			t.Errorf("moves not best first: %+v", q.Moves)
		}
	}
	if code, _, stderr := tierd(t, "query", "--db", dir, "4k4/9/9/9/9/9/9/9/9/R3K4 w"); code != 1 || !strings.Contains(stderr, "in check") {
		t.Errorf("query of an illegal position: exit %d %s", code, stderr)
	}
	if code, _, stderr := tierd(t, "verify", "--db", dir); code != 0 {
		t.Fatalf("verify: exit %d %s", code, stderr)
	}

	code, stdout, stderr = tierd(t, "review", "--db", dir, "../testdata/egf/endgame.egf")
	if code != 0 || !strings.Contains(stdout, "win thrown to a draw") || !strings.Contains(stdout, "plies lost in a won position") ||
		!strings.Contains(stdout, "3 moves from positions") {
		t.Fatalf("review: exit %d %s %s", code, stdout, stderr)
	}

	if code, _, stderr := tierd(t, "solve", "--game", "xiangqi", "--out", filepath.Join(t.TempDir(), "all")); code != 1 || !strings.Contains(stderr, "--from DIR") {
		t.Errorf("solve of every endgame without seeds: exit %d %s", code, stderr)
	}
	if code, _, stderr := tierd(t, "solve", "--game", "xiangqi", "--option", "material=KAAAvK"); code == 0 || !strings.Contains(stderr, "material=KAAAvK") {
		t.Errorf("solve of 3 advisors: exit %d %s", code, stderr)
	}
}
