package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/bench/internal/workload"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// LargeEnv is the environment variable that enables the large boards.
const LargeEnv = "TIERSOLVE_BENCH_LARGE"

// boards are the Connect Four runs benchmarked; the large ones only with
// TIERSOLVE_BENCH_LARGE=1 (minutes each, gigabytes of memory and disk).
var boards = []struct {
	name, option string
	large        bool
}{
	{"5x4", "width=5,height=4", false},
	{"5x5", "width=5,height=5", true},
	{"6x4", "width=6,height=4", true},
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }

// BenchmarkReach runs reachability of Connect Four from an empty folder.
// pos/s is reachable positions per second; pos/s/worker divides it by the
// number of workers (equal to pos/s when the workers scale perfectly).
func BenchmarkReach(b *testing.B) { benchRun(b, false) }

// BenchmarkSolve solves Connect Four after reachability (not timed) in a
// fresh folder each iteration. Metrics as BenchmarkReach.
func BenchmarkSolve(b *testing.B) { benchRun(b, true) }

func benchRun(b *testing.B, solve bool) {
	ctx := context.Background()
	for _, bd := range boards {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("connect4-%s/workers=%d", bd.name, workers), func(b *testing.B) {
				if bd.large && os.Getenv(LargeEnv) != "1" {
					b.Skipf("set %s=1 to run the large boards", LargeEnv)
				}
				g, err := games.New("connect4", bd.option)
				if err != nil {
					b.Fatal(err)
				}
				root := b.TempDir()
				var positions uint64
				i := 0
				for b.Loop() {
					b.StopTimer()
					dir := filepath.Join(root, fmt.Sprint(i))
					i++
					run, err := solver.Open(solver.Config{Game: g, Dir: dir, Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					if solve {
						if err := run.Reach(ctx); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					if solve {
						err = run.Solve(ctx)
					} else {
						err = run.Reach(ctx)
					}
					b.StopTimer()
					if err != nil {
						b.Fatal(err)
					}
					positions = run.Manifest.Total
					if err := os.RemoveAll(dir); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				ps := float64(positions) * float64(b.N) / b.Elapsed().Seconds()
				b.ReportMetric(ps, "pos/s")
				b.ReportMetric(ps/float64(workers), "pos/s/worker")
				b.ReportMetric(float64(positions), "positions")
			})
		}
	}
}

// query is a position to look up.
type query struct {
	tier tiergame.Tier
	pos  tiergame.Position
}

// BenchmarkQuery looks up random reachable positions of a solved 5x4
// Connect Four run (solved once, not timed) through oracle.Open.
// warm: one oracle whose tiers are all loaded, ns/op per lookup. cold: a
// new oracle for each batch of queryBatch lookups, so each batch loads
// the level files of the tiers it touches. Metric: lookups/s.
func BenchmarkQuery(b *testing.B) {
	const option = "width=5,height=4"
	dir := b.TempDir()
	if _, err := workload.Run(context.Background(), workload.Spec{Game: "connect4", Option: option}, dir, true); err != nil {
		b.Fatal(err)
	}
	g, err := games.New("connect4", option)
	if err != nil {
		b.Fatal(err)
	}
	qs := sampleQueries(b, dir, 4096)
	b.Run("warm", func(b *testing.B) {
		o, err := oracle.Open(dir, g)
		if err != nil {
			b.Fatal(err)
		}
		defer o.Close()
		lookup := func(q query) error { _, err := o.Lookup(q.tier, q.pos); return err }
		lookEach(b, qs, lookup) // load every tier first
		timeLookups(b, qs, lookup)
	})
	b.Run("cold", func(b *testing.B) {
		const queryBatch = 100
		i := 0
		for b.Loop() {
			o, err := oracle.Open(dir, g)
			if err != nil {
				b.Fatal(err)
			}
			for range queryBatch {
				q := qs[i%len(qs)]
				i++
				if _, err := o.Lookup(q.tier, q.pos); err != nil {
					b.Fatal(err)
				}
			}
			o.Close()
		}
		b.ReportMetric(queryBatch*float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
	})
}

// lookEach looks every query up once with look.
func lookEach(b *testing.B, qs []query, look func(query) error) {
	for _, q := range qs {
		if err := look(q); err != nil {
			b.Fatal(err)
		}
	}
}

// timeLookups is the timed loop of a query benchmark: one look-up an
// iteration, the queries in turn, and the metric lookups/s.
func timeLookups(b *testing.B, qs []query, look func(query) error) {
	i := 0
	for b.Loop() {
		q := qs[i%len(qs)]
		i++
		if err := look(q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}

// sampleQueries picks about n reachable positions of a run at random
// (each with the same probability), in random order.
func sampleQueries(b *testing.B, dir string, n int) []query {
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 4))
	p := float64(n) / float64(m.Total)
	var qs []query
	for _, rec := range m.Tiers {
		if rec.Level == nil {
			continue
		}
		_, set, err := levelfile.ReadFile(filepath.Join(dir, rec.Level.Path), nil)
		if err != nil {
			b.Fatal(err)
		}
		for pos := range set.All() {
			if r.Float64() < p {
				qs = append(qs, query{tiergame.Tier(rec.Tier), tiergame.Position(pos)})
			}
		}
	}
	if len(qs) == 0 {
		b.Fatal("no positions sampled")
	}
	r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs
}
