package review

import (
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/testrun"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestXiangqiReview runs the fixture game's endgame from its own
// positions, as import and solve --from do (seeds of at most 3 pieces:
// the first three positions, with the advisor still on the board, are
// not covered), and reviews it. What it must find follows from the table
// of K+R v K (won for red to move in at most 3 plies, and a lone general
// cannot lose: K v K is drawn): the chariot given away throws the win to
// a draw; a move that lets mate in 1 go is a slower win.
func TestXiangqiReview(t *testing.T) {
	g, err := games.New("xiangqi", "maxpieces=3")
	if err != nil {
		t.Fatal(err)
	}
	game, err := endgameFixture.egfGame()
	if err != nil {
		t.Fatal(err)
	}
	positions, err := game.Positions()
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[tiergame.Tier][]tiergame.Position{}
	for _, p := range positions {
		if tier, pos, err := g.Parse(p.FEN()); err == nil {
			seeds[tier] = append(seeds[tier], pos)
		}
	}
	dir := t.TempDir()
	if _, err := reach.WriteSeeds(filepath.Join(dir, "seeds"), g, seeds); err != nil {
		t.Fatal(err)
	}
	m := testrun.SolveConfig(t, solver.Config{Game: g, Dir: filepath.Join(dir, "run"), Seeds: filepath.Join(dir, "seeds"), Workers: 2})
	// Whole endgames: K+R v K and K v K, every legal position.
	if len(m.Tiers) != 2 || m.Total != 8748+108 {
		t.Fatalf("the run holds %d tiers, %d positions; want K+R v K and K v K whole (8856)", len(m.Tiers), m.Total)
	}
	o := testrun.Oracle(t, filepath.Join(dir, "run"), g)
	rep, err := Xiangqi(game, g, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotCovered != 3 || len(rep.Moves) != 7 {
		t.Fatalf("%d moves reviewed, %d not covered (%v); want 7 and 3", len(rep.Moves), rep.NotCovered, rep.Reasons)
	}
	for _, m := range rep.Moves {
		// The best move keeps the position's outcome; what the move
		// played leaves is never better.
		if m.Before.Value == "win" && m.Before.Remoteness%2 != 1 || m.Before.Value == "lose" && m.Before.Remoteness%2 != 0 {
			t.Errorf("ply %d: %v: a win is an odd number of plies away, a loss an even one", m.Ply, m.Before)
		}
		switch m.Move {
		case "e8e7":
			if m.Error != SlowerWin || m.Before.Value != "win" || m.Before.Remoteness != 1 || m.PliesLost < 2 {
				t.Errorf("ply %d %s: %+v; want a win in 1 made slower", m.Ply, m.Move, m)
			}
		case "e7f7":
			if m.Error != WinToDraw || m.After.Value != "draw" {
				t.Errorf("ply %d %s: %+v; want a win thrown to a draw", m.Ply, m.Move, m)
			}
		default:
			if m.Error != "" {
				t.Errorf("ply %d %s: %+v; want no error", m.Ply, m.Move, m)
			}
		}
	}
	red, black := rep.Totals[0], rep.Totals[1]
	if red.Moves != 3 || red.Errors != 2 || red.WinToDraw != 1 || red.SlowerWins != 1 || black.Moves != 4 || black.Errors != 0 {
		t.Errorf("totals %+v", rep.Totals)
	}
}
