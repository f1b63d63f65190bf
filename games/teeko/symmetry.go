package teeko

import (
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Symmetry. The 8 symmetries of the square are the identity, the mirror
// left-right (H), top-bottom (V) and both (a half turn), each followed or
// not by the transpose (T, the mirror in the diagonal from the top left):
// symmetry s is T^(s>>2) after H^(s&1) V^(s>>1&1). They act on a board
// packed as xs | os<<32 with shifts and masks, both sides at once. The
// canonical member of an orbit is the image whose packed board is
// smallest: the smallest O cells as a binary number (cell i at bit i),
// and among those the smallest X cells.

var (
	_ tiergame.Symmetric             = Game{}
	_ tiergame.CanonicalUnmover      = Game{}
	_ tiergame.CanonicalByTierCursor = (*Cursor)(nil)
)

// pack returns the packed board xs | os<<32.
func pack(xs, os uint32) uint64 { return uint64(xs) | uint64(os)<<32 }

// unpack is the inverse of pack.
func unpack(v uint64) (xs, os uint32) { return uint32(v), uint32(v >> 32) }

// both returns the mask m of cells in both halves of a packed board.
func both(m uint32) uint64 { return pack(m, m) }

// Masks of columns, rows and diagonals (by column minus row, plus 4) in
// both halves of a packed board.
var colMasks, rowMasks, diagMasks = func() (cols, rows [side]uint64, diags [2*side - 1]uint64) {
	for c := range cells {
		cols[c%side] |= both(1 << c)
		rows[c/side] |= both(1 << c)
		diags[c%side-c/side+side-1] |= both(1 << c)
	}
	return cols, rows, diags
}()

// mirrorH mirrors a packed board left-right: column c to 4-c.
func mirrorH(v uint64) uint64 {
	return v&colMasks[0]<<4 | v&colMasks[4]>>4 | v&colMasks[1]<<2 | v&colMasks[3]>>2 | v&colMasks[2]
}

// mirrorV mirrors a packed board top-bottom: row r to 4-r.
func mirrorV(v uint64) uint64 {
	return v&rowMasks[0]<<20 | v&rowMasks[4]>>20 | v&rowMasks[1]<<10 | v&rowMasks[3]>>10 | v&rowMasks[2]
}

// transpose mirrors a packed board in the diagonal from the top left: cell
// (r, c) to (c, r), which moves cell 5r+c by 4(c-r) places.
func transpose(v uint64) uint64 {
	d := &diagMasks
	return v&d[4] |
		v&d[5]<<4 | v&d[6]<<8 | v&d[7]<<12 | v&d[8]<<16 |
		v&d[3]>>4 | v&d[2]>>8 | v&d[1]>>12 | v&d[0]>>16
}

// images returns the 8 images of a packed board, in the order of the
// symmetries.
func images(v uint64) [8]uint64 {
	h := mirrorH(v)
	u := mirrorV(v)
	hu := mirrorV(h)
	return [8]uint64{v, h, u, hu, transpose(v), transpose(h), transpose(u), transpose(hu)}
}

// canonical returns the canonical image of a packed board: the smallest.
func canonical(v uint64) uint64 {
	im := images(v)
	return min(im[0], im[1], im[2], im[3], im[4], im[5], im[6], im[7])
}

// symCells[h][c][s] is cell c alone, as an X (h = 0) or an O (h = 1) of
// a packed board, under symmetry s; cells 25 to 31 are none (zero).
var symCells = func() (t [2][32][8]uint64) {
	for c := range cells {
		t[0][c] = images(1 << c)
		t[1][c] = images(1 << (32 + c))
	}
	return t
}()

// Images appends the image of position p of tier t under each symmetry,
// p first.
func (Game) Images(t tiergame.Tier, p tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	ti := tierOf(t)
	xs, os, mover := decode(ti, uint64(p))
	for _, v := range images(pack(xs, os)) {
		xs, os := unpack(v)
		dst = append(dst, encode(ti, xs, os, mover))
	}
	return dst
}

// Canonical returns the image of p whose packed board, xs | os<<32, is
// smallest.
func (Game) Canonical(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	ti := tierOf(t)
	xs, os, mover := decode(ti, uint64(p))
	xs, os = unpack(canonical(pack(xs, os)))
	return encode(ti, xs, os, mover)
}

// The canonical boards a board's moves and un-moves lead to come from its
// images: a move changes one or two cells, and the images of the result
// are the board's images with the images of those cells flipped.

// minXor returns the smallest of im[s] ^ d[s]: the canonical image of the
// board whose images are im with the cells whose images are d flipped.
func minXor(im, d *[8]uint64) uint64 {
	return min(im[0]^d[0], im[1]^d[1], im[2]^d[2], im[3]^d[3], im[4]^d[4], im[5]^d[5], im[6]^d[6], im[7]^d[7])
}

// flips lists canonical packed boards.
type flips struct {
	n int
	v [maxMoves]uint64
}

// one adds the canonical board of flipping each cell of cs, one at a time,
// on the board whose images are im; tab is symCells of the side whose
// cells they are.
func (f *flips) one(im *[8]uint64, tab *[32][8]uint64, cs uint32) {
	for m := cs; m != 0; m &= m - 1 {
		f.v[f.n&(maxMoves-1)] = minXor(im, &tab[bits.TrailingZeros32(m)&31])
		f.n++
	}
}

// steps adds the canonical board of each step of a piece of own to an
// empty neighbour, on the board whose images are im; tab is symCells of
// own's side. If noPattern is set, it leaves out the steps after which
// own forms a pattern.
func (f *flips) steps(im *[8]uint64, tab *[32][8]uint64, own, empty uint32, noPattern bool) {
	for m := own; m != 0; m &= m - 1 {
		a := bits.TrailingZeros32(m) & 31
		ta := &tab[a]
		base := [8]uint64{im[0] ^ ta[0], im[1] ^ ta[1], im[2] ^ ta[2], im[3] ^ ta[3], im[4] ^ ta[4], im[5] ^ ta[5], im[6] ^ ta[6], im[7] ^ ta[7]}
		for n := neighbours[a] & empty; n != 0; n &= n - 1 {
			c := bits.TrailingZeros32(n) & 31
			if noPattern && hasPattern(own^(1<<a|1<<c)) {
				continue
			}
			f.v[f.n&(maxMoves-1)] = minXor(&base, &tab[c])
			f.n++
		}
	}
}

// canonicalChildren appends the canonical children of board b (not
// primitive) of tier t with mover to move, whose images are im.
func canonicalChildren(t tiergame.Tier, b *board, im *[8]uint64, mover uint32, dst []tiergame.Position) []tiergame.Position {
	var f flips
	tab := &symCells[mover&1]
	empty := full &^ (b.xs | b.os)
	switch {
	case t < MovingTier:
		f.one(im, tab, empty)
	case mover == 0:
		f.steps(im, tab, b.xs, empty, false)
	default:
		f.steps(im, tab, b.os, empty, false)
	}
	ci := &tiers[childTier(t)&15]
	next := uint64(mover^1) & uint64(ci.shift)
	for _, v := range f.v[:f.n] {
		xs, os := unpack(v)
		dst = append(dst, tiergame.Position(index(xs, os, ci.mulO)<<ci.shift|next))
	}
	return dst
}

// CanonicalParents appends the canonical positions of the parents that
// Parents lists, once each: it takes the un-moves back on the images of
// the board of p (see Parents) and keeps the smallest image of each
// parent.
func (Game) CanonicalParents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	ti, pti := tierOf(t), tierOf(pt)
	if ti == nil || pti == nil || uint64(p) >= ti.size {
		return dst
	}
	xs, os, mover := decode(ti, uint64(p))
	im := images(pack(xs, os))
	empty := full &^ (xs | os)
	var f flips
	pmover := pti.mover
	switch {
	case t == MovingTier && pt == MovingTier:
		pmover = mover ^ 1 // the side that moved last
		own, opp := xs, os
		if pmover == 1 {
			own, opp = os, xs
		}
		if !hasPattern(opp) {
			f.steps(&im, &symCells[pmover], own, empty, true)
		}
	case t == MovingTier && pt == MovingTier-1 && mover == 0:
		if !hasPattern(xs) {
			f.one(&im, &symCells[1], os)
		}
	case t < MovingTier && pt+1 == t && pmover == 0:
		f.one(&im, &symCells[0], xs)
	case t < MovingTier && pt+1 == t:
		f.one(&im, &symCells[1], os)
	}
	vs := f.v[:f.n]
	slices.Sort(vs)
	side := uint64(pmover) & uint64(pti.shift)
	for i, v := range vs {
		if i == 0 || v != vs[i-1] {
			xs, os := unpack(v)
			dst = append(dst, tiergame.Position(index(xs, os, pti.mulO)<<pti.shift|side))
		}
	}
	return dst
}

// images returns the images of the cursor's board, computing them once
// per board.
func (c *Cursor) images() *[8]uint64 {
	if c.imagesOf != c.i {
		c.im = images(pack(c.b.xs, c.b.os))
		c.imagesOf = c.i
	}
	return &c.im
}

// CanonicalMoves returns what Moves returns, each child canonical.
func (c *Cursor) CanonicalMoves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	mover := c.mover(p)
	if c.b.pattern {
		return tiergame.Lose, dst
	}
	ct := childTier(c.t)
	for _, q := range canonicalChildren(c.t, &c.b, c.images(), mover, c.buf[:0]) {
		dst = append(dst, tiergame.Child{Tier: ct, Pos: q})
	}
	return tiergame.Undecided, dst
}

// CanonicalMovesByTier returns what MovesByTier returns, each child
// canonical.
func (c *Cursor) CanonicalMovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	mover := c.mover(p)
	if c.b.pattern {
		return tiergame.Lose
	}
	if dst[0] != nil {
		dst[0] = canonicalChildren(c.t, &c.b, c.images(), mover, dst[0])
	}
	return tiergame.Undecided
}
