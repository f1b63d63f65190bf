package tiergametest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// checkCursors checks the game's cursors over positions ps of tier t
// (ascending) against Moves: a cursor visiting them in ascending order,
// as the solver does, and another in random order. One cursor serves
// Moves and MovesByTier, as in the solver. The canonical cursor of a
// symmetric game is checked the same way against Moves canonicalized.
func (c *checker) checkCursors(t tiergame.Tier, ps []tiergame.Position, rng *rand.Rand) {
	if c.cursors == nil {
		return
	}
	// Up to maxShuffled of them in random order.
	shuffled := slices.Clone(ps)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	shuffled = shuffled[:min(len(shuffled), maxShuffled)]
	for k, order := range [][]tiergame.Position{ps, shuffled} {
		var cur tiergame.Cursor
		if !c.guard(t, order[0], "Cursor", func() { cur = c.cursors.Cursor(t) }) {
			return
		}
		ascending := k == 0
		c.walkCursor(t, order, cur, false, ascending)
		if c.sym == nil {
			continue
		}
		if _, ok := cur.(tiergame.CanonicalCursor); ok {
			c.walkCursor(t, order, tiergame.NewCanonicalCursor(c.g, t), true, ascending)
		}
	}
}

// maxShuffled is the most positions of a chunk a cursor visits in random
// order.
const maxShuffled = 128

// walkCursor compares cur with Moves (canonicalized if canonical) at
// each of ps in turn, and stops at the first difference. It asks
// MovesByTier for each list alone too if each.
func (c *checker) walkCursor(t tiergame.Tier, ps []tiergame.Position, cur tiergame.Cursor, canonical, each bool) {
	rule, what := ruleCursor, "cursor"
	if canonical {
		rule, what = ruleCanonCursor, "canonical cursor"
	}
	byTier, _ := cur.(tiergame.ByTierCursor)
	var want []tiergame.Child
	for _, p := range ps {
		var wv tiergame.Value
		if !c.guard(t, p, "Moves", func() { wv, want = c.g.Moves(t, p, want[:0]) }) {
			return
		}
		if canonical {
			want = c.canonicalized(t, want)
		}
		ok := true
		c.guard(t, p, what+" Moves", func() {
			gv, got := cur.Moves(p, childPrefix(len(want)))
			switch {
			case !keptChildren(got):
				c.failAt(ruleAppends, t, p, "the %s's Moves with a non-empty dst does not keep its contents", what)
				ok = false
			case gv != wv || !sameChildren(got[sentinels:], want):
				c.failAt(rule, t, p, "the %s's Moves gives %v %s, Moves%s %v %s", what, gv, c.children(got[sentinels:]),
					map[bool]string{true: " canonicalized", false: ""}[canonical], wv, c.children(want))
				ok = false
			}
		})
		if !ok {
			return
		}
		if byTier == nil {
			continue
		}
		byRule := ruleByTier
		if canonical {
			byRule = ruleCanonCursor
		}
		if !c.guard(t, p, what+" MovesByTier", func() { ok = c.checkByTier(t, p, byTier, wv, want, byRule, what, each) }) || !ok {
			return
		}
	}
}

// checkByTier checks cur's MovesByTier at p against the value v and the
// children want of Moves: each child appended to the list of its tier's
// first index in ChildTiers, after what the list held; nil lists left
// nil; and, if each, each list alone (the others nil) the same.
func (c *checker) checkByTier(t tiergame.Tier, p tiergame.Position, cur tiergame.ByTierCursor, v tiergame.Value, want []tiergame.Child, rule, what string, each bool) bool {
	tiers := c.graph.info[t].children
	wantLists := make([][]tiergame.Position, len(tiers))
	for _, ch := range want {
		if i := slices.Index(tiers, ch.Tier); i >= 0 {
			wantLists[i] = append(wantLists[i], ch.Pos)
		}
	}
	for _, l := range wantLists {
		slices.Sort(l)
	}
	// check compares lists with wantLists where wanted, and reports.
	check := func(lists [][]tiergame.Position, gv tiergame.Value, alone int) bool {
		which := "every list"
		if alone >= 0 {
			which = fmt.Sprintf("list %d (tier %d) alone", alone, tiers[alone])
		}
		for i, l := range lists {
			switch {
			case alone >= 0 && i != alone && l != nil:
				c.failAt(rule, t, p, "the %s's MovesByTier asked for %s fills list %d (tier %d), which is nil: %s",
					what, which, i, tiers[i], c.positions(tiers[i], l))
				return false
			case alone >= 0 && i != alone:
				continue
			case !keptPositions(l):
				c.failAt(ruleAppends, t, p, "the %s's MovesByTier does not keep the contents of list %d (tier %d)", what, i, tiers[i])
				return false
			}
			got := slices.Clone(l[sentinels:])
			slices.Sort(got)
			if gv != v || !slices.Equal(got, wantLists[i]) {
				c.failAt(rule, t, p, "the %s's MovesByTier asked for %s gives %v and %s for tier %d, Moves %v and %s",
					what, which, gv, c.positions(tiers[i], got), tiers[i], v, c.positions(tiers[i], wantLists[i]))
				return false
			}
		}
		return true
	}
	lists := make([][]tiergame.Position, len(tiers))
	for i := range lists {
		lists[i] = posPrefix(len(wantLists[i]))
	}
	if !check(lists, cur.MovesByTier(p, lists), -1) {
		return false
	}
	if cc, ok := cur.(tiergame.CountingCursor); ok && v == tiergame.Undecided {
		for i := range tiers {
			if n, want := cc.CountInTier(p, i), len(slices.Compact(slices.Clone(wantLists[i]))); n != want {
				c.failAt(rule, t, p, "the %s's CountInTier gives %d children in tier %d, Moves %d distinct ones", what, n, tiers[i], want)
				return false
			}
		}
	}
	if !each || len(tiers) < 2 {
		return true
	}
	for i := range tiers {
		alone := make([][]tiergame.Position, len(tiers))
		alone[i] = posPrefix(len(wantLists[i]))
		if !check(alone, cur.MovesByTier(p, alone), i) {
			return false
		}
	}
	return true
}
