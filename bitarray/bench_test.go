package bitarray

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
)

func randomSet(n uint64, density float64, seed uint64) *Set {
	r := rand.New(rand.NewPCG(seed, 1))
	s := New(0, n)
	ws := s.Words()
	for i := range ws {
		var w uint64
		for b := 0; b < 64; b++ {
			if r.Float64() < density {
				w |= 1 << b
			}
		}
		ws[i] = w
	}
	s.clearTail()
	return s
}

// BenchmarkNextMany measures ascending iteration (positions/s = members/op).
func BenchmarkNextMany(b *testing.B) {
	for _, d := range []float64{0.5, 0.01} {
		s := randomSet(1<<24, d, 1)
		n := s.Count()
		b.Run(densityName(d), func(b *testing.B) {
			buf := make([]uint64, 4096)
			var sum uint64
			for b.Loop() {
				for c, ps := s.NextMany(0, buf); len(ps) > 0; c, ps = s.NextMany(c, buf) {
					sum += uint64(len(ps))
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpos/s")
			_ = sum
		})
	}
}

func BenchmarkUnionAll(b *testing.B) {
	const n = 1 << 28 // 32 MiB per set
	var srcs []*Set
	for i := range 4 {
		srcs = append(srcs, randomSet(n, 0.1, uint64(i)))
	}
	dst := New(0, n)
	b.SetBytes(int64(len(srcs)) * n / 8)
	for b.Loop() {
		if err := UnionAll(context.Background(), dst, srcs, runtime.GOMAXPROCS(0)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRank(b *testing.B) {
	s := randomSet(1<<26, 0.3, 2)
	rk := NewRanked(s)
	r := rand.New(rand.NewPCG(1, 1))
	ps := make([]uint64, 1<<16)
	for i := range ps {
		ps[i] = r.Uint64N(1 << 26)
	}
	i := 0
	var sum uint64
	for b.Loop() {
		sum += rk.Rank(ps[i&(len(ps)-1)])
		i++
	}
	_ = sum
}

func BenchmarkAppendMSB(b *testing.B) {
	s := randomSet(1<<26, 0.5, 3)
	buf := make([]byte, 0, 1<<23+8)
	b.SetBytes(1 << 23)
	for b.Loop() {
		buf = s.AppendMSB(buf[:0], 13, 1<<26-13)
	}
}

func densityName(d float64) string {
	if d >= 0.1 {
		return "dense50"
	}
	return "sparse1"
}
