package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// WorkerConfig configures a worker.
type WorkerConfig struct {
	Client *Client
	// ID names the worker to the coordinators (default: host-pid).
	ID string
	// Threads is how many units run at once; a whole-tier unit (a loopy
	// tier) uses them all. 0 means GOMAXPROCS.
	Threads int
	// Dir caches the inputs, by SHA-256, and holds outputs until they are
	// accepted. Nothing in it matters: a worker can be killed and its
	// folder removed at any time.
	Dir string
	// CacheBytes bounds the inputs kept on disk, MemoryBytes those kept
	// loaded in memory (tier sets, solved child tiers); 0 means 8 GiB and
	// half the machine's memory.
	CacheBytes, MemoryBytes int64
	// NewGame builds a game from its name and options (games.New).
	NewGame func(name, option string) (tiergame.Game, error)
	// Games are the names of the games NewGame builds (games.Registry's
	// Names): the worker asks only for units of their runs, and refuses
	// a unit of another game. Empty: the worker does not say, and is
	// leased units of any game.
	Games []string
	// CompressPartials writes partial level files compressed (gzip level
	// 1) instead of stored. Stored partials are larger (Connect Four's
	// 2.6 times) but cost no CPU to write and little to read, where the
	// leader and every other worker of the next tier decode each of them:
	// compress them when the links between the machines, or the object
	// store, cost more than the CPU. Either is a valid level file.
	CompressPartials bool
	// Log receives the worker's records (nil: discarded).
	Log *slog.Logger
}

// Worker leases units of work from the coordinators and runs them with the
// solver's unit-of-work functions, the same the embedded run calls.
type Worker struct {
	cfg    WorkerConfig
	log    *slog.Logger
	client *Client
	disk   *diskCache
	mem    *memCache
	sem    *semaphore.Weighted

	mu     sync.Mutex
	active map[uint64]*activeUnit // by lease token
	ttl    time.Duration          // the lease TTL the leader announced
	// progress tells, by lease token, whether the range units this
	// worker was leased and has not reported yet have computed their
	// records: a unit leased provisionally reads them (KidInput.Mine).
	progress map[uint64]*unitProgress

	games *gameCache

	// Units and Positions count the work done, for tests and logs;
	// Provisional the units that read results of this worker's not yet
	// recorded (KidInput.Mine).
	Units, Positions, Provisional atomic.Uint64
}

type activeUnit struct {
	cancel context.CancelFunc
	lost   atomic.Bool
}

// unitProgress is whether a range unit leased to this worker has
// computed its records (ok, and recs, the window of the tier's records
// they are), once done is closed.
type unitProgress struct {
	once sync.Once
	ok   bool
	recs []valuedb.Record
	done chan struct{}
	// reported is closed once the unit's report is over (accepted or
	// not): a unit that read its records reports after it.
	reported chan struct{}
}

// finish records the unit's results computed (ok) or not; the first call
// counts.
func (p *unitProgress) finish(ok bool) {
	p.once.Do(func() {
		p.ok = ok
		close(p.done)
	})
}

// errNotMine: a unit leased provisionally whose inputs this worker was to
// compute itself, and did not (they failed, their lease was lost, or
// their records are no longer in memory). It is given back, not failed.
var errNotMine = errors.New("the results this unit reads provisionally are not this worker's")

// awaitMine waits until the units whose records a unit reads in place
// (kids' Mine) have computed them, and reports errNotMine if one did
// not, or was not leased to this worker.
func (w *Worker) awaitMine(ctx context.Context, kids []KidInput) error {
	for _, k := range kids {
		if len(k.Mine) > 0 {
			w.Provisional.Add(1)
		}
		for _, m := range k.Mine {
			w.mu.Lock()
			p := w.progress[m.Token]
			w.mu.Unlock()
			if p == nil {
				return fmt.Errorf("%v token %d: %w", m.Ref, m.Token, errNotMine)
			}
			select {
			case <-p.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			if !p.ok || p.recs == nil {
				return fmt.Errorf("%v token %d: %w", m.Ref, m.Token, errNotMine)
			}
		}
	}
	return nil
}

// computedRecords keeps the records range unit token computed, for the
// units leased provisionally that read them (KidInput.Mine): they take
// them from here whether or not the tier's slice they were computed in
// is still in the memory cache.
func (w *Worker) computedRecords(token uint64, recs []valuedb.Record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p := w.progress[token]; p != nil {
		p.recs = recs // before its done closes (finish)
	}
}

// mineReported lists, for a unit leased provisionally, when the units it
// read will have reported: it reports after them (report's before).
func (w *Worker) mineReported(a *Assignment) []<-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []<-chan struct{}
	for _, k := range a.Kids {
		for _, m := range k.Mine {
			if p := w.progress[m.Token]; p != nil {
				out = append(out, p.reported)
			}
		}
	}
	return out
}

