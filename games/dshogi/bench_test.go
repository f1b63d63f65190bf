package dshogi_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// The hot paths of a solve of the full game, on runs of consecutive
// hashes of play as the solver visits them.

func playHashes(b *testing.B, n int) (*tiergame.Position, []tiergame.Position) {
	g := mustGame(b, "LGEC")
	rng := rand.New(rand.NewPCG(3, 4))
	var hs []tiergame.Position
	for len(hs) < n {
		h := tiergame.Position(rng.Uint64N(g.TierSize(0) - 64))
		for i := range 64 {
			hs = append(hs, h+tiergame.Position(i))
		}
	}
	return nil, hs
}

func BenchmarkMovesByTier(b *testing.B) {
	g := mustGame(b, "LGEC")
	_, hs := playHashes(b, 1<<14)
	cur := g.Cursor(0).(tiergame.ByTierCursor)
	lists := make([][]tiergame.Position, 3)
	b.ResetTimer()
	for i := range b.N {
		for k := range lists {
			lists[k] = lists[k][:0]
		}
		cur.MovesByTier(hs[i%len(hs)], lists)
	}
}

func BenchmarkCanonicalMovesByTier(b *testing.B) {
	g := mustGame(b, "LGEC")
	_, hs := playHashes(b, 1<<14)
	cur := g.Cursor(0).(tiergame.CanonicalByTierCursor)
	lists := make([][]tiergame.Position, 3)
	b.ResetTimer()
	for i := range b.N {
		for k := range lists {
			lists[k] = lists[k][:0]
		}
		cur.CanonicalMovesByTier(hs[i%len(hs)], lists)
	}
}

func BenchmarkParents(b *testing.B) {
	g := mustGame(b, "LGEC")
	_, hs := playHashes(b, 1<<14)
	var dst []tiergame.Position
	b.ResetTimer()
	for i := range b.N {
		dst = g.Parents(0, hs[i%len(hs)], 0, dst[:0])
	}
}

func BenchmarkCanonicalParents(b *testing.B) {
	g := mustGame(b, "LGEC")
	_, hs := playHashes(b, 1<<14)
	var dst []tiergame.Position
	b.ResetTimer()
	for i := range b.N {
		dst = g.CanonicalParents(0, hs[i%len(hs)], 0, dst[:0])
	}
}

func BenchmarkCanonical(b *testing.B) {
	g := mustGame(b, "LGEC")
	_, hs := playHashes(b, 1<<14)
	b.ResetTimer()
	for i := range b.N {
		g.Canonical(0, hs[i%len(hs)])
	}
}
