package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
)

// TestXiangqiMatchesEmbedded: an exhaustive game whose tiers hold hashes
// that are no positions (xiangqi: every tier loopy, the legal hashes only,
// solver.FullTier on the leader) runs on the cluster and gives tierd
// solve's bytes.
func TestXiangqiMatchesEmbedded(t *testing.T) {
	const game, option = "xiangqi", "material=KRvKA"
	c := startCluster(t, 3, 5*time.Second)
	c.startWorker("w1", 2)
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
	if m.Start == nil || len(m.Tiers) != 4 {
		t.Fatalf("fetched manifest: start %+v, %d tiers", m.Start, len(m.Tiers))
	}
	sameRunFolders(t, embeddedSolve(t, game, option, false), out)
}
