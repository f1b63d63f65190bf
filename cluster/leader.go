package cluster

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// leadership is this node's term as leader: the merges it runs, stopped
// when it loses the lead.
type leadership struct {
	n      *Node
	term   uint64 // the raft term it leads
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	running  map[leaderTask]bool // merges under way
	failures map[leaderTask]int
	retryAt  map[leaderTask]time.Time

	pre *premerger // tiers merged ahead of their cut
}

// maxMerges is how many merges run at once; each uses all the node's
// merge goroutines, so more would only compete.
const maxMerges = 2

// elected starts a term: it waits until the state holds every entry of
// earlier terms (until then the API answers 503), records the members if
// they are not yet, and restarts the timer of every lease it inherits. It
// returns nil if the wait failed; the next tick tries again.
func (n *Node) elected() *leadership {
	if err := n.raft.Barrier(10 * time.Second).Error(); err != nil {
		n.log.Warn("barrier after election failed", "error", err)
		return nil
	}
	l := &leadership{n: n, term: n.raft.CurrentTerm(), running: map[leaderTask]bool{}, failures: map[leaderTask]int{}, retryAt: map[leaderTask]time.Time{}}
	l.ctx, l.cancel = context.WithCancel(n.ctx)
	l.pre = newPremerger(l.ctx, n)
	n.premerge.Store(l.pre)
	var tokens []uint64
	var members []Member
	n.fsm.View(func(s *State, _ uint64) {
		members = s.Members
		for _, r := range s.Runs {
			eachLease(r, func(_ UnitRef, le *Lease) { tokens = append(tokens, le.Token) })
		}
	})
	n.leases.reset(time.Now(), tokens)
	if len(members) == 0 && len(n.known) > 0 {
		if _, err := n.propose(&command{Op: opMembers, Members: n.known}); err != nil {
			n.log.Warn("recording the members", "error", err)
		}
	}
	n.metrics.elections.Inc()
	n.ready.Store(true)
	n.log.Info("elected leader", "leases", len(tokens))
	return l
}

// stop ends the term and waits for its merges to stop.
func (l *leadership) stop() {
	l.n.ready.Store(false)
	l.n.premerge.Store(nil)
	l.cancel()
	l.wg.Wait()
	l.pre.wait()
}

// eachLease calls f with every active lease of a run.
func eachLease(r *Run, f func(UnitRef, *Lease)) {
	for _, t := range r.Tiers {
		for i, u := range t.Reach {
			if u.Lease != nil {
				f(UnitRef{r.ID, t.Tier, PhaseReach, i}, u.Lease)
			}
		}
		for i, u := range t.Solve {
			if u.Lease != nil {
				f(UnitRef{r.ID, t.Tier, PhaseSolve, i}, u.Lease)
			}
		}
	}
}

