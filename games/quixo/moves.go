package quixo

import (
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// How Moves computes hashes.
//
// A move changes one line, the row or column of its source: a child's
// halves have the base-3 codes of the parent's plus changes that depend
// only on the move, the mover and the contents of that line. Moves reads
// those changes from a table indexed by the line's base-3 code, and the
// child's hash from the ranks of the new codes. A cursor keeps the board
// from one position to the next: consecutive hashes 2r and 2r+1 are the
// same board with either side to move, and the next r usually differs
// only in the low half, the next contents of its class.

// lineTables are the tables of Moves.
type lineTables struct {
	n        uint
	lineMask uint32
	colMask  uint32 // the cells of column 0
	colMul   uint64 // gathers a column's cells: see setBoard
	colShift uint
	tern     [1 << MaxSize]uint32 // the base-3 number with digit 1 at the set bits
	// srcs[c] describes the moves from border cell c, in the order of
	// Game.bySrc.
	srcs [MaxSize * MaxSize]srcMoves
	// tab holds the tables Moves reads, in one slice so that its loop
	// keeps one base and one length in registers, not six:
	//
	//   - at sides[side] + off + code, the change of the halves' codes,
	//     packed as a board's (see board.codes), when side makes a move
	//     of srcMoves.off off on a line whose code is code;
	//   - at loBase + code, the rank of the low half with base-3 code
	//     code, its class and the number of contents of the class, packed
	//     as rank | class<<rankBits | count<<32;
	//   - at hiBase + code, the same of the high half (the same entries
	//     when the halves have as many cells).
	tab            []uint64
	sides          [2]uint32
	loBase, hiBase uint32
}

// srcMoves are the moves from one cell: each one's offset among the
// changes in lineTables.tab, its line (rows 0..n-1, then columns), and how
// many there are (a corner's third is padding).
type srcMoves struct {
	off  [3]uint32
	line [3]uint8
	n    uint8
}

func (g *Game) newLineTables() *lineTables {
	n := g.n
	lt := &lineTables{n: uint(n), lineMask: 1<<n - 1, colShift: uint((n - 1) * (n - 1))}
	for i := 0; i < n; i++ {
		lt.colMask |= 1 << (i * n)
		lt.colMul |= 1 << (i * (n - 1))
	}
	for m := range lt.tern[:1<<n] {
		lt.tern[m] = g.lo.tern[m] // the first n digits
	}
	codes := int(g.lo.tern[1<<n-1]*2 + 1) // 3^n
	var delta [2][]uint64
	for c := range g.bySrc {
		if g.border>>c&1 == 0 {
			continue
		}
		sm := &lt.srcs[c]
		for j, m := range g.bySrc[c] {
			sm.n += m.valid
			r, col := int(m.srcCell)/n, int(m.srcCell)%n
			line, cell := n+col, func(i int) int { return i*n + col }
			if int(m.dstCell)/n == r { // along the row
				line, cell = r, func(i int) int { return r*n + i }
			}
			sm.off[j], sm.line[j] = uint32(len(delta[0])), uint8(line)
			for code := 0; code < codes; code++ {
				// The line alone on the board: codes are linear in the
				// cells' digits, so its change is the board's.
				var xs, os uint32
				for i, v := 0, code; i < n; i, v = i+1, v/3 {
					switch v % 3 {
					case 1:
						xs |= 1 << cell(i)
					case 2:
						os |= 1 << cell(i)
					}
				}
				lo0, hi0 := g.halfCodes(xs, os)
				for side := range delta {
					own, opp := xs, os
					if side == 1 {
						own, opp = os, xs
					}
					own, opp = m.apply(own, opp)
					if side == 1 {
						own, opp = opp, own
					}
					lo1, hi1 := g.halfCodes(own, opp)
					d := int64(lo1) - int64(lo0) + (int64(hi1)-int64(hi0))<<32
					delta[side] = append(delta[side], uint64(d))
				}
			}
		}
	}
	lt.sides = [2]uint32{0, uint32(len(delta[0]))}
	lt.tab = append(delta[0], delta[1]...)
	lt.loBase, lt.hiBase = uint32(len(lt.tab)), uint32(len(lt.tab))
	lt.tab = g.lo.appendInfo(lt.tab)
	if g.hi != g.lo {
		lt.hiBase = uint32(len(lt.tab))
		lt.tab = g.hi.appendInfo(lt.tab)
	}
	return lt
}

// appendInfo appends the entries of tab for the half's codes.
func (h *half) appendInfo(tab []uint64) []uint64 {
	for _, r := range h.rank {
		tab = append(tab, uint64(r)|uint64(len(h.unrank[r>>rankBits]))<<32)
	}
	return tab
}

// apply returns the mover's cubes and the others after move m.
func (m *move) apply(own, opp uint32) (uint32, uint32) {
	return own&m.keep | uint32(uint64(own&m.seg)*m.fwd>>32) | m.dst, opp&m.keep | uint32(uint64(opp&m.seg)*m.fwd>>32)
}

// halfCodes returns the base-3 codes of the board's halves.
func (g *Game) halfCodes(xs, os uint32) (lo, hi uint32) {
	lb := uint(g.loBits) & 31
	const m = 1<<maxHalfBits - 1
	return g.lo.tern[xs&g.loMask&m] + 2*g.lo.tern[os&g.loMask&m], g.hi.tern[xs>>lb&m] + 2*g.hi.tern[os>>lb&m]
}

// board is a decoded board with what Moves needs of it for either side to
// move.
type board struct {
	xs, os       uint32
	xLine, oLine bool // whether X, O have a line
	// codes holds the halves' codes plus the bases of their entries in
	// lineTables.tab, low | high<<32: adding a packed change of both (two's
	// complement in 64 bits) gives the child's.
	codes uint64
	// lines holds the codes of the rows, then of the columns.
	lines [2 * MaxSize]uint32
}

// setBoard fills b for cubes xs, os. A column's cells, n apart, land next
// to each other at bit (n-1)² when multiplied by colMul: cell i*n times
// 2^((n-1-i)(n-1)), the other products at other bits, without carries.
func (g *Game) setBoard(b *board, xs, os uint32) {
	lt := g.tables
	b.xs, b.os = xs, os
	b.xLine, b.oLine = g.hasLine(xs), g.hasLine(os)
	if b.xLine || b.oLine {
		return // primitive for either side to move: no codes needed
	}
	lo, hi := g.halfCodes(xs, os)
	b.codes = uint64(lo+lt.loBase) | uint64(hi+lt.hiBase)<<32
	n := lt.n
	for i := uint(0); i < n; i++ {
		xr, or := xs>>(i*n)&lt.lineMask, os>>(i*n)&lt.lineMask
		b.lines[i] = lt.tern[xr&31] + 2*lt.tern[or&31]
		xc := uint32(uint64(xs>>i&lt.colMask)*lt.colMul>>lt.colShift) & lt.lineMask
		oc := uint32(uint64(os>>i&lt.colMask)*lt.colMul>>lt.colShift) & lt.lineMask
		b.lines[n+i] = lt.tern[xc&31] + 2*lt.tern[oc&31]
	}
}

// mover is what children needs of a tier and the side to move in it.
type mover struct {
	side, next uint64 // 0 for X, 1 for O; next is the child's
	delta      uint32 // lineTables.sides[side]
	// Index 0: the cube taken is the mover's own (same tier); 1: blank.
	offs [2]*[maxClasses]uint64
	tis  [2]*tierInfo
	ids  [2]tiergame.Tier
}

func (g *Game) newMover(ti *tierInfo, t tiergame.Tier, side uint64) mover {
	m := mover{side: side, next: side ^ 1, delta: g.tables.sides[side&1]}
	m.offs = [2]*[maxClasses]uint64{ti.offs, ti.offs}
	m.tis = [2]*tierInfo{ti, ti}
	m.ids = [2]tiergame.Tier{t, t}
	if ti.x+ti.o < g.cells {
		grow := tierID(ti.x+1, ti.o)
		if side == 1 {
			grow = tierID(ti.x, ti.o+1)
		}
		m.offs[1], m.tis[1], m.ids[1] = g.tierOf(grow).offs, g.tierOf(grow), grow
	}
	return m
}

// sides returns the cubes of the player to move (side 0 is X) and of the
// opponent on board b, and the value for the player to move when a line
// decides it (Undecided otherwise). The player to move's line counts
// first: a move that makes lines for both sides loses.
func (b *board) sides(side uint64) (own, opp uint32, v tiergame.Value) {
	own, opp = b.xs, b.os
	ownLine, oppLine := b.xLine, b.oLine
	if side == 1 {
		own, opp = b.os, b.xs
		ownLine, oppLine = b.oLine, b.xLine
	}
	switch {
	case ownLine:
		return own, opp, tiergame.Win
	case oppLine:
		return own, opp, tiergame.Lose
	}
	return own, opp, tiergame.Undecided
}

// children returns the primitive value of board b for mover m or, if there
// is none, appends its children: the tables give each child's codes and
// those their ranks.
func (g *Game) children(b *board, m *mover, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	own, opp, v := b.sides(m.side)
	if v != tiergame.Undecided {
		return v, dst
	}
	lt := g.tables
	room := 3 * bits.OnesCount32(g.border) // moves and padding
	dst = slices.Grow(dst, room)
	out := dst[len(dst) : len(dst)+room]
	k := 0
	h := hasher{lt.tab, b, m.delta, m.next}
	for srcs := g.border &^ opp; srcs != 0; srcs &= srcs - 1 {
		c := bits.TrailingZeros32(srcs) & 31
		blank := own>>c&1 ^ 1
		off, id := m.offs[blank], m.ids[blank]
		sm := &lt.srcs[c]
		out[k] = tiergame.Child{Tier: id, Pos: h.child(sm, 0, off)}
		out[k+1] = tiergame.Child{Tier: id, Pos: h.child(sm, 1, off)}
		out[k+2] = tiergame.Child{Tier: id, Pos: h.child(sm, 2, off)}
		k += int(sm.n)
	}
	return tiergame.Undecided, dst[:len(dst)+k]
}

// hasher hashes the children of a board.
type hasher struct {
	tab  []uint64
	b    *board
	side uint32 // lineTables.sides of the mover
	next uint64 // the child's side to move
}

// child returns the hash of the child of move j of sm, in the tier whose
// offsets are off.
func (h *hasher) child(sm *srcMoves, j int, off *[maxClasses]uint64) tiergame.Position {
	v := h.b.codes + h.tab[h.side+sm.off[j]+h.b.lines[sm.line[j]]]
	l := h.tab[uint32(v)]
	hr := h.tab[v>>32] & rankMask
	return tiergame.Position(2*(off[l>>rankBits&(maxClasses-1)]+hr*(l>>32)+l&rankMask) | h.next)
}

// Moves lists the children of p in the order of g.moves (by source cell,
// then destination: row left, row right, column top, column bottom).
func (g *Game) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	ti := g.tierOf(t)
	xs, os, side := g.unhash(ti, uint64(p))
	var b board
	g.setBoard(&b, xs, os)
	m := g.newMover(ti, t, side)
	return g.children(&b, &m, dst)
}

