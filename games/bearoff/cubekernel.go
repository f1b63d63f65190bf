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
	s := g.moveLists()
	ti := &g.tiers[t]
	var k cubeKernel
	for grp := range len(ti.start) - 1 {
		gs, ge := ti.start[grp], ti.start[grp+1]
		l0, l1 := max(uint64(lo), gs), min(uint64(hi), ge)
		if l0 >= l1 {
			continue
		}
		a := ti.aLo + grp
		if err := k.group(g, s, int(t), a, l0-gs, l1-gs, vals, out[cubeStates*(l0-uint64(lo)):cubeStates*(l1-uint64(lo))]); err != nil {
			return err
		}
	}
	return nil
}

// cubeKernel is the scratch space of SolvePlanes.
type cubeKernel struct {
	best []tiergame.Prob // a roll's best (smallest) child value per opponent and state
	acc  []uint64        // weighted sum over the rolls per opponent and state
	// rows[a-a'] holds the planes of group (b, a') of tier b+a'.
	rows [25][]tiergame.Prob
}

// group solves local positions [l0, l1) of group (a, T-a) into out, three
// values a position.
func (k *cubeKernel) group(g *Game, s *oneSided, T, a int, l0, l1 uint64, vals func(tiergame.Tier) []tiergame.Prob, out []tiergame.Prob) error {
	b := T - a
	ca, cb := g.count(a), g.count(b)
	switch {
	case a == 0:
		fill(out, tiergame.ProbOne)
		return nil
	case b == 0:
		fill(out, 0)
		return nil
	}
	for d := 1; d <= min(24, a); d++ {
		ct := tiergame.Tier(T - d)
		v := vals(ct)
		cti := &g.tiers[ct]
		if v == nil || uint64(len(v)) != cubeStates*g.TierSize(ct) {
			return fmt.Errorf("bearoff: child tier %d of tier %d has no planes", ct, T)
		}
		start := cti.start[b-cti.aLo]
		k.rows[d] = v[cubeStates*start : cubeStates*(start+cb*g.count(a-d))]
	}
	k.best = grow(k.best, cubeStates*int(cb))
	k.acc = grow(k.acc, cubeStates*int(cb))
	for ri := range ca {
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
		n := int(rjHi - rjLo)
		best, acc := k.best[:cubeStates*n], k.acc[:cubeStates*n]
		clear(acc)
		i := int(s.byPip[a][ri])
		for roll := range rolls {
			ms := s.moves(i, roll)
			if ms[0] == 0 { // a play bears off the last checker: the roll wins
				continue
			}
			w := uint64(rollWeight(roll))
			if len(ms) == 1 {
				addViewRow(acc, k.row(s, a, ms[0], cb, rjLo, n), w)
				continue
			}
			viewRow(best, k.row(s, a, ms[0], cb, rjLo, n))
			for _, c := range ms[1 : len(ms)-1] {
				minViewRow(best, k.row(s, a, c, cb, rjLo, n))
			}
			addMinViewRow(acc, best, k.row(s, a, ms[len(ms)-1], cb, rjLo, n), w)
		}
		for x := range n {
			o := cubeStates * ((rjLo+uint64(x))*ca + ri - l0)
			for st := range cubeStates {
				out[o+uint64(st)] = tiergame.ChanceValue(acc[cubeStates*x+st], totalWeight)
			}
		}
	}
	return nil
}

// row returns the planes of children (j, c) for the n opponents j from
// rank rjLo on, three values each, c being a board the mover (pip count
// a) can leave.
func (k *cubeKernel) row(s *oneSided, a int, c uint32, cb, rjLo uint64, n int) []tiergame.Prob {
	off := cubeStates * (uint64(s.rank[c])*cb + rjLo)
	return k.rows[a-int(s.pips[c])][off : off+cubeStates*uint64(n)]
}

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
