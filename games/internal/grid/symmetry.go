package grid

// SquareSymmetries returns the 8 symmetries of an n x n board as cell
// permutations: cell i = r*n + c goes to cell perm[s][i] under symmetry s.
// They are, in order: the identity; the rotations by 90, 180 and 270
// degrees clockwise; the reflections in the vertical axis (left-right),
// the horizontal axis (top-bottom), the main diagonal and the
// anti-diagonal.
func SquareSymmetries(n int) [8][]int {
	maps := [8]func(r, c int) (int, int){
		func(r, c int) (int, int) { return r, c },
		func(r, c int) (int, int) { return c, n - 1 - r },
		func(r, c int) (int, int) { return n - 1 - r, n - 1 - c },
		func(r, c int) (int, int) { return n - 1 - c, r },
		func(r, c int) (int, int) { return r, n - 1 - c },
		func(r, c int) (int, int) { return n - 1 - r, c },
		func(r, c int) (int, int) { return c, r },
		func(r, c int) (int, int) { return n - 1 - c, n - 1 - r },
	}
	var perms [8][]int
	for s, f := range maps {
		perms[s] = make([]int, n*n)
		for i := range perms[s] {
			r, c := f(i/n, i%n)
			perms[s][i] = r*n + c
		}
	}
	return perms
}

// Permute moves bit i of mask to bit perm[i].
func Permute(mask uint64, perm []int) uint64 {
	var out uint64
	for i, j := range perm {
		out |= (mask >> i & 1) << j
	}
	return out
}

// PermuteTables holds a permutation of cells as tables of 8 cells each,
// for permuting masks of up to 64 cells with a lookup per byte.
type PermuteTables [][256]uint64

// NewPermuteTables builds the tables of perm.
func NewPermuteTables(perm []int) PermuteTables {
	t := make(PermuteTables, (len(perm)+7)/8)
	for k := range t {
		for b := range t[k] {
			var out uint64
			for i := 0; i < 8 && 8*k+i < len(perm); i++ {
				out |= uint64(b>>i&1) << perm[8*k+i]
			}
			t[k][b] = out
		}
	}
	return t
}

// Permute moves bit i of mask (of at most len(perm) cells) to bit
// perm[i].
func (t PermuteTables) Permute(mask uint64) uint64 {
	var out uint64
	for k := range t {
		out |= t[k][mask>>(8*k)&0xff]
	}
	return out
}