// tick expires the leases past their deadline and starts the merges the
// state calls for.
func (l *leadership) tick() {
	n := l.n
	now := time.Now()
	if expired := n.leases.expired(now); len(expired) > 0 {
		refs := map[uint64]UnitRef{}
		n.fsm.View(func(s *State, _ uint64) {
			for _, r := range s.Runs {
				eachLease(r, func(ref UnitRef, le *Lease) { refs[le.Token] = ref })
			}
		})
		for _, tok := range expired {
			n.leases.forget(tok)
			ref, ok := refs[tok]
			if !ok {
				continue // completed or released meanwhile
			}
			if _, err := n.propose(&command{Op: opRelease, Release: &releaseCmd{Ref: ref, Token: tok}}); err != nil {
				n.log.Warn("expiring a lease", "ref", ref, "error", err)
				continue
			}
			n.metrics.leasesExpired.Inc()
			n.log.Info("lease expired", "run", ref.Run, "tier", ref.Tier, "phase", ref.Phase, "unit", ref.Index, "token", tok)
		}
	}
	var tasks []leaderTask
	n.fsm.View(func(s *State, _ uint64) {
		tasks = s.leaderTasks()
		l.pre.forget(s)
		l.pre.update(s)
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, task := range tasks {
		if len(l.running) >= maxMerges {
			break
		}
		if l.running[task] || now.Before(l.retryAt[task]) {
			continue
		}
		l.running[task] = true
		l.wg.Add(1)
		go l.run(task)
	}
}

// run does one leader task, retrying later if it fails; a task that keeps
// failing fails its run.
func (l *leadership) run(task leaderTask) {
	defer l.wg.Done()
	n := l.n
	t0 := time.Now()
	err := n.doTask(l.ctx, task, l.pre)
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.running, task)
	if err == nil {
		n.log.Info("merged", "run", task.Run, "task", task.Kind, "tier", task.Tier, "seconds", time.Since(t0).Seconds())
		return
	}
	if l.ctx.Err() != nil {
		return // lost the lead: the next leader redoes it
	}
	if errors.Is(err, blobstore.ErrUnavailable) {
		// The object store is away: not the merge's fault. Wait for it.
		l.retryAt[task] = time.Now().Add(2 * time.Second)
		n.log.Warn("merge waits for the object store", "run", task.Run, "task", task.Kind, "tier", task.Tier, "error", err)
		return
	}
	if diskFull(err) {
		// Not the task's failure: this node's disk. Another coordinator
		// leads and redoes it.
		n.diskIsFull(err)
		l.retryAt[task] = time.Now().Add(time.Second)
		return
	}
	l.failures[task]++
	l.retryAt[task] = time.Now().Add(time.Duration(l.failures[task]) * time.Second)
	n.log.Error("merge failed", "run", task.Run, "task", task.Kind, "tier", task.Tier, "attempt", l.failures[task], "error", err)
	if l.failures[task] >= maxFailures {
		msg := fmt.Sprintf("%s of tier %d failed %d times: %v", task.Kind, task.Tier, l.failures[task], err)
		if _, err := n.propose(&command{Op: opFinish, Finish: &finishCmd{Run: task.Run, Time: time.Now().UTC(), Error: msg}}); err != nil {
			n.log.Warn("failing the run", "run", task.Run, "error", err)
		}
	}
}

// taskInputs is what a leader task reads, copied out of the state.
type taskInputs struct {
	run   Run
	tier  Tier
	blobs []Blob
	solve []*Unit
	start *Tier // the start tier, for taskFinish
}

func (n *Node) doTask(ctx context.Context, task leaderTask, pre *premerger) error {
	var in taskInputs
	var g tiergame.Game
	var err error
	n.fsm.View(func(s *State, _ uint64) {
		r := s.run(task.Run)
		if r == nil {
			err = fmt.Errorf("no run %s", task.Run)
			return
		}
		in.run = *r
		if t := r.tier(task.Tier); t != nil {
			in.tier = *t
			in.blobs = r.levelInputs(t)
			in.solve = slices.Clone(t.Solve)
		}
		g, err = n.games.get(r.Game, r.Option, r.Settings.Symmetry)
		if err != nil {
			return
		}
		st, _ := g.Start()
		in.start = r.tier(uint64(st))
	})
	if err != nil {
		return err
	}
	switch task.Kind {
	case taskLevel:
		return n.mergeLevel(ctx, g, in, pre)
	case taskDB:
		return n.mergeDB(ctx, g, in)
	case taskFinish:
		return n.finishRun(ctx, g, in)
	}
	return fmt.Errorf("unknown task %q", task.Kind)
}

// mergeLevel merges a tier's partial level files, cuts the tier into
// ranges and records the cut, so its units start (they merge the same
// partials themselves); then it writes the full level file (all four
// types, the smallest kept: the same code and options as tierd solve),
// stores it on a majority of the coordinators and records it. The file is
// off the path from tier to tier: only the tier's solving needs it.
func (n *Node) mergeLevel(ctx context.Context, g tiergame.Game, in taskInputs, pre *premerger) error {
	t := tiergame.Tier(in.tier.Tier)
	blobs := in.blobs
	set, merged := pre.take(in.run.ID, in.tier.Tier)
	if set != nil && !namesAll(blobs, merged) {
		set = nil // it holds a partial whose completion failed (premerger.early)
	}
	if set != nil {
		blobs = slices.DeleteFunc(slices.Clone(blobs), func(b Blob) bool { return merged[b.SHA256] })
	}
	paths, err := n.localPaths(ctx, blobs)
	if err != nil {
		return err
	}
	switch {
	case in.run.Exhaustive:
		if set, err = solver.FullTier(ctx, g, t, n.cfg.Workers); err != nil {
			return err
		}
	case set != nil:
		if err := levelfile.MergeInto(ctx, set, paths, &levelfile.MergeOptions{Workers: n.cfg.Workers}); err != nil {
			return fmt.Errorf("tier %d: %w", t, err)
		}
	default:
		if set, err = solver.MergeTier(ctx, g, t, paths, n.cfg.Workers); err != nil {
			return err
		}
	}
	lv := Level{Reachable: set.Count()}
	if in.tier.Level != nil {
		// Cut before (by this leader or an earlier one): the ranges stay.
		if in.tier.Level.Reachable != lv.Reachable {
			return fmt.Errorf("tier %d: %d positions merged, %d when it was cut", t, lv.Reachable, in.tier.Level.Reachable)
		}
		lv.Ranges, lv.Expand = in.tier.Level.Ranges, in.tier.Level.Expand
	} else {
		if lv.Reachable > 0 {
			lv.Ranges, lv.Expand = cut(set, in.run.Settings, n.workers.threads(time.Now(), 2*n.cfg.LeaseTTL))
		}
		if _, err := n.propose(&command{Op: opLevel, Level: &levelCmd{Run: in.run.ID, Tier: in.tier.Tier, Level: lv}}); err != nil {
			return err
		}
	}
	blob, res, err := n.storeFile(func(path string) (any, error) {
		return solver.WriteLevel(path, g, set, levelfile.WriteOptions{Level: in.run.Settings.Level, Workers: n.cfg.Workers, NoSync: true})
	})
	if err != nil {
		return err
	}
	if err := n.replicate(ctx, []Blob{blob}); err != nil {
		return err
	}
	lv.Blob, lv.Type = blob, int(res.(levelfile.Result).Header.Type)
	_, err = n.propose(&command{Op: opLevel, Level: &levelCmd{Run: in.run.ID, Tier: in.tier.Tier, Level: lv}})
	return err
}

// namesAll reports whether every name in names is one of blobs'.
func namesAll(blobs []Blob, names map[string]bool) bool {
	in := make(map[string]bool, len(blobs))
	for _, b := range blobs {
		in[b.SHA256] = true
	}
	for name := range names {
		if !in[name] {
			return false
		}
	}
	return true
}

// mergeDB joins a tier's range records, in rank order, into its value
// database (the bytes of tierd solve's), stores it on a majority of the
// coordinators and records it. The units wrote their records in the
// database's own blocks (their ranges are cut at whole blocks), so the
// blocks are copied (solver.ConcatDB); records that do not line up (a
// tier cut before the cut was aligned) and probabilities are decoded and
// written again, with the same writer and options as tierd solve.
func (n *Node) mergeDB(ctx context.Context, g tiergame.Game, in taskInputs) error {
	t := tiergame.Tier(in.tier.Tier)
	count := in.tier.Level.Reachable
	paths := make([]string, len(in.solve))
	for i, u := range in.solve {
		p, err := n.localPaths(ctx, []Blob{u.Done.Outputs[0].Blob})
		if err != nil {
			return err
		}
		paths[i] = p[0]
	}
	// The units' results in rank order, decoded into one slice by read.
	each := func(read func(off uint64, path string) (uint64, error)) error {
		off := uint64(0)
		for i, p := range paths {
			var err error
			if off, err = read(off, p); err != nil {
				return fmt.Errorf("unit %d: %w", i, err)
			}
		}
		if off != count {
			return fmt.Errorf("%d results for the tier's %d positions", off, count)
		}
		return nil
	}
	var write func(path string) (any, error)
	var planes *Blob // a chance game's database of planes
	if in.run.Chance {
		width := uint64(1 + tiergame.PlaneCount(g))
		results := make([]tiergame.Prob, width*count)
		if err := each(func(off uint64, path string) (uint64, error) {
			off, err := readChanceInto(results, width*off, path, g, t, n.cfg.Workers)
			return off / width, err
		}); err != nil {
			return err
		}
		vals, pl := splitChance(results, width)
		if pl != nil {
			blob, _, err := n.storeFile(func(path string) (any, error) {
				return solver.WritePlanesDB(path, g, t, pl, &valuedb.WriteOptions{Workers: n.cfg.Workers, NoSync: true})
			})
			if err != nil {
				return err
			}
			if err := n.replicate(ctx, []Blob{blob}); err != nil {
				return err
			}
			planes = &blob
		}
		write = func(path string) (any, error) {
			return solver.WriteProbDB(path, g, t, vals, &valuedb.WriteOptions{Workers: n.cfg.Workers, NoSync: true})
		}
	} else {
		write = func(path string) (any, error) {
			h, err := solver.ConcatDB(path, g, t, paths, &valuedb.WriteOptions{NoSync: true})
			if err == nil && h.Count != count {
				return nil, fmt.Errorf("%d records for the tier's %d positions", h.Count, count)
			}
			if !errors.Is(err, valuedb.ErrUnaligned) {
				return h, err
			}
			n.log.Debug("a tier's records are decoded and written again", "run", in.run.ID, "tier", t, "reason", err)
			recs := make([]valuedb.Record, count)
			if err := each(func(off uint64, path string) (uint64, error) {
				return readRecordsInto(recs, off, path, g, t, n.cfg.Workers)
			}); err != nil {
				return nil, err
			}
			return solver.WriteDB(path, g, t, recs, &valuedb.WriteOptions{Workers: n.cfg.Workers, NoSync: true})
		}
	}
	blob, res, err := n.storeFile(write)
	if err != nil {
		return err
	}
	if err := n.replicate(ctx, []Blob{blob}); err != nil {
		return err
	}
	h := res.(valuedb.Header)
	_, err = n.propose(&command{Op: opDB, DB: &dbCmd{Run: in.run.ID, Tier: in.tier.Tier,
		DB: DB{Blob: blob, Planes: planes, Win: h.Win, Lose: h.Lose, Tie: h.Tie, Draw: h.Draw}}})
	return err
}

// rangeCount is how many ranges a tier of reachable positions is cut
// into, perThread for each of threads worker threads known (see
// Settings).
func rangeCount(set Settings, perThread int, reachable uint64, threads int) int {
	n := uint64(max(threads, 1) * perThread)
	n = min(n, uint64(set.MaxRanges), reachable/max(set.MinRange, 1))
	return int(max(n, 1))
}

// cut cuts a tier's set into the ranges of its solve units (shrinking,
// at whole blocks of its database) and, if the settings cut its
// expansion apart and that gives other ranges, those of its expand units:
// of equal sizes with one per thread (the workers then finish together),
// else shrinking.
func cut(set *bitarray.Set, settings Settings, threads int) (solve, expand []solver.Range) {
	ranked := bitarray.NewRanked(set)
	reachable := ranked.Total()
	count := rangeCount(settings, settings.RangesPerThread, reachable, threads)
	solve = solver.SplitShrinkingAligned(ranked, count, cutAlign(reachable, count))
	per := settings.ExpandRangesPerThread
	if per == 0 {
		return solve, nil
	}
	n := rangeCount(settings, per, reachable, threads)
	if per == 1 {
		expand = solver.SplitRanges(ranked, n)
	} else {
		expand = solver.SplitShrinking(ranked, n)
	}
	if slices.Equal(expand, solve) {
		return solve, nil
	}
	return solve, expand
}

// cutAlign is the multiple of ranks a tier of reachable positions is cut
// at into count ranges: whole blocks of its value database, so that
// mergeDB joins the ranges' records by copying their blocks, unless the
// ranges would hold fewer than two blocks on average (a cut moves by up
// to half a block, which would upset the shrinking sizes of small
// ranges; the records of such small tiers are decoded and written again,
// at little cost).
func cutAlign(reachable uint64, count int) uint64 {
	if reachable < 2*valuedb.DefaultBlockRecords*uint64(max(count, 1)) {
		return 1
	}
	return valuedb.DefaultBlockRecords
}

// readRecordsInto decodes the records of a unit's (or a tier's) value
// database into recs from off, checking it is for tier t of g and fits,
// and returns the offset after them.
func readRecordsInto(recs []valuedb.Record, off uint64, path string, g tiergame.Game, t tiergame.Tier, workers int) (uint64, error) {
	db, err := openTierDB(path, g, t)
	if err != nil {
		return off, err
	}
	defer db.Close()
	n := db.Header().Count
	if n > uint64(len(recs))-off {
		return off, fmt.Errorf("%s: %d records, more than the tier's %d positions", path, n, len(recs))
	}
	return off + n, db.ReadAllInto(recs[off:off+n], workers)
}

// finishRun looks up the start position's value and records the run done.
func (n *Node) finishRun(ctx context.Context, g tiergame.Game, in taskInputs) error {
	st := in.start
	if st == nil || st.Level == nil || st.DB == nil {
		return errors.New("the start tier is not solved")
	}
	paths, err := n.localPaths(ctx, []Blob{st.Level.Blob, st.DB.Blob})
	if err != nil {
		return err
	}
	start, err := startRecord(g, in.run.Chance, tiergame.Tier(st.Tier), paths[0], paths[1], n.cfg.Workers)
	if err != nil {
		return err
	}
	_, err = n.propose(&command{Op: opFinish, Finish: &finishCmd{Run: in.run.ID, Time: time.Now().UTC(), Start: start}})
	if err == nil {
		n.metrics.runsDone.Inc()
		n.log.Info("run done", "run", in.run.ID, "game", in.run.Game, "option", in.run.Option,
			"start", start.Value, "remoteness", start.Remoteness, "seconds", time.Since(in.run.Created).Seconds())
	}
	return err
}

// startRecord is the start position's value, from its tier's files.
func startRecord(g tiergame.Game, chance bool, t tiergame.Tier, levelPath, dbPath string, workers int) (*solver.StartRecord, error) {
	if chance {
		ct, err := solver.LoadChanceFiles(g, t, levelPath, dbPath, "", workers) // the start's probability only
		if err != nil {
			return nil, err
		}
		if start := solver.ChanceStartRecord(g, ct); start != nil {
			return start, nil
		}
		return nil, errors.New("the start position is not in its tier's level file")
	}
	solved, err := solver.LoadSolvedTier(g, t, levelPath, dbPath, workers)
	if err != nil {
		return nil, err
	}
	defer solved.Free()
	return solver.NewStartRecord(g, solved)
}

// storeFile has write create a file (at the path it is given, atomically,
// not synced: replicate syncs), then adopts it into the blob store under
// its SHA-256.
func (n *Node) storeFile(write func(path string) (any, error)) (Blob, any, error) {
	dir, err := n.store.TempDir()
	if err != nil {
		return Blob{}, nil, err
	}
	f, err := os.CreateTemp(dir, "merge-*")
	if err != nil {
		return Blob{}, nil, err
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	res, err := write(path)
	if err != nil {
		return Blob{}, nil, err
	}
	sum, size, err := blobstore.HashFile(path)
	if err != nil {
		return Blob{}, nil, err
	}
	if err := n.store.Adopt(path, sum); err != nil {
		return Blob{}, nil, err
	}
	return Blob{SHA256: sum, Size: size}, res, nil
}

// localPaths returns the files of blobs in the local store, fetching from
// the other coordinators those it misses.
func (n *Node) localPaths(ctx context.Context, blobs []Blob) ([]string, error) {
	paths := make([]string, len(blobs))
	for i, b := range blobs {
		if err := n.ensureLocal(ctx, b); err != nil {
			return nil, err
		}
		paths[i] = n.store.Path(b.SHA256)
	}
	return paths, nil
}

// freeUnits yields the units that could be leased now to any worker, in
// the order they are leased (freeUnitsFor).
func freeUnits(s *State, games []string) iter.Seq[UnitRef] { return freeUnitsFor(s, games, "", nil) }

// freeUnitsFor yields the units that could be leased now to worker (with
// "", to any): the oldest run first; reach units parents first, then
// solve units children first, among them those the worker may take
// provisionally (Run.readyFor) if it holds, in memory, the child units
// they read (holding: tokens the worker says it holds). With games, only
// units of runs of those games.
func freeUnitsFor(s *State, games []string, worker string, holding []uint64) iter.Seq[UnitRef] {
	return func(yield func(UnitRef) bool) {
		free := func(r *Run, t *Tier, phase Phase, us []*Unit) bool {
			for i, u := range us {
				if u.Lease == nil && u.Done == nil && !yield(UnitRef{r.ID, t.Tier, phase, i}) {
					return false
				}
			}
			return true
		}
		for _, r := range s.Runs {
			if r.State != Running || len(games) > 0 && !slices.Contains(games, r.Game) {
				continue
			}
			for _, t := range r.Tiers {
				if !free(r, t, PhaseReach, t.Reach) {
					return
				}
			}
			for k := len(r.Tiers) - 1; k >= 0; k-- {
				t := r.Tiers[k]
				ready := r.readyFor(t, "") || worker != "" && r.readyFor(t, worker) && r.childUnitsIn(t, holding)
				if t.Solve != nil && ready && !free(r, t, PhaseSolve, t.Solve) {
					return
				}
			}
		}
	}
}

// pickUnit chooses the next unit of games to lease to worker, which holds
// the units of tokens holding (any game if games is empty); it returns
// false if there is none.
func pickUnit(s *State, games []string, worker string, holding []uint64) (UnitRef, bool) {
	for ref := range freeUnitsFor(s, games, worker, holding) {
		return ref, true
	}
	return UnitRef{}, false
}

// countFree counts the units that could be leased now.
func countFree(s *State) int {
	n := 0
	for range freeUnits(s, nil) {
		n++
	}
	return n
}

// grant leases the next unit of one of games (any game if games is empty)
// to a worker, which holds the units of tokens holding, or returns nil if
// there is no work now, or if granting it would leave fewer than keepFree
// units free.
func (n *Node) grant(worker string, keepFree int, games []string, holding []uint64) (*Assignment, error) {
	n.grantMu.Lock()
	defer n.grantMu.Unlock()
	for {
		var ref UnitRef
		var ok bool
		n.fsm.View(func(s *State, _ uint64) {
			ref, ok = pickUnit(s, games, worker, holding)
			// A unit only this worker may take (provisionally) leaves the
			// others' free units as they were.
			ok = ok && (keepFree == 0 || countFree(s) > keepFree || !s.readyForAny(ref))
		})
		if !ok {
			return nil, nil
		}
		res, err := n.propose(&command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: worker}})
		if errors.Is(err, ErrUnavailable) || errors.Is(err, ErrNotRunning) {
			continue // the state moved on between the pick and the grant
		}
		if err != nil {
			return nil, err
		}
		token := res.(uint64)
		n.leases.start(time.Now(), token)
		n.metrics.leasesGranted.Inc()
		var a *Assignment
		n.fsm.View(func(s *State, _ uint64) { a = assignment(s, ref, token) })
		if a == nil {
			continue
		}
		a.LeaseTTL = n.cfg.LeaseTTL.Seconds()
		a.Direct = n.remote != nil
		return a, nil
	}
}

