package dshogi

import (
	"math/bits"

	"github.com/tiersolve/tiersolve/tiergame"
)

// The board: 3 columns by 4 rows, squares 0..11 row by row from the top
// left. Row 0 is the sky's home row and the forest's far rank; row 3 the
// forest's home row and the sky's far rank.
const (
	cols    = 3
	rows    = 4
	squares = cols * rows
	allSq   = 1<<squares - 1
	noSq    = squares // the square of a lion that is not on the board

	farForest = 0b000_000_000_111 // row 0: where a forest chick promotes, a forest lion tries
	farSky    = 0b111_000_000_000 // row 3
)

// Sides.
const (
	forest = 0 // upper case, starts at the bottom, moves first
	sky    = 1 // lower case
)

// Piece codes. The side of a piece is (code-1)&1: forest codes are odd.
// The types that go to a hand are giraffe, elephant and chick (a captured
// hen becomes a chick); kind = code - giraffeF numbers the pieces other
// than lions 0..7 for the hash.
const (
	empty     = 0
	lionF     = 1
	lionS     = 2
	giraffeF  = 3
	giraffeS  = 4
	elephantF = 5
	elephantS = 6
	chickF    = 7
	chickS    = 8
	henF      = 9
	henS      = 10
	numCodes  = 11
	numKinds  = 8
)

// Hand types.
const (
	giraffe  = 0
	elephant = 1
	chick    = 2
	numTypes = 3
)

const pieceLetters = ".LlGgEeCcHh"

func sideOf(code uint8) int { return int(code-1) & 1 }

// handType is the type a captured piece of code goes to hand as.
var handType = [numCodes]uint8{0, 0, 0, giraffe, giraffe, elephant, elephant, chick, chick, chick, chick}

// codeOf is the code of an unpromoted piece of a type for a side: what a
// drop puts on the board.
func codeOf(side, typ int) uint8 { return uint8(giraffeF + 2*typ + side) }

func farRank(side int) uint16 {
	if side == forest {
		return farForest
	}
	return farSky
}

// Geometry tables, filled by init: dests[code][s] are the squares a piece
// of code on s moves to (own pieces not excluded), srcs[code][d] the
// squares from which it reaches d, mirrorSq and mirrorMask the left-right
// mirror of a square and of a set of squares, and sel[mask][i] the i-th
// lowest square of mask.
var (
	dests      [numCodes][squares]uint16
	srcs       [numCodes][squares + 1]uint16
	mirrorSq   [squares + 1]uint8
	mirrorMask [1 << squares]uint16
	sel        [1 << squares][squares]uint8
)

// steps are a forest piece's moves as (row, column) offsets; a sky
// piece's are the same with the row negated (forward is up for the
// forest, down for the sky).
var steps = [numCodes][][2]int{
	lionF:     {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}},
	giraffeF:  {{-1, 0}, {0, -1}, {0, 1}, {1, 0}},
	elephantF: {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}},
	chickF:    {{-1, 0}},
	henF:      {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, 0}},
}

func init() {
	for code := uint8(lionF); code < numCodes; code++ {
		forestCode, dr := code, 1
		if sideOf(code) == sky {
			forestCode, dr = code-1, -1
		}
		for s := range squares {
			r, c := s/cols, s%cols
			for _, st := range steps[forestCode] {
				r2, c2 := r+dr*st[0], c+st[1]
				if r2 < 0 || r2 >= rows || c2 < 0 || c2 >= cols {
					continue
				}
				d := r2*cols + c2
				dests[code][s] |= 1 << d
				srcs[code][d] |= 1 << s
			}
		}
	}
	for s := range squares {
		mirrorSq[s] = uint8(s/cols*cols + cols - 1 - s%cols)
	}
	mirrorSq[noSq] = noSq
	for m := range 1 << squares {
		var mm uint16
		i := 0
		for s := range squares {
			if m&(1<<s) != 0 {
				mm |= 1 << mirrorSq[s]
				sel[m][i] = uint8(s)
				i++
			}
		}
		mirrorMask[m] = mm
	}
}

// pos is a decoded position: the board both as squares and as sets, the
// hands and the side to move.
type pos struct {
	sq   [squares]uint8
	set  [numCodes]uint16 // squares of each code; set[empty] is unused
	occ  [2]uint16        // squares of each side's pieces
	hand [2][numTypes]uint8
	turn int
	// count holds the number of pieces of each kind on the board, two
	// bits each, kind 0 lowest: the class of the hash without counting.
	count uint32
}

// kindBit is what a piece of code adds to pos.count (0 for a lion).
var kindBit = [numCodes]uint32{0, 0, 0, 1 << 0, 1 << 2, 1 << 4, 1 << 6, 1 << 8, 1 << 10, 1 << 12, 1 << 14}

func (p *pos) put(s int, code uint8) {
	p.sq[s] = code
	p.set[code] |= 1 << s
	p.occ[sideOf(code)] |= 1 << s
	p.count += kindBit[code]
}

func (p *pos) remove(s int) uint8 {
	code := p.sq[s]
	p.sq[s] = empty
	p.set[code] &^= 1 << s
	p.occ[sideOf(code)] &^= 1 << s
	p.count -= kindBit[code]
	return code
}

// lion returns the square of a side's lion, or noSq.
func (p *pos) lion(side int) int {
	if m := p.set[lionF+side]; m != 0 {
		return bits.TrailingZeros16(m)
	}
	return noSq
}

