package xiangqi

import (
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Material is what each side has on the board: Material[side][kind] is
// the number of pieces of that kind (one general each, always).
type Material [2][xq.NumKinds]int

// nameOrder is the order of kinds in an endgame's name: the general, the
// attacking pieces, then the defenders (KRNvKAABB, as tablebases name
// them).
var nameOrder = [...]xq.Kind{xq.King, xq.Chariot, xq.Horse, xq.Cannon, xq.Soldier, xq.Advisor, xq.Elephant}

// String returns the endgame's name, "KRNvKAABB".
func (m Material) String() string {
	var sb strings.Builder
	for side := xq.Red; side <= xq.Black; side++ {
		if side == xq.Black {
			sb.WriteByte('v')
		}
		for _, k := range nameOrder {
			for i := 0; i < m[side][k]; i++ {
				sb.WriteByte(k.Letter())
			}
		}
	}
	return sb.String()
}

// Pieces returns the number of pieces on the board, generals included.
func (m Material) Pieces() int {
	n := 0
	for side := range m {
		for _, c := range m[side] {
			n += c
		}
	}
	return n
}

// ParseMaterial reads an endgame's name: red's pieces, 'v', black's, with
// K (general), A (advisor), B or E (elephant), N or H (horse), R
// (chariot), C (cannon), P (soldier) in any order and either case: KCAvK
// and KACvK are the same endgame. Each side needs its general and has at
// most what the game has (2 advisors, elephants, horses, chariots and
// cannons, 5 soldiers).
func ParseMaterial(s string) (Material, error) {
	var m Material
	red, black, ok := strings.Cut(s, "v")
	if !ok {
		red, black, ok = strings.Cut(s, "V")
	}
	if !ok {
		return m, fmt.Errorf("%q: want red's pieces, v, black's pieces (e.g. KRvK)", s)
	}
	for side, part := range [2]string{red, black} {
		for i := 0; i < len(part); i++ {
			k, ok := xq.KindOf(part[i])
			if !ok {
				return m, fmt.Errorf("%q: unknown piece %q (K A B N R C P, or E for B and H for N)", s, part[i])
			}
			m[side][k]++
		}
		for k := xq.King; k < xq.NumKinds; k++ {
			if m[side][k] > xq.MaxCount(k) {
				return m, fmt.Errorf("%q: %s has %d %ss, more than the game's %d", s, xq.Side(side), m[side][k], k, xq.MaxCount(k))
			}
		}
		if m[side][xq.King] != 1 {
			return m, fmt.Errorf("%q: %s has no general (K)", s, xq.Side(side))
		}
	}
	return m, nil
}

// Tier numbers: the counts of advisors, elephants, horses, chariots and
// cannons (2 bits each) and soldiers (3 bits) of red in bits 0-12, of
// black in bits 13-25. The generals are implied.
var tierFields = [...]struct {
	kind  xq.Kind
	shift uint
	bits  uint
}{{xq.Advisor, 0, 2}, {xq.Elephant, 2, 2}, {xq.Horse, 4, 2}, {xq.Chariot, 6, 2}, {xq.Cannon, 8, 2}, {xq.Soldier, 10, 3}}

const sideBits = 13

// Tier returns the tier of the material.
func (m Material) Tier() tiergame.Tier {
	var t uint64
	for side := range m {
		for _, f := range tierFields {
			t |= uint64(m[side][f.kind]) << (f.shift + uint(side)*sideBits)
		}
	}
	return tiergame.Tier(t)
}

// MaterialOf returns the material of tier t, and false when t is no tier
// of the game.
func MaterialOf(t tiergame.Tier) (Material, bool) {
	var m Material
	if uint64(t)>>(2*sideBits) != 0 {
		return m, false
	}
	for side := range m {
		m[side][xq.King] = 1
		for _, f := range tierFields {
			c := int(uint64(t) >> (f.shift + uint(side)*sideBits) & (1<<f.bits - 1))
			if c > xq.MaxCount(f.kind) {
				return m, false
			}
			m[side][f.kind] = c
		}
	}
	return m, true
}

// captures returns the materials a capture leads to: one piece other than
// a general fewer, in the order of the tier numbers.
func (m Material) captures() []Material {
	var out []Material
	for side := xq.Red; side <= xq.Black; side++ {
		for _, f := range tierFields {
			if m[side][f.kind] > 0 {
				c := m
				c[side][f.kind]--
				out = append(out, c)
			}
		}
	}
	return out
}

// within reports whether m is a sub-endgame of top (or top itself): no
// side has more of any kind.
func (m Material) within(top Material) bool {
	for side := range m {
		for k := range m[side] {
			if m[side][k] > top[side][k] {
				return false
			}
		}
	}
	return true
}
