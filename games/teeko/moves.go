package teeko

import (
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// maxMoves bounds the moves of a position: 25 drops, or 4 pieces with 8
// neighbours each.
const maxMoves = 32

// children appends to dst the hashes of the children of board b of tier t
// (described by ti) with mover to move (0 for X), which must not be
// primitive. The children are in tier t+1 in the drop phase and in the
// moving tier otherwise. Drops come by cell; moves by the cell they leave,
// then the cell they reach.
func children(t tiergame.Tier, b *board, mover uint32, dst []tiergame.Position) []tiergame.Position {
	dst = slices.Grow(dst, maxMoves)
	out := dst[len(dst) : len(dst)+maxMoves]
	k := 0
	empty := full &^ (b.xs | b.os)
	switch {
	case t < MovingTier && mover == 0:
		ci := &tiers[(t+1)&15]
		for m := empty; m != 0; m &= m - 1 {
			xs, cos := b.dropX(bits.TrailingZeros32(m))
			out[k&(maxMoves-1)] = tiergame.Position((uint64(colex(xs))*ci.mulO + uint64(colex(cos))) << ci.shift)
			k++
		}
	case t < MovingTier:
		ci := &tiers[(t+1)&15]
		base := uint64(b.rx) * ci.mulO
		for m := empty; m != 0; m &= m - 1 {
			cos := b.cos | b.bit(bits.TrailingZeros32(m))
			out[k&(maxMoves-1)] = tiergame.Position((base + uint64(colex(cos))) << ci.shift)
			k++
		}
	case mover == 0:
		mulO := tiers[MovingTier].mulO
		for m := b.xs; m != 0; m &= m - 1 {
			a := bits.TrailingZeros32(m)
			for n := neighbours[a&31] & empty; n != 0; n &= n - 1 {
				xs, cos := b.moveX(uint(a), uint(bits.TrailingZeros32(n)))
				out[k&(maxMoves-1)] = tiergame.Position((uint64(colex(xs))*mulO+uint64(colex(cos)))<<1 | 1)
				k++
			}
		}
	default:
		mulO := tiers[MovingTier].mulO
		base := uint64(b.rx) * mulO
		for m := b.os; m != 0; m &= m - 1 {
			a := bits.TrailingZeros32(m)
			from := b.cos ^ b.bit(a)
			for n := neighbours[a&31] & empty; n != 0; n &= n - 1 {
				out[k&(maxMoves-1)] = tiergame.Position((base + uint64(colex(from|b.bit(bits.TrailingZeros32(n))))) << 1)
				k++
			}
		}
	}
	return dst[:len(dst)+k]
}

// childTier returns the tier of the children of tier t.
func childTier(t tiergame.Tier) tiergame.Tier { return min(t+1, MovingTier) }

// Moves reports Lose for a position where a pattern stands, and otherwise
// appends its children: drops by cell, moves by the cell they leave, then
// the cell they reach.
func (Game) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	ti := tierOf(t)
	xs, os, mover := decode(ti, uint64(p))
	var b board
	b.setX(xs)
	b.setO(os, compress(os, xs))
	return movesOf(t, &b, mover, dst, nil)
}

// movesOf is Moves for board b, with buf as scratch space for the hashes.
func movesOf(t tiergame.Tier, b *board, mover uint32, dst []tiergame.Child, buf []tiergame.Position) (tiergame.Value, []tiergame.Child) {
	if b.pattern {
		return tiergame.Lose, dst
	}
	var arr [maxMoves]tiergame.Position
	if buf == nil {
		buf = arr[:0]
	}
	ct := childTier(t)
	for _, c := range children(t, b, mover, buf[:0]) {
		dst = append(dst, tiergame.Child{Tier: ct, Pos: c})
	}
	return tiergame.Undecided, dst
}

var (
	_ tiergame.CursorGame   = Game{}
	_ tiergame.ByTierCursor = (*Cursor)(nil)
)

// Cursor generates the moves of the positions of one tier, fastest for
// ascending positions (see tiergame.Cursor). It is not safe for concurrent
// use.
type Cursor struct {
	t  tiergame.Tier
	ti *tierInfo
	// The board decoded last: its index in the tier (hash >> ti.shift,
	// noBoard before the first) and the rank of its compressed O set.
	i  uint64
	rO uint64
	b  board
	// expand[k][m] is the set of cells that bits m of a compressed O set,
	// shifted down by 8k, stand for, with the board's X cells.
	expand [3][256]uint32
	buf    [maxMoves]tiergame.Position
	// im holds the images of the board of index imagesOf (see images).
	im       [8]uint64
	imagesOf uint64
}

const noBoard = ^uint64(0)

// Cursor returns a cursor over tier t, which must be a tier of the game.
func (Game) Cursor(t tiergame.Tier) tiergame.Cursor {
	return &Cursor{t: t, ti: tierOf(t), i: noBoard, imagesOf: noBoard}
}

// seek decodes the board of index i: the next O set of the same X set
// when i follows the last board's index, else from scratch.
func (c *Cursor) seek(i uint64) {
	ti := c.ti
	if c.i != noBoard && i == c.i+1 && c.rO+1 < ti.mulO {
		c.i, c.rO = i, c.rO+1
	} else {
		first := c.i == noBoard
		c.i, c.rO = i, i%ti.mulO
		if xs := unrank[ti.x][i/ti.mulO]; first || xs != c.b.xs {
			c.b.setX(xs)
			c.setExpand(xs)
		}
	}
	cos := unrank[ti.o][c.rO]
	os := c.expand[0][cos&0xff] | c.expand[1][cos>>8&0xff] | c.expand[2][cos>>16&0xff]
	c.b.setO(os, cos)
}

// setExpand fills c.expand for the X cells xs (once per X set: the
// cursor visits the boards of one X set in a row).
func (c *Cursor) setExpand(xs uint32) {
	free := full &^ xs
	for k := range c.expand {
		t := &c.expand[k]
		for m := 1; m < len(t); m++ {
			// The cell of the lowest bit of m, added to the others'.
			cell := uint32(0)
			if j := 8*k + bits.TrailingZeros(uint(m)); j < bits.OnesCount32(free) {
				cell = nthBit(free, j)
			}
			t[m] = t[m&(m-1)] | cell
		}
	}
}

// nthBit returns the j-th lowest set bit of m, alone.
func nthBit(m uint32, j int) uint32 {
	for range j {
		m &= m - 1
	}
	return m & -m
}

// mover returns the side to move of position p of the cursor's tier and
// makes sure its board is decoded.
func (c *Cursor) mover(p tiergame.Position) uint32 {
	if i := uint64(p) >> c.ti.shift; i != c.i {
		c.seek(i)
	}
	if c.ti.shift != 0 {
		return uint32(p & 1)
	}
	return c.ti.mover
}

// Moves returns what Game.Moves returns for position p of the cursor's
// tier.
func (c *Cursor) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	mover := c.mover(p)
	return movesOf(c.t, &c.b, mover, dst, c.buf[:0])
}

// MovesByTier appends the children of p to dst[0], the list of the one
// child tier: t+1 in the drop phase, the moving tier itself after it.
func (c *Cursor) MovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	mover := c.mover(p)
	if c.b.pattern {
		return tiergame.Lose
	}
	if dst[0] != nil {
		dst[0] = children(c.t, &c.b, mover, dst[0])
	}
	return tiergame.Undecided
}
