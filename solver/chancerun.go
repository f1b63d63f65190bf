package solver

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/chance"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

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
	cache := map[tiergame.Tier]*chance.Tier{}
	var solved atomic.Uint64
	start := time.Now()
	err := eachChildrenFirst(r, "solve", cache, nil, func(_ int, t tiergame.Tier, _ func()) error {
		rec := r.Manifest.Tier(uint64(t))
		if rec.Solved && rec.DB.Check(r.Dir, false) == nil && r.planesRecorded(rec) {
			return nil
		}
		t0 := time.Now()
		ct, err := r.solveChanceTier(ctx, t, cache, &solved)
		if err == nil {
			var h valuedb.Header
			if h, err = chance.WriteDB(r.dbPath(t), g, t, ct.Values(), &valuedb.WriteOptions{Workers: r.Workers, NoSync: true}); err == nil {
				if err = r.writePlanes(t, rec, ct); err == nil {
					err = r.recordSolved(t, rec, h)
				}
			}
		}
		if err != nil {
			return r.stopped(fmt.Errorf("solve tier %s: %w", g.TierName(t), err))
		}
		cache[t] = ct
		secs := time.Since(t0).Seconds()
		r.Times.SolveSeconds += secs
		r.worked = true
		r.Log.Info("tier solved", "tier", uint64(t), "name", g.TierName(t), "positions", rec.Reachable,
			"certain_wins", rec.Win, "certain_losses", rec.Lose, "db_bytes", rec.DB.Bytes,
			"seconds", secs, "positions_per_second", float64(rec.Reachable)/secs)
		return nil
	})
	if err != nil {
		return err
	}
	r.Manifest.Start = nil // a run from seeds need not hold the start tier
	if r.Graph.Has(r.Graph.Start) {
		ct, err := r.loadChance(r.Graph.Start, cache)
		if err != nil {
			return err
		}
		r.Manifest.Start = chance.NewStartRecord(g, ct)
	}
	r.Manifest.Solved = true
	r.Log.Info("solving done", "seconds", time.Since(start).Seconds())
	return r.checkpoint(true)
}

// solveChanceTier computes the values of tier t.
func (r *Run) solveChanceTier(ctx context.Context, t tiergame.Tier, cache map[tiergame.Tier]*chance.Tier, done *atomic.Uint64) (*chance.Tier, error) {
	kids, err := r.chanceChildren(t, nil, cache)
	if err != nil {
		return nil, err
	}
	set, err := r.loadLevel(t)
	if err != nil {
		return nil, err
	}
	ranked := bitarray.NewRanked(set)
	ranges := plan.RangesFor(ranked.Total(), r.Workers, r.Ranges)
	vals, err := chance.SolveTier(ctx, r.Game, t, ranked, kids, r.Workers, ranges, done)
	if err != nil {
		return nil, err
	}
	ct := chance.New(t, ranked, vals, r.Workers)
	if _, names := chance.PlanesOf(r.Game); names != nil {
		planes, err := chance.SolvePlanesTier(ctx, r.Game, t, ranked, kids, r.Workers, ranges, nil)
		if err != nil {
			return nil, err
		}
		if err := ct.SetPlanes(len(names), planes); err != nil {
			return nil, err
		}
	}
	return ct, nil
}

// planesRecorded reports whether a tier's planes are recorded and match
// their file, or the game has none.
func (r *Run) planesRecorded(rec *runfolder.TierRecord) bool {
	if pg, _ := chance.PlanesOf(r.Game); pg == nil {
		return true
	}
	return rec.Planes != nil && rec.Planes.Check(r.Dir, false) == nil
}

// writePlanes writes tier t's database of planes, if the game has planes,
// and notes it in rec (recordSolved then records the tier).
func (r *Run) writePlanes(t tiergame.Tier, rec *runfolder.TierRecord, ct *chance.Tier) error {
	if pg, _ := chance.PlanesOf(r.Game); pg == nil {
		return nil
	}
	path := runfolder.PlanesPath(r.dbPath(t))
	if _, err := chance.WritePlanesDB(path, r.Game, t, ct.PlaneValues(), &valuedb.WriteOptions{Workers: r.Workers, NoSync: true}); err != nil {
		return err
	}
	rel, _ := filepath.Rel(r.Dir, path)
	fi, err := runfolder.HashFile(r.Dir, rel)
	if err != nil {
		return err
	}
	rec.Planes = fi
	return nil
}

// chanceChildren appends t's solved child tiers to kids, from the cache or
// from their files.
func (r *Run) chanceChildren(t tiergame.Tier, kids []*chance.Tier, cache map[tiergame.Tier]*chance.Tier) ([]*chance.Tier, error) {
	return childrenOf(r, t, kids, func(c tiergame.Tier) (*chance.Tier, error) { return r.loadChance(c, cache) })
}

// loadChance returns a solved tier of a game with chance from the cache or
// from its files.
func (r *Run) loadChance(t tiergame.Tier, cache map[tiergame.Tier]*chance.Tier) (*chance.Tier, error) {
	return cached(cache, t, func() (*chance.Tier, error) {
		return chance.Load(r.Game, t, r.levelPath(t), r.dbPath(t), r.Workers)
	})
}
