package solver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/internal/progress"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// dbPath is where a tier's value database lives.
func (r *Run) dbPath(t tiergame.Tier) string {
	return filepath.Join(r.Dir, "db", fmt.Sprintf("m%s_%s_%d.vdb", r.Game.Name(), r.Game.Option(), uint64(t)))
}

// ErrNotReached is returned by Solve before reachability is complete.
var ErrNotReached = errors.New("reachability is not complete: run Reach first")

// Solve solves every tier, children first, writing one value database per
// tier and recording the start position's value; tiers the manifest
// records as solved are skipped.
func (r *Run) Solve(ctx context.Context) error {
	g := r.Game
	for _, rec := range r.Manifest.Tiers {
		if !rec.Reached || !rec.Expanded {
			return ErrNotReached
		}
	}
	if r.isChance() {
		return r.solveChance(ctx)
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "db"), 0o755); err != nil {
		return err
	}
	order := r.Graph.SolveOrder()
	cache := map[tiergame.Tier]*solvedTier{}
	pending := map[tiergame.Tier]int{}
	for _, t := range order {
		pending[t] = len(r.Graph.Parents[t])
	}
	r.meter = progress.New(r.Terminal, r.Log, "solve", int64(len(order)), "tiers")
	defer r.meter.Finish()
	var solved atomic.Uint64
	start := time.Now()
	for i, t := range order {
		rec := r.Manifest.tier(uint64(t))
		r.meter.Set(int64(i), "tier "+g.TierName(t))
		if !(rec.Solved && rec.DB.check(r.Dir, false) == nil) {
			t0 := time.Now()
			st, err := r.solveTier(ctx, t, cache, &solved)
			if err != nil {
				return fmt.Errorf("solve tier %s: %w", g.TierName(t), err)
			}
			if err := r.recordDB(t, rec, st); err != nil {
				return fmt.Errorf("solve tier %s: %w", g.TierName(t), err)
			}
			cache[t] = st
			secs := time.Since(t0).Seconds()
			r.Log.Info("tier solved", "tier", uint64(t), "name", g.TierName(t), "positions", rec.Reachable,
				"win", rec.Win, "lose", rec.Lose, "tie", rec.Tie, "draw", rec.Draw, "db_bytes", rec.DB.Bytes,
				"seconds", secs, "positions_per_second", float64(rec.Reachable)/secs)
			r.meter.Set(int64(i+1), fmt.Sprintf("tier %s: %.1fM positions/s", g.TierName(t), float64(rec.Reachable)/secs/1e6))
		}
		for _, c := range r.Graph.Children[t] {
			if pending[c]--; pending[c] == 0 {
				delete(cache, c)
			}
		}
	}
	st, err := r.loadSolved(r.Graph.Start, cache)
	if err != nil {
		return err
	}
	_, p := g.Start()
	rec, ok := st.lookup(p)
	switch {
	case ok:
		r.Manifest.Start = &StartRecord{Position: g.Format(r.Graph.Start, p), Value: rec.Value().String(), Remoteness: rec.Remoteness()}
		r.Log.Info("solving done", "start", rec.String(), "seconds", time.Since(start).Seconds())
	case len(r.Manifest.Seeds) > 0: // a run from seeds need not reach the start
		r.Manifest.Start, r.Manifest.Solved = nil, true
		r.Log.Info("solving done", "seconds", time.Since(start).Seconds())
	default:
		return fmt.Errorf("the start position is not in its tier's level file")
	}
	return r.checkpoint(true)
}

// solveTier computes the records of tier t.
func (r *Run) solveTier(ctx context.Context, t tiergame.Tier, cache map[tiergame.Tier]*solvedTier, done *atomic.Uint64) (*solvedTier, error) {
	kids, err := r.childTiers(t, nil, cache)
	if err != nil {
		return nil, err
	}
	set, err := r.loadLevel(t)
	if err != nil {
		return nil, err
	}
	ranked := bitarray.NewRanked(set)
	recs := make([]valuedb.Record, ranked.Total())
	if r.Graph.Loopy[t] {
		err = solveLoopy(ctx, r.Game, t, ranked, kids, r.Workers, r.ranges(), r.ReverseIndex, recs, done)
	} else {
		eg, ectx := errgroup.WithContext(ctx)
		eg.SetLimit(r.Workers)
		for _, rg := range SplitRanges(ranked, r.ranges()) {
			eg.Go(func() error { return SolveRange(ectx, r.Game, t, ranked, rg, kids, recs, done) })
		}
		err = eg.Wait()
	}
	if err != nil {
		return nil, err
	}
	return newSolvedTier(t, ranked, recs, r.Workers), nil
}

