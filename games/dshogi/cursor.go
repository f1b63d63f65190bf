package dshogi

import (
	"github.com/tiersolve/tiersolve/tiergame"
)

// cursor generates the moves of the positions of one tier, decoding
// consecutive hashes of one class and lion triple without searching for
// the class again.
type cursor struct {
	g     *Game
	t     tiergame.Tier
	d     decoded
	p     pos
	h     tiergame.Position
	valid bool // p is hash h
	moves []move
}

var (
	_ tiergame.CountingCursor        = (*cursor)(nil)
	_ tiergame.CanonicalByTierCursor = (*cursor)(nil)
)

// Cursor returns a cursor over tier t.
func (g *Game) Cursor(t tiergame.Tier) tiergame.Cursor {
	return &cursor{g: g, t: t, d: decoded{t: numTiers}, moves: make([]move, 0, 64)}
}

// load decodes h and lists its moves unless it is primitive, returning
// its primitive value.
func (c *cursor) load(h tiergame.Position) tiergame.Value {
	if !c.valid || c.h != h {
		c.g.l.decode(c.t, uint64(h), &c.p, &c.d)
		c.h, c.valid = h, true
	}
	v := primitive(c.t, &c.p)
	c.moves = c.moves[:0]
	if v == tiergame.Undecided {
		c.moves = c.p.moves(c.moves)
	}
	return v
}

// Indexes of ChildTiers(play).
const (
	toPlay = iota
	toTry
	toCapture
)

// childTier returns the index in ChildTiers(play) of the tier move m of
// p leads to: capture if it takes the lion, try if the lion steps onto
// its far rank, else play.
func childTier(p *pos, m move) int {
	if m.isDrop() {
		return toPlay
	}
	switch code := p.sq[m.from]; {
	case p.sq[m.to] == lionF+uint8(p.turn^1):
		return toCapture
	case code == lionF+uint8(p.turn) && farRank(p.turn)&(1<<m.to) != 0:
		return toTry
	}
	return toPlay
}

// Moves is Game.Moves.
func (c *cursor) Moves(h tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	return c.list(h, dst, false)
}

// CanonicalMoves is Moves with canonical children.
func (c *cursor) CanonicalMoves(h tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	return c.list(h, dst, true)
}

func (c *cursor) list(h tiergame.Position, dst []tiergame.Child, canonical bool) (tiergame.Value, []tiergame.Child) {
	v := c.load(h)
	for _, m := range c.moves {
		q := c.p
		q.play(m)
		var ch tiergame.Child
		if canonical {
			ch.Tier, ch.Pos = c.g.l.encodeCanonical(&q)
		} else {
			ch.Tier, ch.Pos = c.g.l.encode(&q, false)
		}
		dst = append(dst, ch)
	}
	return v, dst
}

// MovesByTier lists the children by tier, hashing only those of the
// lists wanted.
func (c *cursor) MovesByTier(h tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	return c.byTier(h, dst, false)
}

// CanonicalMovesByTier is MovesByTier with canonical children.
func (c *cursor) CanonicalMovesByTier(h tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	return c.byTier(h, dst, true)
}

func (c *cursor) byTier(h tiergame.Position, dst [][]tiergame.Position, canonical bool) tiergame.Value {
	v := c.load(h)
	for _, m := range c.moves {
		i := childTier(&c.p, m)
		if dst[i] == nil {
			continue
		}
		q := c.p
		q.play(m)
		var ch tiergame.Position
		if canonical {
			_, ch = c.g.l.encodeCanonical(&q)
		} else {
			_, ch = c.g.l.encode(&q, false)
		}
		dst[i] = append(dst[i], ch)
	}
	return v
}

// CountInTier counts the moves into tier ChildTiers(play)[i] without
// hashing them: distinct moves lead to distinct positions.
func (c *cursor) CountInTier(h tiergame.Position, i int) int {
	c.load(h)
	n := 0
	for _, m := range c.moves {
		if childTier(&c.p, m) == i {
			n++
		}
	}
	return n
}
