package solver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// chanceRange is about how many positions a range of a chance tier has.
const chanceRange = 1 << 20

// isChance reports whether the run's game has chance nodes.
func (r *Run) isChance() bool {
	_, ok := r.Game.(tiergame.Chance)
	return ok
}

// solveChance is Solve for games with chance: every tier, children first,
// to a probability database; tiers the manifest records as solved are
// skipped.
func (r *Run) solveChance(ctx context.Context) error {
	g := r.Game
	for _, t := range r.Graph.Tiers {
		if r.Graph.Loopy[t] {
			return fmt.Errorf("%s: tier %s is loopy, which games with chance cannot be", g.Name(), g.TierName(t))
		}
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "db"), 0o755); err != nil {
		return err
	}
	cache := map[tiergame.Tier]*ChanceTier{}
	var solved atomic.Uint64
	start := time.Now()
	err := eachChildrenFirst(r, "solve", cache, func(t tiergame.Tier) error {
		rec := r.Manifest.tier(uint64(t))
		if rec.Solved && rec.DB.check(r.Dir, false) == nil {
			return nil
		}
		t0 := time.Now()
		ct, err := r.solveChanceTier(ctx, t, cache, &solved)
		if err != nil {
			return fmt.Errorf("solve tier %s: %w", g.TierName(t), err)
		}
		h, err := valuedb.WriteProbs(r.dbPath(t), r.dbHeader(t), ct.vals, &valuedb.WriteOptions{Workers: r.Workers, NoSync: true})
		if err == nil {
			err = r.recordSolved(rec, h)
		}
		if err != nil {
			return fmt.Errorf("solve tier %s: %w", g.TierName(t), err)
		}
		cache[t] = ct
		secs := time.Since(t0).Seconds()
		r.Log.Info("tier solved", "tier", uint64(t), "name", g.TierName(t), "positions", rec.Reachable,
			"certain_wins", rec.Win, "certain_losses", rec.Lose, "mean", h.Mean, "db_bytes", rec.DB.Bytes,
			"seconds", secs, "positions_per_second", float64(rec.Reachable)/secs)
		return nil
	})
	if err != nil {
		return err
	}
	ct, err := r.loadChance(r.Graph.Start, cache)
	if err != nil {
		return err
	}
	r.Manifest.Start = nil
	if _, p := g.Start(); ct.set.Total() > 0 {
		if v, ok := ct.lookup(p); ok {
			win := v.Float()
			r.Manifest.Start = &StartRecord{Position: g.Format(r.Graph.Start, p), Value: "chance", Win: &win}
		}
	}
	r.Manifest.Solved = true
	r.Log.Info("solving done", "seconds", time.Since(start).Seconds())
	return r.checkpoint(true)
}

// solveChanceTier computes the values of tier t.
func (r *Run) solveChanceTier(ctx context.Context, t tiergame.Tier, cache map[tiergame.Tier]*ChanceTier, done *atomic.Uint64) (*ChanceTier, error) {
	kids, err := r.chanceChildren(t, nil, cache)
	if err != nil {
		return nil, err
	}
	set, err := r.loadLevel(t)
	if err != nil {
		return nil, err
	}
	ranked := bitarray.NewRanked(set)
	vals := make([]tiergame.Prob, ranked.Total())
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(r.Workers)
	// Work per position varies along a tier (with the mover's checkers),
	// so a tier is cut into many ranges that the workers take in turn.
	n := max(r.ranges(), int(min(ranked.Total()/chanceRange, 1<<16)))
	for _, rg := range SplitRanges(ranked, n) {
		eg.Go(func() error { return SolveChanceRange(ectx, r.Game, t, ranked, rg, kids, vals, done) })
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return NewChanceTier(t, ranked, vals, r.Workers), nil
}

// chanceChildren appends t's solved child tiers to kids, from the cache or
// from their files.
func (r *Run) chanceChildren(t tiergame.Tier, kids []*ChanceTier, cache map[tiergame.Tier]*ChanceTier) ([]*ChanceTier, error) {
	return childrenOf(r, t, kids, func(c tiergame.Tier) (*ChanceTier, error) { return r.loadChance(c, cache) })
}

// loadChance returns a solved tier of a chance game from the cache or from
// its files.
func (r *Run) loadChance(t tiergame.Tier, cache map[tiergame.Tier]*ChanceTier) (*ChanceTier, error) {
	return loadTier(r, t, cache, func(ranked *bitarray.Ranked, db *valuedb.DB) (*ChanceTier, error) {
		vals, err := db.ReadAllProbs(r.Workers)
		if err != nil {
			return nil, err
		}
		return NewChanceTier(t, ranked, vals, r.Workers), nil
	})
}