var (
	_ tiergame.CursorGame   = (*Game)(nil)
	_ tiergame.ByTierCursor = (*Cursor)(nil)
)

// Cursor generates the moves of the positions of one tier, fastest for
// ascending positions (see tiergame.Cursor). It is not safe for concurrent
// use.
type Cursor struct {
	g    *Game
	tier tiergame.Tier
	ti   *tierInfo
	r    uint64 // p>>1 of the board decoded last; noBoard before the first
	// Where r is in the hash: its group, hiRank, loRank.
	grp            *group
	hiRank, loRank uint64
	b              board
	movers         [2]mover // by side to move
}

const noBoard = ^uint64(0)

// Cursor returns a cursor over tier t, which must be a tier of the game.
func (g *Game) Cursor(t tiergame.Tier) tiergame.Cursor {
	ti := g.tierOf(t)
	return &Cursor{g: g, tier: t, ti: ti, r: noBoard, movers: [2]mover{g.newMover(ti, t, 0), g.newMover(ti, t, 1)}}
}

// Moves returns what Game.Moves returns for position p of the cursor's
// tier.
func (c *Cursor) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if r := uint64(p) >> 1; r != c.r {
		c.seek(r)
	}
	return c.g.children(&c.b, &c.movers[p&1], dst)
}

