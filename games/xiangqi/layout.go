package xiangqi

import (
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/internal/xq"
)

// The hash of a position in its tier is
//
//	side to move + 2 * (d_n + s_n*(d_n-1 + s_n-1*(... + s_1*d_0)))
//
// over the tier's groups of pieces 0 to n, each with s digits (the last
// group's digit the least significant), in this order:
//
//   - red's home group, then black's: the general with the advisors and
//     elephants, which never leave their side's half: the digit numbers the
//     ways they stand on distinct points of their places (the general's 9,
//     the advisors' 5, the elephants' 7), in a table;
//   - red's soldiers, then black's: the rank, in colexicographic order, of
//     the set of the soldiers' place numbers among their 55 places (for
//     sorted numbers c_0 < c_1 < ..., the sum of C(c_j, j+1));
//   - the horses, chariots and cannons of red, then of black, a group per
//     kind and side: the same rank, of their numbers among the points that
//     no earlier piece occupies (90 less the earlier pieces).
//
// So the only hashes that are no placement are those where soldiers share
// a point with each other or with the other side's home pieces, and the
// hash space holds little more than the legal positions: the rest is
// generals facing each other and the side not to move in check (Legal).

const (
	maxGroups  = 2 + 2 + 2*3
	maxMembers = 5 // soldiers
	// unrankTable is the largest group whose digits are unranked by a
	// table rather than by search.
	unrankTable = 1 << 18
	// maxSize bounds a tier's hash space: a material whose placements
	// exceed it (well over a dozen pieces) is no tier of the game.
	maxSize = 1 << 62
)

// binom[n][k] = C(n, k) for n <= 90, k <= maxMembers.
var binom [xq.NumSquares + 1][maxMembers + 1]uint64

func init() {
	for n := range binom {
		binom[n][0] = 1
		for k := 1; k <= maxMembers && k <= n; k++ {
			binom[n][k] = binom[n-1][k-1]
			if k <= n-1 {
				binom[n][k] += binom[n-1][k]
			}
		}
	}
}

// groupKind tells how a group's digit is made.
type groupKind uint8

const (
	homeGroup  groupKind = iota // general, advisors, elephants, by table
	placeGroup                  // soldiers, ranked among their places
	freeGroup                   // horses, chariots, cannons, ranked among free points
)

// group is a set of pieces of one side with one digit.
type group struct {
	kind  groupKind
	side  xq.Side
	piece xq.Piece // placeGroup and freeGroup: the pieces' kind
	n     int      // pieces (of the kind; home: all of them)
	size  uint64   // digits
	// weight is the digit's factor in the hash.
	weight uint64
	// before is the number of pieces of earlier groups (freeGroup).
	before int
	// places are where a placeGroup's pieces can stand, place[s] their
	// numbers (-1 for other points).
	places []xq.Square
	place  *[xq.NumSquares]int8
	// unrank[d] lists the numbers of digit d (small rank groups only).
	unrank [][maxMembers]uint8
	// home: the table of the group's placements and its inverse.
	home *homeTable
}

// homeTable numbers the ways a side's general, advisors and elephants
// stand on distinct points.
type homeTable struct {
	na, nb int
	// squares[d] is placement d: the general, the advisors, the elephants.
	squares [][1 + 2 + 2]xq.Square
	// index[k + 9*(a + C(5,na)*b)] is the digit of the general on place k,
	// the advisors on the places of rank a and the elephants on those of
	// rank b, or -1 if two share a point.
	index []int32
}

var homeTables [2][3][3]*homeTable // by side, advisors, elephants

func init() {
	for side := xq.Red; side <= xq.Black; side++ {
		for na := 0; na <= 2; na++ {
			for nb := 0; nb <= 2; nb++ {
				homeTables[side][na][nb] = newHomeTable(side, na, nb)
			}
		}
	}
}

