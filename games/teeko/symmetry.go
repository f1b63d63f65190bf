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

// symCells[c][s] is cell c alone, packed as an X, under symmetry s; the
// row of cell 25 is all zero (no cell).
var symCells = func() (t [cells + 1][8]uint64) {
	for c := range cells {
		t[c] = images(1 << c)
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

// edits lists the changes the moves or un-moves of one position make to
// its board, each as the two cells whose contents change (cells 25 when
// only one does) and the side (0 or 32: the half of the packed board).
type edits struct {
	n     int
	a, b  [maxMoves]uint8
	shift [maxMoves]uint8
}

func (e *edits) add(a, b int, shift uint8) {
	i := e.n & (maxMoves - 1)
	e.a[i], e.b[i], e.shift[i] = uint8(a), uint8(b), shift
	e.n++
}

// canonicalEach returns, for each edit of e, the canonical packed board it
// makes of the board whose images are im, in dst.
func canonicalEach(im *[8]uint64, e *edits, dst *[maxMoves]uint64) []uint64 {
	for i := range e.n {
		ta, tb, sh := &symCells[e.a[i]%(cells+1)], &symCells[e.b[i]%(cells+1)], e.shift[i]&63
		m := ^uint64(0)
		for s := range 8 {
			m = min(m, im[s]^(ta[s]|tb[s])<<sh)
		}
		dst[i] = m
	}
	return dst[:e.n]
}

// moveEdits lists the moves of board b of tier t with mover to move, in
// the order of children.
func moveEdits(t tiergame.Tier, b *board, mover uint32, e *edits) {
	empty := full &^ (b.xs | b.os)
	sh := uint8(32 * mover)
	if t < MovingTier {
		for m := empty; m != 0; m &= m - 1 {
			e.add(bits.TrailingZeros32(m), cells, sh)
		}
		return
	}
	own := b.xs
	if mover == 1 {
		own = b.os
	}
	for m := own; m != 0; m &= m - 1 {
		a := bits.TrailingZeros32(m)
		for n := neighbours[a&31] & empty; n != 0; n &= n - 1 {
			e.add(a, bits.TrailingZeros32(n), sh)
		}
	}
}

// canonicalChildren appends the canonical children of board b (not
// primitive) of tier t with mover to move, whose images are im.
func canonicalChildren(t tiergame.Tier, b *board, im *[8]uint64, mover uint32, dst []tiergame.Position) []tiergame.Position {
	var e edits
	moveEdits(t, b, mover, &e)
	var buf [maxMoves]uint64
	ci := &tiers[childTier(t)&15]
	next := uint64(mover^1) & uint64(ci.shift)
	for _, v := range canonicalEach(im, &e, &buf) {
		xs, os := unpack(v)
		dst = append(dst, tiergame.Position(index(xs, os, ci.mulO)<<ci.shift|next))
	}
	return dst
}

// unmoveEdits lists the un-moves of board b of tier t with mover to move
// that lead to the parents in tier pt that Parents lists, and returns
// their side to move (0 for X).
func unmoveEdits(t tiergame.Tier, b *board, mover uint32, pt tiergame.Tier, e *edits) uint32 {
	switch {
	case t == MovingTier && pt == MovingTier:
		last, own, opp := mover^1, b.os, b.xs // the side that moved last
		if last == 0 {
			own, opp = b.xs, b.os
		}
		if hasPattern(opp) {
			return last
		}
		empty := full &^ (b.xs | b.os)
		for m := own; m != 0; m &= m - 1 {
			a := bits.TrailingZeros32(m)
			for n := neighbours[a&31] & empty; n != 0; n &= n - 1 {
				c := bits.TrailingZeros32(n)
				if !hasPattern(own ^ (1<<a | 1<<c)) {
					e.add(a, c, uint8(32*last))
				}
			}
		}
		return last
	case t == MovingTier && pt == MovingTier-1 && mover == 0:
		if !hasPattern(b.xs) {
			for m := b.os; m != 0; m &= m - 1 {
				e.add(bits.TrailingZeros32(m), cells, 32)
			}
		}
	case t < MovingTier && pt+1 == t:
		own := b.xs
		if tiers[pt&15].mover == 1 {
			own = b.os
		}
		for m := own; m != 0; m &= m - 1 {
			e.add(bits.TrailingZeros32(m), cells, uint8(32*tiers[pt&15].mover))
		}
	}
	return tiers[pt&15].mover
}

// CanonicalParents appends the canonical positions of the parents that
// Parents lists, once each: it takes the un-moves back on the images of
// the board of p and keeps the smallest image of each parent.
func (Game) CanonicalParents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	ti, pti := tierOf(t), tierOf(pt)
	if ti == nil || pti == nil || uint64(p) >= ti.size {
		return dst
	}
	xs, os, mover := decode(ti, uint64(p))
	var b board
	b.xs, b.os = xs, os // all that unmoveEdits needs
	var e edits
	pmover := unmoveEdits(t, &b, mover, pt, &e)
	if e.n == 0 {
		return dst
	}
	im := images(pack(xs, os))
	var buf [maxMoves]uint64
	vs := canonicalEach(&im, &e, &buf)
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
