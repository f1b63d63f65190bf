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
	view []tiergame.Prob // a child row after the child's cube decision
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
	k.view = grow(k.view, cubeStates*int(cb))
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
			k.viewRow(best, s, a, ms[0], cb, rjLo)
			for _, c := range ms[1:] {
				minRow(best, k.viewRow(k.view[:cubeStates*n], s, a, c, cb, rjLo))
			}
			addRow(acc, best, uint64(rollWeight(roll)))
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

// viewRow fills dst with the planes of children (j, c), for the opponents
// j from rank rjLo on (len(dst)/3 of them), after each child's cube
// decision, and returns dst.
func (k *cubeKernel) viewRow(dst []tiergame.Prob, s *oneSided, a int, c uint32, cb, rjLo uint64) []tiergame.Prob {
	off := cubeStates * (uint64(s.rank[c])*cb + rjLo)
	row := k.rows[a-int(s.pips[c])][off : off+uint64(len(dst))]
	for x := 0; x+2 < len(row); x += cubeStates {
		dst[x], dst[x+1], dst[x+2] = afterDecision(row[x], row[x+1], row[x+2])
	}
	return dst
}
