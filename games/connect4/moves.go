package connect4

import (
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/games/internal/comb"
	"github.com/tiersolve/tiersolve/tiergame"
)

// How Moves and the cursor compute hashes.
//
// A position's hash is its shape's first hash plus r, the colex rank of its
// X set over the piece order (the pieces column by column from the left,
// bottom to top). Dropping a piece into column c inserts it into the piece
// order at index end(c), the number of pieces in columns 0..c, and moves
// the later pieces up one place, so a child's rank follows from the
// parent's colex terms: those below the insertion point stay, those above
// shift. A walker decodes the X set from the top place down, as
// comb.Unrank does, keeping the sums of the terms above each place, and
// reads the bottom lowBits places, and their part of every child's rank,
// from tables.
//
// A cursor keeps the walk from one position to the next. The next position
// usually has the same shape and a slightly larger r, which differs only in
// the bottom places: the walk stays valid above the lowest place whose
// subrange still holds the new r, so the cursor walks again from there
// only, and usually not at all.

// walker decodes the X sets of one tier.
type walker struct {
	n, k  int
	delta int                       // 1 when X moves (an inserted X gains a term), else 0
	ins   *[maxCells + 3][32]uint64 // pascal when X moves, noInsert when O does
	r     uint64                    // the rank being decoded
	lo    walk                      // the walk's state below place lowBits
	// hiAcc[a], for a >= lo.left, is the sum of the shifted terms of the
	// X of index a and above less their terms in r.
	hiAcc [32]uint64
	// high[q-lowBits] is the walk's state before place q, kept by
	// cursors only.
	high []walk
}

// walk is the state of the walk before it decides a place: the part of r
// the X above take (used), the sum of their shifted terms (suf), those X
// (x), and how many X are left.
type walk struct {
	used, suf, x uint64
	left         int
}

func (w *walker) init(n int) {
	w.n, w.k, w.ins = n, (n+1)/2, &noInsert
	if n&1 == 0 {
		w.delta, w.ins = 1, &pascal
	}
}

// descend walks down the places from q to lowBits from state s: a place
// holds an X when r, less what the X above take, is at least C(q, left).
// It decides without branches (the test is a coin flip for the branch
// predictor).
func (w *walker) descend(q int, s walk) {
	r, delta := w.r, w.delta
	res, suf, x, j := r-s.used, s.suf, s.x, s.left // res: r less what the X above take
	high, hiAcc := w.high, &w.hiAcc
	for ; q >= lowBits; q-- {
		if high != nil {
			high[q-lowBits] = walk{used: r - res, suf: suf, x: x, left: j}
		}
		v := pascal[q+1][j&31]
		var take uint64
		if v <= res {
			take = 1
		}
		m := -take
		res -= v & m
		j -= int(take)
		suf += pascal[q+2][(j+1+delta)&31] & m
		hiAcc[j&31] = suf + res - r
		x |= take << uint(q)
	}
	hiAcc[w.k&31] = 0
	w.lo = walk{used: r - res, suf: suf, x: x, left: j}
}

// start walks all places for rank r.
func (w *walker) start(r uint64) {
	w.r = r
	w.descend(w.n-1, walk{left: w.k})
}

// update walks again for rank r, from the lowest place whose subrange
// holds it; it reports whether the places above lowBits changed.
func (w *walker) update(r uint64) bool {
	w.r = r
	if r-w.lo.used < pascal[lowBits+1][w.lo.left&31] {
		return false
	}
	q := lowBits
	for ; q < w.n-1; q++ {
		s := &w.high[q-lowBits]
		if r-s.used < pascal[q+2][s.left&31] {
			break
		}
	}
	w.descend(q, w.high[q-lowBits])
	return true
}

// row returns the row of the bottom places in the tables.
func (w *walker) row() int { return lowStart[w.lo.left&15] + int(w.r-w.lo.used) }

// lowRank returns the X rank of the child with a piece inserted at index
// end < lowBits, given row i.
func (w *walker) lowRank(i int, end uint) uint64 {
	return w.lo.suf + uint64(lowChild[w.delta&1][i][min(end, lowBits-1)])
}

// highRank returns the X rank, less r, of the child with a piece inserted
// at index end >= lowBits: the X below it are the lo.left of the bottom
// places and those of lo.x below it.
func (w *walker) highRank(end uint) uint64 {
	a := (w.lo.left + bits.OnesCount64(w.lo.x&(1<<end-1))) & 31
	return w.hiAcc[a] + w.ins[end+1][(a+1)&31]
}

// lowBits is the number of bottom places of the piece order read from
// tables.
const lowBits = 12

