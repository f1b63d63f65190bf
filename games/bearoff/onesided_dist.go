package bearoff

// MaxRolls bounds the number of rolls a side needs to bear off: 15
// checkers on the six point take at most 30 (gnubg keeps 32 slots too).
const MaxRolls = 32

// Distribution is a distribution of a number of rolls: d[n] is the
// probability of needing exactly n.
type Distribution [MaxRolls]float64

// Mean returns the expected number of rolls.
func (d *Distribution) Mean() float64 {
	m := 0.0
	for n, p := range d {
		m += float64(n) * p
	}
	return m
}

// OneSided computes, for every board of one side (by gnubg index), what
// gnubg's one-sided bearoff database stores: the distribution of the
// number of rolls it takes to bear off every checker, and of the number it
// takes to bear off the first one (gammon; only boards with every checker
// of the variant still on hold more than "zero rolls"), each playing for
// each roll the move that makes its expected number of rolls smallest.
// The distributions are exact up to float64 rounding; among equally good
// moves the first in index order is taken.
func (g *Game) OneSided() (off, first []Distribution) {
	s := g.moveLists()
	off, first = make([]Distribution, g.n), make([]Distribution, g.n)
	offMean, firstMean := make([]float64, g.n), make([]float64, g.n)
	for i := range g.n {
		if i == 0 {
			off[i][0], first[i][0] = 1, 1
			continue
		}
		full := g.sides.boards[i].Checkers() == g.checkers
		if !full {
			first[i][0] = 1
		}
		for k := range rolls {
			w := float64(rollWeight(k)) / totalWeight
			bestOff, bestFirst := -1, -1
			for _, c := range s.moves(i, k) {
				if bestOff < 0 || offMean[c] < offMean[bestOff] {
					bestOff = int(c)
				}
				if bestFirst < 0 || firstMean[c] < firstMean[bestFirst] {
					bestFirst = int(c)
				}
			}
			for n := range MaxRolls - 1 {
				off[i][n+1] += w * off[bestOff][n]
				if full {
					first[i][n+1] += w * first[bestFirst][n]
				}
			}
		}
		offMean[i], firstMean[i] = off[i].Mean(), first[i].Mean()
	}
	return off, first
}
