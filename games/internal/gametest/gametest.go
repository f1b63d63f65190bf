// Package gametest holds checks shared by the tests of the bundled games.
package gametest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Visit is called by Reach for every reachable position with its primitive
// value and children.
type Visit func(t tiergame.Tier, p tiergame.Position, v tiergame.Value, children []tiergame.Child)

// Reach explores the positions reachable from g's start, breadth first,
// without entering tiers for which keep returns false, and returns the
// number of positions reached per tier. It fails t when a move leaves the
// declared child tiers or the tier's hash range. visit may be nil.
func Reach(t testing.TB, g tiergame.Game, keep func(tiergame.Tier) bool, visit Visit) map[tiergame.Tier]uint64 {
	t.Helper()
	seen := map[tiergame.Tier][]uint64{} // one bit per hash
	counts := map[tiergame.Tier]uint64{}
	childTiers := map[tiergame.Tier][]tiergame.Tier{}
	mark := func(c tiergame.Child) bool {
		bits, ok := seen[c.Tier]
		if !ok {
			bits = make([]uint64, (g.TierSize(c.Tier)+63)/64)
			seen[c.Tier] = bits
		}
		w, b := c.Pos/64, c.Pos%64
		if bits[w]>>b&1 != 0 {
			return false
		}
		bits[w] |= 1 << b
		counts[c.Tier]++
		return true
	}
	st, sp := g.Start()
	if sp >= tiergame.Position(g.TierSize(st)) {
		t.Fatalf("start %d outside tier %d of size %d", sp, st, g.TierSize(st))
	}
	queue := []tiergame.Child{{Tier: st, Pos: sp}}
	mark(queue[0])
	var children []tiergame.Child
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		var v tiergame.Value
		v, children = g.Moves(c.Tier, c.Pos, children[:0])
		if v != tiergame.Undecided && len(children) > 0 {
			t.Fatalf("%s: primitive %v with %d moves", g.Format(c.Tier, c.Pos), v, len(children))
		}
		if v == tiergame.Undecided && len(children) == 0 {
			t.Fatalf("%s: no moves and not primitive", g.Format(c.Tier, c.Pos))
		}
		if visit != nil {
			visit(c.Tier, c.Pos, v, children)
		}
		ct, ok := childTiers[c.Tier]
		if !ok {
			ct = g.ChildTiers(c.Tier)
			childTiers[c.Tier] = ct
		}
		for _, ch := range children {
			if !slices.Contains(ct, ch.Tier) {
				t.Fatalf("%s: move to tier %d, not among child tiers %v", g.Format(c.Tier, c.Pos), ch.Tier, ct)
			}
			if uint64(ch.Pos) >= g.TierSize(ch.Tier) {
				t.Fatalf("%s: child %d outside tier %d of size %d", g.Format(c.Tier, c.Pos), ch.Pos, ch.Tier, g.TierSize(ch.Tier))
			}
			if keep(ch.Tier) && mark(ch) {
				queue = append(queue, ch)
			}
		}
	}
	return counts
}

// CheckPosition checks that p's text form parses back to (tier, p) and that
// MoveNames names every move.
func CheckPosition(t testing.TB, g tiergame.Game, tier tiergame.Tier, p tiergame.Position) {
	t.Helper()
	s := g.Format(tier, p)
	pt, pp, err := g.Parse(s)
	if err != nil {
		t.Fatalf("Parse(Format(%d, %d)) = Parse(%q): %v", tier, p, s, err)
	}
	if pt != tier || pp != p {
		t.Fatalf("Parse(%q) = (%d, %d), want (%d, %d)", s, pt, pp, tier, p)
	}
	_, children := g.Moves(tier, p, nil)
	if mn, ok := g.(tiergame.MoveNamer); ok {
		names := mn.MoveNames(tier, p)
		if len(names) != len(children) {
			t.Fatalf("%s: %d move names %q for %d moves", s, len(names), names, len(children))
		}
	}
}

