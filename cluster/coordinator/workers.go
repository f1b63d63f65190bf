package coordinator

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
)

// workerTable is the leader's view of its workers. It is not replicated:
// a new leader learns it again from the next requests, and meanwhile
// presumes present the workers its state names (presume).
type workerTable struct {
	mu sync.Mutex
	m  map[string]*workerState
	// presumed are workers taken as present until a time, though not
	// heard from.
	presumed map[string]time.Time
}

type workerState struct {
	api.WorkerInfo
	samples []rateSample // completions of the last rateWindow
	warned  string       // the missing games last logged, joined
}

type rateSample struct {
	at        time.Time
	positions uint64
}

// rateWindow is the span throughput is measured over.
const rateWindow = time.Minute

func newWorkerTable() *workerTable {
	return &workerTable{m: map[string]*workerState{}, presumed: map[string]time.Time{}}
}

// presume takes the workers ids as present until until, though this node
// has not heard from them: what a new leader does with the workers its
// state names (the holders of leases, and of parts in memory), which
// have had no time to reach it yet. Until they do, a part's next round
// waits for the worker that holds the part, as it did under the last
// leader, rather than going to whichever worker asks first (which would
// restore the part from its checkpoint and replay the rounds since).
func (wt *workerTable) presume(ids []string, until time.Time) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	clear(wt.presumed)
	for _, id := range ids {
		wt.presumed[id] = until
	}
}

func (wt *workerTable) get(id string) *workerState {
	w := wt.m[id]
	if w == nil {
		w = &workerState{WorkerInfo: api.WorkerInfo{ID: id}}
		wt.m[id] = w
	}
	return w
}

// seen records a request from a worker; tokens, when not nil, are the
// leases it holds.
func (wt *workerTable) seen(id, addr string, threads int, tokens []uint64) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	w := wt.get(id)
	if i := strings.LastIndex(addr, ":"); i > 0 {
		addr = addr[:i]
	}
	w.Addr, w.Threads, w.LastSeen = addr, threads, time.Now()
	if tokens != nil {
		w.Leases = len(tokens)
	}
}

// hasGames records the games a worker runs (empty: any).
func (wt *workerTable) hasGames(id string, games []string) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	w := wt.get(id)
	if !slices.Equal(w.Games, games) {
		w.Games = slices.Clone(games)
	}
}

// hasMemory records a worker's memory budget (0: it did not say).
func (wt *workerTable) hasMemory(id string, memory int64) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.get(id).Memory = memory
}

// missing records the games of running runs a worker lacks, and reports
// whether they changed since the last call (so that they are logged once).
func (wt *workerTable) missing(id string, games []string) bool {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	w := wt.get(id)
	w.MissingGames = games
	key := strings.Join(games, ",")
	changed := key != w.warned
	w.warned = key
	return changed
}

// missingGames are the games of running lists that a worker running games
// does not have (none if games is empty: a worker that does not say runs
// any).
func missingGames(running, games []string) []string {
	if len(games) == 0 {
		return nil
	}
	var out []string
	for _, g := range running {
		if !slices.Contains(games, g) && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}

// granted counts a lease given to a worker (until its next heartbeat).
func (wt *workerTable) granted(id string) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.get(id).Leases++
}

// completed counts a unit a worker finished.
func (wt *workerTable) completed(id string, positions uint64) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	w := wt.get(id)
	now := time.Now()
	w.Units++
	w.Positions += positions
	w.Leases = max(0, w.Leases-1)
	w.samples = append(w.samples, rateSample{now, positions})
	w.trim(now)
}

func (w *workerState) trim(now time.Time) {
	i := 0
	for i < len(w.samples) && now.Sub(w.samples[i].at) > rateWindow {
		i++
	}
	w.samples = w.samples[i:]
}

// list returns the workers seen within the last within, by id.
func (wt *workerTable) list(now time.Time, within time.Duration) []api.WorkerInfo {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	out := []api.WorkerInfo{}
	for _, w := range wt.m {
		if now.Sub(w.LastSeen) > within {
			continue
		}
		w.trim(now)
		var sum uint64
		for _, s := range w.samples {
			sum += s.positions
		}
		info := w.WorkerInfo
		info.Games = slices.Clone(w.Games)
		info.MissingGames = slices.Clone(w.MissingGames)
		info.Rate = float64(sum) / rateWindow.Seconds()
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b api.WorkerInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// present lists the workers seen within the last within, and those
// presumed present (presume).
func (wt *workerTable) present(now time.Time, within time.Duration) []string {
	var out []string
	for _, w := range wt.list(now, within) {
		out = append(out, w.ID)
	}
	wt.mu.Lock()
	defer wt.mu.Unlock()
	for id, until := range wt.presumed {
		if now.Before(until) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// threads is the number of threads of the workers seen within the last
// within.
func (wt *workerTable) threads(now time.Time, within time.Duration) int {
	n := 0
	for _, w := range wt.list(now, within) {
		n += w.Threads
	}
	return n
}
