package teeko

import (
	"math/bits"

	"github.com/tiersolve/tiersolve/tiergame"
)

var _ tiergame.Unmover = Game{}

// Parents appends the positions of tier pt that have a move to position p
// of tier t and are not primitive: in the moving tier, the boards where a
// piece of the side that just moved stood next to where it stands now;
// in the drop phase (and for the moving tier's first positions, from tier
// 7), the boards without one of the pieces of the side that just dropped.
// A parent with a pattern on its board has no moves and is left out.
func (Game) Parents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	ti, pti := tierOf(t), tierOf(pt)
	if ti == nil || pti == nil || uint64(p) >= ti.size {
		return dst
	}
	xs, os, mover := decode(ti, uint64(p))
	var b board
	b.setX(xs)
	b.setO(os, compress(os, xs))
	return parents(t, &b, mover, pt, dst)
}

// parents is Parents for board b of tier t with mover to move.
func parents(t tiergame.Tier, b *board, mover uint32, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	pti := &tiers[pt&15]
	empty := full &^ (b.xs | b.os)
	switch {
	case t == MovingTier && pt == MovingTier && mover == 1:
		// X moved: from a cell next to one of its pieces, while O had no
		// pattern.
		if hasPattern(b.os) {
			return dst
		}
		for m := b.xs; m != 0; m &= m - 1 {
			a := bits.TrailingZeros32(m)
			for n := neighbours[a&31] & empty; n != 0; n &= n - 1 {
				xs, cos := b.moveX(uint(a), uint(bits.TrailingZeros32(n)))
				if !hasPattern(xs) {
					dst = append(dst, tiergame.Position((uint64(colex(xs))*pti.mulO+uint64(colex(cos)))<<1))
				}
			}
		}
	case t == MovingTier && pt == MovingTier:
		if hasPattern(b.xs) {
			return dst
		}
		base := uint64(b.rx) * pti.mulO
		for m := b.os; m != 0; m &= m - 1 {
			a := bits.TrailingZeros32(m)
			from := b.cos ^ b.bit(a)
			for n := neighbours[a&31] & empty; n != 0; n &= n - 1 {
				c := bits.TrailingZeros32(n)
				if !hasPattern(b.os ^ (1<<a | 1<<c)) {
					dst = append(dst, tiergame.Position((base+uint64(colex(from|b.bit(c))))<<1|1))
				}
			}
		}
	case t == MovingTier && pt == MovingTier-1 && mover == 0:
		// O dropped its last piece, on a board without an X pattern.
		if hasPattern(b.xs) {
			return dst
		}
		base := uint64(b.rx) * pti.mulO
		for m := b.os; m != 0; m &= m - 1 {
			dst = append(dst, tiergame.Position(base+uint64(colex(b.cos&^b.bit(bits.TrailingZeros32(m))))))
		}
	case t < MovingTier && pt+1 == t && pti.mover == 0:
		for m := b.xs; m != 0; m &= m - 1 {
			xs, cos := b.liftX(bits.TrailingZeros32(m))
			dst = append(dst, tiergame.Position(uint64(colex(xs))*pti.mulO+uint64(colex(cos))))
		}
	case t < MovingTier && pt+1 == t:
		base := uint64(b.rx) * pti.mulO
		for m := b.os; m != 0; m &= m - 1 {
			dst = append(dst, tiergame.Position(base+uint64(colex(b.cos&^b.bit(bits.TrailingZeros32(m))))))
		}
	}
	return dst
}
