package dshogi

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/tiersolve/tiersolve/tiergame"
)

// The hash of a position within its tier (see the package documentation):
//
//	lions*R(n) + offset(class) + arrangement
//
// lions numbers the tier's (side to move, forest lion, sky lion) triples,
// n is the number of squares the lions leave free (10, or 11 when a lion
// is taken), the class is what is on the board and in the forest's hand
// (the sky's hand is the rest), R(n) the number of arrangements of every
// class on n squares, and the arrangement ranks where the pieces stand on
// the free squares: each kind of piece, in the order G g E e C c H h,
// takes one or two of the free squares the kinds before it left, ranked
// as a combination (colex), and the ranks are the digits of a mixed-radix
// number whose first kind is the most significant.

// Tiers.
const (
	play    tiergame.Tier = iota // both lions on the board, neither on its far rank
	try                          // a lion on its far rank, its opponent to move
	capture                      // a lion taken, its owner to move
	numTiers
)

var tierNames = [numTiers]string{"play", "try", "capture"}

// lions describes the lion triples of one tier.
type lions struct {
	turn, fl, sl uint8 // side to move and the lions' squares (noSq: taken)
}

// lionIndex[turn][fl][sl] packs a triple's tier (bits 8-9) and its index
// in that tier (bits 0-7), or is -1 when no tier holds it. (16 squares a
// side lets the hot paths index it without bounds checks.)
var (
	lionIndex  [2][16][16]int16
	lionTriple [numTiers][]lions
)

func init() {
	for turn := range 2 {
		for fl := range 16 {
			for sl := range 16 {
				lionIndex[turn][fl][sl] = -1
			}
		}
	}
	add := func(t tiergame.Tier, turn, fl, sl int) {
		lionIndex[turn][fl][sl] = int16(int(t)<<8 | len(lionTriple[t]))
		lionTriple[t] = append(lionTriple[t], lions{uint8(turn), uint8(fl), uint8(sl)})
	}
	onFar := func(side, s int) bool { return s < squares && farRank(side)&(1<<s) != 0 }
	for turn := range 2 {
		for fl := range squares {
			for sl := range squares {
				switch {
				case fl == sl:
				case !onFar(forest, fl) && !onFar(sky, sl):
					add(play, turn, fl, sl)
				case onFar(forest, fl) && !onFar(sky, sl) && turn == sky,
					onFar(sky, sl) && !onFar(forest, fl) && turn == forest:
					add(try, turn, fl, sl)
				}
			}
		}
	}
	for s := range squares {
		add(capture, forest, noSq, s)
	}
	for s := range squares {
		add(capture, sky, s, noSq)
	}
}

// class is one class of positions: the pieces of each kind on the board
// and the types in the forest's hand.
type class struct {
	count [numKinds]uint8
	hand  [numTypes]uint8
	// The nk kinds on the board in the order they are placed (at most 6
	// pieces, so at most 6 kinds), with the radix of each one's digit,
	// and the class's offset, for 10 and 11 free squares.
	nk    int
	kinds [6]uint8
	radix [2][6]uint64
	off   [2]uint64
}

// layout is the hash of one variant.
type layout struct {
	total   [numTypes]int // pieces of each type in the game
	classes []class
	// The class index is the mixed-radix number of the indexes of its
	// three types' tuples of counts; tuple[typ][tupleKey] is the index of
	// the tuple times its weight in that number (-1 for no tuple).
	tuple [numTypes][]int32
	// off[n-10][c] is the number of arrangements of the classes before c
	// on n free squares; off[n-10][len(classes)] is R(n), also per[n-10].
	off [2][]uint64
	per [2]uint64
}

// binom[n][k] for k <= 2.
var binom [squares + 1][3]uint64

func init() {
	for n := range squares + 1 {
		binom[n][0] = 1
		binom[n][1] = uint64(n)
		binom[n][2] = uint64(n * (n - 1) / 2)
	}
}

// A type's tuple key packs its board counts by kind (G g for giraffes; E
// e; C c H h for chicks) two bits each as in pos.count, and above them its
// count in the forest's hand.
func tupleKey(count uint32, typ int, hand uint8) int {
	switch typ {
	case giraffe:
		return int(count&0xf) | int(hand)<<4
	case elephant:
		return int(count>>4&0xf) | int(hand)<<4
	}
	return int(count>>8&0xff) | int(hand)<<8
}

