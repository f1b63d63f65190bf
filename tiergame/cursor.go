package tiergame

// Cursor generates the moves of the positions of one tier, for one
// goroutine at a time. The solver visits each tier's positions in ascending
// order, and consecutive ones usually differ only in a few cells: a game's
// cursor can keep what it decoded of one position and decode the next by
// updating it, instead of starting from the hash each time.
type Cursor interface {
	// Moves returns what Game.Moves returns for position p of the
	// cursor's tier, for any p; it is fastest when p increases by little
	// from one call to the next.
	Moves(p Position, dst []Child) (Value, []Child)
}

// CursorGame is implemented by games whose cursors generate moves faster
// than calling Game.Moves position by position.
type CursorGame interface {
	// Cursor returns a new cursor over tier t, which must be a tier of the
	// game.
	Cursor(t Tier) Cursor
}

// NewCursor returns g's own cursor over tier t if g is a CursorGame, and
// otherwise a cursor that calls g.Moves.
func NewCursor(g Game, t Tier) Cursor {
	if cg, ok := g.(CursorGame); ok {
		return cg.Cursor(t)
	}
	return movesCursor{g, t}
}

// movesCursor is the cursor of a game without its own.
type movesCursor struct {
	g Game
	t Tier
}

func (c movesCursor) Moves(p Position, dst []Child) (Value, []Child) { return c.g.Moves(c.t, p, dst) }

// ByTierCursor is a Cursor that can also list a position's children
// grouped by tier, which spares the solver a tier test per child and the
// []Child round trip on the hot paths of reachability and loopy solving.
type ByTierCursor interface {
	Cursor
	// MovesByTier is Moves with the children grouped by tier: it appends
	// each child (u, q) of p to dst[i], where u is ChildTiers(t)[i] of the
	// cursor's tier t (the first such i, should a tier repeat), and
	// returns the value Moves returns. dst has len(ChildTiers(t)) lists;
	// a nil list is not wanted, and the cursor may skip computing its
	// children. A list's order need not be that of Moves.
	MovesByTier(p Position, dst [][]Position) Value
}

// CountingCursor is a ByTierCursor that can count a position's children
// in one tier without listing them. The first pass over a loopy tier needs
// only how many distinct moves of a position stay in its tier (its child
// counter), and for a game whose children's hashes cost more than telling
// a move legal, counting is much cheaper than listing.
type CountingCursor interface {
	ByTierCursor
	// CountInTier returns the number of distinct children of p in tier
	// ChildTiers(t)[i] of the cursor's tier t: what deduplicating the
	// list MovesByTier gives would count. p is not primitive.
	CountInTier(p Position, i int) int
}
