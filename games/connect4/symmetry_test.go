package connect4

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// TestSymmetry checks, at walks through every tier of several board sizes
// (reachable positions or not), that the canonical position is the
// smaller hash, and that the canonical cursor, walking, gives the
// canonical children of Moves in order (TestConformance checks the rest
// of the symmetry).
func TestSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	count := race.Samples(200, 30)
	for g, n := range tiers(t, [][2]int{{7, 6}, {6, 5}, {5, 4}, {4, 4}, {1, 6}, {7, 1}, {3, 2}}) {
		tier := tiergame.Tier(n)
		ps := tiergametest.Walk(rng, g.TierSize(tier), count)
		cur := tiergame.NewCanonicalCursor(g, tier)
		for _, p := range ps {
			imgs := g.Images(tier, p, nil)
			if c := g.Canonical(tier, p); c != slices.Min(imgs) {
				t.Fatalf("%dx%d %s: canonical %d, images %v", g.w, g.h, g.Format(tier, p), c, imgs)
			}
			v, got := cur.Moves(p, nil)
			wv, want := g.Moves(tier, p, nil)
			for i := range want {
				want[i].Pos = g.Canonical(want[i].Tier, want[i].Pos)
			}
			if v != wv || !slices.Equal(got, want) {
				t.Fatalf("%dx%d %s: canonical cursor %v %v, want %v %v", g.w, g.h, g.Format(tier, p), v, got, wv, want)
			}
		}
	}
}

// TestSymmetryOrbits counts the canonical positions of small boards
// against the orbits by Burnside's lemma: (boards + mirror-symmetric
// boards) / 2.
func TestSymmetryOrbits(t *testing.T) {
	for g, n := range tiers(t, [][2]int{{4, 4}, {5, 3}, {3, 2}}) {
		tier := tiergame.Tier(n)
		canonical, fixed := uint64(0), uint64(0)
		for p := range tiergame.Position(g.TierSize(tier)) {
			if g.Canonical(tier, p) == p {
				canonical++
			}
			if x, o := g.unhash(n, p); g.mirror(x) == x && g.mirror(o) == o {
				fixed++
			}
		}
		if 2*canonical != g.TierSize(tier)+fixed {
			t.Errorf("%dx%d tier %d: %d canonical positions, (%d+%d)/2 orbits", g.w, g.h, n, canonical, g.TierSize(tier), fixed)
		}
	}
}
