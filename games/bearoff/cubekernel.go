package bearoff

import (
	"fmt"

	"github.com/tiersolve/tiersolve/tiergame"
)

// SolvePlanes computes the cubeful money planes of positions [lo, hi) of
// tier t from the planes of its child tiers (tiergame.PlaneKernel), three
// values a position. It walks the tier as SolveChance does: for a mover
// and a run of opponents, a roll's children are consecutive in a child
// tier, so the best play for every opponent of the run is an element-wise
// minimum of a few contiguous rows (of three values an opponent, each
// seen after the child's cube decision: afterDecision).
func (g *Game) SolvePlanes(t tiergame.Tier, lo, hi tiergame.Position, vals func(tiergame.Tier) []tiergame.Prob, out []tiergame.Prob) error {
	if !g.money {
		return fmt.Errorf("bearoff %s: no cube planes (option cube=%s)", g.Option(), CubeMoney)
	}
	if int(t) >= len(g.tiers) || uint64(hi) > g.TierSize(t) || lo > hi || len(out) != cubeStates*int(hi-lo) {
		return fmt.Errorf("bearoff: plane kernel range [%d, %d) of tier %d", lo, hi, t)
	}
	var k kernel
	return k.solve(g, t, lo, hi, vals, out, viewRows)
}

// viewRows are the plane kernel's row operations: each child's planes
// taken after its cube decision.
var viewRows = rowOps{width: cubeStates, what: "planes", first: viewRow, min: minViewRow, add: addViewRow, addMin: addMinViewRow}

// viewRow sets dst to row's planes after each child's cube decision
// (afterDecision).
func viewRow(dst, row []tiergame.Prob) {
	dst = dst[:len(row)]
	for x := 0; x+2 < len(row); x += cubeStates {
		dst[x], dst[x+1], dst[x+2] = afterDecision(row[x], row[x+1], row[x+2])
	}
}

// minViewRow lowers best to row's planes after the cube decision where
// they are smaller.
func minViewRow(best, row []tiergame.Prob) {
	best = best[:len(row)]
	for x := 0; x+2 < len(row); x += cubeStates {
		c, o, v := afterDecision(row[x], row[x+1], row[x+2])
		best[x], best[x+1], best[x+2] = min(best[x], c), min(best[x+1], o), min(best[x+2], v)
	}
}

// addViewRow adds to acc w times row's planes after the cube decision.
func addViewRow(acc []uint64, row []tiergame.Prob, w uint64) {
	acc = acc[:len(row)]
	for x := 0; x+2 < len(row); x += cubeStates {
		c, o, v := afterDecision(row[x], row[x+1], row[x+2])
		acc[x], acc[x+1], acc[x+2] = acc[x]+w*uint64(c), acc[x+1]+w*uint64(o), acc[x+2]+w*uint64(v)
	}
}

// addMinViewRow adds to acc w times the smaller of best and row's planes
// after the cube decision.
func addMinViewRow(acc []uint64, best, row []tiergame.Prob, w uint64) {
	acc, best = acc[:len(row)], best[:len(row)]
	for x := 0; x+2 < len(row); x += cubeStates {
		c, o, v := afterDecision(row[x], row[x+1], row[x+2])
		acc[x] += w * uint64(min(best[x], c))
		acc[x+1] += w * uint64(min(best[x+1], o))
		acc[x+2] += w * uint64(min(best[x+2], v))
	}
}