// holding lists the tokens of the range units whose records this worker
// holds in memory or is computing, not reported yet (LeaseRequest.Holding):
// the units a unit leased provisionally may read.
func (w *Worker) holding() []uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	var tokens []uint64
	for token, p := range w.progress {
		select {
		case <-p.done:
			if !p.ok {
				continue
			}
		default:
		}
		tokens = append(tokens, token)
	}
	return tokens
}

// NewWorker prepares a worker; Run starts it.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Client == nil || cfg.NewGame == nil || cfg.Dir == "" {
		return nil, errors.New("cluster: a worker needs a client, NewGame and a folder")
	}
	if cfg.Threads <= 0 {
		cfg.Threads = runtime.GOMAXPROCS(0)
	}
	if cfg.ID == "" {
		host, _ := os.Hostname()
		cfg.ID = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 8 << 30
	}
	if cfg.MemoryBytes <= 0 {
		cfg.MemoryBytes = int64(solver.DefaultMemory() / 2)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	store, err := blobstore.OpenDir(filepath.Join(cfg.Dir, "cache"), 0)
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, log: cfg.Log.With("worker", cfg.ID), client: cfg.Client,
		sem: semaphore.NewWeighted(int64(cfg.Threads)), active: map[uint64]*activeUnit{}, progress: map[uint64]*unitProgress{},
		ttl: DefaultLeaseTTL, games: newGameCache(cfg.NewGame)}
	w.disk = newDiskCache(store, cfg.Client, cfg.CacheBytes)
	w.mem = newMemCache(cfg.MemoryBytes)
	return w, nil
}

// ID is the worker's name.
func (w *Worker) ID() string { return w.cfg.ID }

