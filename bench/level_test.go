package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/workload"
	"github.com/tiersolve/tiersolve/bench/naive"
	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/levelfile"
)

// tier returns the random 2^26-position tier of a density, built once per
// process and shared by the benchmarks (read only).
var tier = func() func(d float64) *bitarray.Set {
	var mu sync.Mutex
	sets := map[float64]*bitarray.Set{}
	return func(d float64) *bitarray.Set {
		mu.Lock()
		defer mu.Unlock()
		if sets[d] == nil {
			sets[d] = workload.RandomSet(1<<workload.TierBits, d, 1)
		}
		return sets[d]
	}
}()

// writer is one way of writing a level file; it returns the file's size
// and type.
type writer struct {
	name  string
	write func(name string, s *bitarray.Set) (int64, levelfile.Type, error)
}

// writers are the variants compared: levelfile's race over all four
// types, levelfile with only the type that wins (the least work any
// writer that knew the answer could do), levelfile compressing all four
// completely (WriteOptions.Exhaustive: the same compressor without the
// race, which separates the race's gain from the compressor's), and the
// naive baseline.
func writers(b *testing.B, s *bitarray.Set) []writer {
	lf := func(opts *levelfile.WriteOptions) func(string, *bitarray.Set) (int64, levelfile.Type, error) {
		return func(name string, s *bitarray.Set) (int64, levelfile.Type, error) {
			res, err := levelfile.WriteFile(name, s, opts)
			return res.Bytes, res.Header.Type, err
		}
	}
	res, err := levelfile.Write(discard{}, s, nil)
	if err != nil {
		b.Fatal(err)
	}
	winner := res.Header.Type
	return []writer{
		{"auto", lf(nil)},
		{fmt.Sprintf("winner-type%d", winner), lf(&levelfile.WriteOptions{Types: levelfile.Types(winner)})},
		{"exhaustive", lf(&levelfile.WriteOptions{Exhaustive: true})},
		{"naive", func(name string, s *bitarray.Set) (int64, levelfile.Type, error) {
			res, err := naive.WriteFile(name, s)
			return res.Bytes, res.Type, err
		}},
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// mpos is millions of positions per second over the benchmark's timed
// iterations, n positions each.
func mpos(b *testing.B, n uint64) float64 {
	return float64(n) * float64(b.N) / b.Elapsed().Seconds() / 1e6
}

func fullName(dir string) string {
	return filepath.Join(dir, levelfile.FullName("bench", "random", 0))
}

// BenchmarkLevelWrite writes a 2^26-position tier as a real file (synced
// and renamed): with levelfile's race (auto), with only the winning type,
// with levelfile compressing all four types (exhaustive, which also keeps
// the losers as intermediate files), and with the naive baseline (four
// files, standard-library gzip).
// Metrics: bytes of the file, its type, Mpos/s of members written.
func BenchmarkLevelWrite(b *testing.B) {
	for _, d := range workload.Densities {
		s := tier(d)
		for _, w := range writers(b, s) {
			b.Run(fmt.Sprintf("density=%g/%s", d, w.name), func(b *testing.B) {
				name := fullName(b.TempDir())
				var size int64
				var typ levelfile.Type
				for b.Loop() {
					var err error
					if size, typ, err = w.write(name, s); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(size), "bytes")
				b.ReportMetric(float64(typ), "type")
				b.ReportMetric(mpos(b, s.Count()), "Mpos/s")
			})
		}
	}
}

// ratioReps is how many times BenchmarkLevelWriteRatios runs each variant
// per iteration; the best time of each counts.
const ratioReps = 3

// BenchmarkLevelWriteRatios times the variants of BenchmarkLevelWrite
// against each other in one benchmark, interleaved, best of ratioReps
// each, and reports the ratios of their times: auto/winner (the race's
// overhead over writing only the type that wins; 1 is ideal), naive/auto
// (how much faster levelfile is than the naive baseline), which splits
// into exhaustive/auto (the race's gain, same compressor) and
// naive/exhaustive (the compressor's and the parallel chunks' gain); and
// naive-bytes/auto-bytes (the compressors differ). auto-s is auto's best
// time. ns/op is suppressed: it is a sum of all runs.
func BenchmarkLevelWriteRatios(b *testing.B) {
	for _, d := range workload.Densities {
		s := tier(d)
		ws := writers(b, s)
		b.Run(fmt.Sprintf("density=%g", d), func(b *testing.B) {
			name := fullName(b.TempDir())
			best := make([]time.Duration, len(ws))
			size := make([]int64, len(ws))
			for i := range best {
				best[i] = math.MaxInt64
			}
			for b.Loop() {
				for rep := range ratioReps {
					for k := range ws {
						i := (k + rep) % len(ws) // rotate the order against drift
						t0 := time.Now()
						n, _, err := ws[i].write(name, s)
						if err != nil {
							b.Fatal(err)
						}
						best[i] = min(best[i], time.Since(t0))
						size[i] = n
					}
				}
			}
			const auto, winner, exhaustive, naive = 0, 1, 2, 3
			ratio := func(a, b int) float64 { return best[a].Seconds() / best[b].Seconds() }
			b.ReportMetric(ratio(auto, winner), "auto/winner")
			b.ReportMetric(ratio(naive, auto), "naive/auto")
			b.ReportMetric(ratio(exhaustive, auto), "exhaustive/auto")
			b.ReportMetric(ratio(naive, exhaustive), "naive/exhaustive")
			b.ReportMetric(float64(size[naive])/float64(size[auto]), "naive-bytes/auto-bytes")
			b.ReportMetric(best[auto].Seconds(), "auto-s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkLevelRead reads each type of the tiers into a set. MB/s is of
// the compressed file; Mpos/s of members decoded.
func BenchmarkLevelRead(b *testing.B) {
	dir := b.TempDir()
	for _, d := range workload.Densities {
		s := tier(d)
		for typ := levelfile.Type0; typ <= levelfile.Type3; typ++ {
			b.Run(fmt.Sprintf("density=%g/type%d", d, typ), func(b *testing.B) {
				name := filepath.Join(dir, fmt.Sprintf("d%g-type%d.dat.gz", d, typ))
				res, err := levelfile.WriteFile(name, s, &levelfile.WriteOptions{Types: levelfile.Types(typ), NoSync: true})
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(res.Bytes)
				dst := bitarray.New(0, s.Len())
				for b.Loop() {
					f, err := levelfile.Open(name, nil)
					if err != nil {
						b.Fatal(err)
					}
					err = f.ReadInto(dst)
					f.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(mpos(b, s.Count()), "Mpos/s")
				b.ReportMetric(float64(res.Bytes), "bytes")
				if !dst.Equal(s) {
					b.Fatal("read a different set")
				}
			})
		}
	}
}

// mergeFiles is how many partial files BenchmarkLevelMerge merges.
const mergeFiles = 8

// BenchmarkLevelMerge merges 8 partial level files, each a random eighth
// of a tier's members over the whole range (the shape reachability
// writes), with 1 and 2 workers. MB/s is of the compressed input, Mpos/s
// of members decoded. The speedup sub-benchmark times both worker counts
// interleaved (best of ratioReps) and reports workers=1 time / workers=2
// time.
func BenchmarkLevelMerge(b *testing.B) {
	root := b.TempDir()
	ctx := context.Background()
	for _, d := range workload.Densities {
		s := tier(d)
		var once sync.Once
		var names []string
		var size int64
		var setupErr error
		setup := func(b *testing.B) {
			once.Do(func() {
				dir := filepath.Join(root, fmt.Sprint(d))
				if setupErr = mkdir(dir); setupErr == nil {
					names, size, setupErr = workload.WritePartials(dir, workload.Partition(s, mergeFiles, 2))
				}
			})
			if setupErr != nil {
				b.Fatal(setupErr)
			}
		}
		merge := func(b *testing.B, workers int) *bitarray.Set {
			m, err := levelfile.Merge(ctx, names, &levelfile.MergeOptions{Workers: workers})
			if err != nil {
				b.Fatal(err)
			}
			return m
		}
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("density=%g/workers=%d", d, w), func(b *testing.B) {
				setup(b)
				b.SetBytes(size)
				var m *bitarray.Set
				for b.Loop() {
					m = merge(b, w)
				}
				b.ReportMetric(mpos(b, s.Count()), "Mpos/s")
				if !m.SameMembers(s) {
					b.Fatal("the merged set differs from the tier")
				}
			})
		}
		b.Run(fmt.Sprintf("density=%g/speedup", d), func(b *testing.B) {
			setup(b)
			best := [3]time.Duration{0, math.MaxInt64, math.MaxInt64}
			for b.Loop() {
				for rep := range ratioReps {
					for k := range 2 {
						w := 1 + (k+rep)%2
						t0 := time.Now()
						merge(b, w)
						best[w] = min(best[w], time.Since(t0))
					}
				}
			}
			b.ReportMetric(best[1].Seconds()/best[2].Seconds(), "speedup")
			b.ReportMetric(0, "ns/op")
		})
	}
}
