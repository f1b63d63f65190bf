package teeko_test

import (
	"testing"

	"github.com/tiersolve/tiersolve/games/teeko"
	"github.com/tiersolve/tiersolve/tiergame"
)

// The benchmarks walk a stretch of the moving tier in ascending order, as
// the solver does, from a fixed point in it.
const benchFrom, benchN = 61_000_000, 1 << 14

func benchCursor(b *testing.B, canonical bool) {
	cur := teeko.Game{}.Cursor(teeko.MovingTier).(*teeko.Cursor)
	dst := [][]tiergame.Position{make([]tiergame.Position, 0, 64)}
	n := 0
	for b.Loop() {
		for p := tiergame.Position(benchFrom); p < benchFrom+benchN; p++ {
			dst[0] = dst[0][:0]
			if canonical {
				cur.CanonicalMovesByTier(p, dst)
			} else {
				cur.MovesByTier(p, dst)
			}
			n += len(dst[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/child")
}

func BenchmarkMovesByTier(b *testing.B)          { benchCursor(b, false) }
func BenchmarkCanonicalMovesByTier(b *testing.B) { benchCursor(b, true) }

func benchParents(b *testing.B, canonical bool) {
	g := teeko.Game{}
	var dst []tiergame.Position
	n := 0
	for b.Loop() {
		for p := tiergame.Position(benchFrom); p < benchFrom+benchN; p++ {
			if canonical {
				dst = g.CanonicalParents(teeko.MovingTier, p, teeko.MovingTier, dst[:0])
			} else {
				dst = g.Parents(teeko.MovingTier, p, teeko.MovingTier, dst[:0])
			}
			n += len(dst)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/parent")
}

func BenchmarkParents(b *testing.B)          { benchParents(b, false) }
func BenchmarkCanonicalParents(b *testing.B) { benchParents(b, true) }