func newLayout(total [numTypes]int) *layout {
	l := &layout{total: total}
	// The tuples of a type: its board counts by kind and its forest hand
	// count, at most total in all.
	width := [numTypes]int{3, 3, 5}
	var tuples [numTypes][][]uint8
	for typ := range numTypes {
		var each func(prefix []uint8, left int)
		each = func(prefix []uint8, left int) {
			if len(prefix) == width[typ] {
				tuples[typ] = append(tuples[typ], prefix)
				return
			}
			for c := range min(left, 2) + 1 {
				each(append(slices.Clip(prefix), uint8(c)), left-c)
			}
		}
		each(nil, total[typ])
	}
	weight := [numTypes]int{len(tuples[elephant]) * len(tuples[chick]), len(tuples[chick]), 1}
	for typ := range numTypes {
		l.tuple[typ] = make([]int32, 1<<(2*width[typ]))
		for i := range l.tuple[typ] {
			l.tuple[typ][i] = -1
		}
		for i, tu := range tuples[typ] {
			var count uint32
			for k, c := range tu[:width[typ]-1] {
				count |= uint32(c) << (2 * k)
			}
			if typ == elephant {
				count <<= 4
			} else if typ == chick {
				count <<= 8
			}
			l.tuple[typ][tupleKey(count, typ, tu[width[typ]-1])] = int32(i * weight[typ])
		}
	}
	for _, g := range tuples[giraffe] {
		for _, e := range tuples[elephant] {
			for _, c := range tuples[chick] {
				var cl class
				copy(cl.count[0:2], g[0:2])
				copy(cl.count[2:4], e[0:2])
				copy(cl.count[4:8], c[0:4])
				cl.hand = [numTypes]uint8{g[2], e[2], c[4]}
				l.classes = append(l.classes, cl)
			}
		}
	}
	for n := range 2 {
		l.off[n] = make([]uint64, len(l.classes)+1)
	}
	for i := range l.classes {
		cl := &l.classes[i]
		for k, c := range cl.count {
			if c > 0 {
				cl.kinds[cl.nk] = uint8(k)
				cl.nk++
			}
		}
		for n := range 2 {
			free := 10 + n
			size := uint64(1)
			for j, k := range cl.kinds[:cl.nk] {
				r := binom[free][cl.count[k]]
				cl.radix[n][j] = r
				size *= r
				free -= int(cl.count[k])
			}
			cl.off[n] = l.off[n][i]
			l.off[n][i+1] = l.off[n][i] + size
		}
	}
	l.per = [2]uint64{l.off[0][len(l.classes)], l.off[1][len(l.classes)]}
	return l
}

// arrangements returns R(n) for n free squares.
func (l *layout) arrangements(n int) uint64 { return l.per[n-10] }

func freeOf(t tiergame.Tier) int {
	if t == capture {
		return 1
	}
	return 0
}

// tierSize is the size of tier t's hash space.
func (l *layout) tierSize(t tiergame.Tier) uint64 {
	return uint64(len(lionTriple[t])) * l.per[freeOf(t)]
}

// classIndex returns the index of p's class.
func (l *layout) classIndex(p *pos) int {
	h := &p.hand[forest]
	return int(l.tuple[giraffe][tupleKey(p.count, giraffe, h[giraffe])] +
		l.tuple[elephant][tupleKey(p.count, elephant, h[elephant])] +
		l.tuple[chick][tupleKey(p.count, chick, h[chick])])
}

// encode returns the tier and hash of p, or of its mirror image when
// mirror is set, or tier numTiers when the lions and the side to move are
// those of no position (both lions on their far ranks, a lion on its far
// rank with its owner to move, a lion taken with its captor to move). The
// pieces must be those of the variant.
func (l *layout) encode(p *pos, mirror bool) (tiergame.Tier, tiergame.Position) {
	fl, sl := p.lion(forest), p.lion(sky)
	lionSet := p.set[lionF] | p.set[lionS]
	if mirror {
		fl, sl, lionSet = int(mirrorSq[fl]), int(mirrorSq[sl]), mirrorMask[lionSet]
	}
	li := lionIndex[p.turn&1][fl&15][sl&15]
	if li < 0 {
		return numTiers, 0 // no position of the game
	}
	t := tiergame.Tier(li >> 8)
	n := freeOf(t) & 1
	cl := &l.classes[l.classIndex(p)]
	rem := allSq &^ lionSet
	var r uint64
	for j, k := range cl.kinds[:cl.nk] {
		m := p.set[(giraffeF+k)&15]
		if mirror {
			m = mirrorMask[m&allSq]
		}
		r = r*cl.radix[n][j] + comboRank(rem, m)
		rem &^= m
	}
	return t, tiergame.Position(uint64(li&0xff)*l.per[n] + cl.off[n] + r)
}

