package reach_test

import (
	"context"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestCloseByRanges: every loopy tier of Quixo 3x3 and xiangqi K+R v K+A,
// reached from the start, closed by ranges in rounds (CloseRound, 1 to 5
// ranges, with notes between them) is CloseTier's closing: the same set
// and the same children's sets.
func TestCloseByRanges(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ game, option string }{{"quixo", "size=3"}, {"xiangqi", "material=KRvKA"}} {
		g, err := games.New(tc.game, tc.option)
		if err != nil {
			t.Fatal(err)
		}
		gr, err := tiergraph.New(g)
		if err != nil {
			t.Fatal(err)
		}
		// The tiers' sets before closure, from their parents, as the
		// reachability builds them.
		seeds := map[tiergame.Tier]*bitarray.Set{}
		seed := func(tt tiergame.Tier) *bitarray.Set {
			if seeds[tt] == nil {
				seeds[tt] = bitarray.New(0, g.TierSize(tt))
			}
			return seeds[tt]
		}
		st, sp := g.Start()
		seed(st).Add(uint64(sp))
		closed := 0
		for _, tt := range gr.Tiers {
			set := seed(tt)
			children := gr.Children[tt]
			var shares [][]reach.Target
			if gr.Loopy[tt] {
				before := set.Clone()
				shares, err = reach.CloseTier(ctx, g, tt, set, children, work.Effort{Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range []int{1, 2, 5} {
					byRanges, kids := closeByRanges(t, g, tt, before, children, n)
					if !byRanges.Equal(set) {
						t.Fatalf("%s tier %d in %d ranges: %d positions, CloseTier %d", tc.game, tt, n, byRanges.Count(), set.Count())
					}
					want := unionOf(g, children, shares)
					for i, c := range children {
						if !kids[i].Equal(want[i]) {
							t.Fatalf("%s tier %d in %d ranges: child tier %d has %d positions, CloseTier's %d", tc.game, tt, n, c, kids[i].Count(), want[i].Count())
						}
					}
				}
				closed++
			} else if len(children) > 0 {
				targets := reach.ChildTargets(g, children)
				if _, err := reach.ExpandRange(ctx, g, tt, set, rangeAll(set), targets, nil); err != nil {
					t.Fatal(err)
				}
				shares = [][]reach.Target{targets}
			}
			for _, ts := range shares {
				for _, tg := range ts {
					if err := seed(tg.Tier).Or(tg.Set); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if closed < 2 {
			t.Fatalf("%s: %d loopy tiers closed", tc.game, closed)
		}
	}
}

// closeByRanges closes tier tt from seed in n ranges, round by round, as
// a cluster's units do, and returns the closed set and the union of the
// children's sets.
func closeByRanges(t *testing.T, g tiergame.Game, tt tiergame.Tier, seed *bitarray.Set, children []tiergame.Tier, n int) (*bitarray.Set, []*bitarray.Set) {
	ctx := context.Background()
	rs := plan.CloseRanges(g.TierSize(tt), n)
	own := make([]*bitarray.Set, len(rs))
	frontier := make([]*bitarray.Set, len(rs))
	for i, r := range rs {
		var err error
		if own[i], err = reach.RangeOf(seed, r); err != nil {
			t.Fatal(err)
		}
		frontier[i] = own[i].Clone()
	}
	kids := unionOf(g, children, nil)
	for round := 0; ; round++ {
		incoming := bitarray.New(0, g.TierSize(tt))
		sent := false
		for i := range rs {
			notes, shares, err := reach.CloseRound(ctx, g, tt, own[i], frontier[i], children, work.Effort{Workers: 1 + i%2})
			if err != nil {
				t.Fatal(err)
			}
			if notes.Count() > 0 {
				sent = true
			}
			if err := incoming.Or(notes); err != nil {
				t.Fatal(err)
			}
			for j, k := range unionOf(g, children, shares) {
				if err := kids[j].Or(k); err != nil {
					t.Fatal(err)
				}
			}
		}
		if !sent {
			break
		}
		if round > 1000 {
			t.Fatal("no end to the rounds")
		}
		for i, r := range rs {
			in, err := reach.RangeOf(incoming, r)
			if err != nil {
				t.Fatal(err)
			}
			fw, ow, iw := frontier[i].Words(), own[i].Words(), in.Words()
			for w := range iw {
				fw[w] = iw[w] &^ ow[w]
				ow[w] |= fw[w]
			}
		}
	}
	all := bitarray.New(0, g.TierSize(tt))
	for i, r := range rs {
		for p := range own[i].Range(r.Lo, r.Hi) {
			all.Add(p)
		}
	}
	return all, kids
}

// unionOf is the union, per child tier, of the workers' targets.
func unionOf(g tiergame.Game, children []tiergame.Tier, shares [][]reach.Target) []*bitarray.Set {
	out := make([]*bitarray.Set, len(children))
	for i, c := range children {
		out[i] = bitarray.New(0, g.TierSize(c))
		for _, ts := range shares {
			for _, tg := range ts {
				if tg.Tier == c {
					out[i].Or(tg.Set)
				}
			}
		}
	}
	return out
}

// rangeAll is the range of a set's whole hash space.
func rangeAll(s *bitarray.Set) plan.Range { return plan.Range{Lo: s.Base(), Hi: s.End()} }
