package bearoff

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/reach"
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
			v = bestPlays(g, i, func(after int) float64 { return 1 - p(j, after) })
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

// bestPlays is the mean over the rolls, by their weights, of the value
// of the best play of board i, in the plain recursive play generator: f
// values a play for the mover by the index of the board it leaves.
func bestPlays(g *Game, i int, f func(after int) float64) float64 {
	var v float64
	for k, r := range rolls {
		best := math.Inf(-1)
		for _, pl := range plays(g.sides.boards[i], g.points, r) {
			best = math.Max(best, f(Index(pl.After, g.points)))
		}
		v += float64(rollWeight(k)) / totalWeight * best
	}
	return v
}

// solveRun solves g with the embedded solver into a temporary folder and
// returns an oracle on it.
func solveRun(t testing.TB, g tiergame.Game, cfg solver.Config) *oracle.Oracle {
	t.Helper()
	cfg.Game = g
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "run")
	}
	r, err := solver.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Reach(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Solve(ctx); err != nil {
		t.Fatal(err)
	}
	o, err := oracle.Open(cfg.Dir, g)
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

// noKernel is a bearoff without its kernel: the solver goes position by
// position.
type noKernel struct {
	tiergame.Game
	tiergame.Chance
}

func (noKernel) Exhaustive() bool { return true }

// TestKernelRunMatchesGeneric solves a variant with and without the
// kernel: every value must be the same bits.
func TestKernelRunMatchesGeneric(t *testing.T) {
	g, err := NewGame(4, 5)
	if err != nil {
		t.Fatal(err)
	}
	fast := solveRun(t, g, solver.Config{Workers: 2})
	slow := solveRun(t, noKernel{g, g}, solver.Config{Workers: 2, Ranges: 5})
	for i := range g.n {
		for j := range g.n {
			tier, pos := g.Position(i, j)
			a, err1 := fast.Win(tier, pos)
			b, err2 := slow.Win(tier, pos)
			if err1 != nil || err2 != nil || a != b {
				t.Fatalf("mover %d, opponent %d: kernel %v (%v), position by position %v (%v)", i, j, a, err1, b, err2)
			}
		}
	}
}

// TestSeededRun solves only what a few positions reach (Config.Seeds) and
// checks their values and their plays' against a full run.
func TestSeededRun(t *testing.T) {
	g, err := NewGame(4, 6)
	if err != nil {
		t.Fatal(err)
	}
	full := solveRun(t, g, solver.Config{})
	part, picked := seededRun(t, g, 5, 7, "")
	for _, ij := range picked {
		tier, pos := g.Position(ij[0], ij[1])
		want, _ := full.Win(tier, pos)
		got, err := part.Win(tier, pos)
		if err != nil || got != want {
			t.Fatalf("seed %v: %v (%v), full run %v", ij, got, err, want)
		}
		for k := range rolls {
			ps, err := part.Plays(tier, pos, k)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if w, _ := full.Win(p.Tier, p.Pos); w != p.Child {
					t.Fatalf("seed %v roll %d play %s: %v, full run %v", ij, k, p.Name, p.Child, w)
				}
			}
		}
	}
	// A position no seed reaches is not solved.
	tier, pos := g.Start()
	if _, err := part.Win(tier, pos); err == nil {
		t.Errorf("the start position is solved in a run from seeds that do not reach it")
	}
}

// seededRun solves, into dir (a temporary folder if ""), only what n
// random positions reach (Config.Seeds, drawn from seed), and returns an
// oracle on it and the positions (mover, opponent).
func seededRun(t *testing.T, g *Game, n int, seed uint64, dir string) (*oracle.Oracle, [][2]int) {
	t.Helper()
	seeds := map[tiergame.Tier][]tiergame.Position{}
	var picked [][2]int
	r := rand.New(rand.NewPCG(seed, seed+1))
	for range n {
		i, j := 1+r.IntN(g.n-1), 1+r.IntN(g.n-1)
		tier, pos := g.Position(i, j)
		seeds[tier] = append(seeds[tier], pos)
		picked = append(picked, [2]int{i, j})
	}
	seedDir := t.TempDir()
	if _, err := reach.WriteSeeds(seedDir, g, seeds); err != nil {
		t.Fatal(err)
	}
	return solveRun(t, g, solver.Config{Seeds: seedDir, Dir: dir}), picked
}

// BigRunEnv names a solved run of 15 checkers on 6 points (made by
// "tierd solve --game bearoff"); TestBigRunAgreesWithSmall checks it.
const BigRunEnv = "TIERSOLVE_BEAROFF15"

// TestBigRunAgreesWithSmall checks a solved 15-checker run against a 6-checker
// one: a position of at most 6 checkers a side has the same one-sided
// indices and the same game tree in both variants, so the same bits.
func TestBigRunAgreesWithSmall(t *testing.T) {
	dir := os.Getenv(BigRunEnv)
	if dir == "" {
		t.Skipf("set %s to a solved run of bearoff checkers=15,points=6", BigRunEnv)
	}
	big, err := NewGame(15, 6)
	if err != nil {
		t.Fatal(err)
	}
	bo, err := oracle.Open(dir, big)
	if err != nil {
		t.Fatal(err)
	}
	defer bo.Close()
	small, _ := NewGame(6, 6)
	so := solveRun(t, small, solver.Config{})
	for i := range small.n {
		for j := range small.n {
			st, sp := small.Position(i, j)
			bt, bp := big.Position(i, j)
			want, err1 := so.Win(st, sp)
			got, err2 := bo.Win(bt, bp)
			if err1 != nil || err2 != nil || got != want {
				t.Fatalf("(%d, %d) %s: 15-checker run %v (%v), 6-checker run %v (%v)", i, j, small.Format(st, sp), got, err2, want, err1)
			}
		}
	}
	t.Logf("%d positions of at most 6 checkers agree bit for bit", small.n*small.n)
}
