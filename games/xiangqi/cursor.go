package xiangqi

import (
	"slices"

	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/tiergame"
)

// walker decodes the hashes of one tier, fastest in increasing order: the
// next hash's digits follow from the last one's by adding the difference,
// which seldom carries past the lowest digits.
type walker struct {
	l     *layout
	st    state
	h     uint64
	valid bool // st.pl holds hash h's digits and squares
	ok    bool // and st.b its pieces, no two on a point
}

// seekLimit is the largest step the walker takes by adding; a longer jump
// decodes afresh.
const seekLimit = 1 << 16

// seek makes st the state of hash h.
func (w *walker) seek(h uint64) {
	switch {
	case w.valid && h == w.h:
		return
	case w.valid && h > w.h && h-w.h <= seekLimit:
		w.advance(h - w.h)
	default:
		w.l.decode(h, &w.st.pl)
	}
	w.h, w.valid = h, true
	w.st.b = xq.Board{}
	w.ok = w.l.board(&w.st.pl, &w.st.b)
}

// advance adds d to the decoded hash.
func (w *walker) advance(d uint64) {
	pl := &w.st.pl
	sum := uint64(pl.side) + d
	pl.side = xq.Side(sum & 1)
	carry := sum >> 1
	i := len(w.l.groups) // the last group's digit is the lowest
	for carry != 0 && i > 0 {
		i--
		g := &w.l.groups[i]
		x := pl.digits[i] + carry
		carry = 0
		if x >= g.size {
			carry, x = x/g.size, x%g.size
		}
		pl.digits[i] = x
	}
	w.l.place(pl, i) // groups before i keep their points
}

// LegalWords sets the bits of the legal positions among the hashes of
// tier t from lo on (tiergame.Legality).
func (g *Game) LegalWords(t tiergame.Tier, lo tiergame.Position, words []uint64) {
	l := g.layout(t)
	w := &walker{l: l, st: state{l: l}}
	h := uint64(lo)
	for i := range words {
		var word uint64
		for b := 0; b < 64 && h < l.size; b, h = b+1, h+1 {
			w.seek(h)
			if w.ok && w.st.legal() {
				word |= 1 << b
			}
		}
		words[i] = word
	}
}

// cursor generates the moves of one tier's positions (tiergame.Cursor and
// ByTierCursor).
type cursor struct {
	g    *Game
	t    tiergame.Tier
	w    walker
	self int // index of t in ChildTiers(t)
	// capture[side][kind] is the index in ChildTiers(t) of the tier a
	// capture of that piece leads to.
	capture [2][xq.NumKinds]int
	moves   []xq.Move
	// The pseudo-moves of position pseudoOf, and what is known of their
	// legality: the solver asks twice about a position, its moves to
	// other tiers, then those inside its own.
	pseudo    []xq.Move
	legal     []int8 // 1 legal, -1 not, 0 not known
	guard     xq.Guard
	pseudoOf  tiergame.Position
	hasPseudo bool
	// The mirror image of position mirOf: its hash and state (mirOK: it
	// is a placement), for the canonical children.
	mir           state
	mirH          uint64
	mirOf         tiergame.Position
	hasMir, mirOK bool
}

var (
	_ tiergame.CursorGame            = (*Game)(nil)
	_ tiergame.ByTierCursor          = (*cursor)(nil)
	_ tiergame.CountingCursor        = (*cursor)(nil)
	_ tiergame.CanonicalByTierCursor = (*cursor)(nil)
	_ tiergame.CanonicalUnmover      = (*Game)(nil)
	_ tiergame.Unmover               = (*Game)(nil)
	_ tiergame.Symmetric             = (*Game)(nil)
	_ tiergame.Legality              = (*Game)(nil)
	_ tiergame.SeedsOnly             = (*Game)(nil)
	_ tiergame.WholeTiers            = (*Game)(nil)
	_ tiergame.MoveNamer             = (*Game)(nil)
)

