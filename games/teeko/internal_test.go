package teeko

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// eachSet calls f with every set of at most 4 of the 25 cells.
func eachSet(f func(m uint32)) {
	var rec func(m uint32, from, k int)
	rec = func(m uint32, from, k int) {
		f(m)
		for c := from; c < cells && k < pieces; c++ {
			rec(m|1<<c, c+1, k+1)
		}
	}
	rec(0, 0, 0)
}

func TestColex(t *testing.T) {
	n := 0
	eachSet(func(m uint32) {
		n++
		var want uint32
		j := 1
		for c := range cells {
			if m>>c&1 != 0 {
				want += binom[c][j]
				j++
			}
		}
		k := bits.OnesCount32(m)
		if got := colex(m); got != want || unrank[k][got] != m {
			t.Fatalf("colex(%#x) = %d, want %d (unrank gives %#x)", m, got, want, unrank[k][got])
		}
	})
	if want := 1 + 25 + 300 + 2300 + 12650; n != want {
		t.Errorf("%d sets, want %d", n, want)
	}
}

func TestCompress(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		xs, os := randomBoard(rng, rng.IntN(5), rng.IntN(5))
		c := compress(os, xs)
		if bits.OnesCount32(c) != bits.OnesCount32(os) || c>>(cells-bits.OnesCount32(xs)) != 0 {
			t.Fatalf("compress(%#x, %#x) = %#x", os, xs, c)
		}
		if got := expand(c, xs); got != os {
			t.Fatalf("expand(compress(%#x, %#x)) = %#x", os, xs, got)
		}
	}
}

// randomBoard returns x X and o O on distinct random cells.
func randomBoard(rng *rand.Rand, x, o int) (xs, os uint32) {
	perm := rng.Perm(cells)
	for _, c := range perm[:x] {
		xs |= 1 << c
	}
	for _, c := range perm[x : x+o] {
		os |= 1 << c
	}
	return xs, os
}

func TestHasPattern(t *testing.T) {
	ps := Patterns()
	if len(ps) != 44 {
		t.Fatalf("%d patterns, want 44", len(ps))
	}
	n := 0
	eachSet(func(m uint32) {
		want := slices.Contains(ps, m)
		if want {
			n++
		}
		if hasPattern(m) != want {
			t.Fatalf("hasPattern(%#x) = %v, want %v", m, !want, want)
		}
	})
	if n != len(ps) {
		t.Errorf("%d distinct patterns, want %d", n, len(ps))
	}
}

// TestBoardEdits checks the incremental updates of the compressed O set
// against compress.
func TestBoardEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		xs, os := randomBoard(rng, rng.IntN(5), rng.IntN(5))
		var b board
		b.setX(xs)
		b.setO(os, compress(os, xs))
		empty := full &^ (xs | os)
		for m := empty; m != 0; m &= m - 1 {
			c := bits.TrailingZeros32(m)
			if x2, cos := b.dropX(c); x2 != xs|1<<c || cos != compress(os, x2) {
				t.Fatalf("dropX(%d) on %s", c, formatBoard(xs, os, 0))
			}
			if cos := b.cos | b.bit(c); cos != compress(os|1<<c, xs) {
				t.Fatalf("O drop on %d on %s", c, formatBoard(xs, os, 0))
			}
		}
		for m := xs; m != 0; m &= m - 1 {
			a := bits.TrailingZeros32(m)
			if x2, cos := b.liftX(a); x2 != xs&^(1<<a) || cos != compress(os, x2) {
				t.Fatalf("liftX(%d) on %s", a, formatBoard(xs, os, 0))
			}
			for n := empty; n != 0; n &= n - 1 {
				c := bits.TrailingZeros32(n)
				if x2, cos := b.moveX(uint(a), uint(c)); x2 != xs^(1<<a|1<<c) || cos != compress(os, x2) {
					t.Fatalf("moveX(%d, %d) on %s", a, c, formatBoard(xs, os, 0))
				}
			}
		}
	}
}

// TestSymmetries checks the packed transforms against the geometry: each
// symmetry maps cell (r, c) as the composition says, on both halves.
func TestSymmetries(t *testing.T) {
	maps := [8]func(r, c int) (int, int){}
	for s := range maps {
		maps[s] = func(r, c int) (int, int) {
			if s&1 != 0 {
				c = side - 1 - c
			}
			if s&2 != 0 {
				r = side - 1 - r
			}
			if s&4 != 0 {
				r, c = c, r
			}
			return r, c
		}
	}
	for cell := range cells {
		for half := range 2 {
			v := uint64(1) << (cell + 32*half)
			im := images(v)
			for s, f := range maps {
				r, c := f(cell/side, cell%side)
				if want := uint64(1) << (r*side + c + 32*half); im[s] != want {
					t.Errorf("symmetry %d: cell %d (half %d) goes to %#x, want %#x", s, cell, half, im[s], want)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		xs, os := randomBoard(rng, 4, 4)
		v := pack(xs, os)
		c := canonical(v)
		for _, w := range images(v) {
			if canonical(w) != c {
				t.Fatalf("canonical differs within the orbit of %s", formatBoard(xs, os, 0))
			}
		}
	}
}
