package connect4

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/games/internal/movescheck"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// TestCursorAgainstOld checks that a cursor and Moves return what the old
// Moves returns, on walks through every tier of several board sizes
// (reachable positions or not). TestMovesAgainstHash checks Moves against
// hashing each child board.
func TestCursorAgainstOld(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	count := race.Samples(400, 60)
	for g, n := range tiers(t, [][2]int{{7, 6}, {6, 5}, {5, 5}, {6, 4}, {5, 4}, {4, 4}, {1, 6}, {7, 1}, {3, 2}, {2, 2}}) {
		tier := tiergame.Tier(n)
		movescheck.Against(t, g, tier, tiergametest.Walk(rng, g.TierSize(tier), count), g.oldMoves)
	}
}

// TestCursorEveryPosition runs one cursor through every hash of every
// tier of small boards, in order.
func TestCursorEveryPosition(t *testing.T) {
	for g, n := range tiers(t, [][2]int{{4, 4}, {5, 3}, {3, 5}}) {
		tier := tiergame.Tier(n)
		ps := make([]tiergame.Position, g.TierSize(tier))
		for i := range ps {
			ps[i] = tiergame.Position(i)
		}
		movescheck.Against(t, g, tier, ps, g.oldMoves)
	}
}

// ascending returns count ascending positions of tier n from a random
// start, with gaps of 1 to 3 hashes: about the density of reachable
// positions in the middle tiers (40 to 85% of 5x5's hashes are reachable).
func ascending(g *Game, n, count int) []tiergame.Position {
	rng := rand.New(rand.NewPCG(9, 10))
	size := g.TierSize(tiergame.Tier(n))
	p := rng.Uint64N(size / 2)
	ps := make([]tiergame.Position, count)
	for i := range ps {
		ps[i] = tiergame.Position(p % size)
		p += 1 + rng.Uint64N(3)
	}
	return ps
}

// reachableTier returns the reachable positions of tier n, ascending.
func reachableTier(b *testing.B, g *Game, n int) []tiergame.Position {
	var ps []tiergame.Position
	tiergametest.Reach(b, g, upTo(n), func(t tiergame.Tier, p tiergame.Position, _ tiergame.Value, _ []tiergame.Child) {
		if int(t) == n {
			ps = append(ps, p)
		}
	})
	slices.Sort(ps)
	return ps
}

// benchSequence compares the old Moves, Moves and a cursor over the same
// positions, taking turns (see tiergametest.Compare).
func benchSequence(b *testing.B, g *Game, n int, ps []tiergame.Position) {
	tier := tiergame.Tier(n)
	children := make([]tiergame.Child, 0, MaxWidth)
	tiergametest.Compare(b, len(ps),
		tiergametest.Variant{Name: "old", Run: func(int) {
			for _, p := range ps {
				_, children = g.oldMoves(tier, p, children[:0])
			}
		}},
		tiergametest.Variant{Name: "Moves", Run: func(int) {
			for _, p := range ps {
				_, children = g.Moves(tier, p, children[:0])
			}
		}},
		tiergametest.Variant{Name: "Cursor", Run: func(int) {
			cur := g.Cursor(tier)
			for _, p := range ps {
				_, children = cur.Moves(p, children[:0])
			}
		}})
}

// BenchmarkAscending measures Moves and Cursor.Moves over positions in
// ascending order, as the solver visits them: all reachable positions of
// a tier of 5x4, and dense runs of hashes in tiers of larger boards.
func BenchmarkAscending(b *testing.B) {
	b.Run("5x4/tier10/reachable", func(b *testing.B) {
		g := mustNew(b, 5, 4)
		benchSequence(b, g, 10, reachableTier(b, g, 10))
	})
	for _, tc := range []struct{ w, h, n int }{{5, 5, 14}, {6, 4, 14}, {6, 5, 15}, {6, 5, 22}, {7, 6, 21}} {
		b.Run(fmt.Sprintf("%dx%d/tier%d", tc.w, tc.h, tc.n), func(b *testing.B) {
			g := mustNew(b, tc.w, tc.h)
			benchSequence(b, g, tc.n, ascending(g, tc.n, 1<<16))
		})
	}
}
