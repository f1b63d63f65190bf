package tictactoe

import (
	"github.com/tiersolve/tiersolve/games/internal/grid"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Symmetry: the 8 symmetries of the square board (grid.SquareSymmetries,
// in that order). The canonical member of an orbit is the one with the
// smallest hash.

var _ tiergame.Symmetric = Game{}

// symmetries[s][m] is the mask m of cells moved by symmetry s.
var symmetries = func() (t [8][1 << cells]uint16) {
	for s, perm := range grid.SquareSymmetries(3) {
		for m := range t[s] {
			t[s][m] = uint16(grid.Permute(uint64(m), perm))
		}
	}
	return t
}()

// Images appends the image of p under each of the 8 symmetries, p first.
func (Game) Images(t tiergame.Tier, p tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	x, o := unhash(int(t), p)
	for s := range symmetries {
		dst = append(dst, hash(symmetries[s][x], symmetries[s][o]))
	}
	return dst
}

// Canonical returns the image of p with the smallest hash.
func (Game) Canonical(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	x, o := unhash(int(t), p)
	best := p
	for s := 1; s < len(symmetries); s++ {
		best = min(best, hash(symmetries[s][x], symmetries[s][o]))
	}
	return best
}
