// Package bytier lists the children of a tier's positions grouped by
// child tier, the way reachability and the loopy solver walk them.
package bytier

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Moves lists the children of positions of one tier grouped by child
// tier, in the order of the game's ChildTiers: from the game's own
// tiergame.ByTierCursor, or else by sorting the children of Moves. One
// goroutine uses it at a time.
type Moves struct {
	g      tiergame.Game
	t      tiergame.Tier
	Tiers  []tiergame.Tier // ChildTiers(t)
	Self   int             // the index of t in Tiers, or -1
	cur    tiergame.Cursor
	native tiergame.ByTierCursor   // cur, if it lists by tier itself
	counts tiergame.CountingCursor // cur, if it counts by tier
	moves  []tiergame.Child
	lists  [][]tiergame.Position
	// others is lists with t's list nil (not wanted), own is t's list
	// alone, and inside holds t's children for within.
	others, own [][]tiergame.Position
	inside      []tiergame.Position
	nothing     [][]tiergame.Position // a nil list for every tier (Value)
	last        int                   // index of the tier of the last child sorted
}

func New(g tiergame.Game, t tiergame.Tier) *Moves {
	m := work.NewApart[Moves]() // written for every position, as are the lists' headers
	*m = Moves{g: g, t: t, Tiers: g.ChildTiers(t), cur: tiergame.NewCursor(g, t)}
	m.native, _ = m.cur.(tiergame.ByTierCursor)
	m.counts, _ = m.cur.(tiergame.CountingCursor)
	m.Self = slices.Index(m.Tiers, t)
	m.lists = work.MakeApart[[]tiergame.Position](len(m.Tiers))
	m.others = work.MakeApart[[]tiergame.Position](len(m.Tiers))
	m.own = work.MakeApart[[]tiergame.Position](len(m.Tiers))
	for i := range m.lists {
		// Non-nil: a nil list is one the caller does not want.
		m.lists[i] = make([]tiergame.Position, 0, 64)
		if i != m.Self {
			m.others[i] = make([]tiergame.Position, 0, 64)
		}
	}
	m.inside = make([]tiergame.Position, 0, 64)
	return m
}

// Of returns p's value (Undecided unless p is primitive) and its children:
// lists[i] holds those in tier Tiers[i]. The lists are reused by the next
// call. A child in a tier that ChildTiers does not list is an error.
func (m *Moves) Of(p uint64) (tiergame.Value, [][]tiergame.Position, error) {
	return m.list(p, m.lists)
}

// Elsewhere is Of without the children in the tier itself (their list is
// nil), which Within then gives: a loopy tier's first pass needs those
// only for the positions that can still lose.
func (m *Moves) Elsewhere(p uint64) (tiergame.Value, [][]tiergame.Position, error) {
	m.inside = m.inside[:0]
	return m.list(p, m.others)
}

// Value returns p's value (Undecided unless p is primitive) without
// listing its children: a cursor that lists them by tier only tells
// whether p has a legal move. Within and CountWithin may follow, as after
// Elsewhere: a loopy part's first pass, whose children in other tiers
// come in notes, needs no more.
func (m *Moves) Value(p uint64) (tiergame.Value, error) {
	m.inside = m.inside[:0]
	v, _, err := m.list(p, m.none())
	return v, err
}

// none is lists for every child tier, none wanted.
func (m *Moves) none() [][]tiergame.Position {
	if m.nothing == nil {
		m.nothing = make([][]tiergame.Position, len(m.Tiers))
	}
	return m.nothing
}

// Within returns the children in the tier itself of p, the position of the
// last call of Elsewhere or Value, which must not have been primitive.
func (m *Moves) Within(p uint64) []tiergame.Position {
	if m.native == nil || m.Self < 0 {
		return m.inside // sorted out of Moves by elsewhere already
	}
	m.own[m.Self] = m.inside[:0]
	m.native.MovesByTier(tiergame.Position(p), m.own)
	m.inside = m.own[m.Self]
	return m.inside
}

// CountWithin returns the number of distinct children in the tier itself
// of p, the position of the last call of Elsewhere or Value, which must
// not have been primitive; seen is Within's deduplication table.
func (m *Moves) CountWithin(p uint64, seen *DedupTable) int {
	if m.counts != nil && m.Self >= 0 {
		return m.counts.CountInTier(tiergame.Position(p), m.Self)
	}
	return len(Dedup(m.Within(p), seen))
}

// list fills lists, whose nil entries are not wanted.
func (m *Moves) list(p uint64, lists [][]tiergame.Position) (tiergame.Value, [][]tiergame.Position, error) {
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
		if m.last >= len(m.Tiers) || m.Tiers[m.last] != c.Tier {
			if m.last = slices.Index(m.Tiers, c.Tier); m.last < 0 {
				m.last = 0
				return v, nil, fmt.Errorf("%s: a move from tier %d position %d reaches tier %d, which ChildTiers(%d) does not list",
					m.g.Name(), m.t, p, c.Tier, m.t)
			}
		}
		switch {
		case lists[m.last] != nil:
			lists[m.last] = append(lists[m.last], c.Pos)
		case m.last == m.Self:
			m.inside = append(m.inside, c.Pos) // for within
		}
	}
	return v, lists, nil
}

// Count returns the number of children in lists.
func Count(lists [][]tiergame.Position) int {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	return n
}

// DedupTable is an open-addressing set for Dedup, cleared after each use.
type DedupTable struct {
	slot [256]uint64 // position+1; 0 = empty
	used [256]uint8
}

// Dedup removes repeated values from xs in place, keeping the first of
// each; small lists (the moves of one position) are the common case.
func Dedup[P ~uint64](xs []P, t *DedupTable) []P {
	if len(xs) < 2 {
		return xs
	}
	if len(xs) <= 64 {
		// Usually the values differ in their low 6 bits already.
		var seen uint64
		for _, x := range xs {
			seen |= 1 << (x & 63)
		}
		if bits.OnesCount64(seen) == len(xs) {
			return xs
		}
	}
	if len(xs) > 128 {
		slices.Sort(xs)
		return slices.Compact(xs)
	}
	out := xs[:0]
	n := 0
	for _, x := range xs {
		h := uint8((x * 0x9E3779B97F4A7C15) >> 56)
		for {
			if t.slot[h] == 0 {
				t.slot[h] = uint64(x) + 1
				t.used[n] = h
				n++
				out = append(out, x)
				break
			}
			if t.slot[h] == uint64(x)+1 {
				break
			}
			h++
		}
	}
	for _, h := range t.used[:n] {
		t.slot[h] = 0
	}
	return out
}
