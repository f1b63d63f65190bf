package quixo

import (
	"math/bits"

	"github.com/tiersolve/tiersolve/games/internal/grid"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Symmetry: the 8 symmetries of the square board (grid.SquareSymmetries,
// in that order) keep the rules, the numbers of X and O and the side to
// move. The canonical member of an orbit is the image whose key
// os<<size² | xs is smallest: the one with the smallest O cells as a
// binary number (cell i at bit i), and among those the smallest X cells.
// Comparing keys rather than hashes costs one hash per canonical position
// instead of eight.

var (
	_ tiergame.Symmetric             = (*Game)(nil)
	_ tiergame.CanonicalUnmover      = (*Game)(nil)
	_ tiergame.CanonicalCursor       = (*Cursor)(nil)
	_ tiergame.CanonicalByTierCursor = (*Cursor)(nil)
)

// symTables permutes the cells of each symmetry by tables, for boards
// other than 4x4 (which canonical4 does with shifts).
type symTables [8]grid.PermuteTables

func newSymTables(n int) *symTables {
	var t symTables
	for s, perm := range grid.SquareSymmetries(n) {
		t[s] = grid.NewPermuteTables(perm)
	}
	return &t
}

// canonical returns the canonical image of the board (xs, os).
func (g *Game) canonical(xs, os uint32) (uint32, uint32) {
	if g.n == 4 {
		v := canonical4(xs | os<<16)
		return v & 0xffff, v >> 16
	}
	cells := uint(g.cells)
	best := uint64(os)<<cells | uint64(xs)
	for _, t := range g.sym[1:] {
		best = min(best, t.Permute(uint64(os))<<cells|t.Permute(uint64(xs)))
	}
	return uint32(best & (1<<cells - 1)), uint32(best >> cells)
}

// canonical4 returns the smallest of the 8 images of a 4x4 board packed
// as xs | os<<16, cell r*4+c at bit r*4+c of each half: the reflections
// left-right (reversing each row's 4 bits) and top-bottom (reversing the
// order of the rows), their product, and the transpose of each. The
// shifts never carry bits from one half into the other.
func canonical4(a uint32) uint32 {
	lr := func(v uint32) uint32 {
		v = v>>1&0x55555555 | v&0x55555555<<1
		return v>>2&0x33333333 | v&0x33333333<<2
	}
	tb := func(v uint32) uint32 {
		v = v>>4&0x0f0f0f0f | v&0x0f0f0f0f<<4
		return v>>8&0x00ff00ff | v&0x00ff00ff<<8
	}
	tr := func(v uint32) uint32 {
		t := (v ^ v>>3) & 0x0a0a0a0a
		v ^= t ^ t<<3
		t = (v ^ v>>6) & 0x00cc00cc
		return v ^ t ^ t<<6
	}
	b, c := lr(a), tb(a)
	d := tb(b)
	return min(a, b, c, d, tr(a), tr(b), tr(c), tr(d))
}

// Images appends the image of p under each of the 8 symmetries, p first.
func (g *Game) Images(t tiergame.Tier, p tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	ti := g.tierOf(t)
	xs, os, side := g.unhash(ti, uint64(p))
	for _, s := range g.sym {
		dst = append(dst, tiergame.Position(g.hash(ti, uint32(s.Permute(uint64(xs))), uint32(s.Permute(uint64(os))), side)))
	}
	return dst
}

// Canonical returns the image of p whose key os<<size² | xs is smallest.
func (g *Game) Canonical(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	ti := g.tierOf(t)
	xs, os, side := g.unhash(ti, uint64(p))
	xs, os = g.canonical(xs, os)
	return tiergame.Position(g.hash(ti, xs, os, side))
}

// CanonicalParents appends the canonical positions of the parents that
// Parents lists, once each.
func (g *Game) CanonicalParents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	return g.parents(t, p, pt, dst, true)
}

// CanonicalMoves returns what Moves returns, each child canonical.
func (c *Cursor) CanonicalMoves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if r := uint64(p) >> 1; r != c.r {
		c.seek(r)
	}
	return c.g.canonicalChildren(&c.b, &c.movers[p&1], dst)
}

// CanonicalMovesByTier returns what MovesByTier returns for position p of
// the cursor's tier, with each child canonical.
func (c *Cursor) CanonicalMovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	if r := uint64(p) >> 1; r != c.r {
		c.seek(r)
	}
	g, m := c.g, &c.movers[p&1]
	own, opp, v := c.b.sides(m.side)
	if v != tiergame.Undecided {
		return v
	}
	same, grow := byTierLists(len(dst), m.side)
	if dst[same] != nil {
		dst[same] = g.appendCanonical(dst[same], m, 0, own, opp, g.border&own)
	}
	if grow >= 0 && dst[grow] != nil {
		dst[grow] = g.appendCanonical(dst[grow], m, 1, own, opp, g.border&^(own|opp))
	}
	return tiergame.Undecided
}

// appendCanonical appends the canonical children of the moves of mover m
// taking the cubes at srcs, all blank (blank 1) or all the mover's (0),
// from the board (own, opp).
func (g *Game) appendCanonical(dst []tiergame.Position, m *mover, blank uint32, own, opp, srcs uint32) []tiergame.Position {
	for ; srcs != 0; srcs &= srcs - 1 {
		for _, mv := range g.bySrc[bits.TrailingZeros32(srcs)&31] {
			if mv.valid == 0 {
				break
			}
			dst = append(dst, g.canonicalChild(m, blank, &mv, own, opp))
		}
	}
	return dst
}

// canonicalChild returns the canonical child of move mv of mover m from
// the board (own, opp), in tier m.tis[blank].
func (g *Game) canonicalChild(m *mover, blank uint32, mv *move, own, opp uint32) tiergame.Position {
	cOwn, cOpp := mv.apply(own, opp)
	xs, os := cOwn, cOpp
	if m.side == 1 {
		xs, os = cOpp, cOwn
	}
	xs, os = g.canonical(xs, os)
	return tiergame.Position(g.hash(m.tis[blank&1], xs, os, m.next))
}

// canonicalChildren is children with each child canonical: it makes each
// child's board, canonicalizes it and hashes it.
func (g *Game) canonicalChildren(b *board, m *mover, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	own, opp, v := b.sides(m.side)
	if v != tiergame.Undecided {
		return v, dst
	}
	for srcs := g.border &^ opp; srcs != 0; srcs &= srcs - 1 {
		c := bits.TrailingZeros32(srcs) & 31
		blank := own>>c&1 ^ 1
		for _, mv := range g.bySrc[c] {
			if mv.valid == 0 {
				break
			}
			dst = append(dst, tiergame.Child{Tier: m.ids[blank], Pos: g.canonicalChild(m, blank, &mv, own, opp)})
		}
	}
	return tiergame.Undecided, dst
}