// Run leases and runs units until ctx is cancelled. Units under way when
// it stops are given back.
func (w *Worker) Run(ctx context.Context) error {
	w.log.Info("worker started", "threads", w.cfg.Threads)
	hbCtx, stopHB := context.WithCancel(context.Background())
	defer stopHB()
	go w.heartbeats(hbCtx)
	var running sync.WaitGroup
	defer running.Wait()
	// A unit's report overlaps the next units' work; pending bounds the
	// units leased and not yet reported.
	pending := make(chan struct{}, 2*w.cfg.Threads)
	for {
		select {
		case pending <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		a, held, err := w.lease(ctx)
		if errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrForbidden) {
			w.sem.Release(held)
			<-pending
			return err
		}
		if err != nil || a == nil {
			w.sem.Release(held)
			<-pending
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				w.log.Warn("no lease", "error", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		if len(w.cfg.Games) > 0 && !slices.Contains(w.cfg.Games, a.Game) {
			// A coordinator that ignores LeaseRequest.Games: give the unit
			// back at once (not as a failure of the unit: another worker
			// may have the game) rather than fail it later.
			w.log.Error("refused a unit of a game this worker does not have", "run", a.Ref.Run, "game", a.Game,
				"worker_games", strings.Join(w.cfg.Games, ","))
			w.giveBack(a, "")
			w.sem.Release(held)
			<-pending
			sleep(ctx, time.Second)
			continue
		}
		weight := int64(1)
		if a.Kind == Close || a.Kind == SolveTier {
			weight = int64(w.cfg.Threads) // a whole-tier unit uses every thread
		}
		if held < weight {
			// It takes all its threads at once, when they are free: a unit
			// holding some while it waits for others could wait forever
			// for another unit that does the same.
			w.sem.Release(held)
			held = 0
		}
		uctx, cancel := context.WithCancel(ctx)
		au := &activeUnit{cancel: cancel}
		prog := &unitProgress{done: make(chan struct{}), reported: make(chan struct{})}
		w.mu.Lock()
		w.active[a.Token] = au
		if a.Kind == SolveRange {
			w.progress[a.Token] = prog
		}
		if a.LeaseTTL > 0 && time.Duration(a.LeaseTTL*float64(time.Second)) != w.ttl {
			// A coordinator that cannot answer within a lease's time to
			// live has lost the lease anyway: try the others.
			w.ttl = time.Duration(a.LeaseTTL * float64(time.Second))
			w.client.SetAttemptTimeout(w.ttl)
		}
		w.mu.Unlock()
		running.Add(1)
		started := make(chan struct{})
		go func() {
			defer running.Done()
			defer func() { <-pending }()
			defer func() {
				// Reported (or dropped): the state now names its records,
				// or another lease will compute them.
				w.mu.Lock()
				delete(w.progress, a.Token)
				w.mu.Unlock()
				close(prog.reported)
			}()
			defer prog.finish(false) // unless computed
			defer func() {
				w.mu.Lock()
				delete(w.active, a.Token)
				w.mu.Unlock()
				cancel()
			}()
			// A spare or a whole-tier unit waits for its threads (its
			// lease is renewed meanwhile).
			if held == 0 {
				err := w.sem.Acquire(uctx, weight)
				close(started)
				if err != nil {
					if au.lost.Load() {
						w.unitLog(a).Warn("lease lost before its unit started: unit dropped")
					} else {
						w.giveBack(a, "")
					}
					return
				}
			}
			w.runUnit(uctx, ctx, a, au, prog, func() { w.sem.Release(weight) })
		}()
		if held == 0 {
			// Lease again once it runs: a lease asked for meanwhile
			// could hold a thread it waits for.
			<-started
		}
	}
}

// lease asks the leader for a unit. With a thread free it holds one
// (held = 1) and asks as usual, waiting for work to appear; with every
// thread busy it asks for a spare (held = 0): a unit to start as soon as
// a thread frees, so that no thread waits for a lease between units. The
// leader grants a spare only while enough units stay free for the other
// workers' threads; when it has none to spare, lease waits for a thread
// and asks as usual.
func (w *Worker) lease(ctx context.Context) (a *Assignment, held int64, err error) {
	req := LeaseRequest{Worker: w.cfg.ID, Threads: w.cfg.Threads, Wait: 10, Games: w.cfg.Games, Holding: w.holding()}
	if !w.sem.TryAcquire(1) {
		spare := req
		spare.Wait, spare.Spare = 0, true
		if a, err := w.client.Lease(ctx, spare); a != nil || err != nil {
			return a, 0, err
		}
		if err := w.sem.Acquire(ctx, 1); err != nil {
			return nil, 0, nil // stopping
		}
		req.Holding = w.holding() // as it is now
	}
	a, err = w.client.Lease(ctx, req)
	return a, 1, err
}

// unitLog is the worker's log for the records of unit a.
func (w *Worker) unitLog(a *Assignment) *slog.Logger {
	return w.log.With("run", a.Ref.Run, "tier", a.Ref.Tier, "kind", a.Kind, "unit", a.Ref.Index, "token", a.Token)
}

// runUnit runs a leased unit and reports it; a unit whose lease was lost
// is dropped, one that failed is given back with its error. It calls
// free once the unit's threads are free: the report overlaps the next
// unit's work; prog learns when its results are computed.
func (w *Worker) runUnit(ctx, parent context.Context, a *Assignment, au *activeUnit, prog *unitProgress, free func()) {
	t0 := time.Now()
	log := w.unitLog(a)
	var once sync.Once
	var computeSecs float64
	computed := func() {
		once.Do(func() {
			computeSecs = time.Since(t0).Seconds()
			free()
		})
	}
	outs, files, positions, err := w.execute(ctx, a, func() {
		prog.finish(true) // its results are in memory: units leased provisionally may read them
		computed()
	})
	computed()
	defer func() {
		for _, f := range files {
			os.Remove(f)
		}
	}()
	switch {
	case au.lost.Load():
		log.Warn("lease lost: unit dropped")
		return
	case parent.Err() != nil:
		w.giveBack(a, "")
		return
	case errors.Is(err, errNotMine):
		log.Info("gave back a unit leased provisionally", "why", err)
		w.giveBack(a, "")
		return
	case err != nil:
		log.Error("unit failed", "error", err)
		w.giveBack(a, err.Error())
		return
	}
	secs := time.Since(t0).Seconds()
	req := CompleteRequest{Ref: a.Ref, Token: a.Token, Worker: w.cfg.ID, Outputs: outs, Positions: positions, Seconds: secs}
	t1 := time.Now()
	if err := w.report(ctx, req, files, a.Direct, w.mineReported(a)); err != nil {
		switch {
		case au.lost.Load():
			// The heartbeat learnt of it while the result was on its way.
			log.Warn("lease lost while reporting: result dropped", "error", err)
		case parent.Err() == nil:
			log.Warn("result not accepted", "error", err)
		}
		return
	}
	// Keep the outputs as inputs: the records of a range are read again
	// when this worker solves the tier's parents.
	for i, o := range outs {
		w.disk.adopt(files[i], o.Blob)
	}
	w.Units.Add(1)
	w.Positions.Add(positions)
	log.Info("unit done", "positions", positions, "seconds", secs, "positions_per_second", float64(positions)/secs,
		"compute_seconds", computeSecs, "report_seconds", time.Since(t1).Seconds())
}

// report uploads a unit's outputs and reports it complete, uploading
// again what the leader says it cannot find, until the leader accepts,
// refuses as stale, or the lease is lost. With direct, the outputs go to
// the object store, with the presigned PUTs the leader hands out.
func (w *Worker) report(ctx context.Context, req CompleteRequest, files []string, direct bool, before []<-chan struct{}) error {
	upload := func(only map[string]bool) error {
		var todo []Blob
		var paths []string
		for i, o := range req.Outputs {
			if only == nil || only[o.Blob.SHA256] {
				todo, paths = append(todo, o.Blob), append(paths, files[i])
			}
		}
		if !direct {
			for i, b := range todo {
				if err := w.client.PutBlob(ctx, paths[i], b); err != nil {
					return err
				}
			}
			return nil
		}
		if len(todo) == 0 {
			return nil
		}
		ups, err := w.client.Uploads(ctx, UploadsRequest{Ref: req.Ref, Token: req.Token, Worker: w.cfg.ID, Outputs: todo})
		if err != nil {
			return err
		}
		if len(ups) != len(todo) {
			return fmt.Errorf("%d presigned uploads for %d outputs", len(ups), len(todo))
		}
		for i, b := range todo {
			if ups[i].SHA256 != b.SHA256 {
				return fmt.Errorf("a presigned upload for %s, not %s", ups[i].SHA256, b.SHA256)
			}
			if err := w.client.PutDirect(ctx, &ups[i], paths[i], b); err != nil {
				return err
			}
		}
		return nil
	}
	var only map[string]bool
	for attempt := 0; ; attempt++ {
		err := upload(only)
		for _, c := range before {
			select {
			case <-c:
			case <-ctx.Done():
			}
		}
		if err == nil {
			err = w.client.Complete(ctx, req)
		}
		var me *MissingError
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrStale), errors.Is(err, ErrNotRunning), errors.Is(err, ErrBadOutputs), ctx.Err() != nil:
			return err
		case errors.Is(err, blobstore.ErrUnavailable):
			w.client.StoreWaits.Add(1) // and upload again, later
			only = nil
		case errors.Is(err, ErrNotReady):
			only = map[string]bool{} // uploaded: ask again, later
		case errors.As(err, &me):
			only = map[string]bool{}
			for _, s := range me.Missing {
				only[s] = true
			}
		default:
			only = nil
		}
		if attempt > 0 {
			sleep(ctx, time.Duration(min(attempt, 10))*500*time.Millisecond)
		}
	}
}

