package quixo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// ascending returns count consecutive hashes of tier from a random start:
// nearly all of Quixo's hashes are reachable, and the solver visits them
// in order.
func ascending(g *Game, tier tiergame.Tier, count int) []tiergame.Position {
	rng := rand.New(rand.NewPCG(9, 10))
	size := g.TierSize(tier)
	p := rng.Uint64N(size)
	ps := make([]tiergame.Position, count)
	for i := range ps {
		ps[i] = tiergame.Position((p + uint64(i)) % size)
	}
	return ps
}

// BenchmarkAscending compares the old Moves, Moves, a cursor's Moves and
// its MovesByTier over consecutive hashes, as the solver visits them,
// taking turns (see tiergametest.Compare).
func BenchmarkAscending(b *testing.B) {
	for _, tc := range []struct{ n, x, o int }{{4, 4, 4}, {4, 6, 5}, {5, 6, 6}} {
		g := mustNew(b, tc.n)
		tier := tierID(tc.x, tc.o)
		ps := ascending(g, tier, 1<<14)
		children := make([]tiergame.Child, 0, 64)
		moves := func(f func(tiergame.Tier, tiergame.Position, []tiergame.Child) (tiergame.Value, []tiergame.Child)) func(int) {
			return func(int) {
				for _, p := range ps {
					_, children = f(tier, p, children[:0])
				}
			}
		}
		b.Run(fmt.Sprintf("%dx%d/%s", tc.n, tc.n, g.TierName(tier)), func(b *testing.B) {
			tiergametest.Compare(b, len(ps),
				tiergametest.Variant{Name: "old", Run: moves(g.oldMoves)},
				tiergametest.Variant{Name: "Moves", Run: moves(g.Moves)},
				tiergametest.Variant{Name: "Cursor", Run: func(int) {
					cur := g.Cursor(tier)
					for _, p := range ps {
						_, children = cur.Moves(p, children[:0])
					}
				}},
				tiergametest.Variant{Name: "ByTier", Run: func(int) {
					cur := g.Cursor(tier).(*Cursor)
					lists := make([][]tiergame.Position, len(g.ChildTiers(tier)))
					for i := range lists {
						lists[i] = make([]tiergame.Position, 0, 64)
					}
					for _, p := range ps {
						for i := range lists {
							lists[i] = lists[i][:0]
						}
						cur.MovesByTier(p, lists)
					}
				}})
		})
	}
}

// TestCursorAgainstOld checks that a cursor and Moves return what the old
// Moves returns, on walks through every tier of each size
// (TestMovesAgainstModel checks Moves against the reference model).
func TestCursorAgainstOld(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	count := samples(300, 40)
	for n := MinSize; n <= MaxSize; n++ {
		g := mustNew(t, n)
		for _, tier := range allTiers(g) {
			checkAgainstOld(t, g, tier, tiergametest.Walk(rng, g.TierSize(tier), count))
		}
	}
}

// TestCursorEveryPosition runs one cursor through every hash of every tier
// of 3x3, in order, against the old Moves.
func TestCursorEveryPosition(t *testing.T) {
	g := mustNew(t, 3)
	for _, tier := range allTiers(g) {
		ps := make([]tiergame.Position, g.TierSize(tier))
		for i := range ps {
			ps[i] = tiergame.Position(i)
		}
		checkAgainstOld(t, g, tier, ps)
	}
}

// checkAgainstOld checks that Moves and a cursor visiting ps in turn give
// what the old Moves gives, in its order, and that the cursor's
// MovesByTier gives its children by tier.
func checkAgainstOld(t *testing.T, g *Game, tier tiergame.Tier, ps []tiergame.Position) {
	t.Helper()
	cur := g.Cursor(tier).(*Cursor)
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
		wv, want = g.oldMoves(tier, p, want[:0])
		if gv != wv || ov != wv || !slices.Equal(got, want) || !slices.Equal(one, want) {
			t.Fatalf("%s: cursor %v %v, Moves %v %v, old Moves %v %v", g.Format(tier, p), gv, got, ov, one, wv, want)
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
				t.Fatalf("%s: MovesByTier %v %v for tier %d, old Moves %v %v", g.Format(tier, p), bv, lists[i], tiers[i], wv, byTier[i])
			}
		}
	}
}
