package worker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/internal/unitio"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/chance"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// An executor runs the units of one kind. A new kind of unit is an entry
// of executors here, and its rules in the coordinator's state.
type executor struct {
	// run does the unit's work, calls u.computed, and writes its outputs
	// (u.out); it returns the positions it expanded or solved.
	run func(w *Worker, ctx context.Context, u *unit) (positions uint64, err error)
	// wholeTier: the unit works on a whole (loopy) tier with every
	// thread of the worker.
	wholeTier bool
	// keepsResults: its results stay in memory, where the units of its
	// parent tier leased provisionally on this worker's word read them
	// (provisional.go).
	keepsResults bool
}

var executors = map[api.Kind]executor{
	api.Expand:     {run: (*Worker).expand},
	api.Close:      {run: (*Worker).close, wholeTier: true},
	api.CloseRange: {run: (*Worker).closeRange, wholeTier: true},
	api.SolveRange: {run: (*Worker).solveRange, keepsResults: true},
	api.SolveTier:  {run: (*Worker).solveTier, wholeTier: true},
	api.KidNotes:   {run: (*Worker).kidNotes},
	api.Part:       {run: (*Worker).part, wholeTier: true},
	api.FirstRange: {run: (*Worker).firstRange, wholeTier: true},
}

// A unit is a leased unit as it runs.
type unit struct {
	*api.Assignment
	g        tiergame.Game
	tier     tiergame.Tier
	children []tiergame.Tier
	rng      plan.Range // of the tier's hash space
	// own is what the unit loads of its own tier.
	own owner
	// out collects its output files.
	out *outputs
	// computed is called between the work and the writing: the unit's
	// threads are then free for the next unit, and the encoding of its
	// outputs overlaps that unit's work, as tierd solve writes a tier's
	// files while the next tier works.
	computed func()
}

// execute runs a unit and writes its outputs into files of the worker's
// folder (out.files[i] holds out.outs[i]); it returns the positions it expanded
// or solved. It calls computed between the work and the writing.
func (w *Worker) execute(ctx context.Context, a *api.Assignment, computed func()) (out *outputs, positions uint64, err error) {
	ex, ok := executors[a.Kind]
	if !ok {
		return &outputs{}, 0, fmt.Errorf("unknown unit kind %q", a.Kind)
	}
	g, err := w.games.Get(a.Game, a.Option, a.Symmetry)
	if err != nil {
		return &outputs{}, 0, err
	}
	u := &unit{Assignment: a, g: g, tier: tiergame.Tier(a.Ref.Tier), children: make([]tiergame.Tier, len(a.Children)),
		rng: plan.Range{Lo: a.Lo, Hi: a.Hi}, own: owner{a.Ref.Run, a.Ref.Tier}, out: &outputs{w: w, run: a.Ref.Run}, computed: computed}
	for i, c := range a.Children {
		u.children[i] = tiergame.Tier(c)
	}
	w.holdProcess()
	if a.Live != nil {
		if freed := w.mem.retire(a.Ref.Run, a.Live); freed > 0 {
			w.log.Debug("dropped tiers the run no longer needs from memory", "run", a.Ref.Run, "bytes", freed)
		}
		w.spills.retire(a.Ref.Run, a.Live)
	}
	if positions, err = ex.run(w, ctx, u); err != nil {
		u.out.remove()
		return &outputs{}, 0, err
	}
	return u.out, positions, nil
}

// expand is reach.ExpandRange over the unit's range: a partial level
// file of each child tier it reaches.
func (w *Worker) expand(ctx context.Context, u *unit) (uint64, error) {
	set, release, err := w.tierSet(ctx, u.g, u.own, setSource{name: u.Set, level: u.Level, partials: u.Partials})
	if err != nil {
		return 0, err
	}
	defer release()
	targets := reach.ChildTargets(u.g, u.children)
	positions, err := reach.ExpandRange(ctx, u.g, u.tier, set.Set, u.rng, targets, nil)
	if err != nil {
		return 0, err
	}
	u.computed()
	for _, tg := range targets {
		if err := u.out.partial(u.g, tg); err != nil {
			return 0, err
		}
	}
	return positions, nil
}

