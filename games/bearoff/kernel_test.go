package bearoff

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// randomTiers fills the child tiers of tier t with random values (but
// the values of primitive positions) and returns them by tier, for the
// kernel alone.
func randomTiers(g *Game, t tiergame.Tier, r *rand.Rand) map[tiergame.Tier][]tiergame.Prob {
	vals := map[tiergame.Tier][]tiergame.Prob{}
	for _, c := range g.ChildTiers(t) {
		v := make([]tiergame.Prob, g.TierSize(c))
		for p := range v {
			v[p] = tiergame.Prob(r.Uint32N(uint32(tiergame.ProbOne) + 1))
			if pv := primitive(g.SidesOf(c, tiergame.Position(p))); pv != tiergame.Undecided {
				v[p] = tiergame.ProbOf(pv)
			}
		}
		vals[c] = v
	}
	return vals
}

// TestKernelMatchesGeneric checks the kernel against the position by
// position rule (tiergame.ChanceValue over ChanceMoves) on every position
// of a few tiers with random child values, for whole tiers and for ragged
// sub-ranges.
func TestKernelMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, v := range []struct{ checkers, points int }{{4, 6}, {6, 3}, {3, 2}} {
		g, err := NewGame(v.checkers, v.points)
		if err != nil {
			t.Fatal(err)
		}
		for _, tier := range []tiergame.Tier{1, 5, tiergame.Tier(g.maxPip), tiergame.Tier(g.maxPip + 3), tiergame.Tier(2 * g.maxPip)} {
			vals := randomTiers(g, tier, r)
			get := func(c tiergame.Tier) []tiergame.Prob { return vals[c] }
			size := g.TierSize(tier)
			want := make([]tiergame.Prob, size)
			for p := range want {
				want[p] = genericValue(t, g, tier, tiergame.Position(p), get)
			}
			for _, cut := range [][2]uint64{{0, size}, {size / 3, size/3 + size/5 + 1}, {size - 1, size}} {
				lo, hi := min(cut[0], size), min(cut[1], size)
				out := make([]tiergame.Prob, hi-lo)
				if err := g.SolveChance(tier, tiergame.Position(lo), tiergame.Position(hi), get, out); err != nil {
					t.Fatal(err)
				}
				for k := range out {
					if out[k] != want[lo+uint64(k)] {
						t.Fatalf("%s tier %d [%d, %d): position %d: kernel %v, one by one %v", g.Option(), tier, lo, hi, lo+uint64(k), out[k], want[lo+uint64(k)])
					}
				}
			}
		}
	}
}

// genericValue is the value of one position by the rule every solver
// follows.
func genericValue(t *testing.T, g *Game, tier tiergame.Tier, p tiergame.Position, vals func(tiergame.Tier) []tiergame.Prob) tiergame.Prob {
	v, cs, ends := g.ChanceMoves(tier, p, nil, nil)
	if v != tiergame.Undecided {
		return tiergame.ProbOf(v)
	}
	var acc uint64
	lo := 0
	for k, hi := range ends {
		best := tiergame.ProbOne
		for _, c := range cs[lo:hi] {
			best = min(best, vals(c.Tier)[c.Pos])
		}
		acc += uint64(rollWeight(k)) * uint64(best)
		lo = hi
	}
	return tiergame.ChanceValue(acc, totalWeight)
}

// BenchmarkKernel runs the kernel over the middle tier of a variant (10
// checkers on 6 points unless TIERSOLVE_BENCH_CHECKERS says otherwise)
// with random child values. pos/s is positions solved per second, and
// ns/child the time per child look-up.
func BenchmarkKernel(b *testing.B) {
	checkers := 10
	if s := os.Getenv("TIERSOLVE_BENCH_CHECKERS"); s != "" {
		checkers, _ = strconv.Atoi(s)
	}
	g, err := NewGame(checkers, 6)
	if err != nil {
		b.Fatal(err)
	}
	tier := tiergame.Tier(g.maxPip)
	vals := randomTiers(g, tier, rand.New(rand.NewPCG(5, 6)))
	get := func(c tiergame.Tier) []tiergame.Prob { return vals[c] }
	size := g.TierSize(tier)
	out := make([]tiergame.Prob, size)
	var children uint64
	s := g.moveLists()
	for p := range size {
		i, _ := g.SidesOf(tier, tiergame.Position(p))
		children += uint64(s.start[(i+1)*len(rolls)] - s.start[i*len(rolls)])
	}
	b.Run(fmt.Sprintf("checkers=%d/tier=%d", checkers, tier), func(b *testing.B) {
		for b.Loop() {
			if err := g.SolveChance(tier, 0, tiergame.Position(size), get, out); err != nil {
				b.Fatal(err)
			}
		}
		secs := b.Elapsed().Seconds() / float64(b.N)
		b.ReportMetric(float64(size)/secs, "pos/s")
		b.ReportMetric(secs*1e9/float64(children), "ns/child")
	})
}
