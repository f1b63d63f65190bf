package solver

import (
	"fmt"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// tierMoves lists the children of positions of one tier grouped by child
// tier, in the order of the game's ChildTiers: from the game's own
// tiergame.ByTierCursor, or else by sorting the children of Moves. One
// goroutine uses it at a time.
type tierMoves struct {
	g      tiergame.Game
	t      tiergame.Tier
	tiers  []tiergame.Tier // ChildTiers(t)
	self   int             // the index of t in tiers, or -1
	cur    tiergame.Cursor
	native tiergame.ByTierCursor   // cur, if it lists by tier itself
	counts tiergame.CountingCursor // cur, if it counts by tier
	moves  []tiergame.Child
	lists  [][]tiergame.Position
	// others is lists with t's list nil (not wanted), own is t's list
	// alone, and inside holds t's children for within.
	others, own [][]tiergame.Position
	inside      []tiergame.Position
	last        int // index of the tier of the last child sorted
}

func newTierMoves(g tiergame.Game, t tiergame.Tier) *tierMoves {
	m := newApart[tierMoves]() // written for every position, as are the lists' headers
	*m = tierMoves{g: g, t: t, tiers: g.ChildTiers(t), cur: tiergame.NewCursor(g, t)}
	m.native, _ = m.cur.(tiergame.ByTierCursor)
	m.counts, _ = m.cur.(tiergame.CountingCursor)
	m.self = slices.Index(m.tiers, t)
	m.lists = makeApart[[]tiergame.Position](len(m.tiers))
	m.others = makeApart[[]tiergame.Position](len(m.tiers))
	m.own = makeApart[[]tiergame.Position](len(m.tiers))
	for i := range m.lists {
		// Non-nil: a nil list is one the caller does not want.
		m.lists[i] = make([]tiergame.Position, 0, 64)
		if i != m.self {
			m.others[i] = make([]tiergame.Position, 0, 64)
		}
	}
	m.inside = make([]tiergame.Position, 0, 64)
	return m
}

// of returns p's value (Undecided unless p is primitive) and its children:
// lists[i] holds those in tier tiers[i]. The lists are reused by the next
// call. A child in a tier that ChildTiers does not list is an error.
func (m *tierMoves) of(p uint64) (tiergame.Value, [][]tiergame.Position, error) {
	return m.list(p, m.lists)
}

// elsewhere is of without the children in the tier itself (their list is
// nil), which within then gives: a loopy tier's first pass needs those
// only for the positions that can still lose.
func (m *tierMoves) elsewhere(p uint64) (tiergame.Value, [][]tiergame.Position, error) {
	m.inside = m.inside[:0]
	return m.list(p, m.others)
}

// within returns the children in the tier itself of p, the position of the
// last call of elsewhere, which must not have been primitive.
func (m *tierMoves) within(p uint64) []tiergame.Position {
	if m.native == nil || m.self < 0 {
		return m.inside // sorted out of Moves by elsewhere already
	}
	m.own[m.self] = m.inside[:0]
	m.native.MovesByTier(tiergame.Position(p), m.own)
	m.inside = m.own[m.self]
	return m.inside
}

// countWithin returns the number of distinct children in the tier itself
// of p, the position of the last call of elsewhere, which must not have
// been primitive; seen is within's deduplication table.
func (m *tierMoves) countWithin(p uint64, seen *dedupTable) int {
	if m.counts != nil && m.self >= 0 {
		return m.counts.CountInTier(tiergame.Position(p), m.self)
	}
	return len(dedup(m.within(p), seen))
}

// list fills lists, whose nil entries are not wanted.
func (m *tierMoves) list(p uint64, lists [][]tiergame.Position) (tiergame.Value, [][]tiergame.Position, error) {
	for i := range lists {
		if lists[i] != nil {
			lists[i] = lists[i][:0]
		}
	}
	if m.native != nil {
		return m.native.MovesByTier(tiergame.Position(p), lists), lists, nil
	}
	var v tiergame.Value
	v, m.moves = m.cur.Moves(tiergame.Position(p), m.moves[:0])
	for _, c := range m.moves {
		if m.last >= len(m.tiers) || m.tiers[m.last] != c.Tier {
			if m.last = slices.Index(m.tiers, c.Tier); m.last < 0 {
				m.last = 0
				return v, nil, fmt.Errorf("%s: a move from tier %d position %d reaches tier %d, which ChildTiers(%d) does not list",
					m.g.Name(), m.t, p, c.Tier, m.t)
			}
		}
		switch {
		case lists[m.last] != nil:
			lists[m.last] = append(lists[m.last], c.Pos)
		case m.last == m.self:
			m.inside = append(m.inside, c.Pos) // for within
		}
	}
	return v, lists, nil
}

// count returns the number of children in lists.
func count(lists [][]tiergame.Position) int {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	return n
}
