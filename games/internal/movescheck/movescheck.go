// Package movescheck checks a game's Moves and cursor against a reference
// move generator: the Moves a game had before its cursor, kept in a test
// file as the model of the new code and the baseline of its benchmarks.
package movescheck

import (
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Game is a game with its own cursors.
type Game interface {
	tiergame.Game
	tiergame.CursorGame
}

// Moves generates moves as tiergame.Game.Moves does.
type Moves func(tiergame.Tier, tiergame.Position, []tiergame.Child) (tiergame.Value, []tiergame.Child)

// Against checks that g's Moves and one cursor of tier visiting ps in turn
// give what ref gives at each, children in its order, and that the
// cursor's MovesByTier gives the same children grouped by tier. It stops
// the test at the first difference, naming the game's option and the
// position.
func Against(t testing.TB, g Game, tier tiergame.Tier, ps []tiergame.Position, ref Moves) {
	t.Helper()
	cur, ok := g.Cursor(tier).(tiergame.ByTierCursor)
	if !ok {
		t.Fatalf("%s: the cursor of tier %d has no MovesByTier", g.Option(), tier)
	}
	tiers := g.ChildTiers(tier)
	lists := make([][]tiergame.Position, len(tiers))
	for i := range lists {
		lists[i] = make([]tiergame.Position, 0, 64) // nil is not wanted
	}
	var got, one, want []tiergame.Child
	for _, p := range ps {
		var gv, ov, wv tiergame.Value
		gv, got = cur.Moves(p, got[:0])
		ov, one = g.Moves(tier, p, one[:0])
		wv, want = ref(tier, p, want[:0])
		if gv != wv || ov != wv || !slices.Equal(got, want) || !slices.Equal(one, want) {
			t.Fatalf("%s %s: cursor %v %v, Moves %v %v, reference %v %v", g.Option(), g.Format(tier, p), gv, got, ov, one, wv, want)
		}
		for i := range lists {
			lists[i] = lists[i][:0]
		}
		bv := cur.MovesByTier(p, lists)
		byTier := make([][]tiergame.Position, len(tiers))
		for _, c := range want {
			i := slices.Index(tiers, c.Tier)
			byTier[i] = append(byTier[i], c.Pos)
		}
		for i := range lists {
			if bv != wv || !slices.Equal(slices.Sorted(slices.Values(lists[i])), slices.Sorted(slices.Values(byTier[i]))) {
				t.Fatalf("%s %s: MovesByTier %v %v for tier %d, reference %v %v", g.Option(), g.Format(tier, p), bv, lists[i], tiers[i], wv, byTier[i])
			}
		}
	}
}
