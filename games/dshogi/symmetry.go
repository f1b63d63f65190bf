package dshogi

import (
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Images returns p and its left-right mirror image (the same tier, side to
// move and hands).
func (g *Game) Images(t tiergame.Tier, h tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	var p pos
	g.l.decode(t, uint64(h), &p, nil)
	_, m := g.l.encode(&p, true)
	return append(dst, h, m)
}

// Canonical returns the smaller hash of p and its mirror image. The lion
// triple is the hash's most significant part, so unless both lions stand
// in the middle column the hash alone tells which is smaller.
func (g *Game) Canonical(t tiergame.Tier, h tiergame.Position) tiergame.Position {
	li := g.l.lionOf(t, uint64(h))
	switch mi := int(mirroredLion[t][li]); {
	case mi > li:
		return h
	case mi == li:
		var p pos
		g.l.decode(t, uint64(h), &p, nil)
		_, m := g.l.encode(&p, true)
		return min(h, m)
	default:
		var p pos
		g.l.decode(t, uint64(h), &p, nil)
		_, m := g.l.encode(&p, true)
		return m
	}
}

// encodeCanonical returns the tier and canonical hash of p (tier numTiers
// if p is no position).
func (l *layout) encodeCanonical(p *pos) (tiergame.Tier, tiergame.Position) {
	fl, sl := p.lion(forest), p.lion(sky)
	li := lionIndex[p.turn&1][fl&15][sl&15]
	mi := lionIndex[p.turn&1][mirrorSq[fl]&15][mirrorSq[sl]&15]
	switch {
	case li < 0:
		return numTiers, 0
	case li < mi:
		return l.encode(p, false)
	case li > mi:
		return l.encode(p, true)
	}
	t, h := l.encode(p, false)
	_, m := l.encode(p, true)
	return t, min(h, m)
}

// CanonicalParents is Parents with every parent canonical, once each.
func (g *Game) CanonicalParents(t tiergame.Tier, h tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	if pt != play || t >= numTiers {
		return dst
	}
	var p pos
	g.l.decode(t, uint64(h), &p, nil)
	n := len(dst)
	dst = g.l.parents(&p, true, dst)
	slices.Sort(dst[n:])
	return append(dst[:n], slices.Compact(dst[n:])...)
}
