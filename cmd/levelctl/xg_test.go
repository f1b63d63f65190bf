package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// xgCorpus holds real XG matches, read in place.
const xgCorpus = "../../../shared/corpus/xg"

func xgTestFile(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(xgCorpus); os.IsNotExist(err) {
		t.Skipf("corpus %s not present", xgCorpus)
	}
	return filepath.Join(xgCorpus, "test.xg")
}

// xgOK runs xg with flags on the test match and returns its output; it
// must succeed without a word on stderr.
func xgOK(t *testing.T, flags ...string) string {
	t.Helper()
	code, out, errs := levelctl(t, "", append(append([]string{"xg"}, flags...), xgTestFile(t))...)
	if code != 0 || errs != "" {
		t.Fatalf("xg %q: exit %d, stderr %q", flags, code, errs)
	}
	return out
}

func TestXGJSON(t *testing.T) {
	out := xgOK(t, "--json")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 687 {
		t.Fatalf("%d lines, want one per record (687)", len(lines))
	}
	type record struct {
		Index       int
		Type        string
		Player1     string
		Player2     string
		MatchLength int `json:"match_length"`
		Version     int
		Event       string
		Score1      *int
		Score2      *int
		GameNumber  int `json:"game_number"`
		Active      int
		Double      *int
		Take        *int
		Dice        []int
		Position    []int
		PositionEnd []int `json:"position_end"`
		Moves       []int
		Move        string
		PosID       string
		MatchID     string
		Winner      int
		PointsWon   int `json:"points_won"`
		Termination *int
	}
	counts := map[string]int{}
	var recs []record
	for i, l := range lines {
		var r record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, l)
		}
		if r.Index != i {
			t.Errorf("line %d has index %d", i, r.Index)
		}
		counts[r.Type]++
		switch r.Type {
		case "game_header":
			if r.Score1 == nil || r.Score2 == nil || r.GameNumber < 1 {
				t.Errorf("line %d: %s", i, l)
			}
		case "cube":
			if r.Active == 0 || r.Double == nil || r.Take == nil || len(r.Position) != 26 {
				t.Errorf("line %d: %s", i, l)
			}
		case "move":
			if r.Active == 0 || len(r.Dice) != 2 || len(r.Position) != 26 || len(r.PositionEnd) != 26 || len(r.Moves) != 8 {
				t.Errorf("line %d: %s", i, l)
			}
		case "game_footer":
			if r.Winner == 0 || r.PointsWon == 0 || r.Score1 == nil || r.Termination == nil {
				t.Errorf("line %d: %s", i, l)
			}
		}
		recs = append(recs, r)
	}
	want := map[string]int{"match_header": 1, "game_header": 7, "cube": 337, "move": 334, "game_footer": 7, "match_footer": 1}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%d %s records, want %d", counts[k], k, v)
		}
	}
	h := recs[0]
	if h.Player1 != "Kévin Unger" || h.Player2 != "Maxence Job" || h.MatchLength != 7 || h.Version != 32 || h.Event != "HSBT Paris 2023" {
		t.Errorf("match header %s", lines[0])
	}
	m := recs[3]
	if m.Type != "move" || m.Active != 1 || m.Dice[0] != 5 || m.Dice[1] != 1 || m.Move != "24/23 13/8" || m.PosID != "4HPwATDgc/ABMA" ||
		m.Moves[0] != 12 || m.Moves[1] != 7 || m.Moves[2] != 23 || m.Moves[3] != 22 || m.Moves[4] != -1 ||
		m.Position[6] != 5 || m.PositionEnd[23] != 1 {
		t.Errorf("first move %s", lines[3])
	}
	if c := recs[62]; c.Type != "cube" || *c.Double != 1 || *c.Take != 0 {
		t.Errorf("record 62 %s", lines[62])
	}
	if f := recs[686]; f.Type != "match_footer" || *f.Score1 != 7 || *f.Score2 != 4 || f.Winner != 1 {
		t.Errorf("match footer %s", lines[686])
	}
}

func TestXGPositions(t *testing.T) {
	out := xgOK(t, "--positions")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 533 {
		t.Fatalf("%d lines, want one per decision (533)", len(lines))
	}
	for i, want := range []string{
		"4HPwATDgc/ABMA:MIHmAAAAAAAE 51 24/23 13/8",
		"4PPgASjgc/ABMA:cAngAAAAAAAE - no double",
		"4PPgASjgc/ABMA:cAnnAAAAAAAE 61 13/7 8/7",
	} {
		if lines[i] != want {
			t.Errorf("line %d %q, want %q", i, lines[i], want)
		}
	}
	for i, l := range lines {
		ids, rest, ok := strings.Cut(l, " ")
		dice, move, ok2 := strings.Cut(rest, " ")
		if !ok || !ok2 || len(ids) != 27 || ids[14] != ':' || (dice != "-" && len(dice) != 2) || move == "" {
			t.Errorf("line %d malformed: %q", i, l)
		}
	}
	if !strings.Contains(out, "double/pass\n") || !strings.Contains(out, "double/take\n") {
		t.Error("no double/pass or double/take decision")
	}
}

func TestXGSummary(t *testing.T) {
	out := xgOK(t)
	hasAll(t, out,
		"test.xg: eXtreme Gammon file version 32\n",
		"players     Kévin Unger vs Maxence Job\n",
		"match       7 points, Crawford\n",
		"event       HSBT Paris 2023\n",
		"records     687: 7 games, 337 cube, 334 moves; 0 rollouts, 0 comments\n",
		"game 1      0-0: Kévin Unger wins 1 (drop), 1-0\n",
		"result      Kévin Unger wins 7-4\n",
	)
}

func TestXGErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.xg")
	os.WriteFile(junk, bytes.Repeat([]byte("RGMH"), 3000), 0o644)
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{nil, 2, "need exactly one FILE"},
		{[]string{"a.xg", "b.xg"}, 2, "need exactly one FILE"},
		{[]string{"--json", "--positions", "a.xg"}, 2, "exclude each other"},
		{[]string{"--bogus", "a.xg"}, 2, "bogus"},
		{[]string{filepath.Join(dir, "missing.xg")}, 1, "missing.xg"},
		{[]string{"--json", junk}, 1, junk},
		{[]string{"--positions", junk}, 1, junk},
	}
	for _, tt := range tests {
		code, out, errs := levelctl(t, "", append([]string{"xg"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("xg %q: exit %d, stdout %q, stderr %q; want exit %d mentioning %q", tt.args, code, out, errs, tt.code, tt.want)
		}
		if code == 1 && strings.Count(errs, "\n") != 1 {
			t.Errorf("xg %q: error not one line: %q", tt.args, errs)
		}
	}
}
