package gametest

import (
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// CheckSymmetry checks g's symmetries at positions ps of tier, which
// should include positions that are not primitive: the images of p start
// with p, stay in the tier's hash space and are n, every member of p's
// orbit has the same canonical position, which is in the orbit; every
// image has p's primitive value and, canonicalized, p's children (as a
// multiset); the canonical cursor gives the canonical children of Moves
// in order (and by tier, if it can); and CanonicalParents gives the canonical parents of Parents,
// once each, in each of parentTiers (for an Unmover).
func CheckSymmetry(t testing.TB, g tiergame.Game, tier tiergame.Tier, n int, ps []tiergame.Position, parentTiers ...tiergame.Tier) {
	t.Helper()
	s, ok := g.(tiergame.Symmetric)
	if !ok {
		t.Fatalf("%s is not Symmetric", g.Name())
	}
	canonical := func(cs []tiergame.Child) []tiergame.Child {
		out := make([]tiergame.Child, len(cs))
		for i, c := range cs {
			out[i] = tiergame.Child{Tier: c.Tier, Pos: s.Canonical(c.Tier, c.Pos)}
		}
		return out
	}
	sorted := func(cs []tiergame.Child) []tiergame.Child {
		slices.SortFunc(cs, func(a, b tiergame.Child) int {
			if a.Tier != b.Tier {
				return int(a.Tier) - int(b.Tier)
			}
			return int(a.Pos) - int(b.Pos)
		})
		return cs
	}
	cur := tiergame.NewCanonicalCursor(g, tier)
	um, _ := g.(tiergame.Unmover)
	for _, p := range ps {
		imgs := s.Images(tier, p, nil)
		if len(imgs) != n || imgs[0] != p {
			t.Fatalf("%s: images %v: want %d starting with %d", g.Format(tier, p), imgs, n, p)
		}
		can := s.Canonical(tier, p)
		if !slices.Contains(imgs, can) {
			t.Fatalf("%s: canonical %d is not among its images %v", g.Format(tier, p), can, imgs)
		}
		v, cs := g.Moves(tier, p, nil)
		want := sorted(canonical(cs))
		for _, q := range imgs {
			if uint64(q) >= g.TierSize(tier) {
				t.Fatalf("%s: image %d outside the tier's %d hashes", g.Format(tier, p), q, g.TierSize(tier))
			}
			if c := s.Canonical(tier, q); c != can {
				t.Fatalf("%s: image %s has canonical %d, p has %d", g.Format(tier, p), g.Format(tier, q), c, can)
			}
			qv, qcs := g.Moves(tier, q, nil)
			if qv != v || !slices.Equal(sorted(canonical(qcs)), want) {
				t.Fatalf("%s: image %s has value %v and canonical children %v, p has %v and %v",
					g.Format(tier, p), g.Format(tier, q), qv, sorted(canonical(qcs)), v, want)
			}
		}
		cv, ccs := cur.Moves(p, nil)
		if cv != v || !slices.Equal(ccs, canonical(cs)) {
			t.Fatalf("%s: canonical cursor gives %v %v, Moves canonicalized %v %v", g.Format(tier, p), cv, ccs, v, canonical(cs))
		}
		if bt, ok := cur.(tiergame.ByTierCursor); ok {
			CheckByTier(t, g, tier, p, bt, v, canonical(cs))
		}
		for _, pt := range parentTiers {
			var want []tiergame.Position
			for _, q := range um.Parents(tier, p, pt, nil) {
				want = append(want, s.Canonical(pt, q))
			}
			slices.Sort(want)
			want = slices.Compact(want)
			got := tiergame.CanonicalParents(g, tier, p, pt, nil)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: canonical parents in tier %d %v, want %v", g.Format(tier, p), pt, got, want)
			}
		}
	}
}
