package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
)

// TestChanceGameMatchesEmbedded: a game with dice (the bearoff: chance
// nodes, probabilities, every position reachable) runs on the cluster
// through solver.SolveChanceRange and gives tierd solve's bytes.
func TestChanceGameMatchesEmbedded(t *testing.T) {
	const game, option = "bearoff", "checkers=4,points=4"
	c := startCluster(t, 3, 5*time.Second)
	c.startWorker("w1", 2)
	c.startWorker("w2", 1)
	cl := c.client()
	ctx := context.Background()
	id, err := cl.Submit(ctx, SubmitRequest{Game: game, Option: option, Settings: &Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, 2*time.Minute)
	out := t.TempDir()
	m, err := cl.Fetch(ctx, id, out, games.New)
	if err != nil {
		t.Fatal(err)
	}
	if m.Start == nil || m.Start.Win == nil || !m.Solved {
		t.Fatalf("fetched manifest: start %+v, solved %v", m.Start, m.Solved)
	}
	sameRunFolders(t, embeddedSolve(t, game, option, false), out)
}
