//go:build !race

// The race detector multiplies memory use; this test runs in the plain pass.

package bitarray

import "testing"

// TestLarge checks a range of 2^34+5 positions (set only where memory allows).
func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 2 GiB")
	}
	const n = 1<<34 + 5
	s := New(0, n)
	for _, p := range []uint64{0, 1 << 32, 1<<34 + 4} {
		s.Add(p)
	}
	rk := NewRanked(s)
	if got, ok := rk.Lookup(1<<34 + 4); !ok || got != 2 {
		t.Fatalf("rank near 2^34: %d %v", got, ok)
	}
	if mx, _ := s.Max(); mx != 1<<34+4 {
		t.Fatalf("Max %d", mx)
	}
}
