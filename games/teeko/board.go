package teeko

import "encoding/binary"

// Cells are numbered row by row from the top left, cell r*5+c at row r,
// column c, and a set of cells is a bit mask.

// neighbours[c] holds the up to 8 cells next to cell c.
var neighbours = func() (n [cells]uint32) {
	for c := range cells {
		r0, c0 := c/side, c%side
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				r, cc := r0+dr, c0+dc
				if (dr != 0 || dc != 0) && r >= 0 && r < side && cc >= 0 && cc < side {
					n[c] |= 1 << (r*side + cc)
				}
			}
		}
	}
	return n
}()

// Patterns returns the 44 sets of four cells that win, as bit masks of
// cells (bit r*5+c for row r, column c from the top left): the 10 rows
// and 10 columns of four, the 8 diagonals of four and the 16 2x2 squares.
func Patterns() []uint32 {
	var ps []uint32
	line := func(r, c, dr, dc int) {
		var m uint32
		for i := range pieces {
			m |= 1 << ((r+i*dr)*side + c + i*dc)
		}
		ps = append(ps, m)
	}
	for a := range side {
		for b := 0; b+pieces <= side; b++ {
			line(a, b, 0, 1) // a row
			line(b, a, 1, 0) // a column
		}
	}
	for r := 0; r+pieces <= side; r++ {
		for c := 0; c+pieces <= side; c++ {
			line(r, c, 1, 1)         // down and right
			line(r, side-1-c, 1, -1) // down and left
		}
	}
	for r := 0; r+1 < side; r++ {
		for c := 0; c+1 < side; c++ {
			ps = append(ps, 1<<(r*side+c)|1<<(r*side+c+1)|1<<((r+1)*side+c)|1<<((r+1)*side+c+1))
		}
	}
	return ps
}

// The patterns by a perfect hash: hasPattern(m) looks at one slot,
// patternSlots[m*patternMul>>56], which holds the pattern that hashes
// there or noPattern. The multiplier is the first odd number of a fixed
// sequence that sends the 44 patterns to distinct slots.
var (
	patternSlots [256]uint32
	patternMul   uint64
)

const noPattern = ^uint32(0) // no set of cells

func init() {
	ps := Patterns()
	for x := uint64(0x9e3779b97f4a7c15); ; x = x*6364136223846793005 + 1442695040888963407 {
		mul := x | 1
		for i := range patternSlots {
			patternSlots[i] = noPattern
		}
		ok := true
		for _, p := range ps {
			s := &patternSlots[uint64(p)*mul>>56]
			if *s != noPattern {
				ok = false
				break
			}
			*s = p
		}
		if ok {
			patternMul = mul
			return
		}
	}
}

// lowBits returns the set of bits below bit i.
func lowBits(i uint8) uint32 { return 1<<(i&31) - 1 }

// board is a decoded board with what move generation needs of it.
type board struct {
	xs, os uint32
	rx     uint32 // colex(xs)
	cos    uint32 // os compressed: see hash.go
	// k[c] is the number of cells below c that xs leaves empty of X: the
	// index of cell c in the compressed sets when c is not an X.
	k       [32]uint8
	pattern bool // whether a pattern stands
}

// setX sets the X cells of b (then setO sets the O).
func (b *board) setX(xs uint32) {
	b.xs, b.rx = xs, colex(xs)
	// A row at a time: rowK[x] holds, byte i, the cells of row x below
	// cell i that are not X; eight bytes are written and the next row's
	// overwrite the last three.
	var n uint64
	for r := 0; r < cells; r += side {
		x := xs >> r & 31
		binary.LittleEndian.PutUint64(b.k[r:r+8], rowK[x]+n*0x0101010101)
		n += uint64(rowFree[x])
	}
}

var rowK = func() (t [1 << side]uint64) {
	for x := range t {
		n := uint64(0)
		for i := range side {
			t[x] |= n << (8 * i)
			n += uint64(x>>i&1 ^ 1)
		}
	}
	return t
}()

// setO sets the O cells of b, given compressed (cos) and not (os).
func (b *board) setO(os, cos uint32) {
	b.os, b.cos = os, cos
	b.pattern = hasPattern(b.xs) || hasPattern(os)
}

// moveX returns the X set and compressed O set after the X on cell a
// moves to the empty cell b. The O between a and b change index by one,
// as a leaves the X cells and b joins them: those of indexes [ka, kb)
// go up one when a < b (cos + cos&m doubles them; index kb is b's, free
// of O), those of [kb+1, ka) down one when a > b.
func (bd *board) moveX(a, b uint) (xs, cos uint32) {
	a, b = a&31, b&31
	ka, kb := uint(bd.k[a])&31, uint(bd.k[b])&31
	if a < b {
		m := uint32(1)<<kb - uint32(1)<<ka
		return bd.xs ^ (1<<a | 1<<b), bd.cos + bd.cos&m
	}
	m := uint32(1)<<ka - uint32(2)<<kb
	return bd.xs ^ (1<<a | 1<<b), bd.cos - (bd.cos&m)>>1
}

// dropX returns the X set and compressed O set after X drops on cell b.
func (bd *board) dropX(b int) (xs, cos uint32) {
	low := lowBits(bd.k[b&31])
	return bd.xs | 1<<b, bd.cos&low | bd.cos>>1&^low
}

// liftX returns the X set and compressed O set after the X on cell b is
// taken off the board.
func (bd *board) liftX(b int) (xs, cos uint32) {
	low := lowBits(bd.k[b&31])
	return bd.xs &^ (1 << b), bd.cos&low | (bd.cos&^low)<<1
}

// bit returns the compressed bit of cell c, which is not an X.
func (bd *board) bit(c int) uint32 { return 1 << (bd.k[c&31] & 31) }
