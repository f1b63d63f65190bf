// Package worker is a cluster's worker: it leases units of work from the
// coordinators through the API of cluster/api, runs them with the
// solver's unit-of-work functions (the same the embedded run calls),
// uploads their outputs and reports them. It keeps its inputs in two
// caches: files on its disk by SHA-256, and what it loaded or computed in
// memory, so that its next units find them in place.
//
// A worker knows the coordinators only through the API: it cannot see
// their state.
package worker

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/internal/unitio"
	"github.com/tiersolve/tiersolve/cluster/internal/wire"
	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Config configures a worker.
type Config struct {
	Client *api.Client
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
	// loaded in memory (tier sets, solved child tiers) with what the
	// units under way hold beside them; 0 means 8 GiB, and the Budget
	// less the worker's fixed part measured and room for the collector
	// with LimitProcess (else less what every estimate counts for the
	// program and the runtime, plan.BaseBytes), or half the machine's
	// memory.
	CacheBytes, MemoryBytes int64
	// Budget, if set, is the worker's memory budget, which it tells the
	// leader (api.LeaseRequest.Memory, less what its measured fixed part
	// takes beyond plan.BaseBytes): it is leased no unit the leader
	// estimates larger, and a unit of a loopy tier makes room for the
	// estimate in the memory cache while it runs.
	Budget int64
	// LimitProcess holds the whole process's memory within Budget: the
	// Go runtime's limit (debug.SetMemoryLimit) follows the cells made
	// outside the Go heap and the program's own pages. Set it when the
	// worker is its process's only work (tierd worker --memory), not
	// for workers inside a test's process.
	LimitProcess bool
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
	cfg    Config
	log    *slog.Logger
	client *api.Client
	disk   *diskCache
	mem    *memCache
	spills *spills
	sem    *semaphore.Weighted
	games  *unitio.Games
	// request names the lease request that has had no answer yet (Run's
	// goroutine alone uses it): it is sent again with that name.
	request string

	mu     sync.Mutex
	fixed  fixedPart          // measured (holdProcess)
	active map[uint64]*leased // by lease token
	ttl    time.Duration      // the lease TTL the leader announced
	// progress tells, by lease token, whether the units this worker was
	// leased whose results stay in memory (executor.keepsResults), and
	// that have not reported yet, have computed them: a unit leased
	// provisionally reads them (api.KidInput.Mine).
	progress map[uint64]*unitProgress

	// Units and Positions count the work done, for tests and logs;
	// Provisional the units that read results of this worker's not yet
	// recorded (api.KidInput.Mine).
	Units, Positions, Provisional atomic.Uint64
}

// leased is a unit leased to this worker: its assignment, and what it
// takes to stop it: its context's cancel, and lost, set when the
// heartbeat learns that the lease is no longer this worker's.
type leased struct {
	*api.Assignment
	cancel context.CancelFunc
	lost   atomic.Bool
}

// New prepares a worker; Run starts it.
func New(cfg Config) (*Worker, error) {
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
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	store, err := blobstore.OpenDir(filepath.Join(cfg.Dir, "cache"), 0)
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, log: cfg.Log.With("worker", cfg.ID), client: cfg.Client,
		sem: semaphore.NewWeighted(int64(cfg.Threads)), active: map[uint64]*leased{}, progress: map[uint64]*unitProgress{},
		ttl: api.DefaultLeaseTTL, games: unitio.NewGames(cfg.NewGame)}
	w.disk = newDiskCache(store, cfg.Client, cfg.CacheBytes)
	if w.spills, err = newSpills(filepath.Join(cfg.Dir, "spill"), w.log); err != nil {
		return nil, err
	}
	if cfg.LimitProcess && cfg.Budget > 0 {
		w.fixed = measureFixed(true) // idle: nothing loaded yet
		bigmem.LimitGo(cfg.Budget - w.fixed.file)
		debug.SetGCPercent(gcPercent)
	}
	w.mem = newMemCache(w.cacheLimit())
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
		if err == nil && a != nil && !w.hasGame(a) {
			w.giveBack(a, "")
			w.sem.Release(held)
			<-pending
			wire.Sleep(ctx, time.Second)
			continue
		}
		if err != nil || a == nil {
			w.sem.Release(held)
			<-pending
			if stop, err := w.noUnit(ctx, err); stop {
				return err
			}
			continue
		}
		held, weight := w.threads(a, held)
		started := w.start(ctx, &running, pending, a, held, weight)
		if held == 0 {
			// Lease again once it runs: a lease asked for meanwhile
			// could hold a thread it waits for.
			<-started
		}
	}
}