// assignment describes a leased unit to its worker, with its inputs.
func assignment(s *State, ref UnitRef, token uint64) *Assignment {
	r, t, u := s.unit(ref)
	if u == nil || u.Lease == nil || u.Lease.Token != token {
		return nil
	}
	a := &Assignment{Ref: ref, Token: token, Kind: u.Kind, Lo: u.Lo, Hi: u.Hi, Game: r.Game, Option: r.Option,
		Loopy: t.Loopy, Symmetry: r.Settings.Symmetry, Children: t.Children, Set: r.setKey(t), Live: r.liveTiers()}
	switch u.Kind {
	case Expand:
		if t.written() {
			a.Level = &t.Level.Blob
		} else {
			a.Partials = r.levelInputs(t)
		}
	case Close:
		a.Partials = r.closeInputs(t)
	case SolveRange, SolveTier:
		a.Level = &t.Level.Blob
		for _, c := range t.Children {
			ct := r.tier(c)
			k := KidInput{Tier: c, Level: ct.Level.Blob, Set: r.setKey(ct)}
			if allDone(ct.Solve) {
				k.DB, k.Records = ct.records()
				if ct.DB != nil {
					k.Planes = ct.DB.Planes
				}
			} else { // leased provisionally: one place per unit
				for i, cu := range ct.Solve {
					if cu.Done != nil {
						k.Records = append(k.Records, outputsFor([]*Unit{cu}, c)...)
						continue
					}
					k.Records = append(k.Records, Blob{})
					k.Mine = append(k.Mine, MineUnit{Ref: UnitRef{r.ID, c, PhaseSolve, i}, Token: cu.Lease.Token, Lo: cu.Lo, Hi: cu.Hi})
				}
			}
			a.Kids = append(a.Kids, k)
		}
	}
	return a
}

