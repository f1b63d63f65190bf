package worker

import (
	"log/slog"
	"runtime/metrics"

	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/internal/memsize"
)

// programBytes is the least a worker process holds beside the Go
// runtime's memory and the cells outside the Go heap: its program's pages
// mapped from its file (RssFile), 15.5 MiB for an idle tierd worker.
const programBytes = 16 << 20

// holdProcess holds the process's memory within the budget (with
// Config.LimitProcess): the Go runtime's memory and the cells outside
// the Go heap together (bigmem.LimitGo) within the budget less the
// program's pages, the most they have been (they grow as the program
// runs code it had not). It runs before every unit.
func (w *Worker) holdProcess() {
	if !w.cfg.LimitProcess || w.cfg.Budget <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	file := max(int64(memsize.ReadResident().File), programBytes)
	if file > w.program {
		w.program = file
		bigmem.LimitGo(w.cfg.Budget - file)
	}
}

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
