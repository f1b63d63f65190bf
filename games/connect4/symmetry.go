package connect4

import (
	"math/bits"

	"github.com/tiersolve/tiersolve/games/internal/comb"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Symmetry: the left-right mirror, column c to column w-1-c. The
// canonical member of an orbit is the one with the smaller hash. Hashes
// are ordered by shape code first, so a child whose shape code is below
// its mirror's is canonical without hashing the mirror.

var (
	_ tiergame.Symmetric             = (*Game)(nil)
	_ tiergame.CanonicalByTierCursor = (*Cursor)(nil)
)

// mirror returns the mirror image of bitboard b.
func (g *Game) mirror(b uint64) uint64 {
	var m uint64
	col := uint64(1)<<g.stride - 1
	for c := 0; c < g.w; c++ {
		m |= (b >> (uint(c) * g.stride) & col) << (uint(g.w-1-c) * g.stride)
	}
	return m
}

// Images appends p and the hash of its mirror image.
func (g *Game) Images(t tiergame.Tier, p tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	x, o := g.unhash(int(t), p)
	_, q := g.hash(g.mirror(x), g.mirror(o))
	return append(dst, p, q)
}

// Canonical returns the smaller of the hashes of p and its mirror image.
func (g *Game) Canonical(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	x, o := g.unhash(int(t), p)
	_, q := g.hash(g.mirror(x), g.mirror(o))
	return min(p, q)
}

// CanonicalMoves returns what Moves returns, each child canonical.
func (c *Cursor) CanonicalMoves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	n := len(dst)
	v, dst := c.Moves(p, dst)
	if v != tiergame.Undecided {
		return v, dst
	}
	c.canonicalize(func(j int) *tiergame.Position { return &dst[n+j].Pos })
	return v, dst
}

// CanonicalMovesByTier returns what MovesByTier returns, each child
// canonical.
func (c *Cursor) CanonicalMovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	if len(dst) == 0 { // the last tier: every position is primitive
		return c.MovesByTier(p, dst)
	}
	n := len(dst[0])
	v := c.MovesByTier(p, dst)
	if v != tiergame.Undecided || dst[0] == nil {
		return v
	}
	out := dst[0][n:]
	c.canonicalize(func(j int) *tiergame.Position { return &out[j] })
	return v
}

// canonicalize replaces each child of the decoded position, at child(j)
// for its open column j, by its canonical position.
func (c *Cursor) canonicalize(child func(j int) *tiergame.Position) {
	g := c.g
	colMask := uint64(1)<<g.stride - 1
	var xbit uint64 // all ones when X drops the piece
	if c.delta == 1 {
		xbit = ^uint64(0)
	}
	for j, oc := range c.open[:c.nopen] {
		code := c.code + g.pow[oc.col]
		mcode := g.mirrorCode[code]
		if code < mcode {
			continue // the child's shape comes first
		}
		shift := uint(oc.col) * g.stride
		top := (c.occ>>shift&colMask + 1) << shift
		q := g.mirrorHash(c.occ|top, c.xb|top&xbit, mcode, c.cnb)
		ch := child(j)
		*ch = min(*ch, q)
	}
}

// mirrorHash returns the hash of the mirror image of the board with cells
// occ and X x, whose mirrored shape has code mcode and nb X sets per
// shape: its X pattern takes the columns from the right.
func (g *Game) mirrorHash(occ, x uint64, mcode uint32, nb uint64) tiergame.Position {
	colMask := uint64(1)<<g.stride - 1
	var xp uint64
	base := uint(0)
	for c := g.w - 1; c >= 0; c-- {
		shift := uint(c) * g.stride
		col := occ >> shift & colMask
		xp |= (x >> shift & col) << base
		base += uint(bits.OnesCount64(col))
	}
	return tiergame.Position(uint64(g.rank[mcode])*nb + comb.Rank(xp))
}
