package plan

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
)

// TestRefine: a refined cut cuts wherever the cut does, its sub-parts
// hold members, at ranks that are multiples of the alignment, about as
// many in each of a part's.
func TestRefine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		size, parts, m int
		density        float64
		align          uint64
	}{
		{100000, 3, 4, 0.3, 1},
		{100000, 3, 3, 0.05, 64},
		{5000, 4, 8, 0.01, 1},  // parts of a dozen members: some sub-parts merge
		{2000, 2, 5, 0.001, 1}, // fewer members than sub-parts
		{60000, 1, 6, 0.5, 4096},
	} {
		s := bitarray.New(0, uint64(tc.size))
		for i := range tc.size {
			if rng.Float64() < tc.density {
				s.Add(uint64(i))
			}
		}
		set := bitarray.NewRanked(s)
		cut := NewCut(set, tc.parts, 1)
		fine := cut.Refine(set, tc.m, tc.align)
		for _, b := range cut.Bounds {
			if !slices.Contains(fine.Bounds, b) {
				t.Fatalf("%+v: bound %d of %v missing from %v", tc, b, cut.Bounds, fine.Bounds)
			}
		}
		for j := range fine.Parts() {
			lo, hi := fine.Bounds[j], fine.Bounds[j+1]
			n := Range{Lo: lo, Hi: hi}.Count(set)
			if lo >= hi || n == 0 && set.Total() > 0 {
				t.Fatalf("%+v: sub-part %d [%d, %d) of %d members", tc, j, lo, hi, n)
			}
			if !slices.Contains(cut.Bounds, lo) && FirstRank(set, Range{Lo: lo})%tc.align != 0 {
				t.Errorf("%+v: sub-part %d starts at rank %d", tc, j, FirstRank(set, Range{Lo: lo}))
			}
		}
		for k := range cut.Parts() {
			n := Range{Lo: cut.Bounds[k], Hi: cut.Bounds[k+1]}.Count(set)
			subs := 0
			for j := range fine.Parts() {
				if fine.Bounds[j] >= cut.Bounds[k] && fine.Bounds[j+1] <= cut.Bounds[k+1] {
					subs++
					if c := (Range{Lo: fine.Bounds[j], Hi: fine.Bounds[j+1]}).Count(set); c > n/uint64(tc.m)+tc.align+1 {
						t.Errorf("%+v: part %d of %d members has a sub-part of %d", tc, k, n, c)
					}
				}
			}
			if subs > tc.m || n >= uint64(tc.m)*tc.align*2 && subs != tc.m {
				t.Errorf("%+v: part %d of %d members in %d sub-parts", tc, k, n, subs)
			}
		}
	}
}

// TestCutWidest: the widest part of a cut, in hashes.
func TestCutWidest(t *testing.T) {
	for _, tc := range []struct {
		bounds []uint64
		want   uint64
	}{{[]uint64{0, 10}, 10}, {[]uint64{5, 6, 20, 22}, 14}, {[]uint64{0, 0}, 0}} {
		if got := (Cut{Bounds: tc.bounds}).Widest(); got != tc.want {
			t.Errorf("Cut%v.Widest() = %d, want %d", tc.bounds, got, tc.want)
		}
	}
}