// close closes a loopy tier from its parents' partial level files
// (reach.CloseTier): a partial level file of the closed tier, and of
// each child tier it reaches.
func (w *Worker) close(ctx context.Context, u *unit) (uint64, error) {
	workers, release, err := w.closingThreads(ctx, u, plan.CloseBytes)
	if err != nil {
		return 0, err
	}
	defer release()
	set, err := w.mergeTier(ctx, u.g, u.tier, u.Partials)
	if err != nil {
		return 0, err
	}
	var done atomic.Uint64
	shares, err := reach.CloseTier(ctx, u.g, u.tier, set, u.children, work.Effort{Workers: workers, Done: &done})
	if err != nil {
		return 0, err
	}
	u.computed()
	if err := u.out.partial(u.g, reach.Target{Tier: u.tier, Set: set}); err != nil {
		return 0, err
	}
	return done.Load(), u.out.shares(u.g, shares)
}

// closingThreads reserves the memory of a closing unit (bytes of the
// tier's and its children's hash spaces on so many threads) on as many of
// the worker's threads as its budget holds: each adds sets over the tier
// and its children (the leader's estimate is for one).
func (w *Worker) closingThreads(ctx context.Context, u *unit, bytes func(size uint64, kids []uint64, workers int) uint64) (int, func(), error) {
	size, kids := u.g.TierSize(u.tier), make([]uint64, len(u.children))
	for i, c := range u.children {
		kids[i] = u.g.TierSize(c)
	}
	workers := w.cfg.Threads
	for w.cfg.Budget > 0 && workers > 1 && bytes(size, kids, workers) > uint64(w.cfg.Budget) {
		workers--
	}
	release, err := w.reserveUnit(ctx, u, int64(bytes(size, kids, workers)), 0)
	return workers, release, err
}

// closeRange runs a round of a range of a loopy tier's closing by ranges
// (reach.CloseRound): the range's set so far (its checkpoint, the Level;
// none in the first round) gains what comes to it (the Partials: the
// parents' partial level files, then the other ranges' notes) that it
// lacks, which is expanded; the outputs are the notes for the other
// ranges, the range's new checkpoint and the children's partial level
// files.
func (w *Worker) closeRange(ctx context.Context, u *unit) (uint64, error) {
	workers, release, err := w.closingThreads(ctx, u, func(size uint64, kids []uint64, workers int) uint64 {
		return plan.CloseRangeBytes(size, u.Hi-u.Lo, kids, workers)
	})
	if err != nil {
		return 0, err
	}
	defer release()
	own := bitarray.New(u.Lo, u.Hi-u.Lo)
	if u.Level != nil {
		full, err := w.mergeTier(ctx, u.g, u.tier, []api.Blob{*u.Level})
		if err != nil {
			return 0, err
		}
		if own, err = reach.RangeOf(full, u.rng); err != nil {
			return 0, err
		}
	}
	full, err := w.mergeTier(ctx, u.g, u.tier, u.Partials)
	if err != nil {
		return 0, err
	}
	frontier, err := reach.RangeOf(full, u.rng)
	if err != nil {
		return 0, err
	}
	full = nil
	fw, ow := frontier.Words(), own.Words()
	for i := range fw {
		fw[i] &^= ow[i]
		ow[i] |= fw[i]
	}
	var done atomic.Uint64
	notes, shares, err := reach.CloseRound(ctx, u.g, u.tier, own, frontier, u.children, work.Effort{Workers: workers, Done: &done})
	if err != nil {
		return 0, err
	}
	u.computed()
	if err := u.out.role(u.g, reach.Target{Tier: u.tier, Set: notes}, api.RoleNotes); err != nil {
		return 0, err
	}
	// The checkpoint over the whole tier, as every partial level file.
	ckpt := bitarray.New(0, u.g.TierSize(u.tier))
	copy(ckpt.Words()[u.Lo/plan.CloseRangeAlign:], own.Words())
	if err := u.out.role(u.g, reach.Target{Tier: u.tier, Set: ckpt}, api.RoleCheckpoint); err != nil {
		return 0, err
	}
	return done.Load(), u.out.shares(u.g, shares)
}

