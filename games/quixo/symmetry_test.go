package quixo

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/games/internal/grid"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// refCanonical is the documented rule computed plainly: the image of the
// board with the smallest key os<<size² | xs.
func refCanonical(n int, xs, os uint32) (uint32, uint32) {
	cells := n * n
	best := ^uint64(0)
	for _, perm := range grid.SquareSymmetries(n) {
		x, o := grid.Permute(uint64(xs), perm), grid.Permute(uint64(os), perm)
		best = min(best, o<<cells|x)
	}
	return uint32(best & (1<<cells - 1)), uint32(best >> cells)
}

// TestCanonicalRule checks canonical (the shifts of 4x4, the tables of
// the other sizes) against the rule on random boards.
func TestCanonicalRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := MinSize; n <= MaxSize; n++ {
		g := mustNew(t, n)
		for range race.Samples(20000, 2000) {
			var xs, os uint32
			for c := 0; c < g.cells; c++ {
				switch rng.IntN(3) {
				case 1:
					xs |= 1 << c
				case 2:
					os |= 1 << c
				}
			}
			gx, gos := g.canonical(xs, os)
			wx, wos := refCanonical(n, xs, os)
			if gx != wx || gos != wos {
				t.Fatalf("%dx%d: canonical(%#x, %#x) = %#x, %#x, want %#x, %#x", n, n, xs, os, gx, gos, wx, wos)
			}
		}
	}
}

// TestOrbits3x3 counts the canonical positions of every 3x3 tier against
// the orbits by Burnside's lemma (the mean number of boards each symmetry
// fixes). TestConformance checks the symmetries themselves.
func TestOrbits3x3(t *testing.T) {
	g := mustNew(t, 3)
	perms := grid.SquareSymmetries(3)
	for _, tier := range allTiers(g) {
		canonical, fixed := 0, 0
		for p := range tiergame.Position(g.TierSize(tier)) {
			if g.Canonical(tier, p) == p {
				canonical++
			}
			xs, os, _ := g.unhash(g.tierOf(tier), uint64(p))
			for _, perm := range perms {
				if grid.Permute(uint64(xs), perm) == uint64(xs) && grid.Permute(uint64(os), perm) == uint64(os) {
					fixed++
				}
			}
		}
		if canonical*8 != fixed {
			t.Errorf("tier %s: %d canonical positions, %d/8 orbits", g.TierName(tier), canonical, fixed)
		}
	}
}

// TestCanonicalRandom checks Canonical against the rule at random
// positions of 4x4 and 5x5.
func TestCanonicalRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{4, 5} {
		g := mustNew(t, n)
		tiers := allTiers(g)
		for range race.Samples(300, 40) {
			tier := tiers[rng.IntN(len(tiers))]
			ps := tiergametest.Walk(rng, g.TierSize(tier), 8)
			for _, p := range ps {
				xs, os, side := g.unhash(g.tierOf(tier), uint64(p))
				cx, cos := refCanonical(n, xs, os)
				if want := tiergame.Position(g.hash(g.tierOf(tier), cx, cos, side)); g.Canonical(tier, p) != want {
					t.Fatalf("%s: canonical %s, want %s", g.Format(tier, p), g.Format(tier, g.Canonical(tier, p)), g.Format(tier, want))
				}
			}
		}
	}
}

// TestCanonicalMovesOrder checks that the canonical cursor keeps the order
// of Moves on ascending walks (TestConformance checks it as a multiset).
func TestCanonicalMovesOrder(t *testing.T) {
	g := mustNew(t, 4)
	rng := rand.New(rand.NewPCG(9, 10))
	tier := tierID(5, 4)
	cur := tiergame.NewCanonicalCursor(g, tier)
	var got, want []tiergame.Child
	for _, p := range tiergametest.Walk(rng, g.TierSize(tier), race.Samples(20000, 2000)) {
		var v, wv tiergame.Value
		v, got = cur.Moves(p, got[:0])
		wv, want = g.Moves(tier, p, want[:0])
		for i := range want {
			want[i].Pos = g.Canonical(want[i].Tier, want[i].Pos)
		}
		if v != wv || !slices.Equal(got, want) {
			t.Fatalf("%s: %v %v, want %v %v", g.Format(tier, p), v, got, wv, want)
		}
	}
}