// attacked reports whether a piece of side can move to square d.
func (p *pos) attacked(side, d int) bool {
	for code := uint8(lionF + side); code < numCodes; code += 2 {
		if p.set[code]&srcs[code][d] != 0 {
			return true
		}
	}
	return false
}

// canMove reports whether the side to move has a move.
func (p *pos) canMove() bool {
	s := p.turn
	if p.hand[s][0]|p.hand[s][1]|p.hand[s][2] != 0 {
		return true
	}
	own := p.occ[s]
	for code := uint8(lionF + s); code < numCodes; code += 2 {
		for m := p.set[code]; m != 0; m &= m - 1 {
			if dests[code][bits.TrailingZeros16(m)]&^own != 0 {
				return true
			}
		}
	}
	return false
}

// move is a move of the side to move: a step (with or without capture) of
// the piece on from, or a drop of a hand type when from is negative
// (-1 - type).
type move struct {
	from, to int8
}

func drop(typ, to int) move { return move{int8(-1 - typ), int8(to)} }

func (m move) isDrop() bool { return m.from < 0 }

// moves appends the moves of the side to move: steps by square then
// destination, then drops by type (giraffe, elephant, chick) then square.
// Each leads to a different position.
func (p *pos) moves(dst []move) []move {
	s := p.turn
	own := p.occ[s]
	for m := p.occ[s]; m != 0; m &= m - 1 {
		from := bits.TrailingZeros16(m)
		for d := dests[p.sq[from]][from] &^ own; d != 0; d &= d - 1 {
			dst = append(dst, move{int8(from), int8(bits.TrailingZeros16(d))})
		}
	}
	free := allSq &^ (p.occ[0] | p.occ[1])
	for typ := range numTypes {
		if p.hand[s][typ] == 0 {
			continue
		}
		for d := uint16(free); d != 0; d &= d - 1 {
			dst = append(dst, drop(typ, bits.TrailingZeros16(d)))
		}
	}
	return dst
}

// play makes move m and passes the turn.
func (p *pos) play(m move) {
	s := p.turn
	to := int(m.to)
	if m.isDrop() {
		typ := int(-1 - m.from)
		p.hand[s][typ]--
		p.put(to, codeOf(s, typ))
	} else {
		code := p.remove(int(m.from))
		if p.sq[to] != empty {
			if taken := p.remove(to); taken > lionS {
				p.hand[s][handType[taken]]++
			}
		}
		if (code == chickF || code == chickS) && farRank(s)&(1<<to) != 0 {
			code += henF - chickF
		}
		p.put(to, code)
	}
	p.turn ^= 1
}

// parents appends the hash of every position q of play (its canonical
// hash if canonical is set) from which a move leads to p: the side that
// just moved is to move again in q, and its moved piece steps back
// (un-promoting a hen on the far rank to the chick it was, and
// un-capturing a piece of its hand, a chick as a chick or a hen, or the
// missing lion), or returns to the hand. A q of another tier (or of none)
// is no parent: its moves are not played. p is changed and restored.
func (l *layout) parents(p *pos, canonical bool, dst []tiergame.Position) []tiergame.Position {
	f := func(q *pos) {
		var t tiergame.Tier
		var h tiergame.Position
		if canonical {
			t, h = l.encodeCanonical(q)
		} else {
			t, h = l.encode(q, false)
		}
		if t == play {
			dst = append(dst, h)
		}
	}
	mover := p.turn ^ 1
	victim := p.turn
	lionTaken := p.set[lionF+victim] == 0
	free := allSq &^ (p.occ[0] | p.occ[1])
	p.turn = mover
	for m := p.occ[mover]; m != 0; m &= m - 1 {
		to := bits.TrailingZeros16(m)
		code := p.sq[to]
		from := srcs[code][to] & free
		// A hen on the far rank may have been a chick that stepped there;
		// a chick there cannot have stepped (it would have promoted).
		promoted := uint16(0)
		if code == henF+uint8(mover) && farRank(mover)&(1<<to) != 0 {
			promoted = srcs[chickF+mover][to] & free
		}
		if code == chickF+uint8(mover) && farRank(mover)&(1<<to) != 0 {
			from = 0
		}
		for _, step := range [2]struct {
			from uint16
			was  uint8
		}{{from, code}, {promoted, chickF + uint8(mover)}} {
			for fm := step.from; fm != 0; fm &= fm - 1 {
				s := bits.TrailingZeros16(fm)
				p.remove(to)
				p.put(s, step.was)
				if lionTaken {
					p.put(to, lionF+uint8(victim))
					f(p)
					p.remove(to)
				} else {
					f(p)
					for typ := range numTypes {
						if p.hand[mover][typ] == 0 {
							continue
						}
						p.hand[mover][typ]--
						p.put(to, codeOf(victim, typ))
						f(p)
						if typ == chick {
							p.remove(to)
							p.put(to, henF+uint8(victim))
							f(p)
						}
						p.remove(to)
						p.hand[mover][typ]++
					}
				}
				p.remove(s)
				p.put(to, code)
			}
		}
		if !lionTaken && code != henF+uint8(mover) && code != lionF+uint8(mover) {
			typ := int(handType[code])
			p.remove(to)
			p.hand[mover][typ]++
			f(p)
			p.hand[mover][typ]--
			p.put(to, code)
		}
	}
	p.turn = victim
	return dst
}
