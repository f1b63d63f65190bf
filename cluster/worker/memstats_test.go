package worker

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// TestBudget: a worker with a budget and LimitProcess keeps in its
// memory cache the budget less its fixed part measured and the
// collector's room, tells the leader that cache in the leader's terms,
// and holds the Go runtime's memory limit at the budget less the
// program's pages and the cells mapped outside the heap; without
// LimitProcess the cache is the budget less plan.BaseBytes.
func TestBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the program's pages are read from /proc")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer bigmem.LimitGo(0)
	cl, err := api.NewClient([]string{"http://127.0.0.1:1"}, "a-token-of-sixteen-characters", nil)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 256 << 20
	w, err := New(Config{Client: cl, ID: "w", Threads: 1, Dir: t.TempDir(), NewGame: games.New, Budget: budget, LimitProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	fixed := w.fixed.bytes()
	if fixed < programBytes || fixed > budget/2 {
		t.Errorf("a fixed part of %d bytes measured, want the program's pages and more, and less than %d", fixed, budget/2)
	}
	if want := budget - fixed - collectorRoom(budget, fixed); w.mem.limit != want {
		t.Errorf("memory cache of %d bytes, want %d (the budget less the fixed part, %d, and the collector's room)", w.mem.limit, want, fixed)
	}
	if got, want := w.leaseBudget(), w.mem.limit+plan.BaseBytes; got != want {
		t.Errorf("budget told the leader %d, want %d (the cache in the leader's terms)", got, want)
	}
	// Without LimitProcess (a worker in a test's process) the fixed part
	// is what every estimate counts.
	w2, err := New(Config{Client: cl, ID: "w2", Threads: 1, Dir: t.TempDir(), NewGame: games.New, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if w2.mem.limit != budget-plan.BaseBytes || w2.leaseBudget() != budget {
		t.Errorf("without LimitProcess: memory cache %d, lease budget %d; want %d and %d", w2.mem.limit, w2.leaseBudget(), budget-plan.BaseBytes, budget)
	}
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GOGC %d, want %d", got, gcPercent)
	}
	program := max(int64(memsize.ReadResident().File), programBytes)
	limit := debug.SetMemoryLimit(-1)
	if want := budget - program - int64(bigmem.Mapped()); limit > want || limit < want-8<<20 {
		t.Errorf("Go memory limit %d, want about %d (the budget less the program's %d bytes)", limit, want, program)
	}
}

// TestGCAttrs: a worker's logs count the collector's cycles, and name
// the last one its CPU limiter was on in (none in a test that collects
// once by hand).
func TestGCAttrs(t *testing.T) {
	runtime.GC()
	a := gcAttrs()
	got := map[string]uint64{}
	for _, g := range a.Value.Group() {
		got[g.Key] = g.Value.Uint64()
	}
	if a.Key != "gc" || got["cycles"] == 0 || got["limited_cycle"] > got["cycles"] {
		t.Errorf("gc attrs %v", a)
	}
}
