package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/egf"
)

// writeEGFGame writes a short game (central cannon takes the centre
// soldier, the horse takes the cannon) and returns its path.
func writeEGFGame(t *testing.T) string {
	t.Helper()
	g := egf.NewGame()
	g.Header.Event, g.Header.RedName, g.Header.BlackName = "Club game", "Li", "Wang"
	g.Header.Result = egf.BlackWins
	b := g.Start
	for _, mv := range [][2]string{{"h3", "e3"}, {"b10", "c8"}, {"e3", "e7"}, {"c8", "e7"}} {
		from, err := egf.ParseSquare(mv[0])
		if err != nil {
			t.Fatal(err)
		}
		to, err := egf.ParseSquare(mv[1])
		if err != nil {
			t.Fatal(err)
		}
		g.Moves = append(g.Moves, egf.Move{From: from, To: to, Captured: b.At(to)})
		b.Set(to, b.At(from))
		b.Set(from, 0)
	}
	g.MovesDone = 4
	g.Comments = []string{"hello"}
	data, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "game.egf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEGFJSON(t *testing.T) {
	path := writeEGFGame(t)
	code, out, errs := levelctl(t, "", "egf", "--json", path)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var got struct {
		Event, Result, RedName string
		BlackName              string `json:"black_name"`
		StartSide              string `json:"start_side"`
		MovesDone              int    `json:"moves_done"`
		Moves                  []struct {
			From, To string
			Captured int
		}
		Positions []string
		Comments  []string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Event != "Club game" || got.BlackName != "Wang" || got.Result != "0-1" || got.StartSide != "red" || got.MovesDone != 4 {
		t.Errorf("header fields %+v", got)
	}
	if len(got.Moves) != 4 || got.Moves[2].From != "e3" || got.Moves[2].To != "e7" || got.Moves[2].Captured != 30 ||
		got.Moves[3].Captured != 11 || got.Moves[0].Captured != 0 {
		t.Errorf("moves %+v", got.Moves)
	}
	wantFirst := "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
	wantLast := "r1bakabnr/9/1c5c1/p1p1n1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR w - - 0 3"
	if len(got.Positions) != 5 || got.Positions[0] != wantFirst || got.Positions[4] != wantLast {
		t.Errorf("positions %q", got.Positions)
	}
	if len(got.Comments) != 1 || got.Comments[0] != "hello" {
		t.Errorf("comments %q", got.Comments)
	}
}

func TestEGFText(t *testing.T) {
	code, out, errs := levelctl(t, "", "egf", writeEGFGame(t))
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	hasAll(t, out, `Event        "Club game"`, "Result       0-1", "  3. red   C e3-e7 xp", "  4. black n c8-e7 xC",
		"r1bakabnr/9/1c5c1/p1p1n1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR w - - 0 3", "Final position:", `"hello"`)
}

func TestEGFErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.egf")
	if err := os.WriteFile(bad, []byte{7, 13, 1, 200}, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing.egf")} {
		code, _, errs := levelctl(t, "", "egf", path)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, path) {
			t.Errorf("%s: exit %d, stderr %q; want one line naming the file", path, code, errs)
		}
	}
	for _, args := range [][]string{{"egf"}, {"egf", "a", "b"}, {"egf", "--bogus", "a"}} {
		if code, _, _ := levelctl(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
