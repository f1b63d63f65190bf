package comb

import (
	"math/bits"
	"testing"
)

func TestBinom(t *testing.T) {
	tests := []struct {
		n, k int
		want uint64
	}{
		{0, 0, 1}, {5, 2, 10}, {9, 4, 126}, {42, 21, 538257874440},
		{64, 32, 1832624140942590534}, {3, 4, 0}, {3, -1, 0}, {65, 1, 0},
	}
	for _, tc := range tests {
		if got := Binom(tc.n, tc.k); got != tc.want {
			t.Errorf("Binom(%d, %d) = %d, want %d", tc.n, tc.k, got, tc.want)
		}
	}
}

// TestRankUnrank checks, for every subset of up to 14 elements, that Rank
// counts the smaller subsets of the same size in colex order (numeric order
// of the masks) and that Unrank inverts it.
func TestRankUnrank(t *testing.T) {
	const n = 14
	var next [n + 1]uint64 // next rank expected per subset size
	for mask := uint64(0); mask < 1<<n; mask++ {
		k := bits.OnesCount64(mask)
		r := Rank(mask)
		if r != next[k] {
			t.Fatalf("Rank(%b) = %d, want %d", mask, r, next[k])
		}
		next[k]++
		if got := Unrank(r, n, k); got != mask {
			t.Fatalf("Unrank(%d, %d, %d) = %b, want %b", r, n, k, got, mask)
		}
	}
	for k := 0; k <= n; k++ {
		if next[k] != Binom(n, k) {
			t.Errorf("%d subsets of size %d, want %d", next[k], k, Binom(n, k))
		}
	}
}

func TestCompressExpand(t *testing.T) {
	tests := []struct{ x, mask, packed uint64 }{
		{0b1010_1010, 0b1111_0000, 0b1010},
		{0b1111, 0b1010, 0b11},
		{0, 0xff, 0},
		{^uint64(0), 1 << 63, 1},
	}
	for _, tc := range tests {
		if got := Compress(tc.x, tc.mask); got != tc.packed {
			t.Errorf("Compress(%b, %b) = %b, want %b", tc.x, tc.mask, got, tc.packed)
		}
		if got, want := Expand(tc.packed, tc.mask), tc.x&tc.mask; got != want {
			t.Errorf("Expand(%b, %b) = %b, want %b", tc.packed, tc.mask, got, want)
		}
	}
}
