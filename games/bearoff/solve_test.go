package bearoff

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// reference solves a variant with a plain memoized recursion in float64
// over gnubg's two-sided index, with the recursive play generator (not
// the move lists the solver uses): ref[i*N+j] is the chance that mover i
// beats opponent j.
func reference(g *Game) []float64 {
	n := g.n
	ref := make([]float64, n*n)
	done := make([]bool, n*n)
	var p func(i, j int) float64
	p = func(i, j int) float64 {
		key := i*n + j
		if done[key] {
			return ref[key]
		}
		var v float64
		switch {
		case i == 0:
			v = 1
		case j == 0:
			v = 0
		default:
			for k, r := range rolls {
				best := 0.0
				for _, pl := range plays(g.sides.boards[i], g.points, r) {
					best = max(best, 1-p(j, Index(pl.After, g.points)))
				}
				v += float64(rollWeight(k)) / totalWeight * best
			}
		}
		ref[key], done[key] = v, true
		return v
	}
	for i := range n {
		for j := range n {
			p(i, j)
		}
	}
	return ref
}

// solveRun solves g with the embedded solver into a temporary folder and
// returns an oracle on it.
func solveRun(t testing.TB, g tiergame.Game, cfg solver.Config) *solver.Oracle {
	t.Helper()
	cfg.Game = g
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "run")
	}
	r, err := solver.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Reach(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Solve(ctx); err != nil {
		t.Fatal(err)
	}
	o, err := solver.OpenOracle(cfg.Dir, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// TestAgainstReference solves small variants with the solver (kernel and
// one position at a time) and compares every position with the
// reference.
func TestAgainstReference(t *testing.T) {
	for _, v := range []struct{ checkers, points int }{{1, 1}, {2, 3}, {3, 6}, {4, 4}, {5, 2}} {
		g, err := NewGame(v.checkers, v.points)
		if err != nil {
			t.Fatal(err)
		}
		ref := reference(g)
		o := solveRun(t, g, solver.Config{Workers: 2, Ranges: 3})
		worst := 0.0
		for i := range g.n {
			for j := range g.n {
				tier, pos := g.Position(i, j)
				got, err := o.Win(tier, pos)
				if err != nil {
					t.Fatal(err)
				}
				worst = max(worst, math.Abs(got.Float()-ref[i*g.n+j]))
			}
		}
		t.Logf("%s: %d positions, worst difference from the float64 reference %.3g", g.Option(), g.n*g.n, worst)
		if worst > 1e-8 {
			t.Errorf("%s: values differ from the reference by up to %g", g.Option(), worst)
		}
	}
}
