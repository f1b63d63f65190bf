package solver

import (
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestEachChildrenFirstRelease: a tier's children that no later tier
// needs are dropped when it calls release, once however often it calls
// it, and those another parent still needs are kept until that parent's
// turn; a tier that does not call release drops them after its turn.
func TestEachChildrenFirstRelease(t *testing.T) {
	// 3 → 2, 1; 2 → 1; 4 → 3, 0; solved 0, 1, 2, 3, 4.
	gr := &tiergraph.Graph{
		Tiers:    []tiergame.Tier{4, 3, 2, 1, 0},
		Children: map[tiergame.Tier][]tiergame.Tier{4: {3, 0}, 3: {2, 1}, 2: {1}},
		Parents:  map[tiergame.Tier][]tiergame.Tier{3: {4}, 2: {3}, 1: {3, 2}, 0: {4}},
	}
	r := &Run{Config: Config{Game: &diceRace{max: 2, sides: 1}}, Graph: gr}
	cache := map[tiergame.Tier]tiergame.Tier{}
	var dropped []tiergame.Tier
	drop := func(c tiergame.Tier) { dropped = append(dropped, c) }
	// What f sees dropped before and after calling release, by tier.
	type seen struct{ before, after []tiergame.Tier }
	got := map[tiergame.Tier]seen{}
	err := eachChildrenFirst(r, "test", cache, drop, func(_ int, tt tiergame.Tier, release func()) error {
		cache[tt] = tt
		s := seen{before: slices.Clone(dropped)}
		if tt != 4 { // 4 leaves it to the walk
			release()
			release()
		}
		s.after = slices.Clone(dropped)
		got[tt] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[tiergame.Tier]seen{
		0: {nil, nil},
		1: {nil, nil},
		2: {nil, nil}, // 1 is still 3's
		3: {nil, []tiergame.Tier{2, 1}},
		4: {[]tiergame.Tier{2, 1}, []tiergame.Tier{2, 1}},
	}
	for tt, w := range want {
		if g := got[tt]; !slices.Equal(g.before, w.before) || !slices.Equal(g.after, w.after) {
			t.Errorf("tier %d: dropped %v before release and %v after, want %v and %v", tt, g.before, g.after, w.before, w.after)
		}
	}
	if wantAll := []tiergame.Tier{2, 1, 3, 0}; !slices.Equal(dropped, wantAll) {
		t.Errorf("dropped %v, want %v", dropped, wantAll)
	}
	if len(cache) != 1 || cache[4] != 4 {
		t.Errorf("cache left %v, want the top tier only", cache)
	}
}
