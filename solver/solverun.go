package solver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// dbPath is where a tier's value database lives.
func (r *Run) dbPath(t tiergame.Tier) string {
	return filepath.Join(r.Dir, r.Manifest.DBPath(r.Game, t))
}

// ErrNotReached is returned by Solve before reachability is complete.
var ErrNotReached = errors.New("reachability is not complete: run Reach first")

// Solve solves every tier, children first, writing one value database per
// tier and recording the start position's value; tiers the manifest
// records as solved are skipped.
func (r *Run) Solve(ctx context.Context) error {
	ctx = work.WithMeter(ctx, &r.busy)
	g := r.Game
	r.checkRecorded()
	for _, rec := range r.Manifest.Tiers {
		if !rec.Reached || !rec.Expanded {
			return ErrNotReached
		}
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "db"), 0o755); err != nil {
		return err
	}
	if r.isChance() {
		return r.solveChance(ctx)
	}
	order := r.Graph.SolveOrder()
	cache := map[tiergame.Tier]*solved.Tier{}
	defer freeAll(cache)
	var decided atomic.Uint64
	start := time.Now()
	// While a tier is solved, the next one's level file loads and the
	// last one's database is written.
	var (
		next *levelLoad
		w    *dbWrite
	)
	isSolved := func(t tiergame.Tier) bool {
		rec := r.Manifest.Tier(uint64(t))
		return rec.Solved && rec.DB.Check(r.Dir, false) == nil
	}
	err := eachChildrenFirst(r, "solve", cache, (*solved.Tier).Free, func(i int, t tiergame.Tier, release func()) error {
		if !isSolved(t) {
			t0 := time.Now()
			load := next
			next = r.loadNext(order[i+1:], isSolved)
			st, err := r.solveTier(ctx, t, cache, &decided, load, release)
			// The last tier's database is recorded even if this one failed.
			if serr := r.settleDB(w, r.clock(t, "solve")); err == nil {
				err = serr
			}
			w = nil
			if err != nil {
				if next != nil {
					<-next.done
				}
				return r.stopped(fmt.Errorf("solve tier %s: %w", g.TierName(t), err))
			}
			cache[t] = st
			w = r.writeSolved(t, i, st, time.Since(t0).Seconds())
		}
		if i == len(order)-1 {
			if err := r.settleDB(w, r.clock(t, "solve")); err != nil {
				return r.stopped(err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !r.Graph.Has(r.Graph.Start) { // a run from seeds below the start tier
		r.Manifest.Start, r.Manifest.Solved = nil, true
		r.Log.Info("solving done", "seconds", time.Since(start).Seconds())
		return r.checkpoint(true)
	}
	st, err := r.loadSolved(r.Graph.Start, cache)
	if err != nil {
		return err
	}
	switch r.Manifest.Start, err = solved.NewStartRecord(g, st); {
	case err == nil:
		r.Log.Info("solving done", "start", r.Manifest.Start.Value, "remoteness", r.Manifest.Start.Remoteness, "seconds", time.Since(start).Seconds())
	case len(r.Manifest.Seeds) > 0: // a run from seeds need not reach the start
		r.Manifest.Start, r.Manifest.Solved = nil, true
		r.Log.Info("solving done", "seconds", time.Since(start).Seconds())
	default:
		return err
	}
	return r.checkpoint(true)
}

// loadNext starts loading the level file of the first tier of rest not
// solved yet, if any.
func (r *Run) loadNext(rest []tiergame.Tier, isSolved func(tiergame.Tier) bool) *levelLoad {
	for _, u := range rest {
		if !isSolved(u) {
			return r.loadLevelAsync(u)
		}
	}
	return nil
}

// writeSolved starts writing the database of tier t, the i-th in solving
// order, solved in secs seconds, and logs the tier once it is recorded.
func (r *Run) writeSolved(t tiergame.Tier, i int, st *solved.Tier, secs float64) *dbWrite {
	g, rec := r.Game, r.Manifest.Tier(uint64(t))
	return r.writeDB(t, rec, st, func() {
		r.Times.SolveSeconds += secs
		r.worked = true
		tt := r.phases.tier(t, g.TierName(t), "solve")
		r.Log.Info("tier solved", "tier", uint64(t), "name", g.TierName(t), "positions", rec.Reachable,
			"win", rec.Win, "lose", rec.Lose, "tie", rec.Tie, "draw", rec.Draw, "db_bytes", rec.DB.Bytes,
			"seconds", secs, "positions_per_second", float64(rec.Reachable)/secs,
			"parallel_seconds", tt.Parallel, "serial_seconds", tt.Serial)
		r.meter.Set(int64(i+1), fmt.Sprintf("tier %s: %.1fM positions/s", g.TierName(t), float64(rec.Reachable)/secs/1e6))
	})
}

// levelLoad is a tier's level file being loaded and ranked in the
// background.
type levelLoad struct {
	t    tiergame.Tier
	done chan struct{}
	set  *bitarray.Ranked
	err  error
}

// loadLevelAsync starts loading tier t's level file.
func (r *Run) loadLevelAsync(t tiergame.Tier) *levelLoad {
	l := &levelLoad{t: t, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		defer r.busy.Background()()
		set, err := r.loadLevel(t)
		if err == nil {
			l.set = bitarray.NewRanked(set)
		}
		l.err = err
	}()
	return l
}

// solveTier computes the records of tier t; load, if it is t's, is its
// level file being loaded, and release drops the children no other tier
// needs (work.Effort.KidsDone).
func (r *Run) solveTier(ctx context.Context, t tiergame.Tier, cache map[tiergame.Tier]*solved.Tier, done *atomic.Uint64, load *levelLoad, release func()) (*solved.Tier, error) {
	clk := r.clock(t, "solve")
	end := clk.phase("load", false)
	kids, err := r.childTiers(t, nil, cache)
	if err != nil {
		return nil, err
	}
	if load == nil || load.t != t {
		load = r.loadLevelAsync(t)
	}
	<-load.done
	end()
	if load.err != nil {
		return nil, load.err
	}
	ranked := load.set
	end = clk.phase("solve", true)
	levels := new(work.LevelProgress)
	stop := r.watchTier(t, r.Manifest.Tier(uint64(t)).Reachable, done, levels)
	st, err := SolveTier(ctx, r.Game, t, ranked, kids, Shape{Loopy: r.Graph.Loopy[t], ReverseIndex: r.ReverseIndex},
		work.Effort{Workers: r.Workers, Ranges: r.Ranges, Done: done, Levels: levels, Lean: r.lean[t], Paths: r.Paths, KidsDone: release, Scratch: r.Dir})
	stop()
	end()
	if err != nil {
		return nil, err
	}
	return st, nil
}

// watchTier shows, every second while tier t is solved, how many of its
// total positions the solver has visited (done counts them, from what it
// holds now): a loopy tier of a billion positions otherwise shows nothing
// for an hour. A loopy tier visits each position once, then decides its
// positions level of remoteness by level: levels says where it is.
func (r *Run) watchTier(t tiergame.Tier, total uint64, done *atomic.Uint64, levels *work.LevelProgress) (stop func()) {
	name := r.Game.TierName(t)
	base := done.Load()
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				n := done.Load() - base
				detail := fmt.Sprintf("tier %s: %d of %d positions visited (%.0f%%)", name, n, total, 100*float64(n)/float64(max(total, 1)))
				if r.Graph.Loopy[t] && n >= total {
					phase, level, decided := levels.Load()
					detail = fmt.Sprintf("tier %s: every position visited; %s at remoteness %d, %d of %d positions decided (%.0f%%)",
						name, phase, level, decided, total, 100*float64(decided)/float64(max(total, 1)))
					if rules := levels.RulesDetail(); rules != "" {
						detail = fmt.Sprintf("tier %s: solved; %s", name, rules)
					}
				}
				r.meter.Detail(detail)
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// childTiers appends t's solved child tiers to kids, from the cache or
// from their files.
func (r *Run) childTiers(t tiergame.Tier, kids solved.Children, cache map[tiergame.Tier]*solved.Tier) (solved.Children, error) {
	return childrenOf(r, t, kids, func(c tiergame.Tier) (*solved.Tier, error) { return r.loadSolved(c, cache) })
}

// loadSolved returns a solved tier from the cache or from its files.
func (r *Run) loadSolved(t tiergame.Tier, cache map[tiergame.Tier]*solved.Tier) (*solved.Tier, error) {
	return cached(cache, t, func() (*solved.Tier, error) {
		return solved.Load(r.Game, t, r.levelPath(t), r.dbPath(t), r.Workers)
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

// freeAll frees the solved tiers of a cache.
func freeAll(cache map[tiergame.Tier]*solved.Tier) {
	for _, st := range cache {
		st.Free()
	}
}

// cached returns cache[t], or else what load returns, which it caches.
func cached[K any](cache map[tiergame.Tier]K, t tiergame.Tier, load func() (K, error)) (K, error) {
	if k, ok := cache[t]; ok {
		return k, nil
	}
	k, err := load()
	if err == nil {
		cache[t] = k
	}
	return k, err
}

// dbWrite is a tier's value database being written in the background.
type dbWrite struct {
	t    tiergame.Tier
	rec  *runfolder.TierRecord
	done chan struct{}
	h    valuedb.Header
	fi   *runfolder.FileInfo
	err  error
	// onSolved is called once the database is recorded.
	onSolved func()
}

// writeDB starts writing tier t's value database; settleDB records it.
func (r *Run) writeDB(t tiergame.Tier, rec *runfolder.TierRecord, st *solved.Tier, onSolved func()) *dbWrite {
	w := &dbWrite{t: t, rec: rec, done: make(chan struct{}), onSolved: onSolved}
	release := st.Hold() // the tier may be freed before its database is written
	go func() {
		defer close(w.done)
		defer release()
		defer r.busy.Background()()
		path := r.dbPath(t)
		if w.h, w.err = solved.WriteTierDB(path, r.Game, st, &valuedb.WriteOptions{Workers: r.Workers, NoSync: true}); w.err != nil {
			return
		}
		rel, _ := filepath.Rel(r.Dir, path)
		w.fi, w.err = runfolder.HashFile(r.Dir, rel)
	}()
	return w
}

// settleDB waits for the database being written, if any, and records it.
func (r *Run) settleDB(w *dbWrite, clk stepClock) error {
	if w == nil {
		return nil
	}
	end := clk.phase("wait", false)
	<-w.done
	end()
	if w.err != nil {
		return fmt.Errorf("tier %s: %w", r.Game.TierName(w.t), w.err)
	}
	defer clk.phase("checkpoint", false)()
	setSolved(w.rec, w.fi, w.h)
	w.onSolved()
	return r.checkpoint(false)
}

// recordSolved records tier t's database, just written with header h.
func (r *Run) recordSolved(t tiergame.Tier, rec *runfolder.TierRecord, h valuedb.Header) error {
	rel, _ := filepath.Rel(r.Dir, r.dbPath(t))
	fi, err := runfolder.HashFile(r.Dir, rel)
	if err != nil {
		return err
	}
	setSolved(rec, fi, h)
	return r.checkpoint(false)
}

// setSolved marks a tier solved with database fi, written with header h.
func setSolved(rec *runfolder.TierRecord, fi *runfolder.FileInfo, h valuedb.Header) {
	rec.Solved, rec.DB = true, fi
	rec.Win, rec.Lose, rec.Tie, rec.Draw = h.Win, h.Lose, h.Tie, h.Draw
}

// solvedBytes is the memory of tier t once solved (a solved.Tier): its set
// and its cells.
func (r *Run) solvedBytes(t tiergame.Tier) uint64 {
	size, count := r.Game.TierSize(t), r.count(t)
	if r.isChance() { // its planes too, four bytes each a position
		return plan.BitsetBytes(size) + count*(plan.ProbBytes+4*uint64(tiergame.PlaneCount(r.Game)))
	}
	return plan.SolvedCellBytes(size, count)
}

// solveBytes estimates the peak memory of solving tier t: its set and
// cells (a loopy tier's are its solved tier, with half a byte a cell
// beside them for the longest wins elsewhere unless lean; a loop-free
// tier's records are made by rank, two bytes a position, then turned into
// cells), and each child tier's set and cells. Counts are from Run.count.
func (r *Run) solveBytes(t tiergame.Tier, lean bool) uint64 {
	n := r.solvedBytes(t)
	switch {
	case r.isChance():
		n += r.count(t) * plan.ProbBytes // made by rank, then indexed
	case r.Graph.Loopy[t]:
		if !lean {
			n += plan.WinsBytes(plan.CellsOf(r.Game.TierSize(t), r.count(t)))
		}
	default:
		n += r.count(t) * plan.RecordBytes
	}
	for _, c := range r.Graph.Children[t] {
		n += r.solvedBytes(c)
	}
	return n
}
