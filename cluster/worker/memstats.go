package worker

import (
	"log/slog"
	"runtime"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// programBytes is the least a worker process holds beside the Go
// runtime's memory and the cells outside the Go heap: its program's pages
// mapped from its file (RssFile), 15.5 MiB for an idle tierd worker.
const programBytes = 16 << 20

// A worker's memory (with Config.LimitProcess) is its fixed part, room
// for the collector, and the memory cache, which holds what units load
// and what they hold while they run (reserveUnit). The fixed part is
// measured, not assumed (plan.BaseBytes, which the leader's estimates
// count): the program's pages, the Go runtime's own memory (stacks, the
// heap's metadata) and the heap live while the worker is idle
// (compression tables, clients), each the most it has been.
type fixedPart struct {
	file, runtime, idleHeap int64
}

// bytes is the fixed part.
func (f fixedPart) bytes() int64 { return f.file + f.runtime + f.idleHeap }

// collectorRoom is what a worker of budget bytes with a fixed part of
// fixed bytes leaves the Go collector: the heap grows past what is live
// between collections, and a heap held at its limit with no room
// collects without end, then passes it (measured 8 MiB past the limit
// for workers of 139 MiB before). An eighth of the rest, at least 4 MiB.
func collectorRoom(budget, fixed int64) int64 { return max((budget-fixed)/8, 4<<20) }

// gcPercent is the Go collector's GOGC in a worker that holds its
// process within a budget: a cycle starts once the heap has grown a
// quarter past what was live, not at the memory limit. At the default
// (100) the limit alone paced the collector, and the heap grew on during
// a cycle: up to 18 MiB past the limit on a machine whose cores others
// kept busy (workers of 139 MiB at 149-155). The heap is mostly arrays
// without pointers (sets, the tables beside the cells), cheap to mark, so
// the more frequent cycles cost little.
const gcPercent = 25

// measureFixed reads the worker's fixed part now: the program's pages,
// and the Go runtime's memory that is not the heap's objects or free
// spans; idle also takes the heap live now (after a collection) as the
// idle heap, for a worker that holds nothing yet.
func measureFixed(idle bool) fixedPart {
	f := fixedPart{file: max(int64(memsize.ReadResident().File), programBytes)}
	if idle {
		runtime.GC()
	}
	n := readMetrics("/memory/classes/total:bytes", "/memory/classes/heap/objects:bytes",
		"/memory/classes/heap/free:bytes", "/memory/classes/heap/released:bytes",
		"/memory/classes/heap/unused:bytes", "/gc/heap/live:bytes")
	heap := n[1] + n[2] + n[3] + n[4]
	f.runtime = int64(n[0] - min(n[0], heap))
	if idle {
		f.idleHeap = int64(n[5])
	}
	return f
}

// holdProcess holds the process's memory within the budget (with
// Config.LimitProcess): the Go runtime's memory and the cells outside
// the Go heap together (bigmem.LimitGo) within the budget less the
// program's pages, and the memory cache within the budget less the fixed
// part and the collector's room, each part the most it has been (they
// grow as the program runs code it had not). It runs before every unit.
func (w *Worker) holdProcess() {
	if !w.cfg.LimitProcess || w.cfg.Budget <= 0 {
		return
	}
	now := measureFixed(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	f := fixedPart{file: max(w.fixed.file, now.file), runtime: max(w.fixed.runtime, now.runtime), idleHeap: w.fixed.idleHeap}
	if f.file > w.fixed.file {
		bigmem.LimitGo(w.cfg.Budget - f.file)
	}
	if f != w.fixed {
		w.fixed = f
		w.mem.setLimit(w.cacheLimit())
	}
}

// cacheLimit is the memory cache's budget: Config.MemoryBytes if set;
// with Config.LimitProcess, the budget less the fixed part measured and
// the collector's room; else the budget less what every estimate counts
// for the program and the runtime (plan.BaseBytes), or half the
// machine's memory. w.mu is held, or w is being made.
func (w *Worker) cacheLimit() int64 {
	switch b := w.cfg.Budget; {
	case w.cfg.MemoryBytes > 0:
		return w.cfg.MemoryBytes
	case b > 0 && w.cfg.LimitProcess:
		fixed := w.fixed.bytes()
		return max(b-fixed-collectorRoom(b, fixed), b/4)
	case b > 0:
		return max(b-plan.BaseBytes, b/4)
	}
	return int64(plan.DefaultMemory() / 2)
}

// leaseBudget is the budget the worker tells the leader
// (api.LeaseRequest.Memory), in the leader's terms: its estimates count
// plan.BaseBytes for the program and the runtime, and what the worker
// holds beside them must fit its memory cache.
func (w *Worker) leaseBudget() int64 {
	if w.cfg.Budget <= 0 || !w.cfg.LimitProcess {
		return w.cfg.Budget
	}
	w.mem.mu.Lock()
	defer w.mem.mu.Unlock()
	return min(w.mem.limit+plan.BaseBytes, w.cfg.Budget)
}

// gcAttrs describe the Go collector for a worker's logs: its cycles so
// far, and the last cycle in which its CPU limiter let the heap pass the
// memory limit rather than spend more than about half the CPU collecting
// (0: never). A peak past the budget with a recent limited cycle is the
// limiter's; without one, something else's.
func gcAttrs() slog.Attr {
	n := readMetrics("/gc/cycles/total:gc-cycles", "/gc/limiter/last-enabled:gc-cycle")
	return slog.Group("gc", "cycles", n[0], "limited_cycle", n[1])
}

// memoryAttrs describe the worker's memory for its logs, in MiB: its
// resident set now and at its peak (the system's count), the Go
// runtime's share, the arrays outside the Go heap (cells), what its
// memory cache counts and may hold, and its fixed part.
func (w *Worker) memoryAttrs() slog.Attr {
	r := memsize.ReadResident()
	w.mem.mu.Lock()
	cache, limit := w.mem.used, w.mem.limit
	w.mem.mu.Unlock()
	w.mu.Lock()
	fixed := w.fixed.bytes()
	w.mu.Unlock()
	mib := func(n uint64) float64 { return float64(n>>10) / 1024 }
	return slog.Group("memory_mib", "rss", mib(r.RSS), "peak_rss", mib(r.Peak), "file", mib(r.File),
		"go", mib(bigmem.GoMemory()), "mapped", mib(bigmem.Mapped()), "cache", mib(uint64(max(cache, 0))),
		"cache_limit", mib(uint64(max(limit, 0))), "fixed", mib(uint64(max(fixed, 0))))
}

// readMetrics reads the runtime/metrics of names, each a uint64 (0 if
// the runtime does not have it).
func readMetrics(names ...string) []uint64 {
	s := make([]metrics.Sample, len(names))
	for i, name := range names {
		s[i].Name = name
	}
	metrics.Read(s)
	n := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			n[i] = s[i].Value.Uint64()
		}
	}
	return n
}

// processCPU is the CPU seconds the worker's process has used, user and
// system. Over a unit it counts that unit's computing, the collector's
// and the worker's own upkeep, and any unit running beside it: a unit's
// own share on a one-thread worker, which runs one at a time.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// unitRole names what unit a does for the logs, finer than its kind: a
// part's round says which (first-pass, gather, level, ties or records;
// a sub-part's first pass is sub-first-pass), so that
// the CPU of a run in parts can be summed by role (go run ./bench sums
// it from the workers' "unit done" records).
func unitRole(a *api.Assignment) string {
	if a.Kind == api.FirstRange {
		return "part/sub-first-pass"
	}
	if a.Kind != api.Part || a.Part == nil || len(a.Part.Steps) == 0 {
		return string(a.Kind)
	}
	switch last := a.Part.Steps[len(a.Part.Steps)-1]; {
	case last.Records:
		return "part/records"
	case last.Ties:
		return "part/ties"
	case last.Round == 0 && len(last.Gather) > 0:
		return "part/gather"
	case last.Round == 0:
		return "part/first-pass"
	}
	return "part/level"
}
