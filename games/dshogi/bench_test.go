package dshogi_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tiersolve/tiersolve/games/dshogi"
	"github.com/tiersolve/tiersolve/tiergame"
)

// The hot paths of a solve of the full game, on runs of consecutive
// hashes of play as the solver visits them.

// benchHashes times visit on 1<<14 hashes of the full game (LGEC), in
// runs of 64 consecutive ones from random starts, in turn. setup makes
// visit from the game, untimed.
func benchHashes(b *testing.B, setup func(g *dshogi.Game) func(p tiergame.Position)) {
	g := mustGame(b, "LGEC")
	rng := rand.New(rand.NewPCG(3, 4))
	var hs []tiergame.Position
	for len(hs) < 1<<14 {
		h := tiergame.Position(rng.Uint64N(g.TierSize(0) - 64))
		for i := range 64 {
			hs = append(hs, h+tiergame.Position(i))
		}
	}
	visit := setup(g)
	b.ResetTimer()
	for i := range b.N {
		visit(hs[i%len(hs)])
	}
}

// byTier returns a visit that lists the children of each position by
// tier with movesByTier, into lists kept from one call to the next.
func byTier(movesByTier func(tiergame.Position, [][]tiergame.Position) tiergame.Value) func(tiergame.Position) {
	lists := make([][]tiergame.Position, 3)
	return func(p tiergame.Position) {
		for k := range lists {
			lists[k] = lists[k][:0]
		}
		movesByTier(p, lists)
	}
}

func BenchmarkMovesByTier(b *testing.B) {
	benchHashes(b, func(g *dshogi.Game) func(tiergame.Position) {
		return byTier(g.Cursor(0).(tiergame.ByTierCursor).MovesByTier)
	})
}

func BenchmarkCanonicalMovesByTier(b *testing.B) {
	benchHashes(b, func(g *dshogi.Game) func(tiergame.Position) {
		return byTier(g.Cursor(0).(tiergame.CanonicalByTierCursor).CanonicalMovesByTier)
	})
}

func BenchmarkParents(b *testing.B) {
	benchHashes(b, func(g *dshogi.Game) func(tiergame.Position) {
		var dst []tiergame.Position
		return func(p tiergame.Position) { dst = g.Parents(0, p, 0, dst[:0]) }
	})
}

func BenchmarkCanonicalParents(b *testing.B) {
	benchHashes(b, func(g *dshogi.Game) func(tiergame.Position) {
		var dst []tiergame.Position
		return func(p tiergame.Position) { dst = g.CanonicalParents(0, p, 0, dst[:0]) }
	})
}

func BenchmarkCanonical(b *testing.B) {
	benchHashes(b, func(g *dshogi.Game) func(tiergame.Position) {
		return func(p tiergame.Position) { g.Canonical(0, p) }
	})
}
