// Package testrun solves small runs for tests: the reach and solve that
// tests of the packages reading runs (serve, query) start from.
package testrun

import (
	"context"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Solve reaches and solves the game (games.New(game, option)) into dir
// with two workers, symmetric when symmetry is set, and returns the game.
// It fails the test on any error.
func Solve(t testing.TB, game, option, dir string, symmetry bool) tiergame.Game {
	t.Helper()
	g, err := games.New(game, option)
	if err != nil {
		t.Fatal(err)
	}
	r, err := solver.Open(solver.Config{Game: g, Dir: dir, Workers: 2, Symmetry: symmetry})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Reach(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return g
}
