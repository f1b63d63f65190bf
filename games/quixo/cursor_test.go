package quixo

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tiersolve/tiersolve/games/internal/movescheck"
	"github.com/tiersolve/tiersolve/internal/race"
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
	count := race.Samples(300, 40)
	for n := MinSize; n <= MaxSize; n++ {
		g := mustNew(t, n)
		for _, tier := range allTiers(g) {
			movescheck.Against(t, g, tier, tiergametest.Walk(rng, g.TierSize(tier), count), g.oldMoves)
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
		movescheck.Against(t, g, tier, ps, g.oldMoves)
	}
}
