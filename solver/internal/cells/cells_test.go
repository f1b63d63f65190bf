package cells

import (
	"github.com/tiersolve/tiersolve/solver/plan"
	"math/rand/v2"
	"testing"
)

// TestWiden: byte cells widened in place to 16 bits hold every code
// translated, for counts of cells around a word's and a chunk's edges,
// on the heap and mapped outside it, with one goroutine and several.
func TestWiden(t *testing.T) {
	f := func(c uint32) uint32 {
		if c == Absent {
			return c
		}
		return c*7 + 300 // past a byte: the wide cells hold it
	}
	for _, n := range []uint64{1, 7, 8, 9, 63, 1000, 1 << 20, 1<<20 + 13} {
		for _, workers := range []int{1, 3} {
			c, err := New(n, Layout8)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(n, uint64(workers)))
			want := make([]uint32, n)
			for i := range want {
				if rng.IntN(4) > 0 {
					want[i] = uint32(1 + rng.IntN(255))
					c.Set(uint64(i), want[i])
				}
			}
			if err := c.Widen(workers, n, Layout16, f); err != nil {
				t.Fatal(err)
			}
			if c.Lay != Layout16 || uint64(len(c.Words)) != (n+3)/4 {
				t.Fatalf("%d cells: layout %+v, %d words; want 16 bits in %d", n, c.Lay, len(c.Words), (n+3)/4)
			}
			for i, w := range want {
				if got := c.Peek(uint64(i)); got != f(w) {
					t.Fatalf("%d cells, %d goroutines: cell %d is %d, want %d (from %d)", n, workers, i, got, f(w), w)
				}
			}
			for _, x := range c.Words[n/4:] { // the cells past n are absent
				if n%4 == 0 && x != 0 {
					t.Fatalf("%d cells: a word past them is %x", n, x)
				}
			}
			c.Free()
		}
	}
}

// TestNarrowLayout checks the byte cells' layout against the remoteness
// the memory plans count it to hold (plan.PartCellBytes).
func TestNarrowLayout(t *testing.T) {
	if Layout8.Rem != plan.NarrowRem || Layout8.TieRem != plan.NarrowTieRem {
		t.Errorf("layout8 holds remoteness %d and ties %d; plan counts %d and %d", Layout8.Rem, Layout8.TieRem, plan.NarrowRem, plan.NarrowTieRem)
	}
}