// comboRank ranks the one or two squares of m among the squares of rem
// (which holds them), as a combination in colex order.
func comboRank(rem, m uint16) uint64 {
	lo := m & -m
	i := uint64(bits.OnesCount16(rem & (lo - 1)))
	if hi := m &^ lo; hi != 0 {
		j := uint64(bits.OnesCount16(rem & (hi - 1)))
		return i + j*(j-1)/2
	}
	return i
}

// pairOf[c] = j for the colex rank c = i + j(j-1)/2 of a pair i < j of
// at most 11 squares.
var pairOf [55]uint8

func init() {
	for j := 1; j < 11; j++ {
		for i := range j {
			pairOf[i+j*(j-1)/2] = uint8(j)
		}
	}
}

// decoded is where decode keeps what the next decode of a nearby hash
// can reuse.
type decoded struct {
	t      tiergame.Tier
	lo, hi uint64 // the hashes of the class and lion triple decoded last
	ci     int
	li     int
}

// decode makes p the position of hash h of tier t. d, if not nil, caches
// the class found, which spares the search when the next hash is in it.
func (l *layout) decode(t tiergame.Tier, h uint64, p *pos, d *decoded) {
	n := freeOf(t)
	var li, ci int
	var base uint64
	if d != nil && d.t == t && h >= d.lo && h < d.hi {
		li, ci, base = d.li, d.ci, d.lo
	} else {
		per := l.per[n]
		li = int(h / per)
		rest := h - uint64(li)*per
		off := l.off[n]
		ci = sort.Search(len(l.classes), func(i int) bool { return off[i+1] > rest }) // the class holding rest
		base = uint64(li)*per + off[ci]
		if d != nil {
			*d = decoded{t: t, lo: base, hi: base + off[ci+1] - off[ci], ci: ci, li: li}
		}
	}
	r := h - base
	cl := &l.classes[ci]
	lt := lionTriple[t][li]
	*p = pos{turn: int(lt.turn)}
	if lt.fl != noSq {
		p.put(int(lt.fl), lionF)
	}
	if lt.sl != noSq {
		p.put(int(lt.sl), lionS)
	}
	var digit [numKinds]uint64
	radix := &cl.radix[n]
	for j := cl.nk - 1; j >= 0; j-- {
		digit[j] = r % radix[j]
		r /= radix[j]
	}
	rem := allSq &^ (p.set[lionF] | p.set[lionS])
	for j, k := range cl.kinds[:cl.nk] {
		code := giraffeF + k
		c := digit[j]
		if cl.count[k] == 1 {
			s := sel[rem][c]
			p.put(int(s), code)
			rem &^= 1 << s
			continue
		}
		hi := uint64(pairOf[c])
		s1, s2 := sel[rem][c-hi*(hi-1)/2], sel[rem][hi]
		p.put(int(s1), code)
		p.put(int(s2), code)
		rem &^= 1<<s1 | 1<<s2
	}
	p.hand[forest] = cl.hand
	for typ := range numTypes {
		onBoard := 0
		for _, code := range typeCodes[typ] {
			onBoard += bits.OnesCount16(p.set[code])
		}
		p.hand[sky][typ] = uint8(l.total[typ] - onBoard - int(cl.hand[typ]))
	}
}

// typeCodes are the codes of each hand type on the board.
var typeCodes = [numTypes][]uint8{{giraffeF, giraffeS}, {elephantF, elephantS}, {chickF, chickS, henF, henS}}

// lionOf returns the index of the lion triple of hash h of tier t.
func (l *layout) lionOf(t tiergame.Tier, h uint64) int {
	return int(h / l.per[freeOf(t)])
}

// mirroredLion is the index of the mirror image of lion triple li of tier t.
var mirroredLion [numTiers][]uint8

func init() {
	for t := range numTiers {
		for _, lt := range lionTriple[t] {
			mi := lionIndex[lt.turn][mirrorSq[lt.fl]][mirrorSq[lt.sl]]
			mirroredLion[t] = append(mirroredLion[t], uint8(mi&0xff))
		}
	}
}
