// Package comb ranks and unranks subsets in the combinatorial number system,
// the building block of the dense position hashes of the bundled games.
//
// A k-subset {p_0 < p_1 < ... < p_{k-1}} of {0, ..., n-1}, held as a bit
// mask, has the colexicographic rank C(p_0, 1) + C(p_1, 2) + ... +
// C(p_{k-1}, k), a bijection onto [0, C(n, k)).
package comb

import "math/bits"

// MaxN is the largest n for which Binom is tabulated; C(64, 32) still fits
// a uint64.
const MaxN = 64

// binom[n][k] = C(n, k), zero for k > n.
var binom = func() (t [MaxN + 1][MaxN + 2]uint64) {
	for n := 0; n <= MaxN; n++ {
		t[n][0] = 1
		for k := 1; k <= n; k++ {
			t[n][k] = t[n-1][k-1] + t[n-1][k]
		}
	}
	return t
}()

// Binom returns C(n, k), or 0 when k < 0, k > n or n is outside [0, MaxN].
func Binom(n, k int) uint64 {
	if n < 0 || n > MaxN || k < 0 || k > n {
		return 0
	}
	return binom[n][k]
}

// Rank returns the colexicographic rank of the set bits of mask among the
// subsets of the same size.
func Rank(mask uint64) uint64 {
	var r uint64
	for j := 1; mask != 0; j++ {
		p := bits.TrailingZeros64(mask)
		r += binom[p][j]
		mask &= mask - 1
	}
	return r
}

// Unrank returns the k-subset of {0, ..., n-1} of colexicographic rank r as
// a bit mask. It requires 0 <= k <= n <= MaxN and r < C(n, k).
func Unrank(r uint64, n, k int) uint64 {
	var mask uint64
	for p := n - 1; k > 0 && p >= 0; p-- {
		if c := binom[p][k]; c <= r {
			r -= c
			mask |= 1 << uint(p)
			k--
		}
	}
	return mask
}

// Compress gathers the bits of x at the set positions of mask into the low
// bits of the result, in order (a software PEXT).
func Compress(x, mask uint64) uint64 {
	var r uint64
	for i := 0; mask != 0; i++ {
		p := bits.TrailingZeros64(mask)
		r |= (x >> uint(p) & 1) << uint(i)
		mask &= mask - 1
	}
	return r
}

// Expand is the inverse of Compress: it scatters the low bits of x, in
// order, to the set positions of mask (a software PDEP).
func Expand(x, mask uint64) uint64 {
	var r uint64
	for ; mask != 0; x >>= 1 {
		low := mask & -mask
		if x&1 != 0 {
			r |= low
		}
		mask &^= low
	}
	return r
}
