package bitarray

import "testing"

// TestRankedBytes: RankedBytes is what a ranked set holds, its words and
// its counts, at sizes on and off the edges of words and blocks.
func TestRankedBytes(t *testing.T) {
	for _, n := range []uint64{0, 1, 63, 64, 65, 511, 512, 513, 4096, 100_000, 1 << 20} {
		r := NewRanked(New(0, n))
		if got, want := RankedBytes(n), 8*uint64(len(r.Words())+len(r.counts)); got != want {
			t.Errorf("RankedBytes(%d) = %d, a ranked set holds %d", n, got, want)
		}
	}
}