// solveRange solves the unit's range of a loop-free tier
// (solved.SolveRange, or with chance chance.SolveRange) into a
// window of the tier's records, which it keeps (rangeRecords): a value
// database of the range's records.
func (w *Worker) solveRange(ctx context.Context, u *unit) (uint64, error) {
	start := time.Now()
	set, release, err := w.tierSet(ctx, u.g, u.own, setSource{name: u.Set, level: u.Level})
	if err != nil {
		return 0, err
	}
	defer release()
	if _, ok := u.g.(tiergame.Chance); ok {
		return w.solveChanceRange(ctx, u, set)
	}
	kids, releaseKids, err := w.solvedInputs(ctx, u)
	if err != nil {
		return 0, err
	}
	defer releaseKids()
	loaded := time.Now()
	recs := w.rangeRecords(u.own, u.Set, set, u.rng)
	if err := solved.SolveRange(ctx, u.g, u.tier, set, u.rng, kids, recs, nil); err != nil {
		return 0, err
	}
	w.computedRecords(u.Token, recs)
	return w.writeRecords(u, recs, start, loaded)
}

// solveChanceRange solves the unit's range of a tier of a game with
// chance (chance.SolveRange, and chance.SolvePlanesRange for a game
// with planes): a database of the range's probabilities, or of both
// (unitio.WriteChance).
func (w *Worker) solveChanceRange(ctx context.Context, u *unit, set *bitarray.Ranked) (uint64, error) {
	kids, releaseKids, err := w.chanceKids(ctx, u)
	if err != nil {
		return 0, err
	}
	defer releaseKids()
	vals := make([]tiergame.Prob, u.rng.Count(set))
	if err := chance.SolveRange(ctx, u.g, u.tier, set, u.rng, kids, vals, nil); err != nil {
		return 0, err
	}
	var planes []tiergame.Prob
	if k := tiergame.PlaneCount(u.g); k > 0 {
		planes = make([]tiergame.Prob, k*len(vals))
		if err := chance.SolvePlanesRange(ctx, u.g, u.tier, set, u.rng, kids, planes, nil); err != nil {
			return 0, err
		}
	}
	u.computed()
	if err := u.out.probs(u.g, u.tier, vals, planes); err != nil {
		return 0, err
	}
	return uint64(len(vals)), nil
}

// solveTier solves a whole loopy tier (solver.SolveTier): a value
// database of its records.
func (w *Worker) solveTier(ctx context.Context, u *unit) (uint64, error) {
	if _, ok := u.g.(tiergame.Chance); ok {
		return 0, fmt.Errorf("a game with chance has no %s units", u.Kind)
	}
	start := time.Now()
	set, release, err := w.tierSet(ctx, u.g, u.own, setSource{name: u.Set, level: u.Level})
	if err != nil {
		return 0, err
	}
	defer release()
	kids, releaseKids, err := w.solvedInputs(ctx, u)
	if err != nil {
		return 0, err
	}
	defer releaseKids()
	// The tier's cells: the estimate less its inputs, which are on their
	// shelves.
	held := setBytes(u.g, u.tier)
	for _, k := range kids {
		held += int64(k.Bytes())
	}
	releaseCells, err := w.reserveUnit(ctx, u, u.Bytes, held)
	if err != nil {
		return 0, err
	}
	defer releaseCells()
	loaded := time.Now()
	st, err := solver.SolveTier(ctx, u.g, u.tier, set, kids, solver.Shape{Loopy: u.Loopy}, work.Effort{Workers: w.cfg.Threads, Scratch: w.cfg.Dir})
	if err != nil {
		return 0, err
	}
	// Kept as records, as a range unit's are, for the units of its
	// parents.
	recs := make([]valuedb.Record, st.Len())
	st.Records(recs, 0)
	st.Free()
	return w.writeRecords(u, recs, start, loaded)
}

// solvedInputs loads the solved child tiers a unit reads, once the units
// of this worker's whose records it reads in place have computed them.
func (w *Worker) solvedInputs(ctx context.Context, u *unit) ([]*solved.Tier, func(), error) {
	if err := w.awaitMine(ctx, u.Kids); err != nil {
		return nil, nil, err
	}
	return w.solvedKids(ctx, u)
}

// writeRecords writes a solve unit's records, once computed; start and
// loaded are when it started and when its inputs were loaded, for the
// log.
func (w *Worker) writeRecords(u *unit, recs []valuedb.Record, start, loaded time.Time) (uint64, error) {
	solvedAt := time.Now()
	u.computed()
	if err := u.out.records(u.g, u.tier, recs); err != nil {
		return 0, err
	}
	w.log.Debug("solve unit", "tier", u.tier, "load_seconds", loaded.Sub(start).Seconds(), "solve_seconds", solvedAt.Sub(loaded).Seconds(),
		"write_seconds", time.Since(solvedAt).Seconds())
	return uint64(len(recs)), nil
}