// complete accepts a worker's result: its outputs must be in the store
// (fetched from the coordinators it was sent to if not here) and on a
// majority of the coordinators before the completion is proposed. A
// result whose lease is not current is refused and its outputs are
// discarded.
func (n *Node) complete(ctx context.Context, req *CompleteRequest) error {
	var current, done bool
	var valid bool
	n.fsm.View(func(s *State, _ uint64) {
		_, t, u := s.unit(req.Ref)
		if u == nil {
			return
		}
		current = u.Lease != nil && u.Lease.Token == req.Token
		done = u.Done != nil && u.Done.Token == req.Token
		valid = validOutputs(t, u, req.Outputs)
	})
	switch {
	case done:
		return nil // a retried report
	case !current:
		n.metrics.completionsRefused.Inc()
		n.discard(req.Outputs)
		n.log.Warn("refused a stale completion", "worker", req.Worker, "run", req.Ref.Run, "tier", req.Ref.Tier,
			"phase", req.Ref.Phase, "unit", req.Ref.Index, "token", req.Token)
		return fmt.Errorf("%v token %d: %w", req.Ref, req.Token, ErrStale)
	case !valid:
		return fmt.Errorf("%v: %w", req.Ref, ErrBadOutputs)
	}
	blobs := make([]Blob, len(req.Outputs))
	for i, o := range req.Outputs {
		blobs[i] = o.Blob
	}
	if err := n.acknowledged(ctx, blobs); err != nil {
		return err
	}
	if pre := n.premerge.Load(); pre != nil {
		n.fsm.View(func(s *State, _ uint64) { pre.early(s, req.Ref, req.Outputs) })
	}
	if n.remote == nil {
		if err := n.replicate(ctx, blobs); err != nil {
			return err
		}
	}
	if err := n.awaitCompletable(ctx, req.Ref); err != nil {
		return err
	}
	_, err := n.propose(&command{Op: opComplete, Complete: &completeCmd{Ref: req.Ref, Done: Completion{
		Worker: req.Worker, Token: req.Token, Outputs: req.Outputs, Positions: req.Positions, Seconds: req.Seconds}}})
	if errors.Is(err, ErrStale) {
		n.metrics.completionsRefused.Inc()
		n.discard(req.Outputs)
	}
	if err != nil {
		return err
	}
	n.leases.forget(req.Token)
	n.workers.completed(req.Worker, req.Positions)
	n.metrics.completions.Inc()
	n.metrics.positions.Add(float64(req.Positions))
	return nil
}