func newHomeTable(side xq.Side, na, nb int) *homeTable {
	ks, as, bs := xq.Places(side, xq.King), xq.Places(side, xq.Advisor), xq.Places(side, xq.Elephant)
	h := &homeTable{na: na, nb: nb}
	sa, sb := binom[len(as)][na], binom[len(bs)][nb]
	h.index = make([]int32, uint64(len(ks))*sa*sb)
	for b := uint64(0); b < sb; b++ {
		bsq := unrankIn(bs, nb, b)
		for a := uint64(0); a < sa; a++ {
			asq := unrankIn(as, na, a)
			for k := range ks {
				i := uint64(k) + uint64(len(ks))*(a+sa*b)
				var pl [5]xq.Square
				pl[0] = ks[k]
				copy(pl[1:], asq[:na])
				copy(pl[1+na:], bsq[:nb])
				if distinct(pl[:1+na+nb]) {
					h.index[i] = int32(len(h.squares))
					h.squares = append(h.squares, pl)
				} else {
					h.index[i] = -1
				}
			}
		}
	}
	return h
}

func distinct(sq []xq.Square) bool {
	for i := range sq {
		for j := i + 1; j < len(sq); j++ {
			if sq[i] == sq[j] {
				return false
			}
		}
	}
	return true
}

// unrankIn returns the n places of colex rank d among places.
func unrankIn(places []xq.Square, n int, d uint64) [maxMembers]xq.Square {
	var out [maxMembers]xq.Square
	for j, c := range unrankNumbers(len(places), n, d) {
		if j < n {
			out[j] = places[c]
		}
	}
	return out
}

// unrankNumbers returns the n numbers below m of colex rank d, ascending.
func unrankNumbers(m, n int, d uint64) [maxMembers]uint8 {
	var out [maxMembers]uint8
	c := m
	for j := n; j >= 1; j-- {
		c--
		for binom[c][j] > d {
			c--
		}
		d -= binom[c][j]
		out[j-1] = uint8(c)
	}
	return out
}

// rankNumbers returns the colex rank of n distinct numbers (any order).
func rankNumbers(c []int) uint64 {
	switch len(c) {
	case 1:
		return uint64(c[0])
	case 2:
		lo, hi := c[0], c[1]
		if lo > hi {
			lo, hi = hi, lo
		}
		return uint64(lo) + binom[hi][2]
	}
	slices.Sort(c)
	var d uint64
	for j, x := range c {
		d += binom[x][j+1]
	}
	return d
}

// rank returns the digit of a home placement: the general, the advisors,
// the elephants, in this order; -1 if two share a point.
func (h *homeTable) rank(side xq.Side, sq []xq.Square) int32 {
	num := &placeNumber[side]
	i := uint64(num[xq.King][sq[0]])
	var a, b uint64
	switch h.na {
	case 1:
		a = uint64(num[xq.Advisor][sq[1]])
	case 2:
		a = pairRank(num[xq.Advisor][sq[1]], num[xq.Advisor][sq[2]])
	}
	e := sq[1+h.na:]
	switch h.nb {
	case 1:
		b = uint64(num[xq.Elephant][e[0]])
	case 2:
		b = pairRank(num[xq.Elephant][e[0]], num[xq.Elephant][e[1]])
	}
	return h.index[i+9*(a+binom[5][h.na]*b)]
}

// pairRank is the colex rank of two distinct numbers.
func pairRank(x, y int8) uint64 {
	if x > y {
		x, y = y, x
	}
	return uint64(x) + binom[y][2]
}

// placeNumber[side][kind][s] is s's number among the kind's places.
var placeNumber [2][xq.NumKinds][xq.NumSquares]int8

func init() {
	for side := xq.Red; side <= xq.Black; side++ {
		for k := xq.King; k < xq.NumKinds; k++ {
			for s := range placeNumber[side][k] {
				placeNumber[side][k][s] = -1
			}
			for i, s := range xq.Places(side, k) {
				placeNumber[side][k][s] = int8(i)
			}
		}
	}
}

