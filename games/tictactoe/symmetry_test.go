package tictactoe

import (
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/games/internal/grid"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestSymmetry checks that the canonical position is the smallest image,
// and that there are as many canonical positions as orbits by Burnside's
// lemma (the mean number of boards each symmetry fixes), at every
// position of every tier. TestConformance checks the rest of the
// symmetries.
func TestSymmetry(t *testing.T) {
	g := Game{}
	perms := grid.SquareSymmetries(3)
	for tier := tiergame.Tier(0); tier <= cells; tier++ {
		canonical, fixed := 0, 0
		for p := range tiergame.Position(g.TierSize(tier)) {
			imgs := g.Images(tier, p, nil)
			if c := g.Canonical(tier, p); c != slices.Min(imgs) {
				t.Fatalf("%s: canonical %d, smallest image %d", g.Format(tier, p), c, slices.Min(imgs))
			}
			if g.Canonical(tier, p) == p {
				canonical++
			}
			x, o := unhash(int(tier), p)
			for _, perm := range perms {
				if grid.Permute(uint64(x), perm) == uint64(x) && grid.Permute(uint64(o), perm) == uint64(o) {
					fixed++
				}
			}
		}
		if canonical*8 != fixed {
			t.Errorf("tier %d: %d canonical positions, %d/8 orbits", tier, canonical, fixed)
		}
	}
}
