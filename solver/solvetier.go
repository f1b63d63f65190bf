package solver

import (
	"context"
	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/loopy"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Shape says how SolveTier solves a tier.
type Shape struct {
	// Loopy: the tier has moves inside itself (tiergraph.Graph.Loopy), so it is
	// solved by retrograde analysis rather than range by range.
	Loopy bool
	// ReverseIndex solves a loopy tier with a reverse index of its moves
	// even when the game has un-moves (a check of the un-moves).
	ReverseIndex bool
}

// SolveTier solves tier t, whose reachable positions are set, from its
// solved child tiers kids: in ranges by SolveRange for a loop-free tier,
// by retrograde analysis for a loopy one, in which case the records are
// made in their compact form and never held twice. The records depend on
// neither shape.ReverseIndex nor effort. The caller owns the result (see
// solved.Tier.Free).
func SolveTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids []*solved.Tier, shape Shape, e work.Effort) (*solved.Tier, error) {
	workers, done := max(e.Workers, 1), e.Done
	ranges := plan.RangesFor(set.Total(), workers, e.Ranges)
	released := false
	kidsDone := func() { // once: e.KidsDone may free kids
		if e.KidsDone != nil && !released {
			released = true
			e.KidsDone()
		}
	}
	if shape.Loopy {
		var st *solved.Tier
		var err error
		if e.Paths != nil && e.Paths.Parts > 0 {
			st, err = loopy.SolveInParts(ctx, g, t, set, kids, e.Paths.Parts, e)
		} else {
			st, err = loopy.Solve(ctx, g, t, set, kids, shape.ReverseIndex, e)
		}
		if err != nil {
			return nil, err
		}
		// The game's rules of play, if it has any for t, after the
		// retrograde analysis (tiergame.Judge).
		st, err = judgeTier(g, t, st, kids, workers, e.Levels, kidsDone, e.Scratch)
		kidsDone()
		return st, err
	}
	recs := make([]valuedb.Record, set.Total())
	rs := plan.SplitShrinking(set, ranges)
	err := work.ForEach(ctx, workers, len(rs), func(ctx context.Context, i int) error {
		return solved.SolveRange(ctx, g, t, set, rs[i], kids, recs[plan.FirstRank(set, rs[i]):], done)
	})
	if err != nil {
		return nil, err
	}
	kidsDone()
	return solved.New(t, set, recs, workers)
}