// The tables of the bottom places, indexed by lowStart[j] + r for the j X
// of colex rank r there: lowPattern holds the X set; lowChild[delta][i][e],
// for e < lowBits, their part of the child's X rank when a piece is
// inserted at index e (an X when delta is 1), with the inserted X's term.
var (
	lowStart   [lowBits + 2]int
	lowPattern []uint16
	lowChild   [2][][lowBits]uint16
)

func init() {
	for j := 0; j <= lowBits; j++ {
		lowStart[j+1] = lowStart[j] + int(comb.Binom(lowBits, j))
		for r := uint64(0); r < comb.Binom(lowBits, j); r++ {
			pat := comb.Unrank(r, lowBits, j)
			lowPattern = append(lowPattern, uint16(pat))
			for delta := range lowChild {
				var row [lowBits]uint16
				for e := range row {
					below := pat & (1<<e - 1)
					a := bits.OnesCount64(below)
					v := comb.Rank(below) + uint64(delta)*comb.Binom(e, a+1)
					i := a
					for m := pat &^ below; m != 0; m &= m - 1 {
						v += comb.Binom(bits.TrailingZeros64(m)+1, i+1+delta)
						i++
					}
					if v > 0xffff {
						panic("connect4: lowChild entry overflows") // lowBits too large
					}
					row[e] = uint16(v)
				}
				lowChild[delta] = append(lowChild[delta], row)
			}
		}
	}
}

// Moves lists the children of p by column from the left.
func (g *Game) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	n := int(t)
	var w walker
	w.init(n)
	nb := pascal[n+1][w.k]
	s := uint64(p) / nb
	w.start(uint64(p) - s*nb)
	i := w.row()
	xp := w.lo.x | uint64(lowPattern[i])

	sh := g.shapes[n][s]
	occ, xb, ends := g.layout(uint32(sh>>32), xp)
	if v := g.primitive(n, occ, xb); v != tiergame.Undecided {
		return v, dst
	}

	code := uint32(sh)
	cnb := pascal[n+2][(w.k+w.delta)&31]
	top := occ >> uint(g.h-1) // bit c*stride set when column c is full
	dst = slices.Grow(dst, g.w)
	out := dst[len(dst) : len(dst)+g.w]
	k := 0
	for c := 0; c < g.w; c++ {
		if top>>(uint(c)*g.stride)&1 != 0 {
			continue
		}
		end := ends[c]
		var cr uint64
		if end < lowBits {
			cr = w.lowRank(i, end)
		} else {
			cr = w.r + w.highRank(end)
		}
		cs := uint64(g.rank[code+g.pow[c]])
		out[k] = tiergame.Child{Tier: t + 1, Pos: tiergame.Position(cs*cnb + cr)}
		k++
	}
	return tiergame.Undecided, dst[:len(dst)+k]
}

// Cursor generates the moves of the positions of one tier, fastest for
// ascending positions (see tiergame.Cursor). It is not safe for concurrent
// use.
type Cursor struct {
	walker
	g     *Game
	tier  tiergame.Tier
	nb    uint64 // X sets per shape: C(n, k)
	cnb   uint64 // X sets per shape of the child tier
	shape uint64 // the current shape's index; noShape before the first position
	first uint64 // hash of the shape's first position, shape*nb
	occ   uint64 // the shape's cells, as a bitboard
	code  uint32 // the shape's code
	xb    uint64 // the X of the position decoded last, as a bitboard
	cols  [MaxWidth]column
	// spread[h][v] is the bitboard of the bottom places 6h..6h+5 whose
	// bits are set in v, and xhigh that of the X above lowBits (set after
	// each walk).
	spread [2][64]uint64
	xhigh  uint64
	// open[:nopen] lists the columns that are not full, from the left; the
	// first nlow of them end below place lowBits.
	open        [MaxWidth]openColumn
	nopen, nlow int
}

// column is where a column's pieces are: places [base, base+h) of the
// piece order, cells mask<<shift of a bitboard.
type column struct {
	base, shift uint
	mask        uint64
}

// openColumn is a column a piece can drop into: its insertion index in the
// piece order, the hash of the child shape's first position, and, for
// end >= lowBits, the child's hash less r (set after each walk).
type openColumn struct {
	end       uint
	col       int
	child, hi uint64
}

const noShape = ^uint64(0)

var (
	_ tiergame.CursorGame   = (*Game)(nil)
	_ tiergame.ByTierCursor = (*Cursor)(nil)
)

// Cursor returns a cursor over tier t, at most the number of cells.
func (g *Game) Cursor(t tiergame.Tier) tiergame.Cursor {
	c := &Cursor{g: g, tier: t, shape: noShape}
	c.init(int(t))
	c.high = make([]walk, max(c.n-lowBits, 0))
	c.nb = pascal[c.n+1][c.k]
	c.cnb = pascal[c.n+2][(c.k+c.delta)&31]
	return c
}

