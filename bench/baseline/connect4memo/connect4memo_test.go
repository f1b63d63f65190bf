package connect4memo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tiersolve/tiersolve/bench/baseline/connect4memo"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

func TestStart4x4IsTie(t *testing.T) {
	res, err := connect4memo.Solve(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	if res.Start != tiergame.Tie {
		t.Fatalf("4x4 start is %v, want tie", res.Start)
	}
}

func TestBadBoard(t *testing.T) {
	for _, b := range [][2]int{{0, 4}, {8, 4}, {4, 0}, {4, 7}} {
		if _, err := connect4memo.Solve(b[0], b[1]); err == nil {
			t.Errorf("%dx%d: no error", b[0], b[1])
		}
	}
}

// TestAgreesWithSolver compares the start value and the number of
// reachable positions with the project's tier solver on small boards.
func TestAgreesWithSolver(t *testing.T) {
	for _, b := range [][2]int{{1, 1}, {2, 3}, {4, 1}, {1, 4}, {4, 3}, {3, 4}, {5, 2}, {4, 4}, {5, 3}} {
		w, h := b[0], b[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			t.Parallel() // the solver's runs mostly wait for fsync
			res, err := connect4memo.Solve(w, h)
			if err != nil {
				t.Fatal(err)
			}
			g, err := games.New("connect4", fmt.Sprintf("width=%d,height=%d", w, h))
			if err != nil {
				t.Fatal(err)
			}
			run, err := solver.Open(solver.Config{Game: g, Dir: t.TempDir(), Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := run.Reach(ctx); err != nil {
				t.Fatal(err)
			}
			if err := run.Solve(ctx); err != nil {
				t.Fatal(err)
			}
			m := run.Manifest
			if m.Start == nil {
				t.Fatal("the manifest has no start value")
			}
			if m.Start.Value != res.Start.String() {
				t.Errorf("start: memo %v, solver %s", res.Start, m.Start.Value)
			}
			if uint64(res.Positions) != m.Total {
				t.Errorf("positions: memo %d, solver %d", res.Positions, m.Total)
			}
		})
	}
}
