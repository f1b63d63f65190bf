package xiangqi

import "github.com/tiersolve/tiersolve/tiergame"

// Images returns p and its left-right mirror image (every piece of
// xiangqi moves the same way mirrored).
func (g *Game) Images(t tiergame.Tier, p tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	return append(dst, p, g.mirror(t, p))
}

// Canonical returns the smaller hash of p and its mirror image.
func (g *Game) Canonical(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	return min(p, g.mirror(t, p))
}

// mirror returns the hash of p's mirror image; a hash that is no
// placement is its own image.
func (g *Game) mirror(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	l := g.mustLayout(t)
	var st state
	if !l.load(uint64(p), &st) {
		return p
	}
	m := st.b.Mirror()
	return tiergame.Position(l.encode(&m, st.pl.side))
}
