package quixo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/games/internal/gametest"
	"github.com/tiersolve/tiersolve/tiergame"
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

// BenchmarkAscending compares the old Moves, Moves and a cursor over consecutive
// hashes, as the solver visits them, taking turns (see gametest.Compare).
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
			gametest.Compare(b, len(ps),
				gametest.Variant{Name: "old", Run: moves(g.oldMoves)},
				gametest.Variant{Name: "Moves", Run: moves(g.Moves)},
				gametest.Variant{Name: "Cursor", Run: func(int) {
					cur := g.Cursor(tier)
					for _, p := range ps {
						_, children = cur.Moves(p, children[:0])
					}
				}})
		})
	}
}

// BenchmarkParentsCompare compares the old Parents and Parents on the
// workload of BenchmarkParents, taking turns (see gametest.Compare).
func BenchmarkParentsCompare(b *testing.B) {
	g := mustNew(b, 4)
	tier := tierID(4, 4)
	ps := randomPositions(g, tier, 1<<14)
	parents := make([]tiergame.Position, 0, 64)
	run := func(f func(tiergame.Tier, tiergame.Position, tiergame.Tier, []tiergame.Position) []tiergame.Position) func(int) {
		return func(int) {
			for i, p := range ps {
				pt := tier
				if i&1 != 0 {
					pt = tierID(3, 4) // the parent tier where X moved
					if p&1 == 0 {
						pt = tierID(4, 3) // O moved
					}
				}
				parents = f(tier, p, pt, parents[:0])
			}
		}
	}
	gametest.Compare(b, len(ps),
		gametest.Variant{Name: "old", Run: run(g.oldParents)},
		gametest.Variant{Name: "Parents", Run: run(g.Parents)})
}

// cursorWalk returns positions of a tier for a cursor to visit: mostly
// consecutive hashes, as the solver visits them, with jumps of every size
// and some steps back.
func cursorWalk(rng *rand.Rand, size uint64, count int) []tiergame.Position {
	var ps []tiergame.Position
	p := rng.Uint64N(size)
	for range count {
		ps = append(ps, tiergame.Position(p))
		switch rng.IntN(16) {
		case 0:
			p = rng.Uint64N(size) // anywhere, also backwards
		case 1:
			p += rng.Uint64N(1 << rng.IntN(30)) // a jump of any length
		default:
			p++
		}
		if p >= size {
			p = rng.Uint64N(size)
		}
	}
	return ps
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
			cur := g.Cursor(tier)
			var got, one, want []tiergame.Child
			for _, p := range cursorWalk(rng, g.TierSize(tier), count) {
				var gv, ov, wv tiergame.Value
				gv, got = cur.Moves(p, got[:0])
				ov, one = g.Moves(tier, p, one[:0])
				wv, want = g.oldMoves(tier, p, want[:0])
				if gv != wv || !slices.Equal(got, want) {
					t.Fatalf("%s: cursor gives %v %v, old Moves %v %v", g.Format(tier, p), gv, got, wv, want)
				}
				if ov != wv || !slices.Equal(one, want) {
					t.Fatalf("%s: Moves gives %v %v, old Moves %v %v", g.Format(tier, p), ov, one, wv, want)
				}
			}
		}
	}
}

// TestCursorEveryPosition runs one cursor through every hash of every tier
// of 3x3, in order, against the old Moves.
func TestCursorEveryPosition(t *testing.T) {
	g := mustNew(t, 3)
	for _, tier := range allTiers(g) {
		cur := g.Cursor(tier)
		var got, want []tiergame.Child
		for p := tiergame.Position(0); uint64(p) < g.TierSize(tier); p++ {
			var gv, wv tiergame.Value
			gv, got = cur.Moves(p, got[:0])
			wv, want = g.oldMoves(tier, p, want[:0])
			if gv != wv || !slices.Equal(got, want) {
				t.Fatalf("%s: cursor gives %v %v, old Moves %v %v", g.Format(tier, p), gv, got, wv, want)
			}
		}
	}
}
