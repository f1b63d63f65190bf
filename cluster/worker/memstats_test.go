package worker

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/solver"
)

// TestBudget: a worker with a budget keeps in its memory cache the budget
// less what every estimate counts for the program (solver.BaseBytes);
// with LimitProcess, the Go runtime's memory limit is the budget less the
// program's pages and the cells mapped outside the heap.
func TestBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the program's pages are read from /proc")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
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
	if w.mem.limit != budget-solver.BaseBytes {
		t.Errorf("memory cache of %d bytes, want %d", w.mem.limit, budget-solver.BaseBytes)
	}
	program := max(int64(memsize.ReadResident().File), programBytes)
	limit := debug.SetMemoryLimit(-1)
	if want := budget - program - int64(bigmem.Mapped()); limit > want || limit < want-8<<20 {
		t.Errorf("Go memory limit %d, want about %d (the budget less the program's %d bytes)", limit, want, program)
	}
}
