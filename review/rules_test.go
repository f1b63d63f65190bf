package review

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/internal/testrun"
	"github.com/tiersolve/tiersolve/solver"
)

// perpetualFixture is testdata/egf/perpetual.egf, a game of our own in
// K+R v K+N that turns on a perpetual check: black's horse checks red's
// general again and again (the same position comes back after five
// plies), then black gives the checks up.
var perpetualFixture = egfFixture{
	file:  "perpetual.egf",
	start: "9/9/4k4/9/9/9/9/9/1n7/R2K5 w",
	moves: []string{
		"d0d1", "b1c3", // red's only move out of check; black checks again
		"d1d2", "c3b1", // and again
		"d2d1", "e7e8", // the position after the first move is back; black stops checking
	},
}

// TestXiangqiReviewRules reviews the perpetual check game against K+R v
// K+N solved without the rules and with rules=chessdb. Without them the
// checks hold the draw and black's last move throws it away; under the
// rules black is lost from the start (it can hold only by checking for
// ever), so no move of black's is an error, and red's moves keep a win
// the rules decide.
func TestXiangqiReviewRules(t *testing.T) {
	if race.Enabled && testing.Short() {
		t.Skip("two solves of K+R v K+N; skipped under -race -short")
	}
	game, err := perpetualFixture.egfGame()
	if err != nil {
		t.Fatal(err)
	}
	data, err := game.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "testdata", "egf", perpetualFixture.file)
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, data) {
		t.Fatalf("%s differs from the fixture's definition (%v): go test ./review -run ReviewRules -update", path, err)
	}
	review := func(option string) *XiangqiReport {
		g, err := games.New("xiangqi", option)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "run")
		testrun.SolveConfig(t, solver.Config{Game: g, Dir: dir, Workers: 2})
		rep, err := Xiangqi(game, g, testrun.Oracle(t, dir, g))
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Moves) != len(perpetualFixture.moves) {
			t.Fatalf("%s: %d moves reviewed, want %d", option, len(rep.Moves), len(perpetualFixture.moves))
		}
		return rep
	}

	plain := review("material=KRvKN")
	for i, m := range plain.Moves {
		wantErr := ""
		if i == 5 {
			wantErr = DrawToLoss
		}
		if m.Before.Value != "draw" || m.Error != wantErr || m.Before.Rules != "" {
			t.Errorf("without the rules, ply %d %s: %+v; want a draw, error %q", m.Ply, m.Move, m, wantErr)
		}
	}
	if b := plain.Totals[1]; b.DrawToLoss != 1 || b.Errors != 1 {
		t.Errorf("without the rules, black's totals %+v", b)
	}

	rules := review("material=KRvKN,rules=chessdb")
	for i, m := range rules.Moves {
		want := "win"
		if m.Side == "black" {
			want = "lose"
		}
		if m.Before.Value != want || m.Before.Rules != "round 1" || m.Error != "" {
			t.Errorf("under the rules, ply %d %s: %+v; want %s by the rules, no error", m.Ply, m.Move, m, want)
		}
		if i < 5 && (m.After.Rules == "" || m.After.Value != want) {
			t.Errorf("under the rules, ply %d %s leaves %v; want %s by the rules", m.Ply, m.Move, m.After, want)
		}
	}
	if last := rules.Moves[5]; last.After.Rules != "" || last.After.Value != "lose" {
		t.Errorf("under the rules, black's last move leaves %v; want a loss by mate", last.After)
	}
	if rules.Totals[0].Errors != 0 || rules.Totals[1].Errors != 0 {
		t.Errorf("under the rules, totals %+v", rules.Totals)
	}
}