// giveBack releases a lease, with the unit's error if it failed.
func (w *Worker) giveBack(a *Assignment, errMsg string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.client.Release(ctx, ReleaseRequest{Ref: a.Ref, Token: a.Token, Worker: w.cfg.ID, Error: errMsg}); err != nil {
		w.log.Debug("giving a lease back", "error", err)
	}
}

// heartbeats renews the worker's leases every third of their TTL (as the
// leader last announced it), and stops the units whose leases the leader
// says are lost, or all of them when no coordinator has answered for a
// whole TTL (they will have expired).
func (w *Worker) heartbeats(ctx context.Context) {
	lastOK, lastBeat := time.Now(), time.Now()
	for sleep(ctx, 100*time.Millisecond) {
		w.mu.Lock()
		ttl := w.ttl
		tokens := make([]uint64, 0, len(w.active))
		for t := range w.active {
			tokens = append(tokens, t)
		}
		w.mu.Unlock()
		if time.Since(lastBeat) < ttl/3 {
			continue
		}
		lastBeat = time.Now()
		hctx, cancel := context.WithTimeout(ctx, ttl/3)
		resp, err := w.client.Heartbeat(hctx, HeartbeatRequest{Worker: w.cfg.ID, Threads: w.cfg.Threads, Tokens: tokens})
		cancel()
		var lost []uint64
		switch {
		case err == nil:
			lastOK = time.Now()
			lost = resp.Lost
		case time.Since(lastOK) > ttl:
			w.log.Warn("no coordinator answered for a lease period: dropping the units under way", "error", err)
			lost = tokens
		}
		w.mu.Lock()
		for _, t := range lost {
			if au := w.active[t]; au != nil {
				au.lost.Store(true)
				au.cancel()
			}
		}
		w.mu.Unlock()
	}
}

