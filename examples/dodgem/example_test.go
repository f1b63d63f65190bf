package dodgem_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/tiersolve/tiersolve/examples/dodgem"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
)

// Solve 3x3 Dodgem in a folder of its own with the solver's API, as
// tierd solve does, then ask the finished run about a position.
func Example() {
	dir, err := os.MkdirTemp("", "dodgem")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	g := dodgem.NewGame(3)
	run, err := solver.Open(solver.Config{Game: g, Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := run.Reach(ctx); err != nil { // level files: the reachable positions of every tier
		log.Fatal(err)
	}
	if err := run.Solve(ctx); err != nil { // value databases, children tiers first
		log.Fatal(err)
	}
	m := run.Manifest
	fmt.Printf("%d positions; the start %s is a %s in %d\n", m.Total, m.Start.Position, m.Start.Value, m.Start.Remoteness)
	if err := run.Close(); err != nil { // releases the folder's lock
		log.Fatal(err)
	}

	// The run folder answers queries, as tierd query --db DIR does.
	oracle, err := oracle.Open(dir, g)
	if err != nil {
		log.Fatal(err)
	}
	defer oracle.Close()
	tier, p := g.Start()
	moves, err := oracle.Moves(tier, p)
	if err != nil {
		log.Fatal(err)
	}
	for _, mv := range moves { // best first
		fmt.Printf("%s: %s for Blue\n", mv.Name, mv.Outcome())
	}
	// Output:
	// 1963 positions; the start b:b../b../.rr is a win in 19
	// a3-b3: win for Blue
	// a2-b2: lose for Blue
	// a2-a1: lose for Blue
}