// Cursor returns a cursor over tier t.
func (g *Game) Cursor(t tiergame.Tier) tiergame.Cursor {
	l := g.mustLayout(t)
	c := &cursor{g: g, t: t, w: walker{l: l, st: state{l: l}}, moves: make([]xq.Move, 0, 128)}
	kids := g.ChildTiers(t)
	c.self = slices.Index(kids, t)
	for side := xq.Red; side <= xq.Black; side++ {
		for k := xq.Advisor; k < xq.NumKinds; k++ {
			c.capture[side][k] = -1
			if l.m[side][k] > 0 {
				m := l.m
				m[side][k]--
				c.capture[side][k] = slices.Index(kids, m.Tier())
			}
		}
	}
	return c
}

// Moves is Game.Moves.
func (c *cursor) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	c.w.seek(uint64(p))
	st := &c.w.st
	c.moves = st.b.LegalMoves(st.pl.side, c.moves[:0])
	if len(c.moves) == 0 {
		return tiergame.Lose, dst
	}
	for _, m := range c.moves {
		dst = append(dst, c.g.child(st, uint64(p), c.t, m))
	}
	return tiergame.Undecided, dst
}

// prepare decodes p and lists its pseudo-moves, unless they are p's
// already.
func (c *cursor) prepare(p tiergame.Position) *state {
	c.w.seek(uint64(p))
	st := &c.w.st
	if !c.hasPseudo || c.pseudoOf != p {
		c.pseudo = st.b.PseudoMoves(st.pl.side, c.pseudo[:0])
		c.guard = st.b.Guard(st.pl.side)
		c.legal = slices.Grow(c.legal[:0], len(c.pseudo))[:len(c.pseudo)]
		clear(c.legal)
		c.pseudoOf, c.hasPseudo = p, true
	}
	return st
}

// isLegal reports whether pseudo-move k, m, of the prepared position is
// legal, asking the guard once.
func (c *cursor) isLegal(k int, m xq.Move) bool {
	if c.legal[k] == 0 {
		c.legal[k] = -1
		if c.guard.Legal(&c.w.st.b, m) {
			c.legal[k] = 1
		}
	}
	return c.legal[k] > 0
}

// MovesByTier is Moves with the children grouped by tier; the moves whose
// list is nil are only tested for legality while no legal move is known,
// to tell a position without moves.
func (c *cursor) MovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	return c.movesByTier(p, dst, false)
}

// movesByTier is MovesByTier, with each child replaced by the smaller
// hash of it and its mirror image when canonical (c.mir must then be p's
// mirror state).
func (c *cursor) movesByTier(p tiergame.Position, dst [][]tiergame.Position, canonical bool) tiergame.Value {
	st := c.prepare(p)
	h := uint64(p)
	any := false
	for k, m := range c.pseudo {
		i := c.self
		if q := st.b.At(m.To); q != xq.NoPiece {
			i = c.capture[q.Side()][q.Kind()]
		}
		if dst[i] == nil && any {
			continue
		}
		if !c.isLegal(k, m) {
			continue
		}
		any = true
		if dst[i] != nil {
			q := c.g.child(st, h, c.t, m).Pos
			if canonical {
				q = min(q, c.g.child(&c.mir, c.mirH, c.t, mirrorMove(m)).Pos)
			}
			dst[i] = append(dst[i], q)
		}
	}
	if !any {
		return tiergame.Lose
	}
	return tiergame.Undecided
}

// CountInTier counts the legal moves into tier ChildTiers(t)[i]: those
// without capture for t itself, the captures of one kind of piece for a
// tier below. Distinct moves lead to distinct positions.
func (c *cursor) CountInTier(p tiergame.Position, i int) int {
	st := c.prepare(p)
	n := 0
	for k, m := range c.pseudo {
		j := c.self
		if q := st.b.At(m.To); q != xq.NoPiece {
			j = c.capture[q.Side()][q.Kind()]
		}
		if j == i && c.isLegal(k, m) {
			n++
		}
	}
	return n
}
