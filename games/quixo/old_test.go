package quixo

import (
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// This file keeps unhash and Moves as they were before the
// cursor (main at 91986a7), as the reference model of the property tests
// and the baseline of the benchmarks, so that old and new compare in one
// process.

// oldUnhash returns the board and side to move of hash p of tier ti.
func (g *Game) oldUnhash(ti *tierInfo, p uint64) (xs, os uint32, side uint64) {
	r := p >> 1
	gs := ti.groups
	i, j := 0, len(gs) // the group is the last one with off <= r
	for j-i > 1 {
		m := int(uint(i+j) >> 1)
		if gs[m].off <= r {
			i = m
		} else {
			j = m
		}
	}
	grp := &gs[i]
	q := r - grp.off
	hiRank := q / grp.numLo
	l := g.lo.unrank[grp.loClass][q-hiRank*grp.numLo]
	h := g.hi.unrank[grp.hiClass][hiRank]
	xs = l&0xffff | (h&0xffff)<<g.loBits
	os = l>>16 | (h>>16)<<g.loBits
	return xs, os, p & 1
}

// oldMoves lists the children of p in the order of g.moves (by source cell,
// then destination: row left, row right, column top, column bottom).
func (g *Game) oldMoves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	ti := g.tierOf(t)
	xs, os, side := g.oldUnhash(ti, uint64(p))
	own, opp := xs, os
	grow := tierID(ti.x+1, ti.o)
	if side == 1 {
		own, opp = os, xs
		grow = tierID(ti.x, ti.o+1)
	}
	if v := g.primitive(own, opp); v != tiergame.Undecided {
		return v, dst
	}
	// Index 0: the cube taken is the mover's own (same tier); 1: blank.
	var tiers [2]*tierInfo
	var ids [2]tiergame.Tier
	tiers[0], ids[0] = ti, t
	tiers[1], ids[1] = ti, t // only illegal moves, whose results are dropped, use it on a full board
	if ti.x+ti.o < g.cells {
		tiers[1], ids[1] = g.tierOf(grow), grow
	}
	next := side ^ 1
	moves := g.moves
	room := 3 * bits.OnesCount32(g.border) // moves and padding
	dst = slices.Grow(dst, room)
	out := dst[len(dst) : len(dst)+room]
	k := 0
	if g.lo.pair == nil || g.hi.pair == nil {
		// 5x5: the plain loop.
		dOwn, dOpp := uint32(1+side), uint32(2-side) // base-3 digits of own and opp
		for i := range moves {
			m := &moves[i]
			nOwn := own&m.keep | uint32(uint64(own&m.seg)*m.fwd>>32) | m.dst
			nOpp := opp&m.keep | uint32(uint64(opp&m.seg)*m.fwd>>32)
			blank := b2i(own&m.src == 0)
			h := g.hashDigits(tiers[blank], nOwn, nOpp, dOwn, dOpp, next)
			out[k] = tiergame.Child{Tier: ids[blank], Pos: tiergame.Position(h)}
			k += b2i(opp&m.src == 0)
		}
		return tiergame.Undecided, dst[:len(dst)+k]
	}
	// The loop inlines hashDigits, with the tables in locals. It visits the
	// legal sources only, three moves each (corners have a padding move).
	loPair, hiPair := &g.lo.pair[side&1], &g.hi.pair[side&1]
	loMask, lb := g.loMask, uint(g.loBits)&31
	blocks := [2][]block{tiers[0].blocks, tiers[1].blocks}
	for srcs := g.border &^ opp; srcs != 0; srcs &= srcs - 1 {
		ms := &g.bySrc[bits.TrailingZeros32(srcs)&31]
		for j := range ms {
			m := &ms[j]
			nOwn := own&m.keep | uint32(uint64(own&m.seg)*m.fwd>>32) | m.dst
			nOpp := opp&m.keep | uint32(uint64(opp&m.seg)*m.fwd>>32)
			blank := b2i(own&m.src == 0)
			lr := loPair[(nOwn&loMask|(nOpp&loMask)<<8)&0xffff]
			hr := hiPair[(nOwn>>lb|(nOpp>>lb)<<8)&0xffff]
			blk := &blocks[blank&1][lr>>pairRankBits]
			h := 2*(blk.off+uint64(hr&(1<<pairRankBits-1))*blk.numLo+uint64(lr&(1<<pairRankBits-1))) | next
			out[k] = tiergame.Child{Tier: ids[blank&1], Pos: tiergame.Position(h)}
			k += int(m.valid)
		}
	}
	return tiergame.Undecided, dst[:len(dst)+k]
}

// b2i converts a bool to 0 or 1 (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
