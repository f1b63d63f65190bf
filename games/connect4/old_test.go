package connect4

import (
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/games/internal/comb"
	"github.com/tiersolve/tiersolve/tiergame"
)

// This file keeps Moves as it was before the cursor (main at 91986a7),
// with its decode and lowAcc table, as the reference model of the property
// tests and the baseline of the benchmarks, so that old and new compare in
// one process. It lays the board out and finds primitive positions as
// Moves does (layout, primitive): TestMovesAgainstHash checks those
// against hashing each child board.

// oldMoves lists the children of p by column from the left.
//
// It decodes the X set once and derives every child's hash from that
// decomposition: dropping a piece into column c inserts it into the piece
// order at index end(c), the number of pieces in columns 0..c, and shifts
// the later pieces up by one, so the child's colex rank is a prefix sum of
// the parent's terms plus a sum of shifted terms, both tabulated by the
// number of X before the insertion point.
func (g *Game) oldMoves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	n := int(t)
	k := (n + 1) / 2 // X pieces
	xToMove := n&1 == 0
	delta, ins := 0, &noInsert
	if xToMove {
		delta, ins = 1, &pascal
	}
	nb := pascal[n+1][k]
	sh := g.shapes[n][uint64(p)/nb]
	var acc [32]uint64
	xp := decode(n, k, delta, uint64(p)%nb, &acc)

	occ, xb, ends := g.layout(uint32(sh>>32), xp)
	if v := g.primitive(n, occ, xb); v != tiergame.Undecided {
		return v, dst
	}

	code := uint32(sh)
	cnb := pascal[n+2][k+delta]
	top := occ >> uint(g.h-1) // bit c*stride set when column c is full
	dst = slices.Grow(dst, g.w)
	out := dst[len(dst) : len(dst)+g.w]
	i := 0
	for c := 0; c < g.w; c++ {
		if top>>(uint(c)*g.stride)&1 != 0 {
			continue
		}
		idx := ends[c]
		a := uint(bits.OnesCount64(xp&(1<<idx-1))) & 31
		cr := acc[a] + ins[idx+1][(a+1)&31]
		cs := uint64(g.rank[code+g.pow[c]])
		out[i] = tiergame.Child{Tier: t + 1, Pos: tiergame.Position(cs*cnb + cr)}
		i++
	}
	return tiergame.Undecided, dst[:len(dst)+i]
}

// lowAcc[delta][i][a], for the bottom places' row i of the tables and a
// less than their X, is the sum of their X's terms in the child's rank when
// a of them lie below the insertion point (see decode).
var lowAcc [2][][lowBits]uint16

func init() {
	for j := 0; j <= lowBits; j++ {
		for r := uint64(0); r < comb.Binom(lowBits, j); r++ {
			ps := places(comb.Unrank(r, lowBits, j))
			for delta := range lowAcc {
				var acc [lowBits]uint16
				for a := 0; a < j; a++ {
					v := childTerms(ps, a, delta)
					if v > 0xffff {
						panic("connect4: lowAcc entry overflows") // lowBits too large
					}
					acc[a] = uint16(v)
				}
				lowAcc[delta] = append(lowAcc[delta], acc)
			}
		}
	}
}

// places returns the places of the X in pattern pat, bottom up.
func places(pat uint64) []int {
	var ps []int
	for m := pat; m != 0; m &= m - 1 {
		ps = append(ps, bits.TrailingZeros64(m))
	}
	return ps
}

// childTerms returns the X rank of a child less the term of an inserted
// X, for X at places ps (bottom up) of which a lie below the insertion
// point: those above it move up one place, each gaining delta in index.
func childTerms(ps []int, a, delta int) uint64 {
	var v uint64
	for i, p := range ps {
		if i < a {
			v += comb.Binom(p, i+1)
		} else {
			v += comb.Binom(p+1, i+1+delta)
		}
	}
	return v
}

// decode returns the set of X, as a mask over the piece order, of colex
// rank r among the k-subsets of n pieces. It also sets acc[a], for a <= k,
// to the X rank of a child, less the term of an inserted X, when a of the
// parent's X lie below the insertion point and the X above it move up by
// one place, each gaining delta in index (1 when X moves, 0 when O does).
//
// It decodes the places above lowBits from the top down without branches
// (the test c <= r is a coin flip for the branch predictor), and the rest
// by table. (Loading both candidates for the next step ahead of the test,
// with conditional moves, measured slower.)
func decode(n, k, delta int, r uint64, acc *[32]uint64) uint64 {
	var xp, suf uint64
	j := k
	acc[k&31] = r
	for q := n - 1; q >= lowBits; q-- {
		c := pascal[q+1][j&31]
		var take uint64
		if c <= r {
			take = 1
		}
		m := -take
		r -= c & m
		j -= int(take)
		suf += pascal[q+2][(j+1+delta)&31] & m
		acc[j&31] = r + suf
		xp |= take << uint(q)
	}
	// j <= lowBits X remain, of rank r < C(lowBits, j) (colex ranks do
	// not depend on how many places there are).
	i := lowStart[j&15] + int(r)
	xp |= uint64(lowPattern[i])
	la := &lowAcc[delta&1][i]
	for a := 0; a < j && a < lowBits; a++ {
		acc[a] = uint64(la[a]) + suf
	}
	return xp
}
