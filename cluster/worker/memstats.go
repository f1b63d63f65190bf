package worker

import (
	"log/slog"
	"runtime/metrics"

	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/internal/memsize"
)

// ProgramBytes is what a worker process holds beside the Go runtime's
// memory and the cells outside the Go heap: its program's pages mapped
// from its file (RssFile), measured at most about N MiB for tierd.
const ProgramBytes = 16 << 20

// LimitMemory holds the memory of a process that runs a worker within
// budget bytes: the Go runtime's and the solver's cells outside the Go
// heap together (bigmem.LimitGo) within budget less ProgramBytes. The
// cells are made as units need them, so the runtime's limit follows
// them. tierd worker --memory calls it; a test that runs workers inside
// its own process does not.
func LimitMemory(budget int64) { bigmem.LimitGo(budget - ProgramBytes) }

// goMemory is the memory the Go runtime holds from the system (heap,
// stacks, its own structures), less what it has given back: what its
// memory limit (debug.SetMemoryLimit) counts.
func goMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	var n [2]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			n[i] = s[i].Value.Uint64()
		}
	}
	return n[0] - min(n[0], n[1])
}

// memoryAttrs describe the worker's memory for its logs, in MiB: its
// resident set now and at its peak (the system's count), the Go
// runtime's share, the arrays outside the Go heap (cells), and what its
// memory cache counts.
func (w *Worker) memoryAttrs() slog.Attr {
	r := memsize.ReadResident()
	w.mem.mu.Lock()
	cache := w.mem.used
	w.mem.mu.Unlock()
	mib := func(n uint64) float64 { return float64(n>>10) / 1024 }
	return slog.Group("memory_mib", "rss", mib(r.RSS), "peak_rss", mib(r.Peak), "file", mib(r.File),
		"go", mib(goMemory()), "mapped", mib(bigmem.Mapped()), "cache", mib(uint64(max(cache, 0))))
}
