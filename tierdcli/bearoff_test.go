package tierdcli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestBearoff solves a small bearoff and queries it by gnubg Position ID,
// then verifies it, reviews a real match with it, and solves again from
// seeds.
func TestBearoff(t *testing.T) {
	opt := "checkers=4,points=6"
	var sum struct {
		Total uint64 `json:"total"`
		Start struct {
			Position    string
			Value       string
			Win, Equity float64
		} `json:"start"`
	}
	dir := solvedJSON(t, &sum, "run", "bearoff", opt)
	if sum.Total != 210*210 || sum.Start.Value != "chance" || math.Abs(2*sum.Start.Win-1-sum.Start.Equity) > 1e-12 || sum.Start.Win <= 0.5 {
		t.Fatalf("solve --json: %+v", sum)
	}

	// One checker on the 6 and one on the ace against one on the ace:
	// the player on roll wins with the 15 rolls of 36 that bear both off;
	// 21 does not, so every play of 21 loses.
	code, stdout, stderr := tierd(t, "query", "--db", dir, "--json", "--roll", "12", "AQAABAEAAAAAAA")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	var q struct {
		Win, Equity float64
		Roll        string
		Plays       []struct {
			Play, Position string
			Win, Equity    float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &q); err != nil || math.Abs(q.Win-15.0/36) > 1e-9 || q.Roll != "21" || len(q.Plays) != 2 {
		t.Fatalf("query: %v %s", err, stdout)
	}
	for _, p := range q.Plays {
		if p.Win != 0 || p.Equity != -1 {
			t.Errorf("play %+v of 21 should lose", p)
		}
	}
	// A roll of 66 bears both off: the best play wins.
	_, stdout, _ = tierd(t, "query", "--game", "bearoff", "--option", opt, "--db", dir, "--json", "--roll", "66", "AQAABAEAAAAAAA")
	if err := json.Unmarshal([]byte(stdout), &q); err != nil || len(q.Plays) == 0 || q.Plays[0].Equity != 1 || q.Plays[0].Play != "6/off 1/off" {
		t.Fatalf("query --roll 66: %v %s", err, stdout)
	}
	for _, args := range [][]string{
		{"query", "--game", "bearoff", "--option", opt, "--db", dir, "--roll", "71", "AQAABAEAAAAAAA"},
		{"query", "--game", "bearoff", "--option", opt, "--db", dir, "4HPwATDgc/ABMA"}, // the backgammon start
		{"query", "--game", "bearoff", "--option", "checkers=5", "--db", dir, "AQAABAEAAAAAAA"},
	} {
		if code, _, _ := tierd(t, args...); code == 0 {
			t.Errorf("tierd %v: exit 0", args)
		}
	}
	if code, stdout, stderr := tierd(t, "verify", "--db", dir); code != 0 || !strings.Contains(stdout, "ok") {
		t.Fatalf("verify: exit %d: %s %s", code, stdout, stderr)
	}

	// Review a real match: plays with more than 4 checkers are not covered.
	if match := "../../shared/corpus/xg/test.xg"; fileExists(match) {
		code, stdout, stderr = tierd(t, "review", "--db", dir, "--json", match)
		var rep struct {
			Decisions []struct{ Lost float64 }
			Totals    []struct{ Decisions int }
			Reasons   map[string]int `json:"not_covered_by_reason"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Totals) != 2 ||
			rep.Totals[0].Decisions+rep.Totals[1].Decisions != len(rep.Decisions) || rep.Reasons["outside the database's variant"] == 0 {
			t.Fatalf("review: exit %d: %s %s", code, stdout, stderr)
		}
	}

	// A run from seeds solves what they reach, and not the start.
	g, err := games.New("bearoff", opt)
	if err != nil {
		t.Fatal(err)
	}
	st, sp, err := g.Parse("AQAABAEAAAAAAA")
	if err != nil {
		t.Fatal(err)
	}
	seeds := filepath.Join(t.TempDir(), "seeds")
	if _, err := reach.WriteSeeds(seeds, g, map[tiergame.Tier][]tiergame.Position{st: {sp}}); err != nil {
		t.Fatal(err)
	}
	from := filepath.Join(t.TempDir(), "from")
	code, stdout, stderr = tierd(t, "solve", "--game", "bearoff", "--option", opt, "--from", seeds, "--out", from)
	if code != 0 || !strings.Contains(stdout, "not reached from the seeds") {
		t.Fatalf("solve --from: exit %d: %s %s", code, stdout, stderr)
	}
	_, stdout, _ = tierd(t, "query", "--game", "bearoff", "--option", opt, "--db", from, "--json", "AQAABAEAAAAAAA")
	if err := json.Unmarshal([]byte(stdout), &q); err != nil || math.Abs(q.Win-15.0/36) > 1e-9 {
		t.Fatalf("query a run from seeds: %v %s", err, stdout)
	}
	if code, _, stderr := tierd(t, "query", "--game", "bearoff", "--option", opt, "--db", from, sum.Start.Position); code != 1 || !strings.Contains(stderr, "not reachable") {
		t.Errorf("query the start of a run from seeds: exit %d %s", code, stderr)
	}
	if code, _, stderr := tierd(t, "verify", "--db", from); code != 0 {
		t.Fatalf("verify a run from seeds: exit %d: %s", code, stderr)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
