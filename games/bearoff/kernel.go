package bearoff

import (
	"fmt"

	"github.com/tiersolve/tiersolve/tiergame"
)

// totalWeight is the sum of the rolls' weights: 36 rolls of two dice.
const totalWeight = 36

// SolveChance computes the values of positions [lo, hi) of tier t from the
// values of its child tiers (tiergame.ChanceKernel).
//
// Within a group (a, b) of the tier, positions run by opponent j, then by
// mover i. The kernel takes the movers one at a time: for mover i and a
// run of opponents j, the children of roll k are (j, i') for the boards i'
// the roll leaves, and for each i' they are consecutive positions of the
// child tier. So a roll's best play against every opponent of the run is
// an element-wise minimum of a few contiguous rows, and the value an
// element-wise weighted sum over the 21 rolls: one side's move lists are
// read once per mover, and child values in memory order.
func (g *Game) SolveChance(t tiergame.Tier, lo, hi tiergame.Position, vals func(tiergame.Tier) []tiergame.Prob, out []tiergame.Prob) error {
	if int(t) >= len(g.tiers) || uint64(hi) > g.TierSize(t) || lo > hi || len(out) != int(hi-lo) {
		return fmt.Errorf("bearoff: kernel range [%d, %d) of tier %d", lo, hi, t)
	}
	var k kernel
	return k.solve(g, t, lo, hi, vals, out, plainRows)
}

// rowOps are a kernel's operations on rows of child values (width values
// an opponent): the cubeless kernel's take the values as they are, the
// plane kernel's after each child's cube decision (cubekernel.go).
type rowOps struct {
	width  int
	what   string                                                  // what a child tier holds, for errors
	first  func(best, row []tiergame.Prob)                         // best = row
	min    func(best, row []tiergame.Prob)                         // best = min(best, row)
	add    func(acc []uint64, row []tiergame.Prob, w uint64)       // acc += w*row
	addMin func(acc []uint64, best, row []tiergame.Prob, w uint64) // acc += w*min(best, row)
}

// plainRows are the cubeless kernel's row operations.
var plainRows = rowOps{width: 1, what: "values", first: func(best, row []tiergame.Prob) { copy(best, row) }, min: minRow, add: addRow, addMin: addMinRow}

// kernel is the scratch space of SolveChance and SolvePlanes.
type kernel struct {
	best []tiergame.Prob // a roll's best (smallest) child value per opponent
	acc  []uint64        // weighted sum over the rolls per opponent
	// rows[a-a'] holds the values of group (b, a') of tier b+a': child
	// (j, i') is at rank(i')*count(b) + rank(j) (times the width).
	rows [25][]tiergame.Prob
}

// solve computes positions [lo, hi) of tier t group by group.
func (k *kernel) solve(g *Game, t tiergame.Tier, lo, hi tiergame.Position, vals func(tiergame.Tier) []tiergame.Prob, out []tiergame.Prob, ops rowOps) error {
	s := g.moveLists()
	ti := &g.tiers[t]
	w := uint64(ops.width)
	for grp := range len(ti.start) - 1 {
		gs, ge := ti.start[grp], ti.start[grp+1]
		l0, l1 := max(uint64(lo), gs), min(uint64(hi), ge)
		if l0 >= l1 {
			continue
		}
		a := ti.aLo + grp
		if err := k.group(g, s, int(t), a, l0-gs, l1-gs, vals, out[w*(l0-uint64(lo)):w*(l1-uint64(lo))], ops); err != nil {
			return err
		}
	}
	return nil
}

// group solves local positions [l0, l1) of group (a, T-a); out[0] is
// local position l0 (ops.width values a position).
func (k *kernel) group(g *Game, s *oneSided, T, a int, l0, l1 uint64, vals func(tiergame.Tier) []tiergame.Prob, out []tiergame.Prob, ops rowOps) error {
	b := T - a
	ca, cb := g.count(a), g.count(b)
	width := uint64(ops.width)
	switch {
	case a == 0: // the mover has no checkers left: won
		fill(out, tiergame.ProbOne)
		return nil
	case b == 0: // the opponent has none: lost
		fill(out, 0)
		return nil
	}
	for d := 1; d <= min(24, a); d++ {
		ct := tiergame.Tier(T - d)
		v := vals(ct)
		cti := &g.tiers[ct]
		if v == nil || uint64(len(v)) != width*g.TierSize(ct) {
			return fmt.Errorf("bearoff: child tier %d of tier %d has no %s", ct, T, ops.what)
		}
		start := cti.start[b-cti.aLo]
		k.rows[d] = v[width*start : width*(start+cb*g.count(a-d))]
	}
	k.best = grow(k.best, int(width*cb))
	k.acc = grow(k.acc, int(width*cb))
	for ri := range ca {
		// The opponents rj with l0 <= rj*ca+ri < l1.
		var rjLo, rjHi uint64
		if l0 > ri {
			rjLo = (l0 - ri + ca - 1) / ca
		}
		if l1 > ri {
			rjHi = (l1-1-ri)/ca + 1
		}
		if rjLo >= rjHi {
			continue
		}
		n := rjHi - rjLo
		best, acc := k.best[:width*n], k.acc[:width*n]
		clear(acc)
		i := int(s.byPip[a][ri])
		row := func(c uint32) []tiergame.Prob {
			off := width * (uint64(s.rank[c])*cb + rjLo)
			return k.rows[a-int(s.pips[c])][off : off+width*n]
		}
		for roll := range rolls {
			ms := s.moves(i, roll)
			if ms[0] == 0 { // a play bears off the last checker: the roll wins
				continue
			}
			w := uint64(rollWeight(roll))
			if len(ms) == 1 {
				ops.add(acc, row(ms[0]), w)
				continue
			}
			ops.first(best, row(ms[0]))
			for _, c := range ms[1 : len(ms)-1] {
				ops.min(best, row(c))
			}
			ops.addMin(acc, best, row(ms[len(ms)-1]), w)
		}
		for x := range n {
			o := width * ((rjLo+x)*ca + ri - l0)
			for v := range width {
				out[o+v] = tiergame.ChanceValue(acc[width*x+v], totalWeight)
			}
		}
	}
	return nil
}

func minRow(best, row []tiergame.Prob) {
	row = row[:len(best)]
	for x, v := range row {
		best[x] = min(best[x], v)
	}
}

func addRow(acc []uint64, row []tiergame.Prob, w uint64) {
	row = row[:len(acc)]
	for x, v := range row {
		acc[x] += w * uint64(v)
	}
}

func addMinRow(acc []uint64, best, row []tiergame.Prob, w uint64) {
	best, row = best[:len(acc)], row[:len(acc)]
	for x, v := range row {
		acc[x] += w * uint64(min(best[x], v))
	}
}

func fill(out []tiergame.Prob, v tiergame.Prob) {
	for x := range out {
		out[x] = v
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
