package bearoff

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// moneyGame returns a variant with the money planes.
func moneyGame(t testing.TB, checkers, points int) *Game {
	t.Helper()
	g, err := NewVariant(checkers, points, CubeMoney)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomPlanes fills the child tiers of tier t with random planes (but
// those of primitive positions), three values a position by position.
func randomPlanes(g *Game, t tiergame.Tier, r *rand.Rand) map[tiergame.Tier][]tiergame.Prob {
	vals := map[tiergame.Tier][]tiergame.Prob{}
	for _, c := range g.ChildTiers(t) {
		v := make([]tiergame.Prob, cubeStates*g.TierSize(c))
		for p := range g.TierSize(c) {
			for s := range cubeStates {
				v[cubeStates*p+uint64(s)] = tiergame.Prob(r.Uint32N(uint32(tiergame.ProbOne) + 1))
			}
			if pv := primitive(g.SidesOf(c, tiergame.Position(p))); pv != tiergame.Undecided {
				fill(v[cubeStates*p:cubeStates*(p+1)], tiergame.ProbOf(pv))
			}
		}
		vals[c] = v
	}
	return vals
}

// TestPlaneKernelMatchesGeneric checks SolvePlanes against PlaneValues on
// every position of a few tiers with random child planes, for whole tiers
// and ragged sub-ranges.
func TestPlaneKernelMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, v := range []struct{ checkers, points int }{{4, 6}, {6, 3}, {3, 2}} {
		g := moneyGame(t, v.checkers, v.points)
		for _, tier := range []tiergame.Tier{1, 5, tiergame.Tier(g.maxPip), tiergame.Tier(g.maxPip + 3), tiergame.Tier(2 * g.maxPip)} {
			vals := randomPlanes(g, tier, r)
			get := func(c tiergame.Tier) []tiergame.Prob { return vals[c] }
			kid := func(c tiergame.Tier, p tiergame.Position) ([]tiergame.Prob, bool) {
				v, ok := vals[c]
				return v[cubeStates*p : cubeStates*(p+1)], ok
			}
			size := g.TierSize(tier)
			want := make([]tiergame.Prob, cubeStates*size)
			for p := range size {
				if err := g.PlaneValues(tier, tiergame.Position(p), kid, want[cubeStates*p:cubeStates*(p+1)]); err != nil {
					t.Fatal(err)
				}
			}
			for _, cut := range [][2]uint64{{0, size}, {size / 3, size/3 + size/5 + 1}, {size - 1, size}} {
				lo, hi := min(cut[0], size), min(cut[1], size)
				out := make([]tiergame.Prob, cubeStates*(hi-lo))
				if err := g.SolvePlanes(tier, tiergame.Position(lo), tiergame.Position(hi), get, out); err != nil {
					t.Fatal(err)
				}
				for k := range out {
					if w := want[cubeStates*lo+uint64(k)]; out[k] != w {
						p := lo + uint64(k)/cubeStates
						t.Fatalf("%s tier %d [%d, %d): position %d, %v: kernel %v, one by one %v", g.Option(), tier, lo, hi, p, CubeState(k%cubeStates), out[k], w)
					}
				}
			}
		}
	}
}

// moneyReference solves the cubeful money game with a plain memoized
// recursion in float64 over gnubg's two-sided index, with the recursive
// play generator, written from the rules rather than from the planes: the
// value of a position to the player on roll, after their cube decision,
// in each cube state; ref returns the no-double equity (the plane).
type moneyReference struct {
	g    *Game
	memo map[[3]int]float64
}

// value is the equity of mover i against j with the cube in state s, the
// mover deciding on the cube first.
func (m *moneyReference) value(i, j int, s CubeState) float64 {
	nd := m.noDouble(i, j, s)
	if s == OpponentOwns {
		return nd
	}
	take := 2 * m.noDouble(i, j, OpponentOwns) // the opponent takes: they own the cube at 2
	return math.Max(nd, math.Min(take, 1))     // or passes: the doubler wins 1
}

// noDouble is the equity of mover i rolling without doubling.
func (m *moneyReference) noDouble(i, j int, s CubeState) float64 {
	switch {
	case i == 0:
		return 1
	case j == 0:
		return -1
	}
	key := [3]int{i, j, int(s)}
	if v, ok := m.memo[key]; ok {
		return v
	}
	v := bestPlays(m.g, i, func(after int) float64 { return -m.value(j, after, s.Flip()) })
	m.memo[key] = v
	return v
}

// TestMoneyAgainstReference solves small variants with cube=money (kernel
// and one position at a time) and compares every plane of every position
// with the reference, and the cubeless values with a cubeless run's.
func TestMoneyAgainstReference(t *testing.T) {
	for _, v := range []struct{ checkers, points int }{{1, 1}, {3, 3}, {2, 6}, {4, 4}} {
		g := moneyGame(t, v.checkers, v.points)
		ref := &moneyReference{g: g, memo: map[[3]int]float64{}}
		o := solveRun(t, g, solver.Config{Workers: 2, Ranges: 3})
		plain, _ := NewGame(v.checkers, v.points)
		po := solveRun(t, plain, solver.Config{})
		worst := 0.0
		for i := range g.n {
			for j := range g.n {
				tier, pos := g.Position(i, j)
				got, err := o.Planes(tier, pos)
				if err != nil {
					t.Fatal(err)
				}
				for s := range cubeStates {
					worst = max(worst, math.Abs(got[s].Equity()-ref.noDouble(i, j, CubeState(s))))
				}
				w1, _ := o.Win(tier, pos)
				w2, _ := po.Win(tier, pos)
				if w1 != w2 {
					t.Fatalf("(%d, %d): cubeless %v with cube=money, %v without", i, j, w1, w2)
				}
			}
		}
		t.Logf("%s: %d positions, 3 planes, worst difference from the float64 reference %.3g", g.Option(), g.n*g.n, worst)
		if worst > 1e-8 {
			t.Errorf("%s: planes differ from the reference by up to %g", g.Option(), worst)
		}
	}
}

// TestMoneyKernelRunMatchesGeneric solves a money variant with and without
// the kernels: every plane must be the same bits.
func TestMoneyKernelRunMatchesGeneric(t *testing.T) {
	g := moneyGame(t, 4, 5)
	fast := solveRun(t, g, solver.Config{Workers: 2})
	slow := solveRun(t, noPlaneKernel{g, g, g}, solver.Config{Workers: 2, Ranges: 5})
	for i := range g.n {
		for j := range g.n {
			tier, pos := g.Position(i, j)
			a, err1 := fast.Planes(tier, pos)
			b, err2 := slow.Planes(tier, pos)
			if err1 != nil || err2 != nil || fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("mover %d, opponent %d: kernel %v (%v), position by position %v (%v)", i, j, a, err1, b, err2)
			}
		}
	}
}

