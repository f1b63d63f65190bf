package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/workload"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// bearoffSizes are the bearoffs of BenchmarkBearoff (checkers on 6
// points); the large ones only with TIERSOLVE_BENCH_LARGE=1.
var bearoffSizes = []struct {
	checkers int
	large    bool
}{{6, false}, {8, false}, {10, true}, {12, true}}

// BenchmarkBearoff solves the two-sided bearoff of 6, 8 (and with
// TIERSOLVE_BENCH_LARGE=1 10 and 12) checkers on 6 points with 2 workers:
// a whole run, level files and databases included, in a fresh folder each
// time. pos/s is positions per second; MB is the databases' size.
func BenchmarkBearoff(b *testing.B) {
	for _, sz := range bearoffSizes {
		b.Run(fmt.Sprintf("checkers=%d", sz.checkers), func(b *testing.B) {
			if sz.large && os.Getenv(LargeEnv) != "1" {
				b.Skipf("set %s=1 to run the large bearoffs", LargeEnv)
			}
			root := b.TempDir()
			var st workload.RunStats
			i := 0
			for b.Loop() {
				dir := filepath.Join(root, fmt.Sprint(i))
				i++
				var err error
				if st, err = workload.Run(context.Background(), "bearoff", fmt.Sprintf("checkers=%d,points=6", sz.checkers), 2, dir, true); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(dir)
				b.StartTimer()
			}
			b.ReportMetric(float64(st.Positions)*float64(b.N)/b.Elapsed().Seconds(), "pos/s")
			b.ReportMetric(float64(st.DBBytes)/1e6, "MB")
		})
	}
}

// makebearoff finds gnubg's makebearoff (Debian package gnubg).
func makebearoff(b *testing.B) string {
	if p, err := exec.LookPath("makebearoff"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/games/makebearoff"); err == nil {
		return "/usr/games/makebearoff"
	}
	b.Skip("makebearoff not installed (Debian package gnubg)")
	return ""
}

// BenchmarkBearoffVsMakebearoff times, in one process and interleaved
// (ours, gnubg's, ours, ...), three times each: our whole solve of the
// 6-checker 6-point two-sided bearoff (2 workers), gnubg's makebearoff -t
// 6x6 (cubeless and cubeful equities, its default) and makebearoff -t 6x6
// -C (cubeless only, what we compute). Metrics: the best seconds of each,
// and the speed-ups (gnubg's best time over ours). ns/op is meaningless.
func BenchmarkBearoffVsMakebearoff(b *testing.B) {
	bin := makebearoff(b)
	for b.Loop() {
		root := b.TempDir()
		best := map[string]time.Duration{}
		keep := func(name string, d time.Duration) {
			if old, ok := best[name]; !ok || d < old {
				best[name] = d
			}
		}
		for rep := range 3 {
			t0 := time.Now()
			if _, err := workload.Run(context.Background(), "bearoff", "checkers=6,points=6", 2, filepath.Join(root, fmt.Sprint("ours", rep)), true); err != nil {
				b.Fatal(err)
			}
			keep("ours", time.Since(t0))
			for _, args := range [][]string{{"-t", "6x6"}, {"-t", "6x6", "-C"}} {
				name := "makebearoff"
				if len(args) == 3 {
					name = "makebearoff-C"
				}
				cmd := exec.Command(bin, append(args, "-f", filepath.Join(root, fmt.Sprint(name, rep, ".bd")))...)
				t0 := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", cmd, err, out)
				}
				keep(name, time.Since(t0))
			}
		}
		b.ReportMetric(best["ours"].Seconds(), "ours-s")
		b.ReportMetric(best["makebearoff"].Seconds(), "makebearoff-s")
		b.ReportMetric(best["makebearoff-C"].Seconds(), "makebearoff-C-s")
		b.ReportMetric(best["makebearoff"].Seconds()/best["ours"].Seconds(), "speedup")
		b.ReportMetric(best["makebearoff-C"].Seconds()/best["ours"].Seconds(), "speedup-C")
	}
}

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
	m, err := solver.LoadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	g, err := games.New(m.Game, m.Option)
	if err != nil {
		b.Fatal(err)
	}
	o, err := solver.OpenOracle(dir, g)
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
	for _, q := range qs {
		if _, err := o.Win(q.tier, q.pos); err != nil {
			b.Fatal(err)
		}
	}
	r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	i := 0
	for b.Loop() {
		q := qs[i%len(qs)]
		i++
		if _, err := o.Win(q.tier, q.pos); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}
