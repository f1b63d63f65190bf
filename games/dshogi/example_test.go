package dshogi_test

import (
	"context"
	"fmt"
	"os"

	"github.com/tiersolve/tiersolve/games/dshogi"
	"github.com/tiersolve/tiersolve/solver"
)

// The start position and the forest's four first moves.
func Example() {
	g, err := dshogi.NewPieces(dshogi.DefaultPieces)
	if err != nil {
		panic(err)
	}
	t, p := g.Start()
	fmt.Println(g.TierName(t), g.Format(t, p))
	fmt.Println(g.MoveNames(t, p))
	// Output:
	// play F:gle/.c./.C./ELG:-
	// [Cb3xb2 Lb4-a3 Lb4-c3 Gc4-c3]
}

// Solving a small variant, the lions alone, in a temporary folder.
func ExampleNewPieces() {
	g, err := dshogi.NewPieces("L")
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "dshogi")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	r, err := solver.Open(solver.Config{Game: g, Dir: dir})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	if err := r.Reach(context.Background()); err != nil {
		panic(err)
	}
	if err := r.Solve(context.Background()); err != nil {
		panic(err)
	}
	for _, tr := range r.Manifest.Tiers {
		fmt.Printf("%-7s %3d positions: %3d win, %3d lose, %2d draw\n", tr.Name, tr.Reachable, tr.Win, tr.Lose, tr.Draw)
	}
	s := r.Manifest.Start
	fmt.Printf("%s: %s in %d\n", s.Position, s.Value, s.Remoteness)
	// Output:
	// play    150 positions: 118 win,  18 lose, 14 draw
	// try      48 positions:  22 win,  26 lose,  0 draw
	// capture  18 positions:   0 win,  18 lose,  0 draw
	// F:.l./.../.../.L.:-: win in 5
}