// sleep waits d or until ctx is done; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// execute runs a unit and writes its outputs into files of the worker's
// folder (files[i] holds outs[i]); it returns the positions it expanded
// or solved. It calls computed between the work and the writing: the
// unit's threads are then free for the next unit, and the encoding of its
// outputs overlaps that unit's work, as tierd solve writes a tier's files
// while the next tier works.
func (w *Worker) execute(ctx context.Context, a *Assignment, computed func()) (outs []Output, files []string, positions uint64, err error) {
	g, err := w.games.get(a.Game, a.Option, a.Symmetry)
	if err != nil {
		return nil, nil, 0, err
	}
	t := tiergame.Tier(a.Ref.Tier)
	children := make([]tiergame.Tier, len(a.Children))
	for i, c := range a.Children {
		children[i] = tiergame.Tier(c)
	}
	if a.Live != nil {
		if freed := w.mem.retire(a.Ref.Run, a.Live); freed > 0 {
			w.log.Debug("dropped tiers the run no longer needs from memory", "run", a.Ref.Run, "bytes", freed)
		}
	}
	out := &outputs{w: w, run: a.Ref.Run}
	own := owner{a.Ref.Run, a.Ref.Tier} // what the unit loads of its own tier
	start := time.Now()
	defer func() {
		if err != nil {
			out.remove()
		}
	}()
	r := solver.Range{Lo: a.Lo, Hi: a.Hi}
	switch a.Kind {
	case Expand:
		set, release, err := w.tierSet(ctx, g, own, a.Set, a.Level, a.Partials)
		if err != nil {
			return nil, nil, 0, err
		}
		defer release()
		targets := solver.ChildTargets(g, children)
		if positions, err = solver.ExpandRange(ctx, g, t, set.Set, r, targets, nil); err != nil {
			return nil, nil, 0, err
		}
		computed()
		for _, tg := range targets {
			if err := out.partial(g, tg); err != nil {
				return nil, nil, 0, err
			}
		}
	case Close:
		set, err := w.mergeTier(ctx, g, t, a.Partials)
		if err != nil {
			return nil, nil, 0, err
		}
		var done atomic.Uint64
		shares, err := solver.CloseTier(ctx, g, t, set, children, solver.Effort{Workers: w.cfg.Threads, Done: &done})
		if err != nil {
			return nil, nil, 0, err
		}
		positions = done.Load()
		computed()
		if err := out.partial(g, solver.Target{Tier: t, Set: set}); err != nil {
			return nil, nil, 0, err
		}
		for _, targets := range shares {
			for _, tg := range targets {
				if err := out.partial(g, tg); err != nil {
					return nil, nil, 0, err
				}
			}
		}
	case SolveRange, SolveTier:
		set, release, err := w.tierSet(ctx, g, own, a.Set, a.Level, nil)
		if err != nil {
			return nil, nil, 0, err
		}
		defer release()
		if _, chance := g.(tiergame.Chance); chance {
			if a.Kind != SolveRange {
				return nil, nil, 0, fmt.Errorf("a game with chance has no %s units", a.Kind)
			}
			kids, releaseKids, err := w.chanceKids(ctx, g, a.Ref.Run, a.Kids)
			if err != nil {
				return nil, nil, 0, err
			}
			defer releaseKids()
			vals := make([]tiergame.Prob, r.Count(set))
			if err := solver.SolveChanceRange(ctx, g, t, set, r, kids, vals, nil); err != nil {
				return nil, nil, 0, err
			}
			var planes []tiergame.Prob
			if k := tiergame.PlaneCount(g); k > 0 {
				planes = make([]tiergame.Prob, k*len(vals))
				if err := solver.SolvePlanesRange(ctx, g, t, set, r, kids, planes, nil); err != nil {
					return nil, nil, 0, err
				}
			}
			computed()
			if err := out.probs(g, t, vals, planes); err != nil {
				return nil, nil, 0, err
			}
			return out.outs, out.files, uint64(len(vals)), nil
		}
		if err := w.awaitMine(ctx, a.Kids); err != nil {
			return nil, nil, 0, err
		}
		kids, releaseKids, err := w.solvedKids(ctx, g, a.Ref.Run, a.Kids)
		if err != nil {
			return nil, nil, 0, err
		}
		defer releaseKids()
		loaded := time.Now()
		var recs []valuedb.Record
		if a.Kind == SolveRange {
			recs = w.rangeRecords(own, a.Set, set, r)
			if err = solver.SolveRange(ctx, g, t, set, r, kids, recs, nil); err == nil {
				w.computedRecords(a.Token, recs)
			}
		} else {
			var st *solver.SolvedTier
			if st, err = solver.SolveTier(ctx, g, t, set, kids, solver.Shape{Loopy: a.Loopy}, solver.Effort{Workers: w.cfg.Threads}); err == nil {
				// Kept as records, as a range unit's are, for the
				// units of its parents.
				recs = make([]valuedb.Record, st.Len())
				st.Records(recs, 0)
				st.Free()
			}
		}
		if err != nil {
			return nil, nil, 0, err
		}
		positions = uint64(len(recs))
		solved := time.Now()
		computed()
		if err := out.records(g, t, recs); err != nil {
			return nil, nil, 0, err
		}
		w.log.Debug("solve unit", "tier", t, "load_seconds", loaded.Sub(start).Seconds(), "solve_seconds", solved.Sub(loaded).Seconds(),
			"write_seconds", time.Since(solved).Seconds())
	default:
		return nil, nil, 0, fmt.Errorf("unknown unit kind %q", a.Kind)
	}
	return out.outs, out.files, positions, nil
}