// outputs collects a unit's output files.
type outputs struct {
	w     *Worker
	run   string // the unit's
	outs  []api.Output
	files []string
	// part is a Part unit's report.
	part *api.PartResult
}

func (o *outputs) add(t tiergame.Tier, write func(path string) error) error {
	dir := filepath.Join(o.w.cfg.Dir, "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "unit-*")
	if err != nil {
		return err
	}
	path := f.Name()
	f.Close()
	o.files = append(o.files, path) // removed by the caller, written or not
	if err := write(path); err != nil {
		return err
	}
	sum, size, err := blobstore.HashFile(path)
	if err != nil {
		return err
	}
	o.outs = append(o.outs, api.Output{Tier: uint64(t), Blob: api.Blob{SHA256: sum, Size: size}})
	return nil
}

// last is the output added last.
func (o *outputs) last() string { return o.outs[len(o.outs)-1].Blob.SHA256 }

// outputWorkers encode a unit's outputs: every core (0), not the unit's
// thread alone. The outputs of the last unit of a tier are on the path
// to the next tier, whose units wait for them, and then the other
// threads are idle; otherwise the encoding shares the cores with the next
// units, as tierd solve's writes do.
const outputWorkers = 0

// partial writes a partial level file of a target's set, if not empty,
// stored unless Config.CompressPartials, and keeps the set in memory for
// when this worker merges the tier.
func (o *outputs) partial(g tiergame.Game, tg reach.Target) error {
	if tg.Set.Count() == 0 {
		return nil
	}
	err := o.add(tg.Tier, func(path string) error {
		opts := levelfile.WriteOptions{Stored: !o.w.cfg.CompressPartials, Level: reach.DefaultPartialLevel, Workers: outputWorkers, NoSync: true}
		_, err := reach.WriteLevel(path, g, tg.Set, opts)
		return err
	})
	if err == nil {
		o.w.mem.partials.put(o.last(), owner{o.run, uint64(tg.Tier)}, tg.Set, int64(tg.Set.Len()/8))
	}
	return err
}

// shares writes the partial level files of the children's sets a
// closing's threads made (reach.CloseTier, reach.CloseRound).
func (o *outputs) shares(g tiergame.Game, shares [][]reach.Target) error {
	for _, targets := range shares {
		for _, tg := range targets {
			if err := o.partial(g, tg); err != nil {
				return err
			}
		}
	}
	return nil
}

// role writes a partial level file of a target's set with a role (a
// closing's notes or checkpoint), if the set is not empty, as partial
// does.
func (o *outputs) role(g tiergame.Game, tg reach.Target, role string) error {
	n := len(o.outs)
	if err := o.partial(g, tg); err != nil || len(o.outs) == n {
		return err
	}
	o.outs[n].Role = role
	return nil
}

// records writes a range's records as a value database, and keeps them
// in memory for when this worker solves the tier's parents. It is
// written as tierd solve writes a tier's (not Fast): the range holds
// whole blocks of the tier's database (the leader's cut), which the
// leader joins by copying them (solved.ConcatDB).
func (o *outputs) records(g tiergame.Game, t tiergame.Tier, recs []valuedb.Record) error {
	err := o.add(t, func(path string) error {
		_, err := solved.WriteDB(path, g, t, recs, &valuedb.WriteOptions{Workers: outputWorkers, NoSync: true})
		return err
	})
	if err == nil {
		o.w.mem.records.put(o.last(), owner{o.run, uint64(t)}, recs, 2*int64(len(recs)))
	}
	return err
}

// probs writes a range's probabilities as a probability database, or
// with the game's planes a database of both (unitio.WriteChance), and
// keeps them in memory as records does.
func (o *outputs) probs(g tiergame.Game, t tiergame.Tier, vals, planes []tiergame.Prob) error {
	results := unitio.JoinChance(vals, planes)
	err := o.add(t, func(path string) error {
		return unitio.WriteChance(path, g, t, results, &valuedb.WriteOptions{Workers: outputWorkers, NoSync: true, Fast: true})
	})
	if err == nil {
		o.w.mem.probs.put(o.last(), owner{o.run, uint64(t)}, results, 4*int64(len(results)))
	}
	return err
}

func (o *outputs) remove() {
	for _, f := range o.files {
		os.Remove(f)
	}
}