// layout is the hash space of one tier.
type layout struct {
	m      Material
	groups []group
	size   uint64
	pieces int
	// firstFree is the index of the first free group (len(groups) if
	// none): the groups whose digits depend on the points of others.
	firstFree int
	// of[side][kind] is the index of the group holding that kind's
	// pieces of that side.
	of [2][xq.NumKinds]int8
}

// freeOrder is the order of the free groups of each side.
var freeOrder = [...]xq.Kind{xq.Horse, xq.Chariot, xq.Cannon}

// newLayout returns the hash space of material m, or nil if it is larger
// than maxSize.
func newLayout(m Material) *layout {
	l := &layout{m: m, pieces: m.Pieces()}
	for side := range l.of {
		for k := range l.of[side] {
			l.of[side][k] = -1
		}
	}
	placed := 0
	add := func(g group) {
		for k := xq.King; k < xq.NumKinds; k++ {
			if g.kind == homeGroup && (k == xq.King || k == xq.Advisor || k == xq.Elephant) || g.kind != homeGroup && g.piece.Kind() == k {
				l.of[g.side][k] = int8(len(l.groups))
			}
		}
		g.before = placed
		placed += g.n
		l.groups = append(l.groups, g)
	}
	for side := xq.Red; side <= xq.Black; side++ {
		h := homeTables[side][m[side][xq.Advisor]][m[side][xq.Elephant]]
		add(group{kind: homeGroup, side: side, n: 1 + h.na + h.nb, size: uint64(len(h.squares)), home: h})
	}
	for side := xq.Red; side <= xq.Black; side++ {
		if n := m[side][xq.Soldier]; n > 0 {
			places := xq.Places(side, xq.Soldier)
			add(group{kind: placeGroup, side: side, piece: xq.MakePiece(side, xq.Soldier), n: n,
				size: binom[len(places)][n], places: places, place: &placeNumber[side][xq.Soldier]})
		}
	}
	for side := xq.Red; side <= xq.Black; side++ {
		for _, k := range freeOrder {
			if n := m[side][k]; n > 0 {
				add(group{kind: freeGroup, side: side, piece: xq.MakePiece(side, k), n: n,
					size: binom[xq.NumSquares-placed][n]})
			}
		}
	}
	l.firstFree = len(l.groups)
	for i := len(l.groups) - 1; i >= 0 && l.groups[i].kind == freeGroup; i-- {
		l.firstFree = i
	}
	// The digits' significance is the reverse of the groups' order: the
	// attackers, which make most of the moves, have the low digits, so a
	// position's parents and children by their moves lie near it.
	w := uint64(2)
	for i := len(l.groups) - 1; i >= 0; i-- {
		g := &l.groups[i]
		g.weight = w
		if hi, lo := bits.Mul64(w, g.size); hi != 0 || lo > maxSize {
			return nil
		}
		w *= g.size
	}
	for i := range l.groups {
		g := &l.groups[i]
		if g.kind != homeGroup && g.n > 1 && g.size <= unrankTable {
			m := len(g.places)
			if g.kind == freeGroup {
				m = xq.NumSquares - g.before
			}
			g.unrank = make([][maxMembers]uint8, g.size)
			for d := range g.unrank {
				g.unrank[d] = unrankNumbers(m, g.n, uint64(d))
			}
		}
	}
	l.size = w
	return l
}

// numbers returns the numbers of digit d of a rank group.
func (g *group) numbers(d uint64) [maxMembers]uint8 {
	switch {
	case g.n == 1:
		return [maxMembers]uint8{uint8(d)}
	case g.unrank != nil:
		return g.unrank[d]
	case g.kind == freeGroup:
		return unrankNumbers(xq.NumSquares-g.before, g.n, d)
	}
	return unrankNumbers(len(g.places), g.n, d)
}