// Walk returns count positions of a tier of size hashes for a cursor to
// visit: mostly ascending by 1 to 4, as the solver visits a tier's
// reachable positions, with jumps of every length and steps back to
// anywhere (each one move in eight).
func Walk(rng *rand.Rand, size uint64, count int) []tiergame.Position {
	ps := make([]tiergame.Position, count)
	p := rng.Uint64N(size)
	for i := range ps {
		ps[i] = tiergame.Position(p)
		switch rng.IntN(8) {
		case 0:
			p = rng.Uint64N(size)
		case 1:
			p += rng.Uint64N(1 << rng.IntN(40))
		default:
			p += 1 + rng.Uint64N(4)
		}
		if p >= size {
			p = rng.Uint64N(size)
		}
	}
	return ps
}

// CheckByTier checks that cur's MovesByTier at position p of tier gives
// value v and the children cs grouped by g's ChildTiers, appending to the
// lists it is given, and that it fills only the lists that are not nil.
func CheckByTier(t testing.TB, g tiergame.Game, tier tiergame.Tier, p tiergame.Position, cur tiergame.ByTierCursor, v tiergame.Value, cs []tiergame.Child) {
	t.Helper()
	kidTiers := g.ChildTiers(tier)
	const mark = tiergame.Position(1<<64 - 1) // stays first in each list
	lists := make([][]tiergame.Position, len(kidTiers))
	want := make([][]tiergame.Position, len(kidTiers))
	for i := range lists {
		lists[i] = []tiergame.Position{mark}
		want[i] = []tiergame.Position{mark}
	}
	got := cur.MovesByTier(p, lists)
	for _, c := range cs {
		i := slices.Index(kidTiers, c.Tier)
		if i < 0 {
			t.Fatalf("%s %s: child in tier %d, which ChildTiers does not list", g.Option(), g.Format(tier, p), c.Tier)
		}
		want[i] = append(want[i], c.Pos)
	}
	for i := range lists {
		slices.Sort(lists[i][1:])
		slices.Sort(want[i][1:])
	}
	if got != v || !slices.EqualFunc(lists, want, slices.Equal) {
		t.Fatalf("%s %s: MovesByTier gives %v %v, reference %v %v", g.Option(), g.Format(tier, p), got, lists, v, want)
	}
	// Asked for one tier's list alone (the others nil).
	for i := range kidTiers {
		alone := make([][]tiergame.Position, len(kidTiers))
		alone[i] = []tiergame.Position{mark}
		cur.MovesByTier(p, alone)
		slices.Sort(alone[i][1:])
		for j := range alone {
			if j != i && alone[j] != nil || j == i && !slices.Equal(alone[i], want[i]) {
				t.Fatalf("%s %s: MovesByTier for list %d alone gives %v, want %v", g.Option(), g.Format(tier, p), i, alone, want[i])
			}
		}
	}
}

// MovesFunc has the signature of tiergame.Game.Moves.
type MovesFunc func(tiergame.Tier, tiergame.Position, []tiergame.Child) (tiergame.Value, []tiergame.Child)

// CheckCursor checks that one cursor of g over tier, visiting ps in order,
// and g.Moves return what ref returns for each position; and, if the
// cursor is a tiergame.ByTierCursor, that another one's MovesByTier appends
// the same children by tier.
func CheckCursor(t testing.TB, g tiergame.Game, tier tiergame.Tier, ps []tiergame.Position, ref MovesFunc) {
	t.Helper()
	cg, ok := g.(tiergame.CursorGame)
	if !ok {
		t.Fatalf("%s has no cursor", g.Name())
	}
	cur := cg.Cursor(tier)
	byTier, _ := cg.Cursor(tier).(tiergame.ByTierCursor)
	var got, one, want []tiergame.Child
	for _, p := range ps {
		if byTier != nil {
			wv, ws := ref(tier, p, nil)
			CheckByTier(t, g, tier, p, byTier, wv, ws)
		}
		var gv, ov, wv tiergame.Value
		gv, got = cur.Moves(p, got[:0])
		ov, one = g.Moves(tier, p, one[:0])
		wv, want = ref(tier, p, want[:0])
		if gv != wv || !slices.Equal(got, want) {
			t.Fatalf("%s %s: cursor gives %v %v, reference %v %v", g.Option(), g.Format(tier, p), gv, got, wv, want)
		}
		if ov != wv || !slices.Equal(one, want) {
			t.Fatalf("%s %s: Moves gives %v %v, reference %v %v", g.Option(), g.Format(tier, p), ov, one, wv, want)
		}
	}
}
