// Package testrun solves small runs for tests: the reach and solve that
// tests of the packages reading runs (serve, query, review) start from,
// and the oracle they read them with.
package testrun

import (
	"context"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
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
	SolveConfig(t, solver.Config{Game: g, Dir: dir, Workers: 2, Symmetry: symmetry})
	return g
}

// SolveConfig opens the run cfg describes (a game of the caller's, seeds,
// workers), reaches and solves it, closes it and returns its manifest.
// It fails the test on any error.
func SolveConfig(t testing.TB, cfg solver.Config) *runfolder.Manifest {
	t.Helper()
	r, err := solver.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Reach(context.Background()); err != nil {
		r.Close()
		t.Fatal(err)
	}
	if err := r.Solve(context.Background()); err != nil {
		r.Close()
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return r.Manifest
}

// Oracle opens the solved run in dir as g's, closed when the test ends.
// It fails the test if the run does not open.
func Oracle(t testing.TB, dir string, g tiergame.Game) *oracle.Oracle {
	t.Helper()
	o, err := oracle.Open(dir, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}
