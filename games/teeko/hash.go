package teeko

import "math/bits"

// How positions are hashed.
//
// A board is two sets of cells, xs and os (bit i for cell i). A set of k
// cells has a colex rank: sum over its cells c_0 < c_1 < ... of
// C(c_j, j+1). The colex order of the k-subsets of {0..n-1} is the start
// of that of {0..N-1} for N > n, so one table ranks and unranks subsets of
// any universe of up to 25 cells.
//
// Within a tier of x X and o O, a board's index is rank(xs)*C(25-x, o) +
// rank(cos), where cos is os compressed into the 25-x cells X leaves
// empty (bit j for the j-th such cell). In the moving tier the hash is
// 2*index plus 1 when O is to move; in the drop tiers the side to move is
// the tier's and the hash is the index. Every hash of a tier is a board,
// so the level files waste nothing.

// binom[n][k] = C(n, k) for n <= cells and k <= pieces.
var binom = func() (b [cells + 1][pieces + 1]uint32) {
	for n := range b {
		b[n][0] = 1
		for k := 1; k <= pieces && k <= n; k++ {
			b[n][k] = b[n-1][k-1] + b[n-1][k]
		}
	}
	return b
}()

// The colex rank of a set of up to 4 cells in three table lookups: its
// cells 0-8, 9-16 and 17-24. An entry of rankA and rankB packs the rank
// of its chunk's cells in the low 16 bits and, above, the offset in the
// next table of the row for the number of cells counted so far
// (count*256); the ranks add up without carrying into the offsets.
var (
	rankA [1 << 9]uint32
	rankB [16 << 8]uint32 // row: the cells below 9
	rankC [16 << 8]uint16 // row: the cells below 17
)

// unrank[k][r] is the set of k cells of colex rank r.
var unrank [pieces + 1][]uint32

func init() {
	// The rank of the set of bits m of a chunk starting at cell base when
	// n cells below it are in the set: the sum of C(base+c, n+j+1).
	chunk := func(m uint32, base, n int) (rank uint32, count int) {
		for ; m != 0; m &= m - 1 {
			c := base + bits.TrailingZeros32(m)
			if n+count+1 <= pieces && c <= cells {
				rank += binom[c][n+count+1]
			}
			count++
		}
		return rank, count
	}
	for m := range rankA {
		r, k := chunk(uint32(m), 0, 0)
		rankA[m] = r | uint32(k)<<24
	}
	for n := range 16 {
		for m := range 256 {
			r, k := chunk(uint32(m), 9, n)
			rankB[n<<8|m] = r | uint32(min(n+k, 15))<<24
			r, _ = chunk(uint32(m), 17, n)
			rankC[n<<8|m] = uint16(r)
		}
	}
	for k := range unrank {
		unrank[k] = make([]uint32, binom[cells][k])
	}
	var each func(m uint32, from, k int)
	each = func(m uint32, from, k int) {
		unrank[k][colex(m)] = m
		for c := from; c < cells && k < pieces; c++ {
			each(m|1<<c, c+1, k+1)
		}
	}
	each(0, 0, 0)
}

// colex returns the colex rank of a set of at most 4 cells (any bits of
// m above the 25 cells count as cells 25 and up, which no caller passes).
func colex(m uint32) uint32 {
	a := rankA[m&(1<<9-1)]
	b := rankB[(a>>16|m>>9&0xff)&(16<<8-1)]
	c := rankC[(b>>16|m>>17&0xff)&(16<<8-1)]
	return (a + b + uint32(c)) & 0xffff
}

// compress returns os as a set of the cells not in xs: bit j for the j-th
// cell (counting up from cell 0) that xs leaves out. It goes a row at a
// time: rowCompress[x | o<<5] for the X and O of a row holds the row's O
// compressed (bits 0-4) and the number of cells the row's X leave (bits
// 5-7).
func compress(os, xs uint32) uint32 {
	// Unrolled: shifts by constants cost less than by a variable.
	e0 := uint32(rowCompress[(xs&31|os<<5)&1023])
	e1 := uint32(rowCompress[(xs>>5&31|os&(31<<5))&1023])
	e2 := uint32(rowCompress[(xs>>10&31|os>>5&(31<<5))&1023])
	e3 := uint32(rowCompress[(xs>>15&31|os>>10&(31<<5))&1023])
	e4 := uint32(rowCompress[(xs>>20&31|os>>15&(31<<5))&1023])
	c, n := e0&31, e0>>5
	c |= e1 & 31 << (n & 31)
	n += e1 >> 5
	c |= e2 & 31 << (n & 31)
	n += e2 >> 5
	c |= e3 & 31 << (n & 31)
	n += e3 >> 5
	return c | e4&31<<(n&31)
}

var rowCompress = func() (t [1 << (2 * side)]uint8) {
	for x := range 1 << side {
		for o := range 1 << side {
			var c, n uint8
			for i := range side {
				if x>>i&1 == 0 {
					c |= uint8(o>>i&1) << n
					n++
				}
			}
			t[x|o<<side] = c | n<<5
		}
	}
	return t
}()

// expand is the inverse of compress: the cells of xs's complement that
// the bits of c number. Row by row, rowExpand[x | m<<5] spreads the low
// bits m of c over the cells the row's X leave; they take as many bits as
// there are such cells (rowFree[x]).
func expand(c, xs uint32) uint32 {
	x0, x1, x2, x3, x4 := xs&31, xs>>5&31, xs>>10&31, xs>>15&31, xs>>20&31
	os := uint32(rowExpand[(x0|c<<5)&1023])
	c >>= rowFree[x0] & 31
	os |= uint32(rowExpand[(x1|c<<5)&1023]) << 5
	c >>= rowFree[x1] & 31
	os |= uint32(rowExpand[(x2|c<<5)&1023]) << 10
	c >>= rowFree[x2] & 31
	os |= uint32(rowExpand[(x3|c<<5)&1023]) << 15
	c >>= rowFree[x3] & 31
	return os | uint32(rowExpand[(x4|c<<5)&1023])<<20
}

var rowExpand, rowFree = func() (t [1 << (2 * side)]uint8, free [1 << side]uint8) {
	for x := range 1 << side {
		free[x] = uint8(side - bits.OnesCount8(uint8(x)))
		for m := range 1 << side {
			var o, j uint8
			for i := range side {
				if x>>i&1 == 0 {
					o |= uint8(m>>j&1) << i
					j++
				}
			}
			t[x|m<<side] = o
		}
	}
	return t, free
}()

// index returns the index of board (xs, os) in a tier whose boards have
// mulO compressed O sets per X set.
func index(xs, os uint32, mulO uint64) uint64 {
	return uint64(colex(xs))*mulO + uint64(colex(compress(os, xs)))
}
