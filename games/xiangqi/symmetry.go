package xiangqi

import (
	"slices"

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
// placement (two pieces on a point) is its own image.
func (g *Game) mirror(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	l := g.mustLayout(t)
	var pl placement
	l.decode(uint64(p), &pl)
	var occ [2]uint64 // points taken so far, a bit each
	for i := range l.groups {
		for _, s := range pl.sq[i][:l.groups[i].n] {
			w, bit := s>>6, uint64(1)<<(s&63)
			if occ[w]&bit != 0 {
				return p
			}
			occ[w] |= bit
		}
	}
	return tiergame.Position(l.mirrorHash(pl))
}

// mirrorHash returns the hash of the mirror image of placement pl (no two
// pieces on a point): its points mirrored and ranked again, without a
// board. Decoding to a board, mirroring it and encoding it took 79% of
// the CPU of a symmetric solve of KRNvKA, which maps every child and
// parent to its canonical hash.
func (l *layout) mirrorHash(pl placement) uint64 {
	for i := range l.groups {
		sq := pl.sq[i][:l.groups[i].n]
		for j, s := range sq {
			sq[j] = mirrored[s]
		}
	}
	l.digits(&pl, 0)
	return l.hash(&pl)
}

// mirrored is every point's image in the mirror.
var mirrored = func() (m [xq.NumSquares]xq.Square) {
	for s := range m {
		m[s] = xq.Square(s).Mirror()
	}
	return m
}()

// mirrorMove is m's image in the mirror.
func mirrorMove(m xq.Move) xq.Move { return xq.Move{From: mirrored[m.From], To: mirrored[m.To]} }

// mirrorOf makes c.mir the mirror image of p, once per position, and
// reports whether p is a placement (it has a mirror state). It leaves the
// walker at p, whose decoded placement it mirrors. A child's mirror image
// is then the mirror state's child by the mirrored move: a position's
// mirror is decoded once, and its children's come as cheaply as its
// children.
func (c *cursor) mirrorOf(p tiergame.Position) bool {
	c.w.seek(uint64(p))
	if c.hasMir && c.mirOf == p {
		return c.mirOK
	}
	c.mirOf, c.hasMir, c.mirOK = p, true, c.w.ok
	if c.mirOK {
		c.mirH = c.w.l.mirrorHash(c.w.st.pl)
		c.w.l.load(c.mirH, &c.mir)
	}
	return c.mirOK
}

// CanonicalMoves is Moves with every child replaced by the smaller hash
// of it and its mirror image.
func (c *cursor) CanonicalMoves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	n := len(dst)
	v, dst := c.Moves(p, dst)
	if !c.mirrorOf(p) {
		for i := n; i < len(dst); i++ {
			dst[i].Pos = c.g.Canonical(dst[i].Tier, dst[i].Pos)
		}
		return v, dst
	}
	for i, m := range c.moves[:len(dst)-n] {
		k := c.g.child(&c.mir, c.mirH, c.t, mirrorMove(m))
		dst[n+i].Pos = min(dst[n+i].Pos, k.Pos)
	}
	return v, dst
}

// CanonicalMovesByTier is MovesByTier with every child replaced by the
// smaller hash of it and its mirror image.
func (c *cursor) CanonicalMovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	if c.mirrorOf(p) {
		return c.movesByTier(p, dst, true)
	}
	v := c.MovesByTier(p, dst)
	kids := c.g.ChildTiers(c.t)
	for i, list := range dst {
		for j := range list {
			list[j] = c.g.Canonical(kids[i], list[j])
		}
	}
	return v
}

// CanonicalParents appends the canonical positions of p's parents in
// tier pt, once each: the parents inside t come with their mirror images
// from p's mirror state by the mirrored un-moves.
func (g *Game) CanonicalParents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	n := len(dst)
	l := g.mustLayout(t)
	var st, ms state
	if pt == t && l.load(uint64(p), &st) {
		hm := l.mirrorHash(st.pl)
		l.load(hm, &ms)
		var buf [128]xq.Move
		h := uint64(p)
		guard := st.b.Guard(st.pl.side)
		for _, m := range st.b.Unmoves(st.pl.side.Other(), buf[:0]) {
			if guard.SafeBefore(&st.b, m) {
				back := xq.Move{From: m.To, To: m.From}
				a := st.moved(h, back)
				b := ms.moved(hm, mirrorMove(back))
				dst = append(dst, tiergame.Position(min(a, b)))
			}
		}
	} else {
		dst = g.Parents(t, p, pt, dst)
		for i := n; i < len(dst); i++ {
			dst[i] = g.Canonical(pt, dst[i])
		}
	}
	slices.Sort(dst[n:])
	return append(dst[:n], slices.Compact(dst[n:])...)
}