// seek decodes board r: the next contents of the low half's class when r
// is the last board's successor within its group, else from scratch.
func (c *Cursor) seek(r uint64) {
	g := c.g
	if r == c.r+1 && c.grp != nil && c.loRank+1 < c.grp.numLo {
		c.r, c.loRank = r, c.loRank+1
		l := g.lo.unrank[c.grp.loClass][c.loRank]
		lm := g.loMask
		g.setBoard(&c.b, c.b.xs&^lm|l&0xffff, c.b.os&^lm|l>>16)
		return
	}
	c.r = r
	c.grp, c.hiRank, c.loRank = c.ti.find(r)
	xs, os := g.board(c.grp, c.hiRank, c.loRank)
	g.setBoard(&c.b, xs, os)
}

// MovesByTier lists the children of p by tier: it appends each child (u, q)
// to dst[i], u being ChildTiers(t)[i]. Moves taking an own cube stay in the
// tier, those taking a blank go to the tier with one more of the mover's
// cubes.
func (c *Cursor) MovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	if r := uint64(p) >> 1; r != c.r {
		c.seek(r)
	}
	g := c.g
	m := &c.movers[p&1]
	own, opp, v := c.b.sides(m.side)
	if v != tiergame.Undecided {
		return v
	}
	h := hasher{g.tables.tab, &c.b, m.delta, m.next}
	same, grow := byTierLists(len(dst), m.side)
	if dst[same] != nil {
		dst[same] = h.append(dst[same], g, g.border&own, m.offs[0])
	}
	if grow >= 0 && dst[grow] != nil {
		dst[grow] = h.append(dst[grow], g, g.border&^(own|opp), m.offs[1])
	}
	return tiergame.Undecided
}

// byTierLists returns, for MovesByTier's n lists and the side to move, the
// index of the list of the moves taking an own cube (same tier) and of the
// moves taking a blank (-1 on a full board, which has none): the order of
// ChildTiers.
func byTierLists(n int, side uint64) (same, grow int) {
	if n == 1 {
		return 0, -1
	}
	return 2, int(side & 1)
}

// append appends the children of the moves taking the cubes at srcs, in
// the tier whose offsets are off.
func (h *hasher) append(dst []tiergame.Position, g *Game, srcs uint32, off *[maxClasses]uint64) []tiergame.Position {
	room := 3 * bits.OnesCount32(srcs)
	if cap(dst)-len(dst) < room {
		dst = slices.Grow(dst, room)
	}
	out := dst[len(dst) : len(dst)+room]
	k := 0
	for ; srcs != 0; srcs &= srcs - 1 {
		sm := &g.tables.srcs[bits.TrailingZeros32(srcs)&31]
		// Write three, keep sm.n: a corner's third is padding.
		out[k] = h.child(sm, 0, off)
		out[k+1] = h.child(sm, 1, off)
		out[k+2] = h.child(sm, 2, off)
		k += int(sm.n)
	}
	return dst[:len(dst)+k]
}
