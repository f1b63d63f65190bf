package xiangqi

import (
	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/tiergame"
)

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
// placement (two pieces on a point) is its own image. It mirrors the
// placement's points and ranks them again, without a board: decoding to
// a board, mirroring it and encoding it took 79% of the CPU of a
// symmetric solve of KRNvKA, which calls it for every child and parent.
func (g *Game) mirror(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	l := g.mustLayout(t)
	var pl placement
	l.decode(uint64(p), &pl)
	var occ [2]uint64 // points taken so far, a bit each
	for i := range l.groups {
		sq := pl.sq[i][:l.groups[i].n]
		for j, s := range sq {
			w, bit := s>>6, uint64(1)<<(s&63)
			if occ[w]&bit != 0 {
				return p
			}
			occ[w] |= bit
			sq[j] = mirrored[s]
		}
	}
	l.digits(&pl, 0)
	return tiergame.Position(l.hash(&pl))
}

// mirrored is every point's image in the mirror.
var mirrored = func() (m [xq.NumSquares]xq.Square) {
	for s := range m {
		m[s] = xq.Square(s).Mirror()
	}
	return m
}()
