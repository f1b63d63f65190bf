package tiergame

import "slices"

// Symmetric is implemented by games whose positions have symmetries, such
// as the rotations and reflections of a square board. A symmetry maps the
// positions of a tier to positions of the same tier; it keeps a position's
// value, remoteness and primitive value, and it maps the children of a
// position onto the children of its image (a move of p leads to c exactly
// when some move of the image of p leads to the image of c). The images of
// a position under all the symmetries form its orbit.
//
// A solver that reduces by symmetry keeps one position per orbit, the
// canonical one, and looks every position up by its canonical form. Which
// member is canonical is the game's choice, documented by it; it must be
// the same for every member of an orbit.
type Symmetric interface {
	// Images appends to dst the image of position p of tier t under each
	// symmetry, in a fixed order whose first is the identity (p itself).
	// Images repeat when p is symmetric.
	Images(t Tier, p Position, dst []Position) []Position
	// Canonical returns the canonical member of the orbit of p: the same
	// position for every member of the orbit, and one of them.
	Canonical(t Tier, p Position) Position
}

// CanonicalCursor is implemented by the cursors of symmetric games that
// can give canonical children faster than Moves followed by Canonical for
// each child.
type CanonicalCursor interface {
	Cursor
	// CanonicalMoves returns what Moves returns, with every child
	// replaced by its canonical position. Children may repeat.
	CanonicalMoves(p Position, dst []Child) (Value, []Child)
}

// CanonicalByTierCursor is a CanonicalCursor that can also give the
// canonical children grouped by tier.
type CanonicalByTierCursor interface {
	CanonicalCursor
	// CanonicalMovesByTier returns what MovesByTier returns, with every
	// child replaced by its canonical position. Children may repeat.
	CanonicalMovesByTier(p Position, dst [][]Position) Value
}

// CanonicalUnmover is implemented by symmetric games that can generate
// the canonical parents of a position faster than Parents followed by
// Canonical for each parent.
type CanonicalUnmover interface {
	// CanonicalParents appends the canonical positions of the parents that
	// Parents(t, p, pt) lists, once each.
	CanonicalParents(t Tier, p Position, pt Tier, dst []Position) []Position
}

// NewCanonicalCursor returns a cursor over tier t of symmetric game g
// whose Moves gives canonical children: g's own CanonicalMoves if its
// cursor has them, and otherwise its moves canonicalized one by one. It is
// a ByTierCursor when g's cursor is a CanonicalByTierCursor.
func NewCanonicalCursor(g Game, t Tier) Cursor {
	cur := NewCursor(g, t)
	if cc, ok := cur.(CanonicalByTierCursor); ok {
		return canonicalByTier{canonicalMoves{cc}, cc}
	}
	if cc, ok := cur.(CanonicalCursor); ok {
		return canonicalMoves{cc}
	}
	return canonicalizing{cur, g.(Symmetric)}
}

// canonicalMoves is a CanonicalCursor used as a Cursor.
type canonicalMoves struct{ c CanonicalCursor }

func (c canonicalMoves) Moves(p Position, dst []Child) (Value, []Child) {
	return c.c.CanonicalMoves(p, dst)
}

// canonicalByTier is a CanonicalByTierCursor used as a ByTierCursor.
type canonicalByTier struct {
	canonicalMoves
	c CanonicalByTierCursor
}

func (c canonicalByTier) MovesByTier(p Position, dst [][]Position) Value {
	return c.c.CanonicalMovesByTier(p, dst)
}

// canonicalizing canonicalizes the children of another cursor.
type canonicalizing struct {
	c Cursor
	s Symmetric
}

func (c canonicalizing) Moves(p Position, dst []Child) (Value, []Child) {
	n := len(dst)
	v, cs := c.c.Moves(p, dst)
	for i := n; i < len(cs); i++ {
		cs[i].Pos = c.s.Canonical(cs[i].Tier, cs[i].Pos)
	}
	return v, cs
}

// CanonicalParents appends to dst the canonical positions of the parents
// of p in tier pt, once each, from g's CanonicalParents if it has them and
// otherwise from Parents. g must be Symmetric and an Unmover.
func CanonicalParents(g Game, t Tier, p Position, pt Tier, dst []Position) []Position {
	if cu, ok := g.(CanonicalUnmover); ok {
		return cu.CanonicalParents(t, p, pt, dst)
	}
	n := len(dst)
	dst = g.(Unmover).Parents(t, p, pt, dst)
	s := g.(Symmetric)
	for i := n; i < len(dst); i++ {
		dst[i] = s.Canonical(pt, dst[i])
	}
	slices.Sort(dst[n:])
	return append(dst[:n], slices.Compact(dst[n:])...)
}
