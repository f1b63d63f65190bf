package solver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/internal/atomicfile"
	"github.com/tiersolve/tiersolve/internal/progress"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Config describes a run.
type Config struct {
	Game tiergame.Game
	// Dir is the run folder: levels/, partials/, db/ and the manifest.
	Dir string
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Ranges is how many ranges each tier is cut into; 0 means Workers.
	// The files written do not depend on it.
	Ranges int
	// KeepPartials keeps the partial level files after they are merged.
	KeepPartials bool
	// Memory is the budget a step may use, in bytes; 0 means 80% of the
	// machine's memory. A run that cannot fit is refused before it starts.
	Memory uint64
	// LevelOptions are used for full level files (default: the smallest
	// of the four types at levelfile.DefaultLevel), PartialOptions for
	// partial ones (default: the smallest at gzip level 1, since a partial
	// is read once, by its merge).
	LevelOptions, PartialOptions levelfile.WriteOptions
	// Symmetry keeps one position per symmetry class of the game (which
	// must be tiergame.Symmetric): the run solves the quotient game
	// (quotient.Reduce), and its level files and value databases hold canonical
	// positions only. A run folder is either symmetric or not.
	Symmetry bool
	// ReverseIndex solves loopy tiers with a reverse index of their moves
	// even when the game can generate parents (for tests and comparison).
	ReverseIndex bool
	// Seeds is a folder of full level files (as levelctl import writes
	// them) whose positions the run starts from instead of the start
	// position; only what they reach is solved. They are copied into the
	// run folder and recorded in its manifest.
	Seeds string
	// Paths, if not nil, forces rarer paths of the solvers (tests); the
	// files written do not depend on it.
	Paths *work.Paths
	// Log receives progress and step records; nil means no logging.
	Log *slog.Logger
	// Terminal, when it is a terminal, shows live progress.
	Terminal io.Writer
}

// Run is a reachability and solving run in a folder.
type Run struct {
	Config
	Graph    *tiergraph.Graph
	Manifest *runfolder.Manifest
	meter    *progress.Meter
	saved    time.Time // when the manifest was last checkpointed
	// obsolete are folders to remove once the manifest no longer needs
	// them: merged partials go only after the merge is recorded.
	obsolete []string
	lock     *runfolder.Lock // this process's hold on the folder, until Close
	checked  bool            // the recorded files were checked (checkRecorded)
	// Times is how long the run's steps took, in every session so far.
	Times  runfolder.Times
	worked bool     // a step was done in this session
	phases phaseLog // this session's phase times
	busy   work.Meter
	// canonical caches the bounds count uses for the canonical positions
	// of a symmetric run's tiers before reachability.
	canonical map[tiergame.Tier]uint64
	// lean is the loopy tiers solved without their longest wins elsewhere
	// kept, for the budget (Estimate.Lean).
	lean map[tiergame.Tier]bool
}

// Close releases the run folder for other processes.
func (r *Run) Close() error { return r.lock.Unlock() }

// checkpointEvery is how often a running job records its progress: files
// are written without syncing each, and a checkpoint syncs the file system
// once and then rewrites the manifest, so a crash loses at most this much
// work and never leaves the manifest pointing at unsynced data.
const checkpointEvery = 5 * time.Second

