package coordinator

import (
	"context"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// TestChanceGameMatchesEmbedded: a game with dice (the bearoff: chance
// nodes, probabilities, every position reachable) runs on the cluster
// through chance.SolveRange and gives tierd solve's bytes.
func TestChanceGameMatchesEmbedded(t *testing.T) {
	m := clusterMatchesEmbedded(t, "bearoff", "checkers=4,points=4", 2)
	if m.Start == nil || m.Start.Win == nil || !m.Solved {
		t.Fatalf("fetched manifest: start %+v, solved %v", m.Start, m.Solved)
	}
}

// TestPlanesMatchEmbedded: a chance game with planes (the bearoff with
// cube=money: its cubeful money equities) runs on the cluster, each solve
// unit computing both, and the fetched run holds tierd solve's bytes,
// databases of planes included.
func TestPlanesMatchEmbedded(t *testing.T) {
	m := clusterMatchesEmbedded(t, "bearoff", "checkers=4,points=4,cube=money", 2)
	for _, rec := range m.Tiers {
		if rec.Planes == nil {
			t.Fatalf("fetched manifest: tier %d has no planes", rec.Tier)
		}
	}
}

// TestXiangqiMatchesEmbedded: an exhaustive game whose tiers hold hashes
// that are no positions (xiangqi: every tier loopy, the legal hashes only,
// reach.FullTier on the leader) runs on the cluster and gives tierd
// solve's bytes.
func TestXiangqiMatchesEmbedded(t *testing.T) {
	m := clusterMatchesEmbedded(t, "xiangqi", "material=KRvKA", 1)
	if m.Start == nil || len(m.Tiers) != 4 {
		t.Fatalf("fetched manifest: start %+v, %d tiers", m.Start, len(m.Tiers))
	}
}

// clusterMatchesEmbedded runs game on 3 coordinators and workers
// workers (of 2 threads, then 1), checks that the fetched run is tierd
// solve's bytes, and returns its manifest.
func clusterMatchesEmbedded(t *testing.T, game, option string, workers int) *runfolder.Manifest {
	t.Helper()
	c := startCluster(t, 3, 5*time.Second)
	c.startWorker("w1", 2)
	if workers > 1 {
		c.startWorker("w2", 1)
	}
	cl := c.client()
	ctx := context.Background()
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: game, Option: option, Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, 2*time.Minute)
	return checkFetched(t, cl, id, game, option, false)
}
