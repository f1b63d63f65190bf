package main

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// BearoffRunEnv names a solved bearoff run (any variant) for
// BenchmarkBearoffQuery.
const BearoffRunEnv = "TIERSOLVE_BEAROFF_RUN"

// BenchmarkBearoffQuery looks up random positions of a solved bearoff run
// (TIERSOLVE_BEAROFF_RUN) through one oracle: each lookup reads one block of
// its tier's database, which is rarely cached when positions are random.
// The first lookup of each tier loads its level file (not timed: every
// tier is touched before the timer starts). Metric: lookups/s.
func BenchmarkBearoffQuery(b *testing.B) {
	dir := os.Getenv(BearoffRunEnv)
	if dir == "" {
		b.Skipf("set %s to a solved bearoff run", BearoffRunEnv)
	}
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	g, err := games.New(m.Game, m.Option)
	if err != nil {
		b.Fatal(err)
	}
	o, err := oracle.Open(dir, g)
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	r := rand.New(rand.NewPCG(1, 2))
	var qs []query
	for _, rec := range m.Tiers {
		for range 1024 {
			if rec.Reachable > 0 {
				qs = append(qs, query{tiergame.Tier(rec.Tier), tiergame.Position(r.Uint64N(rec.TierSize))})
			}
		}
	}
	win := func(q query) error { _, err := o.Win(q.tier, q.pos); return err }
	lookEach(b, qs, win)
	r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	timeLookups(b, qs, win)
}