// hasGame reports whether the worker has the game of unit a. A
// coordinator that ignores LeaseRequest.Games may lease it one it has
// not: the worker gives it back at once (not as a failure of the unit:
// another worker may have the game) rather than fail it later.
func (w *Worker) hasGame(a *api.Assignment) bool {
	if len(w.cfg.Games) == 0 || slices.Contains(w.cfg.Games, a.Game) {
		return true
	}
	w.log.Error("refused a unit of a game this worker does not have", "run", a.Ref.Run, "game", a.Game,
		"worker_games", strings.Join(w.cfg.Games, ","))
	return false
}

// noUnit is Run's step when a lease request brought no unit, with err:
// it says whether to stop, and with what error (a token refused), and
// waits a second after an error it goes on from.
func (w *Worker) noUnit(ctx context.Context, err error) (stop bool, _ error) {
	switch {
	case errors.Is(err, api.ErrUnauthorized) || errors.Is(err, api.ErrForbidden):
		return true, err
	case ctx.Err() != nil:
		return true, nil
	case err != nil:
		w.log.Warn("no lease", "error", err)
		wire.Sleep(ctx, time.Second)
	}
	return false, nil
}

// threads is how many threads unit a takes (weight: one, or every one
// for a whole-tier unit) and how many of them the worker holds for it
// (held, or none: a unit that takes more threads than it holds gives
// them back and takes them all at once, when they are free, since a
// unit holding some while it waits for others could wait forever for
// another unit that does the same).
func (w *Worker) threads(a *api.Assignment, held int64) (_, weight int64) {
	weight = 1
	if executors[a.Kind].wholeTier {
		weight = int64(w.cfg.Threads)
	}
	if held < weight {
		w.sem.Release(held)
		held = 0
	}
	return held, weight
}

// start runs leased unit a on a goroutine of running (runLeased), which
// takes its place in pending until the unit is reported. The channel it
// returns is closed once the unit has its threads, if it waits for them
// (held is 0).
func (w *Worker) start(ctx context.Context, running *sync.WaitGroup, pending <-chan struct{}, a *api.Assignment, held, weight int64) <-chan struct{} {
	uctx, cancel := context.WithCancel(ctx)
	l := &leased{Assignment: a, cancel: cancel}
	prog := w.track(l)
	started := make(chan struct{})
	running.Add(1)
	go func() {
		defer running.Done()
		defer func() { <-pending }()
		defer w.forget(l, prog)
		w.runLeased(uctx, ctx, l, prog, held, weight, started)
	}()
	return started
}

// runLeased runs leased unit l under ctx (parent is the worker's
// context): it waits for its threads unless it holds them (held),
// closing started once it has them, then runs and reports it (runUnit).
func (w *Worker) runLeased(ctx, parent context.Context, l *leased, prog *unitProgress, held, weight int64, started chan<- struct{}) {
	// A spare or a whole-tier unit waits for its threads (its lease is
	// renewed meanwhile).
	if held == 0 {
		err := w.sem.Acquire(ctx, weight)
		close(started)
		if err != nil {
			if l.lost.Load() {
				w.unitLog(l.Assignment).Warn("lease lost before its unit started: unit dropped")
			} else {
				w.giveBack(l.Assignment, "")
			}
			return
		}
	}
	w.runUnit(ctx, parent, l, prog, func() { w.sem.Release(weight) })
}

// track registers a leased unit: the heartbeat renews its lease, and, if
// its results stay in memory, the units leased provisionally learn from
// the unitProgress it returns when they are computed. It takes up the
// lease TTL the leader announced with the unit.
func (w *Worker) track(l *leased) *unitProgress {
	prog := &unitProgress{done: make(chan struct{}), reported: make(chan struct{})}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.active[l.Token] = l
	if executors[l.Kind].keepsResults {
		w.progress[l.Token] = prog
	}
	if ttl := time.Duration(l.LeaseTTL * float64(time.Second)); l.LeaseTTL > 0 && ttl != w.ttl {
		// A coordinator that cannot answer within a lease's time to
		// live has lost the lease anyway: try the others.
		w.ttl = ttl
		w.client.SetAttemptTimeout(w.ttl)
	}
	return prog
}

