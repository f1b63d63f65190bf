package tiergametest

import (
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// canonicalized returns cs with every child that Check can look at
// replaced by its canonical position, sorted.
func (c *checker) canonicalized(t tiergame.Tier, cs []tiergame.Child) []tiergame.Child {
	out := make([]tiergame.Child, len(cs))
	for i, ch := range cs {
		if c.validChild(t, ch) {
			ch.Pos = c.sym.Canonical(ch.Tier, ch.Pos)
		}
		out[i] = ch
	}
	return sortChildren(out)
}

// checkSymmetry checks the symmetries at p, of value v and children cs:
// its images start with p and stay in the tier, its canonical position is
// an image and that of every image, and every image has the same value
// and (two of them each time) the same children up to symmetry.
func (c *checker) checkSymmetry(t tiergame.Tier, p tiergame.Position, v tiergame.Value, cs []tiergame.Child) {
	got := c.sym.Images(t, p, posPrefix(8))
	if !keptPositions(got) {
		c.failAt(ruleAppends, t, p, "Images with a non-empty dst does not keep its contents")
		return
	}
	imgs := got[sentinels:]
	if len(imgs) == 0 || imgs[0] != p {
		c.failAt(ruleImages, t, p, "Images %s do not start with the position itself (the identity)", c.positions(t, imgs))
		return
	}
	size := c.graph.info[t].size
	for _, q := range imgs {
		if uint64(q) >= size {
			c.failAt(ruleImages, t, p, "an image has hash %d, outside the tier's %d", q, size)
			return
		}
	}
	can := c.sym.Canonical(t, p)
	switch {
	case !slices.Contains(imgs, can):
		c.failAt(ruleCanonical, t, p, "Canonical gives %s, not one of its images %s", c.child(tiergame.Child{Tier: t, Pos: can}), c.positions(t, imgs))
		return
	case c.sym.Canonical(t, can) != can:
		c.failAt(ruleCanonical, t, p, "Canonical gives %s, whose own Canonical is %s: not idempotent",
			c.child(tiergame.Child{Tier: t, Pos: can}), c.child(tiergame.Child{Tier: t, Pos: c.sym.Canonical(t, can)}))
		return
	}
	for _, q := range imgs[1:] {
		if qc := c.sym.Canonical(t, q); qc != can {
			c.failAt(ruleCanonical, t, p, "its canonical position is %s, but its image %s has %s", c.child(tiergame.Child{Tier: t, Pos: can}),
				c.child(tiergame.Child{Tier: t, Pos: q}), c.child(tiergame.Child{Tier: t, Pos: qc}))
			return
		}
	}
	// Every image has p's value; the children of two of them,
	// canonicalized, are p's: those cost the most, and which two varies
	// from one position to the next, so that every symmetry is tried.
	want := c.canonicalized(t, cs)
	first := int(mix(uint64(t)<<40^uint64(p)) % uint64(len(imgs)))
	var qcs []tiergame.Child
	for i, q := range imgs {
		if q == p || slices.Contains(imgs[:i], q) {
			continue
		}
		var qv tiergame.Value
		qv, qcs = c.g.Moves(t, q, qcs[:0])
		if qv != v {
			c.failAt(ruleSymmetry, t, p, "value %v, but its image %s has %v", v, c.child(tiergame.Child{Tier: t, Pos: q}), qv)
			return
		}
		if i != first && i != (first+1)%len(imgs) {
			continue
		}
		if qw := c.canonicalized(t, qcs); !slices.Equal(qw, want) {
			c.failAt(ruleSymmetry, t, p, "canonical children %s, but its image %s has %s",
				c.children(want), c.child(tiergame.Child{Tier: t, Pos: q}), c.children(qw))
			return
		}
	}
}

// mix scrambles x (splitmix64's finalizer).
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