// placement is a decoded hash: the side to move, each group's digit, its
// pieces' points (a home group's general first) and, in a rank group,
// their numbers (among the places, or among the free points).
type placement struct {
	side   xq.Side
	digits [maxGroups]uint64
	sq     [maxGroups][maxMembers]xq.Square
	num    [maxGroups][maxMembers]uint8
}

// decode splits hash h into its digits, the last group's the lowest, and
// sets the points they give.
func (l *layout) decode(h uint64, pl *placement) {
	pl.side = xq.Side(h & 1)
	h >>= 1
	for i := len(l.groups) - 1; i >= 0; i-- {
		g := &l.groups[i]
		pl.digits[i] = h % g.size
		h /= g.size
	}
	l.place(pl, 0)
}

// place sets the points of groups from..end from their digits.
func (l *layout) place(pl *placement, from int) {
	var occ [maxGroups * maxMembers]xq.Square // earlier points, ascending
	n := 0
	for i := range l.groups {
		g := &l.groups[i]
		if i >= from {
			d := pl.digits[i]
			switch g.kind {
			case homeGroup:
				copy(pl.sq[i][:], g.home.squares[d][:g.n])
			case placeGroup:
				c := g.numbers(d)
				pl.num[i] = c
				for j := range g.n {
					pl.sq[i][j] = g.places[c[j]]
				}
			case freeGroup:
				c := g.numbers(d)
				pl.num[i] = c
				for j := range g.n {
					pl.sq[i][j] = nthFree(occ[:n], int(c[j]))
				}
			}
		}
		n = insertSorted(occ[:], n, pl.sq[i][:g.n])
	}
}

// insertSorted adds sq to the n sorted points of occ.
func insertSorted(occ []xq.Square, n int, sq []xq.Square) int {
	for _, s := range sq {
		j := n
		for j > 0 && occ[j-1] > s {
			occ[j] = occ[j-1]
			j--
		}
		occ[j] = s
		n++
	}
	return n
}

// nthFree returns the c-th point (from 0) not in occ, which is sorted.
func nthFree(occ []xq.Square, c int) xq.Square {
	s := xq.Square(c)
	for _, o := range occ {
		if o > s {
			break
		}
		s++
	}
	return s
}

// board puts the placement's pieces on b (which must be empty) and reports
// whether no two share a point.
func (l *layout) board(pl *placement, b *xq.Board) bool {
	for i := range l.groups {
		g := &l.groups[i]
		for j, s := range pl.sq[i][:g.n] {
			if b.At(s) != xq.NoPiece {
				return false
			}
			b.Put(s, g.pieceAt(j))
		}
	}
	return true
}

// pieceAt is the piece of member j.
func (g *group) pieceAt(j int) xq.Piece {
	if g.kind != homeGroup {
		return g.piece
	}
	switch {
	case j == 0:
		return xq.MakePiece(g.side, xq.King)
	case j <= g.home.na:
		return xq.MakePiece(g.side, xq.Advisor)
	}
	return xq.MakePiece(g.side, xq.Elephant)
}

// digits computes the digits of groups from..end from their points.
func (l *layout) digits(pl *placement, from int) {
	var occ [maxGroups * maxMembers]xq.Square
	n := 0
	for i := range l.groups {
		g := &l.groups[i]
		if i >= from {
			var c [maxMembers]int
			switch g.kind {
			case homeGroup:
				pl.digits[i] = uint64(g.home.rank(g.side, pl.sq[i][:g.n]))
				goto next
			case placeGroup:
				for j, s := range pl.sq[i][:g.n] {
					c[j] = int(g.place[s])
				}
			case freeGroup:
				for j, s := range pl.sq[i][:g.n] {
					c[j] = freeNumber(occ[:n], s)
				}
			}
			pl.digits[i] = rankNumbers(c[:g.n])
		}
	next:
		n = insertSorted(occ[:], n, pl.sq[i][:g.n])
	}
}