// childTiers appends t's solved child tiers to kids, from the cache or
// from their files.
func (r *Run) childTiers(t tiergame.Tier, kids children, cache map[tiergame.Tier]*solvedTier) (children, error) {
	return childrenOf(r, t, kids, func(c tiergame.Tier) (*solvedTier, error) { return r.loadSolved(c, cache) })
}

// loadSolved returns a solved tier from the cache or from its files.
func (r *Run) loadSolved(t tiergame.Tier, cache map[tiergame.Tier]*solvedTier) (*solvedTier, error) {
	return loadTier(r, t, cache, func(ranked *bitarray.Ranked, db *valuedb.DB) (*solvedTier, error) {
		recs, err := db.ReadAll(r.Workers)
		if err != nil {
			return nil, err
		}
		return newSolvedTier(t, ranked, recs, r.Workers), nil
	})
}

// childrenOf appends t's child tiers, as load returns them, to kids.
func childrenOf[K any, S ~[]K](r *Run, t tiergame.Tier, kids S, load func(tiergame.Tier) (K, error)) (S, error) {
	for _, c := range r.Graph.Children[t] {
		k, err := load(c)
		if err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	return kids, nil
}

// loadTier returns solved tier t from cache, or else reads it from its
// level file and database with read, and caches it.
func loadTier[K any](r *Run, t tiergame.Tier, cache map[tiergame.Tier]K, read func(*bitarray.Ranked, *valuedb.DB) (K, error)) (K, error) {
	if k, ok := cache[t]; ok {
		return k, nil
	}
	var zero K
	ranked, db, err := r.openSolved(t)
	if err != nil {
		return zero, err
	}
	defer db.Close()
	k, err := read(ranked, db)
	if err != nil {
		return zero, err
	}
	cache[t] = k
	return k, nil
}

// openSolved loads tier t's level file and opens its database, checking
// that they agree on the number of positions.
func (r *Run) openSolved(t tiergame.Tier) (*bitarray.Ranked, *valuedb.DB, error) {
	set, err := r.loadLevel(t)
	if err != nil {
		return nil, nil, err
	}
	db, err := valuedb.Open(r.dbPath(t))
	if err != nil {
		return nil, nil, err
	}
	ranked := bitarray.NewRanked(set)
	if db.Header().Count != ranked.Total() {
		db.Close()
		return nil, nil, fmt.Errorf("%s has %d records for %d positions", r.dbPath(t), db.Header().Count, ranked.Total())
	}
	return ranked, db, nil
}

// dbHeader is the header of tier t's database, before its counts.
func (r *Run) dbHeader(t tiergame.Tier) valuedb.Header {
	return valuedb.Header{Game: r.Game.Name(), Option: r.Game.Option(), Tier: uint64(t), TierName: r.Game.TierName(t)}
}

// recordDB writes tier t's value database and records it.
func (r *Run) recordDB(t tiergame.Tier, rec *TierRecord, st *solvedTier) error {
	h, err := valuedb.Write(r.dbPath(t), r.dbHeader(t), st.recs, &valuedb.WriteOptions{Workers: r.Workers, NoSync: true})
	if err != nil {
		return err
	}
	return r.recordSolved(rec, h)
}

// recordSolved records a tier's database, just written with header h.
func (r *Run) recordSolved(rec *TierRecord, h valuedb.Header) error {
	rel, _ := filepath.Rel(r.Dir, r.dbPath(tiergame.Tier(rec.Tier)))
	fi, err := fileInfo(r.Dir, rel)
	if err != nil {
		return err
	}
	rec.Solved, rec.DB = true, fi
	rec.Win, rec.Lose, rec.Tie, rec.Draw = h.Win, h.Lose, h.Tie, h.Draw
	return r.checkpoint(false)
}

// solveBytes estimates the peak memory of solving tier t: its set, records
// (and for a loopy tier its work words and queues), and each child tier's
// set and records. Counts are the reachable ones once known, else the hash
// space.
func (r *Run) solveBytes(t tiergame.Tier) uint64 {
	count := func(t tiergame.Tier) uint64 {
		if r.Manifest != nil {
			if rec := r.Manifest.tier(uint64(t)); rec != nil && rec.Reached {
				return rec.Reachable
			}
		}
		return r.Game.TierSize(t)
	}
	n := bitsetBytes(r.Game.TierSize(t)) + count(t)*valueBytes
	if r.Graph.Loopy[t] {
		n += count(t) * (4 + 8) // work words, queued entries
	}
	for _, c := range r.Graph.Children[t] {
		n += bitsetBytes(r.Game.TierSize(c)) + count(c)*valueBytes
	}
	return n
}