// outputs collects a unit's output files.
type outputs struct {
	w     *Worker
	run   string // the unit's
	outs  []Output
	files []string
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
	o.outs = append(o.outs, Output{Tier: uint64(t), Blob: Blob{SHA256: sum, Size: size}})
	return nil
}

// outputWorkers encode a unit's outputs: every core (0), not the unit's
// thread alone. The outputs of the last unit of a tier are on the path
// to the next tier, whose units wait for them, and then the other
// threads are idle; otherwise the encoding shares the cores with the next
// units, as tierd solve's writes do.
const outputWorkers = 0

// partial writes a partial level file of a target's set, if not empty,
// stored unless WorkerConfig.CompressPartials, and keeps the set in
// memory for when this worker merges the tier.
func (o *outputs) partial(g tiergame.Game, tg solver.Target) error {
	if tg.Set.Count() == 0 {
		return nil
	}
	err := o.add(tg.Tier, func(path string) error {
		opts := levelfile.WriteOptions{Stored: !o.w.cfg.CompressPartials, Level: solver.DefaultPartialLevel, Workers: outputWorkers, NoSync: true}
		_, err := solver.WriteLevel(path, g, tg.Set, opts)
		return err
	})
	if err == nil {
		o.w.mem.put(partialKey(o.outs[len(o.outs)-1].Blob), owner{o.run, uint64(tg.Tier)}, tg.Set, int64(tg.Set.Len()/8))
	}
	return err
}

// partialKey names, in the memory cache, the set of a partial level file
// this worker wrote as blob b.
func partialKey(b Blob) string { return "partial:" + b.SHA256 }

// records writes a range's records as a value database, and keeps them
// in memory for when this worker solves the tier's parents. It is
// written as tierd solve writes a tier's (not Fast): the range holds
// whole blocks of the tier's database (the leader's cut), which the
// leader joins by copying them (solver.ConcatDB).
func (o *outputs) records(g tiergame.Game, t tiergame.Tier, recs []valuedb.Record) error {
	err := o.add(t, func(path string) error {
		_, err := solver.WriteDB(path, g, t, recs, &valuedb.WriteOptions{Workers: outputWorkers, NoSync: true})
		return err
	})
	if err == nil {
		o.w.mem.put(resultsKey(o.outs[len(o.outs)-1].Blob), owner{o.run, uint64(t)}, recs, 2*int64(len(recs)))
	}
	return err
}

// probs writes a range's probabilities as a probability database, or
// with the game's planes a database of both (writeChance), and keeps
// them in memory as records does.
func (o *outputs) probs(g tiergame.Game, t tiergame.Tier, vals, planes []tiergame.Prob) error {
	results := joinChance(vals, planes)
	err := o.add(t, func(path string) error {
		return writeChance(path, g, t, results, &valuedb.WriteOptions{Workers: outputWorkers, NoSync: true, Fast: true})
	})
	if err == nil {
		o.w.mem.put(resultsKey(o.outs[len(o.outs)-1].Blob), owner{o.run, uint64(t)}, results, 4*int64(len(results)))
	}
	return err
}

// rangeRecords returns where range r of a tier (o's, whose set is named
// key) is solved into: a window of one slice of records for the whole
// tier, which the worker keeps, so that when it solves the tier's parents
// it finds the records of its own units in place (solvedKids).
func (w *Worker) rangeRecords(o owner, key string, set *bitarray.Ranked, r solver.Range) []valuedb.Record {
	v, release, err := w.mem.get(tierRecordsKey(key), o, func() (any, int64, error) {
		return make([]valuedb.Record, set.Total()), 2 * int64(set.Total()), nil
	})
	if err != nil {
		return make([]valuedb.Record, r.Count(set))
	}
	release() // the unit holds the slice; the cache may drop its own hold
	off := solver.Range{Lo: set.Base(), Hi: r.Lo}.Count(set)
	return v.([]valuedb.Record)[off : off+r.Count(set)]
}

// tierRecordsKey names, in the memory cache, the slice of a tier's
// records that its range units solve into.
func tierRecordsKey(set string) string { return "records:" + set }

// resultsKey names, in the memory cache, the results a unit of this
// worker computed and wrote as blob b.
func resultsKey(b Blob) string { return "results:" + b.SHA256 }