// Moves returns what Game.Moves returns for position p of the cursor's
// tier.
func (c *Cursor) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	i, v := c.decode(p)
	if v != tiergame.Undecided {
		return v, dst
	}
	return v, c.children(i, dst)
}

// MovesByTier appends the children of p, all in the next tier, to dst[0].
func (c *Cursor) MovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	i, v := c.decode(p)
	if v != tiergame.Undecided || len(dst) == 0 || dst[0] == nil {
		return v
	}
	d := slices.Grow(dst[0], c.nopen)
	out := d[len(d) : len(d)+c.nopen]
	for j, oc := range c.open[:c.nlow] {
		out[j] = tiergame.Position(oc.child + c.lowRank(i, oc.end))
	}
	for j := c.nlow; j < len(out); j++ {
		out[j] = tiergame.Position(c.open[j].hi + c.r)
	}
	dst[0] = d[:len(d)+len(out)]
	return v
}

// decode moves the cursor to position p and returns the row of the
// tables of its bottom places and its value if it is primitive
// (Undecided otherwise).
func (c *Cursor) decode(p tiergame.Position) (int, tiergame.Value) {
	g := c.g
	if r := uint64(p) - c.first; r < c.nb && c.shape != noShape {
		if c.update(r) {
			c.setHigh()
		}
	} else {
		c.setShape(uint64(p) / c.nb)
		c.start(uint64(p) - c.first)
		c.setHigh()
	}
	i := c.row()
	pat := lowPattern[i]
	xb := c.xhigh | c.spread[0][pat&63] | c.spread[1][pat>>6&63]
	c.xb = xb
	// primitive, written out: a call here costs the solver's walks some
	// 7% (it does not inline).
	last := xb // the side that made the last move
	if c.delta == 1 {
		last = c.occ ^ xb
	}
	if four(last, g.stride) {
		return i, tiergame.Lose
	}
	if c.n == g.cells {
		return i, tiergame.Tie
	}
	return i, tiergame.Undecided
}

// children appends the children of the decoded position, whose bottom
// places are row i of the tables.
func (c *Cursor) children(i int, dst []tiergame.Child) []tiergame.Child {
	dst = slices.Grow(dst, c.nopen)
	out := dst[len(dst) : len(dst)+c.nopen]
	t := c.tier + 1
	for j, oc := range c.open[:c.nlow] {
		out[j] = tiergame.Child{Tier: t, Pos: tiergame.Position(oc.child + c.lowRank(i, oc.end))}
	}
	for j := c.nlow; j < len(out); j++ {
		out[j] = tiergame.Child{Tier: t, Pos: tiergame.Position(c.open[j].hi + c.r)}
	}
	return dst[:len(dst)+len(out)]
}

// setHigh sets what depends on the X above lowBits only: xhigh, and the
// hi of the open columns that end at or above lowBits.
func (c *Cursor) setHigh() {
	c.xhigh = 0
	for _, col := range c.cols[:c.g.w] {
		c.xhigh |= (c.lo.x >> col.base & col.mask) << col.shift
	}
	for j := c.nlow; j < c.nopen; j++ {
		oc := &c.open[j]
		oc.hi = oc.child + c.highRank(oc.end)
	}
}

// setShape lays out shape s of the tier. It has no branches on the
// heights, which vary at random from one shape to the next.
func (c *Cursor) setShape(s uint64) {
	g := c.g
	c.shape, c.first = s, s*c.nb
	sh := g.shapes[c.n][s]
	heights, code := uint32(sh>>32), uint32(sh)
	var occ uint64
	base, nopen, nlow := uint(0), 0, 0
	for col := 0; col < g.w; col++ {
		hc := uint(heights>>(3*col)) & 7
		shift := uint(col) * g.stride
		mask := uint64(1)<<hc - 1
		c.cols[col] = column{base: base, shift: shift, mask: mask}
		occ |= mask << shift
		base += hc
		// Written for a full column too (its child code may be past
		// the table), but counted only for an open one.
		cc := min(code+g.pow[col], uint32(len(g.rank)-1))
		c.open[nopen] = openColumn{end: base, col: col, child: uint64(g.rank[cc]) * c.cnb}
		open := b2i(int(hc) < g.h)
		nopen += open
		nlow += open & b2i(base < lowBits)
	}
	c.occ, c.code, c.nopen, c.nlow = occ, code, nopen, nlow
	// The cells of the bottom places, in order, and their spreads.
	var cells [lowBits]uint64
	for b := range cells {
		cells[b] = occ & -occ
		occ &= occ - 1
	}
	for h := range c.spread {
		sp := &c.spread[h]
		for v := 1; v < len(sp); v++ {
			sp[v] = sp[v&(v-1)] | cells[6*h+bits.TrailingZeros(uint(v))]
		}
	}
}

// b2i converts a bool to 0 or 1 (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