// checkpoint makes what is done durable and records it in the manifest,
// at most every checkpointEvery unless force is set.
func (r *Run) checkpoint(force bool) error {
	if !force && time.Since(r.saved) < checkpointEvery {
		return nil
	}
	if err := atomicfile.SyncFS(r.Dir); err != nil {
		return err
	}
	r.saved = time.Now()
	if err := r.Manifest.Save(r.Dir); err != nil {
		return err
	}
	if r.worked {
		if err := r.Times.Save(r.Dir); err != nil {
			return err
		}
	}
	for _, dir := range r.obsolete {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	r.obsolete = nil
	return nil
}

// Open prepares a run: it discovers the tier graph, creates the folder or
// loads its manifest (which must be for the same game and option), and
// checks that every step fits in memory.
func Open(cfg Config) (*Run, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.PartialOptions.Level == 0 {
		// Partials are read once, by the merge: compress them fast.
		cfg.PartialOptions.Level = reach.DefaultPartialLevel
	}
	r, err := Plan(cfg)
	if err != nil {
		return nil, err
	}
	g, gr := r.Game, r.Graph
	// A run is refused before anything is written; a resumed one is
	// estimated from the reachable counts its manifest records (read
	// here without the lock: an estimate needs no more).
	if m, err := runfolder.ReadManifest(cfg.Dir); err == nil && m != nil && m.Game == g.Name() && m.Option == g.Option() && m.Symmetry == cfg.Symmetry {
		r.Manifest = m
	}
	err = r.checkMemory()
	r.Manifest = nil
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := runfolder.LockFolder(cfg.Dir)
	if err != nil {
		return nil, err
	}
	r.lock = lock
	runfolder.RemoveTemporaries(cfg.Dir)
	m, err := runfolder.ReadManifest(cfg.Dir)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	if m != nil && (m.Game != g.Name() || m.Option != g.Option()) {
		lock.Unlock()
		return nil, fmt.Errorf("%s holds a run of %s (%s), not %s (%s)", cfg.Dir, m.Game, m.Option, g.Name(), g.Option())
	}
	if m != nil && m.Symmetry != cfg.Symmetry {
		lock.Unlock()
		return nil, symmetryMismatch(cfg.Dir, m.Symmetry)
	}
	seeds, err := r.copySeeds(m)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	if m == nil {
		m = runfolder.NewManifest(g, gr)
		m.Seeds = seeds
		if err := m.Save(cfg.Dir); err != nil {
			lock.Unlock()
			return nil, err
		}
	}
	r.Manifest = m
	r.Times = runfolder.LoadTimes(cfg.Dir)
	return r, nil
}

// Reach finds the reachable positions of every tier and writes the level
// files, skipping what the manifest records as done.
func (r *Run) Reach(ctx context.Context) error {
	ctx = work.WithMeter(ctx, &r.busy)
	rc := &reacher{Run: r}
	g := r.Game
	r.meter = progress.New(r.Terminal, r.Log, "reach", int64(len(r.Graph.Tiers)), "tiers")
	defer r.meter.Finish()
	start := time.Now()
	r.checkRecorded()
	for i, t := range r.Graph.Tiers {
		rec := r.Manifest.Tier(uint64(t))
		r.meter.Set(int64(i), "tier "+g.TierName(t))
		fileOK := rec.Reached && rec.Level.Check(r.Dir, false) == nil
		if fileOK && rec.Expanded {
			continue
		}
		report := func(n uint64, secs float64) {
			r.Times.ReachSeconds += secs
			r.worked = true
			tt := r.phases.tier(t, g.TierName(t), "reach")
			r.Log.Info("tier reached", "tier", uint64(t), "name", g.TierName(t), "reachable", rec.Reachable,
				"type", rec.LevelType, "bytes", rec.Level.Bytes, "expanded", n, "seconds", secs,
				"positions_per_second", float64(n)/secs, "parallel_seconds", tt.Parallel, "serial_seconds", tt.Serial)
			r.meter.Set(int64(i+1), fmt.Sprintf("tier %s: %d positions, %.1fM expanded/s", g.TierName(t), rec.Reachable, float64(n)/secs/1e6))
		}
		if err := rc.step(ctx, t, rec, fileOK, report); err != nil {
			if serr := rc.settle(rc.clock(t, "reach")); serr != nil {
				r.Log.Warn("could not record a level file", "error", serr)
			}
			return r.stopped(fmt.Errorf("reach tier %s: %w", g.TierName(t), err))
		}
	}
	if err := rc.settle(rc.clock(r.Graph.Tiers[len(r.Graph.Tiers)-1], "reach")); err != nil {
		return r.stopped(err)
	}
	r.Manifest.Total = 0
	for _, rec := range r.Manifest.Tiers {
		r.Manifest.Total += rec.Reachable
	}
	r.Log.Info("reachability done", "tiers", len(r.Graph.Tiers), "reachable", r.Manifest.Total, "seconds", time.Since(start).Seconds())
	return r.checkpoint(true)
}

// stopped records every finished step before the run returns err (a
// cancellation or a failure), so it resumes from there and not from the
// last periodic checkpoint.
func (r *Run) stopped(err error) error {
	if cerr := r.checkpoint(true); cerr != nil {
		r.Log.Warn("could not record the finished tiers", "error", cerr)
	}
	return err
}

// step reaches tier t (unless its level file is already there) and expands
// it for its children. Its level file is written in the background while
// t is expanded and the next tier merged; it is recorded, and t with it,
// when the next step settles it (then report is called with the positions
// expanded and the step's seconds); t is recorded as expanded then, or, if
// it handed its children in the next tier over in memory (writeShares),
// once that tier is recorded as reached.
func (rc *reacher) step(ctx context.Context, t tiergame.Tier, rec *runfolder.TierRecord, haveFile bool, report func(uint64, float64)) error {
	clk := rc.clock(t, "reach")
	t0, before := time.Now(), rc.expanded.Load()
	loopy := rc.Graph.Loopy[t]
	var set *bitarray.Set
	var err error
	if haveFile {
		rc.next = nil // t is reached already
		done := clk.phase("load", false)
		set, err = rc.loadLevel(t)
		done()
		// A loopy tier expands while closing; closing a closed set
		// expands every position once and finds nothing new.
		if err == nil && loopy && !rc.exhaustive() {
			err = rc.close(ctx, t, set)
		}
	} else {
		set, err = rc.reachTier(ctx, t)
	}
	if err != nil {
		return err
	}
	// The previous tier's level file was written meanwhile.
	if err := rc.settle(clk); err != nil {
		return err
	}
	var w *levelWrite
	if !haveFile {
		w = rc.writeLevel(t, rec, set)
	}
	if !loopy && !rc.exhaustive() {
		if err := rc.expand(ctx, t, set); err != nil {
			return err
		}
	}
	// Children reached already (t was expanded again to rebuild another
	// child) do not need the new partials.
	for _, c := range rc.Graph.Children[t] {
		if rc.Manifest.Tier(uint64(c)).Reached {
			rc.obsolete = append(rc.obsolete, rc.partialDir(c, t))
		}
	}
	n, secs := rc.expanded.Load()-before, time.Since(t0).Seconds()
	// The children handed over in memory are in no file until their tier's
	// level file is recorded: t counts as expanded only from then on.
	h := rc.next
	unwritten := h != nil && !rc.KeepPartials && !rc.Manifest.Tier(uint64(h.tier)).Reached
	expanded := func() error {
		mark := func() {
			rec.Expanded = true
			if !rc.KeepPartials { // t's inputs, merged into its level file
				rc.obsolete = append(rc.obsolete, filepath.Join(rc.Dir, "partials", fmt.Sprint(t)))
			}
		}
		if unwritten {
			rc.awaiting = append(rc.awaiting, awaitingReach{child: h.tier, expanded: mark})
		} else {
			mark()
		}
		report(n, secs)
		return rc.checkpoint(false)
	}
	if w == nil {
		defer clk.phase("checkpoint", false)()
		return expanded()
	}
	w.expanded = expanded
	return nil
}

// levelWrite is a tier's full level file being written in the background.
type levelWrite struct {
	t    tiergame.Tier
	rec  *runfolder.TierRecord
	done chan struct{}
	res  levelfile.Result
	fi   *runfolder.FileInfo
	err  error
	// expanded, once the tier's step has ended, records the tier as
	// expanded after its level file is recorded.
	expanded func() error
}

// writeLevel starts writing tier t's full level file; settle records it.
func (rc *reacher) writeLevel(t tiergame.Tier, rec *runfolder.TierRecord, set *bitarray.Set) *levelWrite {
	w := &levelWrite{t: t, rec: rec, done: make(chan struct{})}
	rc.pending = w
	go func() {
		defer close(w.done)
		defer rc.busy.Background()()
		path := rc.levelPath(t)
		if w.err = os.MkdirAll(filepath.Dir(path), 0o755); w.err != nil {
			return
		}
		o := rc.LevelOptions
		o.Workers = rc.Workers
		o.NoSync = true // synced by the next checkpoint
		if w.res, w.err = reach.WriteLevel(path, rc.Game, set, o); w.err != nil {
			return
		}
		rel, _ := filepath.Rel(rc.Dir, path)
		w.fi, w.err = runfolder.HashFile(rc.Dir, rel)
	}()
	return w
}

// settle waits for the level file being written, if any, and records it
// (and its tier as expanded, if its step has ended).
func (rc *reacher) settle(clk stepClock) error {
	w := rc.pending
	if w == nil {
		return nil
	}
	rc.pending = nil
	done := clk.phase("wait", false)
	<-w.done
	done()
	if w.err != nil {
		return fmt.Errorf("tier %s: %w", rc.Game.TierName(w.t), w.err)
	}
	rec := w.rec
	if rec.Level != nil && rec.Level.SHA256 != w.fi.SHA256 {
		// A rebuilt tier that differs invalidates its values and those of
		// every tier above it.
		rc.unsolveUp(w.t)
	}
	rec.Reached, rec.Reachable, rec.Level, rec.LevelType = true, w.res.Count, w.fi, int(w.res.Header.Type)
	rec.Expanded = false
	waiting := rc.awaiting[:0]
	for _, a := range rc.awaiting {
		if a.child == w.t {
			a.expanded()
		} else {
			waiting = append(waiting, a)
		}
	}
	rc.awaiting = waiting
	defer clk.phase("checkpoint", false)()
	if w.expanded != nil {
		return w.expanded()
	}
	return rc.checkpoint(false)
}

// unsolveUp marks t and every tier it can be reached from unsolved.
func (r *Run) unsolveUp(t tiergame.Tier) {
	r.Manifest.Start, r.Manifest.Solved = nil, false
	rec := r.Manifest.Tier(uint64(t))
	if !rec.Solved {
		return // tiers above an unsolved tier are unsolved too
	}
	rec.Solved = false
	for _, p := range r.Graph.Parents[t] {
		r.unsolveUp(p)
	}
}

// loadLevel reads tier t's full level file into a set over its hash space.
func (r *Run) loadLevel(t tiergame.Tier) (*bitarray.Set, error) {
	return reach.LoadLevel(r.levelPath(t), r.Game, t)
}

// Worked reports whether this Run did any step, rather than finding
// everything done already.
func (r *Run) Worked() bool { return r.worked }