// forget undoes track once the unit is over: the heartbeat no longer
// renews its lease, and its results count as not computed unless they
// were; then, the report over (accepted, or dropped), the units leased
// provisionally no longer wait for it: the state now names its records,
// or another lease will compute them.
func (w *Worker) forget(l *leased, prog *unitProgress) {
	w.mu.Lock()
	delete(w.active, l.Token)
	w.mu.Unlock()
	l.cancel()
	prog.finish(false) // unless computed
	w.mu.Lock()
	delete(w.progress, l.Token)
	w.mu.Unlock()
	close(prog.reported)
}

// lease asks the leader for a unit. With a thread free it holds one
// (held = 1) and asks as usual, waiting for work to appear; with every
// thread busy it asks for a spare (held = 0): a unit to start as soon as
// a thread frees, so that no thread waits for a lease between units. The
// leader grants a spare only while enough units stay free for the other
// workers' threads; when it has none to spare, lease waits for a thread
// and asks as usual.
//
// Each request is named, and the name is sent again until it has an
// answer (api.LeaseRequest.Request): a unit granted by a leader that
// failed before its answer reached the worker is answered again by the
// next, not left leased to no one until its lease expires (in a loopy
// tier solved in parts, every other part's next round waits for it).
func (w *Worker) lease(ctx context.Context) (a *api.Assignment, held int64, err error) {
	req := api.LeaseRequest{Worker: w.cfg.ID, Threads: w.cfg.Threads, Wait: 10, Games: w.cfg.Games, Holding: w.holding(),
		Memory: w.leaseBudget(), Request: w.requestName()}
	if !w.sem.TryAcquire(1) {
		spare := req
		spare.Wait, spare.Spare = 0, true
		if a, err := w.ask(ctx, spare); a != nil || err != nil {
			return a, 0, err
		}
		if err := w.sem.Acquire(ctx, 1); err != nil {
			return nil, 0, nil // stopping
		}
		req.Holding, req.Request = w.holding(), w.requestName() // as they are now
	}
	a, err = w.ask(ctx, req)
	return a, 1, err
}

// requestName names the next lease request: as the last one, if that
// had no answer.
func (w *Worker) requestName() string {
	if w.request == "" {
		w.request = rand.Text()
	}
	return w.request
}

// ask sends a lease request; once it is answered (a unit, or none), the
// next one has a new name.
func (w *Worker) ask(ctx context.Context, req api.LeaseRequest) (*api.Assignment, error) {
	a, err := w.client.Lease(ctx, req)
	if err == nil {
		w.request = ""
	}
	return a, err
}

// unitLog is the worker's log for the records of unit a.
func (w *Worker) unitLog(a *api.Assignment) *slog.Logger {
	return w.log.With("run", a.Ref.Run, "tier", a.Ref.Tier, "kind", a.Kind, "unit", a.Ref.Index, "token", a.Token)
}

