package grid

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSquareSymmetries: for each size, the 8 permutations are distinct,
// the first is the identity, they are closed under composition (a group),
// the second turns the top left corner to the top right, and the tables
// permute as Permute does.
func TestSquareSymmetries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 8; n++ {
		perms := SquareSymmetries(n)
		has := func(p []int) bool {
			return slices.ContainsFunc(perms[:], func(q []int) bool { return slices.Equal(p, q) })
		}
		for i, p := range perms {
			if n > 1 && slices.ContainsFunc(perms[:i], func(q []int) bool { return slices.Equal(p, q) }) {
				t.Fatalf("%dx%d: symmetry %d repeats", n, n, i)
			}
			for _, q := range perms {
				pq := make([]int, len(p))
				for c := range p {
					pq[c] = q[p[c]]
				}
				if !has(pq) {
					t.Fatalf("%dx%d: composition of %v and %v is not a symmetry", n, n, p, q)
				}
			}
			tab := NewPermuteTables(p)
			for range 100 {
				m := rng.Uint64() & (1<<(n*n) - 1)
				if n == 8 {
					m = rng.Uint64()
				}
				if tab.Permute(m) != Permute(m, p) {
					t.Fatalf("%dx%d symmetry %d: tables give %#x, Permute %#x", n, n, i, tab.Permute(m), Permute(m, p))
				}
			}
		}
		if !slices.Equal(perms[0], identity(n*n)) || perms[1][0] != n-1 {
			t.Fatalf("%dx%d: identity %v, rotation %v", n, n, perms[0], perms[1])
		}
	}
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}
