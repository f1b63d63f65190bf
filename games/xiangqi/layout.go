package xiangqi

import (
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/internal/xq"
)

// The hash of a position in its tier is
//
//	side to move + 2 * (d_0 + s_0*(d_1 + s_1*(d_2 + ...)))
//
// over the tier's groups: the pieces of one kind and side, in the order
// red general, black general, then red's and black's advisors, elephants,
// horses, chariots, cannons and soldiers (groups of no piece left out). A
// group of n alike pieces with p places (the points where such a piece can
// stand: 9 for a general, 5 for an advisor, 7 for an elephant, 55 for a
// soldier, 90 for the others) has s = C(p, n) digits: the rank, in
// colexicographic order, of the set of its pieces' place numbers (for the
// sorted numbers c_0 < c_1 < ..., the sum of C(c_j, j+1)). Hashes where two
// groups share a point, the generals face each other, or the side not to
// move is in check are no positions: Legal says which are.

const (
	maxGroups  = 2 + 2*6
	maxMembers = 5 // soldiers
	// unrankTable is the largest group whose digits are unranked by a
	// table rather than by search.
	unrankTable = 1 << 18
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

// group is the pieces of one kind and side in a tier.
type group struct {
	side   xq.Side
	kind   xq.Kind
	n      int         // pieces
	places []xq.Square // where they can stand, in increasing order
	// place[s] is s's number among places, -1 if it is none.
	place  [xq.NumSquares]int8
	size   uint64 // digits: C(len(places), n)
	weight uint64 // the digit's factor in the hash
	piece  xq.Piece
	// unrank[d] lists the squares of digit d (small groups only).
	unrank [][maxMembers]xq.Square
}

// layout is the hash space of one tier.
type layout struct {
	m      Material
	groups []group
	size   uint64
	// of[side][kind] is the index of that group, -1 if the tier has none.
	of [2][xq.NumKinds]int8
}

// groupOrder is the order of the kinds of each side's groups after the
// generals.
var groupOrder = [...]xq.Kind{xq.Advisor, xq.Elephant, xq.Horse, xq.Chariot, xq.Cannon, xq.Soldier}

// maxSize bounds a tier's hash space: a material whose placements exceed
// it (over a dozen pieces) is no tier of the game.
const maxSize = 1 << 62

// newLayout returns the hash space of material m, or nil if it is larger
// than maxSize.
func newLayout(m Material) *layout {
	l := &layout{m: m}
	for side := range l.of {
		for k := range l.of[side] {
			l.of[side][k] = -1
		}
	}
	add := func(side xq.Side, k xq.Kind) {
		n := m[side][k]
		if n == 0 {
			return
		}
		g := group{side: side, kind: k, n: n, places: xq.Places(side, k), piece: xq.MakePiece(side, k)}
		for s := range g.place {
			g.place[s] = -1
		}
		for i, s := range g.places {
			g.place[s] = int8(i)
		}
		g.size = binom[len(g.places)][n]
		l.of[side][k] = int8(len(l.groups))
		l.groups = append(l.groups, g)
	}
	add(xq.Red, xq.King)
	add(xq.Black, xq.King)
	for side := xq.Red; side <= xq.Black; side++ {
		for _, k := range groupOrder {
			add(side, k)
		}
	}
	w := uint64(2)
	for i := range l.groups {
		g := &l.groups[i]
		g.weight = w
		if hi, lo := bits.Mul64(w, g.size); hi != 0 || lo > maxSize {
			return nil
		}
		w *= g.size
	}
	for i := range l.groups {
		g := &l.groups[i]
		if g.n > 1 && g.size <= unrankTable {
			g.unrank = make([][maxMembers]xq.Square, g.size)
			for d := range g.unrank {
				g.unrank[d] = g.search(uint64(d))
			}
		}
	}
	l.size = w
	return l
}

// rank returns the digit of the pieces on squares sq (any order; each a
// place of the group).
func (g *group) rank(sq []xq.Square) uint64 {
	if g.n == 1 {
		return uint64(g.place[sq[0]])
	}
	var c [maxMembers]int
	for j, s := range sq {
		c[j] = int(g.place[s])
	}
	cs := c[:g.n]
	if g.n == 2 {
		if cs[0] > cs[1] {
			cs[0], cs[1] = cs[1], cs[0]
		}
	} else {
		slices.Sort(cs)
	}
	var d uint64
	for j, x := range cs {
		d += binom[x][j+1]
	}
	return d
}

// squares returns the squares of digit d, in increasing order of places.
func (g *group) squares(d uint64) [maxMembers]xq.Square {
	if g.n == 1 {
		return [maxMembers]xq.Square{g.places[d]}
	}
	if g.unrank != nil {
		return g.unrank[d]
	}
	return g.search(d)
}

// search unranks d by finding each place number from the largest down.
func (g *group) search(d uint64) [maxMembers]xq.Square {
	var out [maxMembers]xq.Square
	c := len(g.places)
	for j := g.n; j >= 1; j-- {
		c--
		for binom[c][j] > d {
			c--
		}
		d -= binom[c][j]
		out[j-1] = g.places[c]
	}
	return out
}

// placement is a decoded hash: the side to move, each group's digit and
// its pieces' squares.
type placement struct {
	side   xq.Side
	digits [maxGroups]uint64
	sq     [maxGroups][maxMembers]xq.Square
}

// decode splits hash h into its digits and squares.
func (l *layout) decode(h uint64, pl *placement) {
	pl.side = xq.Side(h & 1)
	h >>= 1
	for i := range l.groups {
		g := &l.groups[i]
		d := h % g.size
		h /= g.size
		pl.digits[i] = d
		pl.sq[i] = g.squares(d)
	}
}

// board puts the placement's pieces on b (which must be empty) and reports
// whether no two share a point.
func (l *layout) board(pl *placement, b *xq.Board) bool {
	for i := range l.groups {
		g := &l.groups[i]
		for _, s := range pl.sq[i][:g.n] {
			if b.At(s) != xq.NoPiece {
				return false
			}
			b.Put(s, g.piece)
		}
	}
	return true
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
	var sq [maxGroups][maxMembers]xq.Square
	var n [maxGroups]int
	for s := xq.Red; s <= xq.Black; s++ {
		b.Each(s, func(at xq.Square, p xq.Piece) {
			i := l.of[s][p.Kind()]
			sq[i][n[i]] = at
			n[i]++
		})
	}
	h := uint64(side)
	for i := range l.groups {
		g := &l.groups[i]
		h += g.rank(sq[i][:g.n]) * g.weight
	}
	return h
}