// runUnit runs a leased unit and reports it; a unit whose lease was lost
// is dropped, one that failed is given back with its error. It calls
// free once the unit's threads are free: the report overlaps the next
// unit's work; prog learns when its results are computed. parent is the
// worker's context: a unit stopped with it is given back.
func (w *Worker) runUnit(ctx, parent context.Context, l *leased, prog *unitProgress, free func()) {
	a := l.Assignment
	t0, cpu0 := time.Now(), processCPU()
	log := w.unitLog(a)
	var once sync.Once
	var computeSecs, computeCPU float64
	computed := func() {
		once.Do(func() {
			computeSecs, computeCPU = time.Since(t0).Seconds(), processCPU()-cpu0
			free()
		})
	}
	out, positions, err := w.execute(ctx, a, func() {
		prog.finish(true) // its results are in memory: units leased provisionally may read them
		computed()
	})
	computed()
	outs, files := out.outs, out.files
	defer func() {
		for _, f := range files {
			os.Remove(f)
		}
	}()
	switch {
	case l.lost.Load():
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
	req := api.CompleteRequest{Ref: a.Ref, Token: a.Token, Worker: w.cfg.ID, Outputs: outs, Positions: positions, Seconds: secs, Part: out.part}
	t1 := time.Now()
	if err := w.report(ctx, req, files, a.Direct, w.mineReported(a)); err != nil {
		switch {
		case l.lost.Load():
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
	log.Info("unit done", "role", unitRole(a), "positions", positions, "seconds", secs, "positions_per_second", float64(positions)/secs,
		"compute_seconds", computeSecs, "compute_cpu_seconds", computeCPU, "report_seconds", time.Since(t1).Seconds(), w.memoryAttrs(), gcAttrs())
}

// report uploads a unit's outputs and reports it complete, uploading
// again what the leader says it cannot find, until the leader accepts,
// refuses as stale, or the lease is lost. With direct, the outputs go to
// the object store, with the presigned PUTs the leader hands out.
func (w *Worker) report(ctx context.Context, req api.CompleteRequest, files []string, direct bool, before []<-chan struct{}) error {
	upload := func(only map[string]bool) error {
		var todo []api.Blob
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
		ups, err := w.client.Uploads(ctx, api.UploadsRequest{Ref: req.Ref, Token: req.Token, Worker: w.cfg.ID, Outputs: todo})
		if errors.Is(err, api.ErrStale) {
			// The lease is no longer current: refused, or accepted
			// already (a report sent again after its answer was lost).
			// The completion says which.
			return nil
		}
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
		var me *api.MissingError
		switch {
		case err == nil:
			return nil
		case errors.Is(err, api.ErrStale), errors.Is(err, api.ErrNotRunning), errors.Is(err, api.ErrBadOutputs), ctx.Err() != nil:
			return err
		case errors.Is(err, blobstore.ErrUnavailable):
			w.client.StoreWaits.Add(1) // and upload again, later
			only = nil
		case errors.Is(err, api.ErrNotReady):
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
			wire.Sleep(ctx, time.Duration(min(attempt, 10))*500*time.Millisecond)
		}
	}
}

// giveBack releases a lease, with the unit's error if it failed.
func (w *Worker) giveBack(a *api.Assignment, errMsg string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.client.Release(ctx, api.ReleaseRequest{Ref: a.Ref, Token: a.Token, Worker: w.cfg.ID, Error: errMsg}); err != nil {
		w.log.Debug("giving a lease back", "error", err)
	}
}

// heartbeats renews the worker's leases every third of their TTL (as the
// leader last announced it), and stops the units whose leases the leader
// says are lost. Only the leader's word stops them, not silence: no
// coordinator answers during an election, which may last longer than a
// lease's time to live, and the leaders expire no lease meanwhile (a new
// one gives every lease it inherits a whole time to live from its
// election), so units stopped then would be lost for nothing: a part's
// round, and the part in memory with it. A worker cut off
// from a leader that does expire its leases learns it at its next
// heartbeat, and its late result is refused (a stale token) meanwhile.
func (w *Worker) heartbeats(ctx context.Context) {
	lastOK, lastBeat, silent := time.Now(), time.Now(), false
	for wire.Sleep(ctx, 100*time.Millisecond) {
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
		resp, err := w.client.Heartbeat(hctx, api.HeartbeatRequest{Worker: w.cfg.ID, Threads: w.cfg.Threads, Tokens: tokens})
		cancel()
		var lost []uint64
		switch {
		case err == nil:
			if silent {
				w.log.Info("a coordinator answers again", "silent_seconds", time.Since(lastOK).Seconds(), "lost", len(resp.Lost))
			}
			lastOK, silent = time.Now(), false
			lost = resp.Lost
		case time.Since(lastOK) > ttl && !silent:
			silent = true
			w.log.Warn("no coordinator answered for a lease period: the units under way go on until the leader says their leases are lost",
				"units", len(tokens), "error", err)
		}
		w.mu.Lock()
		for _, t := range lost {
			if l := w.active[t]; l != nil {
				l.lost.Store(true)
				l.cancel()
			}
		}
		w.mu.Unlock()
	}
}