// gatherResults fills dst with a tier's results in rank order: from
// memory for the units this worker computed, else decoded from their
// files (paths[i] holds blobs[i]) by read. An empty blob is a unit whose
// results this worker computed and has not reported yet (KidInput.Mine):
// mine holds them, by its index in blobs.
func gatherResults[T any](w *Worker, dst []T, blobs []Blob, paths []string, mine map[int][]T, read func(off uint64, path string) (uint64, error)) error {
	off := uint64(0)
	var err error
	for i, p := range paths {
		if blobs[i].SHA256 == "" {
			got, ok := mine[i]
			if !ok || uint64(len(got)) > uint64(len(dst))-off {
				return fmt.Errorf("no results for unit %d of the tier", i)
			}
			if len(got) > 0 && &got[0] != &dst[off] { // else solved in place
				copy(dst[off:], got)
			}
			off += uint64(len(got))
			continue
		}
		if v, ok := w.mem.peek(resultsKey(blobs[i])); ok {
			got, _ := v.([]T)
			if uint64(len(got)) > uint64(len(dst))-off {
				return fmt.Errorf("%s: %d results, more than the tier's %d positions", p, len(got), len(dst))
			}
			if len(got) > 0 && &got[0] != &dst[off] { // else solved in place (rangeRecords)
				copy(dst[off:], got)
			}
			off += uint64(len(got))
			continue
		}
		if off, err = read(off, p); err != nil {
			return err
		}
	}
	if off != uint64(len(dst)) {
		return fmt.Errorf("%d results for %d positions", off, len(dst))
	}
	return nil
}

func (o *outputs) remove() {
	for _, f := range o.files {
		os.Remove(f)
	}
}

// tierSet returns the set of tier o, ranked, by its name key
// (Assignment.Set) from the memory cache, or else loaded from its level
// file if level is given, or merged from its partial level files; release
// lets the cache evict it again.
func (w *Worker) tierSet(ctx context.Context, g tiergame.Game, o owner, key string, level *Blob, partials []Blob) (*bitarray.Ranked, func(), error) {
	t := tiergame.Tier(o.tier)
	v, release, err := w.mem.get("set:"+key, o, func() (any, int64, error) {
		var set *bitarray.Set
		if level != nil {
			paths, err := w.disk.paths(ctx, []Blob{*level})
			if err != nil {
				return nil, 0, err
			}
			if set, err = solver.LoadLevel(paths[0], g, t); err != nil {
				return nil, 0, err
			}
		} else {
			var err error
			if set, err = w.mergeTier(ctx, g, t, partials); err != nil {
				return nil, 0, err
			}
		}
		return bitarray.NewRanked(set), int64(g.TierSize(t)/8*9/8 + 64), nil
	})
	if err != nil {
		return nil, nil, err
	}
	return v.(*bitarray.Ranked), release, nil
}

// mergeTier is solver.MergeTier of the partial level files, taking the
// sets of those this worker wrote from memory.
func (w *Worker) mergeTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, partials []Blob) (*bitarray.Set, error) {
	var files []Blob
	var sets []*bitarray.Set
	for _, b := range partials {
		if v, ok := w.mem.peek(partialKey(b)); ok {
			sets = append(sets, v.(*bitarray.Set))
		} else {
			files = append(files, b)
		}
	}
	paths, err := w.disk.paths(ctx, files)
	if err != nil {
		return nil, err
	}
	set, err := solver.MergeTier(ctx, g, t, paths, w.cfg.Threads)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		if err := set.Or(s); err != nil {
			return nil, fmt.Errorf("tier %d: %w", t, err)
		}
	}
	return set, nil
}

// kidsOf loads the solved child tiers of a unit, as build makes each one
// from the tier's set and the files of its results (the database, or the
// units' records in rank order); they are kept in memory while it allows.
// release lets the cache evict them again.
func kidsOf[T any](ctx context.Context, w *Worker, g tiergame.Game, run string, in []KidInput,
	build func(k KidInput, t tiergame.Tier, set *bitarray.Ranked, blobs []Blob, paths []string) (T, int64, error)) (kids []T, release func(), err error) {
	var releases []func()
	release = func() {
		for _, r := range releases {
			r()
		}
	}
	for _, k := range in {
		o := owner{run, k.Tier}
		v, rel, err := w.mem.get(kidKey(k), o, func() (any, int64, error) {
			t := tiergame.Tier(k.Tier)
			// The tier's set is often loaded already: this worker solved
			// ranges of it.
			set, releaseSet, err := w.tierSet(ctx, g, o, k.Set, &k.Level, nil)
			if err != nil {
				return nil, 0, err
			}
			defer releaseSet()
			blobs := k.Records
			if k.DB != nil {
				blobs = []Blob{*k.DB}
				if k.Planes != nil { // read beside it (chanceKids)
					blobs = append(blobs, *k.Planes)
				}
			}
			// The units this worker computes itself have no file yet.
			var files []Blob
			for _, b := range blobs {
				if b.SHA256 != "" {
					files = append(files, b)
				}
			}
			got, err := w.disk.paths(ctx, files)
			if err != nil {
				return nil, 0, err
			}
			paths := make([]string, len(blobs))
			for i, b := range blobs {
				if b.SHA256 != "" {
					paths[i], got = got[0], got[1:]
				}
			}
			return build(k, t, set, blobs, paths)
		})
		if err != nil {
			release()
			return nil, nil, err
		}
		releases = append(releases, rel)
		kids = append(kids, v.(T))
	}
	return kids, release, nil
}