// freeNumber is s's number among the points not in occ (sorted).
func freeNumber(occ []xq.Square, s xq.Square) int {
	c := int(s)
	for _, o := range occ {
		if o >= s {
			break
		}
		c--
	}
	return c
}

// moved returns the hash of the placement pl (of hash h) after its piece
// of group i moves from a to b without capture, and the side to move
// flips. Only the digits that change are made afresh: group i's, and
// those of the later free groups, whose pieces' numbers among the free
// points shift by one where a or b lies below them.
func (l *layout) moved(pl *placement, bd *xq.Board, h uint64, i int, a, b xq.Square) uint64 {
	h ^= 1
	g := &l.groups[i]
	var d uint64
	switch {
	case g.kind == homeGroup:
		sq := pl.sq[i]
		for j := range sq[:g.n] {
			if sq[j] == a {
				sq[j] = b
			}
		}
		d = uint64(g.home.rank(g.side, sq[:g.n]))
	case g.n == 1 && g.kind == placeGroup:
		d = uint64(g.place[b])
	case g.n == 1:
		d = uint64(int(b) - l.below(pl, bd, i, b))
	default:
		var c [maxMembers]int
		for j := range g.n {
			c[j] = int(pl.num[i][j])
			if pl.sq[i][j] == a {
				if g.kind == placeGroup {
					c[j] = int(g.place[b])
				} else {
					c[j] = int(b) - l.below(pl, bd, i, b)
				}
			}
		}
		d = rankNumbers(c[:g.n])
	}
	h += (d - pl.digits[i]) * g.weight // modulo 2^64, as the new hash fits
	for k := max(i+1, l.firstFree); k < len(l.groups); k++ {
		gk := &l.groups[k]
		if gk.n == 1 {
			if s := pl.sq[k][0]; a < s != (b < s) {
				if a < s {
					h += gk.weight // a freed below: one more free point below s
				} else {
					h -= gk.weight
				}
			}
			continue
		}
		var c [maxMembers]int
		shifted := false
		for j := range gk.n {
			s := pl.sq[k][j]
			c[j] = int(pl.num[k][j])
			if a < s != (b < s) {
				shifted = true
				if a < s {
					c[j]++
				} else {
					c[j]--
				}
			}
		}
		if shifted {
			h += (rankNumbers(c[:gk.n]) - pl.digits[k]) * gk.weight
		}
	}
	return h
}

// below counts the pieces of the groups before free group i that stand
// on points below s, on bd, the board of pl: all pieces below s but those
// of group i and the free groups after it.
func (l *layout) below(pl *placement, bd *xq.Board, i int, s xq.Square) int {
	n := bd.CountBelow(s)
	for k := i; k < len(l.groups); k++ {
		for _, t := range pl.sq[k][:l.groups[k].n] {
			if t < s {
				n--
			}
		}
	}
	return n
}

// hash returns the hash of the placement's digits.
func (l *layout) hash(pl *placement) uint64 {
	h := uint64(pl.side)
	for i := range l.groups {
		h += pl.digits[i] * l.groups[i].weight
	}
	return h
}

// encode returns the hash of board b with side to move, whose material
// must be the layout's.
func (l *layout) encode(b *xq.Board, side xq.Side) uint64 {
	var pl placement
	var n [maxGroups]int
	for s := xq.Red; s <= xq.Black; s++ {
		// A home group lists the general, the advisors, the elephants.
		h := l.of[s][xq.King]
		n[h] = 1 + l.m[s][xq.Advisor]
		na := 1
		b.Each(s, func(at xq.Square, p xq.Piece) {
			i := l.of[s][p.Kind()]
			switch p.Kind() {
			case xq.King:
				pl.sq[i][0] = at
			case xq.Advisor:
				pl.sq[i][na] = at
				na++
			default:
				pl.sq[i][n[i]] = at
				n[i]++
			}
		})
	}
	pl.side = side
	l.digits(&pl, 0)
	return l.hash(&pl)
}
