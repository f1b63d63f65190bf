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
	cur    tiergame.Cursor
	native tiergame.ByTierCursor // cur, if it lists by tier itself
	moves  []tiergame.Child
	lists  [][]tiergame.Position
	last   int // index of the tier of the last child sorted
}

func newTierMoves(g tiergame.Game, t tiergame.Tier) *tierMoves {
	m := &tierMoves{g: g, t: t, tiers: g.ChildTiers(t), cur: tiergame.NewCursor(g, t)}
	m.native, _ = m.cur.(tiergame.ByTierCursor)
	m.lists = make([][]tiergame.Position, len(m.tiers))
	return m
}

// of returns p's value (Undecided unless p is primitive) and its children:
// lists[i] holds those in tier tiers[i]. The lists are reused by the next
// call. A child in a tier that ChildTiers does not list is an error.
func (m *tierMoves) of(p uint64) (v tiergame.Value, lists [][]tiergame.Position, err error) {
	for i := range m.lists {
		m.lists[i] = m.lists[i][:0]
	}
	if m.native != nil {
		return m.native.MovesByTier(tiergame.Position(p), m.lists), m.lists, nil
	}
	v, m.moves = m.cur.Moves(tiergame.Position(p), m.moves[:0])
	for _, c := range m.moves {
		if m.last >= len(m.tiers) || m.tiers[m.last] != c.Tier {
			if m.last = slices.Index(m.tiers, c.Tier); m.last < 0 {
				m.last = 0
				return v, nil, fmt.Errorf("%s: a move from tier %d position %d reaches tier %d, which ChildTiers(%d) does not list",
					m.g.Name(), m.t, p, c.Tier, m.t)
			}
		}
		m.lists[m.last] = append(m.lists[m.last], c.Pos)
	}
	return v, m.lists, nil
}

// count returns the number of children in lists.
func count(lists [][]tiergame.Position) int {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	return n
}