// solvedKids loads the solved child tiers of a game without chance.
func (w *Worker) solvedKids(ctx context.Context, g tiergame.Game, run string, in []KidInput) ([]*solver.SolvedTier, func(), error) {
	return kidsOf(ctx, w, g, run, in, func(k KidInput, t tiergame.Tier, set *bitarray.Ranked, blobs []Blob, paths []string) (*solver.SolvedTier, int64, error) {
		// The records this worker solved are in place already; the
		// solved tier owns the slice from now on.
		v, _ := w.mem.take(tierRecordsKey(k.Set))
		recs, _ := v.([]valuedb.Record)
		if uint64(len(recs)) != set.Total() {
			recs = make([]valuedb.Record, set.Total())
		}
		mine := map[int][]valuedb.Record{} // awaitMine checked they are computed
		for _, m := range k.Mine {
			w.mu.Lock()
			p := w.progress[m.Token]
			w.mu.Unlock()
			if p == nil || uint64(len(p.recs)) != (solver.Range{Lo: m.Lo, Hi: m.Hi}).Count(set) {
				return nil, 0, fmt.Errorf("tier %d unit %d: %w", t, m.Ref.Index, errNotMine)
			}
			mine[m.Ref.Index] = p.recs
		}
		err := gatherResults(w, recs, blobs, paths, mine, func(off uint64, path string) (uint64, error) {
			return readRecordsInto(recs, off, path, g, t, w.cfg.Threads)
		})
		if err != nil {
			return nil, 0, fmt.Errorf("tier %d: %w", t, err)
		}
		st, err := solver.NewSolvedTier(t, set, recs, w.cfg.Threads)
		if err != nil {
			return nil, 0, fmt.Errorf("tier %d: %w", t, err)
		}
		return st, int64(st.Bytes()), nil
	})
}

// chanceKids loads the solved child tiers of a game with chance.
func (w *Worker) chanceKids(ctx context.Context, g tiergame.Game, run string, in []KidInput) ([]*solver.ChanceTier, func(), error) {
	return kidsOf(ctx, w, g, run, in, func(k KidInput, t tiergame.Tier, set *bitarray.Ranked, blobs []Blob, paths []string) (*solver.ChanceTier, int64, error) {
		if len(k.Mine) > 0 { // never leased so (Run.readyFor): a coordinator that did
			return nil, 0, fmt.Errorf("tier %d: %w", t, errNotMine)
		}
		width := uint64(1 + tiergame.PlaneCount(g))
		var results []tiergame.Prob
		var err error
		if k.DB != nil && width > 1 { // the merged tier: probabilities and planes apart
			vals, planes := make([]tiergame.Prob, set.Total()), make([]tiergame.Prob, (width-1)*set.Total())
			if len(paths) != 2 {
				return nil, 0, fmt.Errorf("tier %d: no database of planes beside its probabilities", t)
			}
			if _, err = readChanceInto(vals, 0, paths[0], g, t, w.cfg.Threads); err == nil {
				_, err = readChanceInto(planes, 0, paths[1], g, t, w.cfg.Threads)
			}
			results = joinChance(vals, planes)
		} else {
			results = make([]tiergame.Prob, width*set.Total())
			err = gatherResults[tiergame.Prob](w, results, blobs, paths, nil, func(off uint64, path string) (uint64, error) {
				return readChanceInto(results, off, path, g, t, w.cfg.Threads)
			})
		}
		if err != nil {
			return nil, 0, fmt.Errorf("tier %d: %w", t, err)
		}
		vals, planes := splitChance(results, width)
		ct := solver.NewChanceTier(t, set, vals, w.cfg.Threads)
		if planes != nil {
			if err := ct.SetPlanes(int(width-1), planes); err != nil {
				return nil, 0, err
			}
		}
		// At most: the values and planes, a copy by position, and the set.
		return ct, int64(4*(width*set.Total()+set.Len()) + set.Len()/8), nil
	})
}

// kidKey names a solved child tier in the memory cache: the same records
// from the database or from the units are the same tier.
func kidKey(k KidInput) string {
	return fmt.Sprintf("solved:%d:%s", k.Tier, k.Level.SHA256)
}