// awaitCompletable returns once a unit's completion may be recorded: a
// unit leased provisionally waits for the units it read to be (their
// completions are on their way from the same worker, which sends this one
// after them). It waits at most twice a lease's time to live, well within
// a client's attempt, then answers ErrNotReady (425): the worker asks
// again.
func (n *Node) awaitCompletable(ctx context.Context, ref UnitRef) error {
	if ref.Phase != PhaseSolve {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*n.cfg.LeaseTTL)
	defer cancel()
	for {
		changed := n.fsm.Changed()
		ready := true
		n.fsm.View(func(s *State, _ uint64) {
			if r, t, u := s.unit(ref); u != nil && r.State == Running {
				ready = r.childrenSolved(t)
			}
		})
		if ready {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%v: %w", ref, ErrNotReady)
		case <-n.ctx.Done():
			return fmt.Errorf("%v: %w", ref, ErrNotReady)
		}
	}
}

// acknowledged returns once the store holds a unit's outputs: with an
// object store, by the store's own SHA-256 of each (blobstore.S3.Verify,
// a HEAD); else in this node's store, fetched from the coordinator the
// worker sent it to if need be (complete then copies them to a
// majority). Outputs the store does not hold are a *MissingError, which
// the worker answers by uploading them again.
func (n *Node) acknowledged(ctx context.Context, blobs []Blob) error {
	var missing []string
	for _, b := range blobs {
		var err error
		if n.remote != nil {
			err = n.remote.Verify(ctx, b.SHA256, b.Size)
			if errors.Is(err, blobstore.ErrUnavailable) {
				return err
			}
		} else {
			err = n.ensureLocal(ctx, b)
		}
		if err != nil {
			n.log.Debug("an output is not in the store", "sha256", b.SHA256, "error", err)
			missing = append(missing, b.SHA256)
		}
	}
	if len(missing) > 0 {
		return &MissingError{Missing: missing}
	}
	return nil
}

// release ends a lease its worker gave up (failed, or shutting down).
func (n *Node) release(req *ReleaseRequest) error {
	_, err := n.propose(&command{Op: opRelease, Release: &releaseCmd{Ref: req.Ref, Token: req.Token, Error: req.Error}})
	n.leases.forget(req.Token)
	if req.Error != "" {
		n.log.Warn("a unit failed", "worker", req.Worker, "run", req.Ref.Run, "tier", req.Ref.Tier,
			"phase", req.Ref.Phase, "unit", req.Ref.Index, "error", req.Error)
	}
	return err
}

// discard deletes the outputs of a refused completion, unless the state
// refers to them (a blob is named by its content: the unit's accepted
// result may be the same bytes).
func (n *Node) discard(outs []Output) {
	var live map[string]int64
	n.fsm.View(func(s *State, _ uint64) { live = s.liveBlobs() })
	for _, o := range outs {
		if _, ok := live[o.Blob.SHA256]; !ok && blobstore.ValidName(o.Blob.SHA256) {
			n.store.Delete(o.Blob.SHA256)
			if n.remote != nil {
				n.remote.Delete(o.Blob.SHA256)
			}
		}
	}
}