// noPlaneKernel is a money bearoff without its kernels: the solver goes
// position by position.
type noPlaneKernel struct {
	tiergame.Game
	tiergame.Chance
	tiergame.Planes
}

func (noPlaneKernel) Exhaustive() bool { return true }

// BenchmarkPlaneKernel runs the plane kernel over the middle tier of a
// variant (8 checkers on 6 points unless TIERSOLVE_BENCH_CHECKERS says
// otherwise) with random child planes.
func BenchmarkPlaneKernel(b *testing.B) {
	checkers := 8
	if s := os.Getenv("TIERSOLVE_BENCH_CHECKERS"); s != "" {
		checkers, _ = strconv.Atoi(s)
	}
	g := moneyGame(b, checkers, 6)
	tier := tiergame.Tier(g.maxPip)
	vals := randomPlanes(g, tier, rand.New(rand.NewPCG(5, 6)))
	get := func(c tiergame.Tier) []tiergame.Prob { return vals[c] }
	size := g.TierSize(tier)
	out := make([]tiergame.Prob, cubeStates*size)
	b.Run(fmt.Sprintf("checkers=%d/tier=%d", checkers, tier), func(b *testing.B) {
		for b.Loop() {
			if err := g.SolvePlanes(tier, 0, tiergame.Position(size), get, out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds(), "pos/s")
	})
}

// TestMoneySeededRun solves the planes of what a few positions reach
// (the solver's path position by position, over sparse tiers) and checks
// them against a full run, and that verify re-derives them.
func TestMoneySeededRun(t *testing.T) {
	g := moneyGame(t, 4, 6)
	full := solveRun(t, g, solver.Config{})
	runDir := filepath.Join(t.TempDir(), "run")
	part, picked := seededRun(t, g, 4, 17, runDir)
	for _, ij := range picked {
		tier, pos := g.Position(ij[0], ij[1])
		want, err1 := full.Planes(tier, pos)
		got, err2 := part.Planes(tier, pos)
		if err1 != nil || err2 != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %v: %v (%v), full run %v (%v)", ij, got, err2, want, err1)
		}
	}
	run, err := solver.Open(solver.Config{Game: g, Dir: runDir})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	rep, err := run.Verify(context.Background())
	if err != nil || !rep.OK() || rep.Positions == 0 {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
}
