package bitarray

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// model is the reference: a sorted slice of distinct members plus a range.
type model struct {
	base, n uint64
	ps      []uint64
}

func randomModel(r *rand.Rand, base, n uint64, density float64) model {
	m := model{base: base, n: n}
	for i := uint64(0); i < n; i++ {
		if r.Float64() < density {
			m.ps = append(m.ps, base+i)
		}
	}
	return m
}

func (m model) set() *Set {
	s := New(m.base, m.n)
	for _, p := range m.ps {
		s.Add(p)
	}
	return s
}

func members(s *Set) []uint64 {
	var out []uint64
	for p := range s.All() {
		out = append(out, p)
	}
	return out
}

var shapes = []struct {
	name    string
	base, n uint64
	density float64
}{
	{"empty-range", 0, 0, 0},
	{"one-bit", 7, 1, 1},
	{"tiny", 3, 5, 0.5},
	{"word", 0, 64, 0.3},
	{"word+1", 100, 65, 0.5},
	{"sparse", 1 << 40, 5000, 0.01},
	{"dense", 12345, 3000, 0.9},
	{"full", 0, 700, 1},
	{"near-2^64", math.MaxUint64 - 199, 200, 0.4},
}

func TestSetAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			m := randomModel(r, sh.base, sh.n, sh.density)
			s := m.set()
			if got := members(s); !slices.Equal(got, m.ps) {
				t.Fatalf("members %v, want %v", got, m.ps)
			}
			if s.Count() != uint64(len(m.ps)) {
				t.Fatalf("Count %d, want %d", s.Count(), len(m.ps))
			}
			mn, ok := s.Min()
			if ok != (len(m.ps) > 0) || ok && mn != m.ps[0] {
				t.Fatalf("Min %d %v", mn, ok)
			}
			mx, ok := s.Max()
			if ok && mx != m.ps[len(m.ps)-1] {
				t.Fatalf("Max %d", mx)
			}
			// NextMany with a small buffer visits the same members.
			var got []uint64
			buf := make([]uint64, 3)
			for c, ps := s.NextMany(0, buf); len(ps) > 0; c, ps = s.NextMany(c, buf) {
				got = append(got, ps...)
			}
			if !slices.Equal(got, m.ps) {
				t.Fatalf("NextMany %v, want %v", got, m.ps)
			}
			// Contains agrees, including just outside the range.
			for _, p := range []uint64{sh.base - 1, sh.base, sh.base + sh.n/2, sh.base + sh.n - 1, sh.base + sh.n} {
				_, want := slices.BinarySearch(m.ps, p)
				if s.Contains(p) != want {
					t.Fatalf("Contains(%d) = %v", p, !want)
				}
			}
			// MSB round trip.
			msb := s.AppendMSB(nil, s.Base(), s.Len())
			if len(msb) != int((sh.n+7)/8) {
				t.Fatalf("MSB length %d", len(msb))
			}
			for _, p := range m.ps {
				i := p - sh.base
				if msb[i/8]&(0x80>>(i%8)) == 0 {
					t.Fatalf("MSB bit for %d not set", p)
				}
			}
			back, err := FromMSB(msb, s.Base(), s.Len())
			if err != nil || !back.Equal(s) {
				t.Fatalf("FromMSB round trip failed: %v", err)
			}
		})
	}
}

func TestRangeAndSub(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := randomModel(r, 1000, 1000, 0.3)
	s := m.set()
	for range 200 {
		lo := 900 + r.Uint64N(1200)
		hi := lo + r.Uint64N(400)
		var want []uint64
		for _, p := range m.ps {
			if p >= lo && p < hi {
				want = append(want, p)
			}
		}
		var got []uint64
		for p := range s.Range(lo, hi) {
			got = append(got, p)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Range(%d,%d) = %v, want %v", lo, hi, got, want)
		}
		sub := s.Sub(lo, hi)
		if sub.Base() != lo || sub.Len() != hi-lo || !slices.Equal(members(sub), want) {
			t.Fatalf("Sub(%d,%d) = %v, want %v", lo, hi, members(sub), want)
		}
		// The MSB form of an unaligned window matches membership.
		msb := s.AppendMSB([]byte{0xAA}, lo, hi-lo)[1:]
		for j := uint64(0); j < hi-lo; j++ {
			if (msb[j/8]&(0x80>>(j%8)) != 0) != s.Contains(lo+j) {
				t.Fatalf("AppendMSB(%d,%d) bit %d wrong", lo, hi-lo, j)
			}
		}
		if r := (hi - lo) % 8; r != 0 && msb[len(msb)-1]&(0xFF>>r) != 0 {
			t.Fatalf("AppendMSB padding not zero")
		}
	}
}

func TestOrShifted(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		dst := randomModel(r, 500, 600, 0.2)
		lo := 500 + r.Uint64N(600)
		n := r.Uint64N(1100 - lo + 1)
		src := randomModel(r, lo, n, 0.5)
		s := dst.set()
		if err := s.Or(src.set()); err != nil {
			t.Fatal(err)
		}
		want := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(dst.ps), src.ps...))))
		if got := members(s); !slices.Equal(got, want) {
			t.Fatalf("Or: got %v want %v", got, want)
		}
	}
	// Members outside the range are refused without changes.
	s := New(10, 10)
	o := New(0, 100)
	o.Add(5)
	o.Add(12)
	if err := s.Or(o); err == nil || s.Count() != 0 {
		t.Fatalf("Or out of range: err=%v count=%d", err, s.Count())
	}
	// A source whose range is wider but whose members fit is accepted.
	o2 := New(0, 100)
	o2.Add(15)
	if err := s.Or(o2); err != nil || !s.Contains(15) {
		t.Fatalf("Or wide source: %v", err)
	}
}

func TestOrMSBOutOfRange(t *testing.T) {
	s := New(8, 16)
	if !s.OrMSB(8, []byte{0x80, 0x01}) || !s.Contains(8) || !s.Contains(23) {
		t.Fatal("in-range bits not added")
	}
	if s.OrMSB(8, []byte{0, 0, 0x80}) {
		t.Fatal("bit beyond the range accepted")
	}
	if s.OrMSB(0, []byte{0x01}) {
		t.Fatal("bit below the range accepted")
	}
}

func TestUnionAll(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 1<<21 + 77
	var srcs []*Set
	want := New(0, n)
	for range 5 {
		s := New(0, n)
		for range 20000 {
			p := r.Uint64N(n)
			s.Add(p)
			want.Add(p)
		}
		srcs = append(srcs, s)
	}
	dst := New(0, n)
	if err := UnionAll(context.Background(), dst, srcs, 2); err != nil {
		t.Fatal(err)
	}
	if !dst.Equal(want) {
		t.Fatal("UnionAll differs from sequential union")
	}
	if err := UnionAll(context.Background(), dst, []*Set{New(1, n)}, 2); err == nil {
		t.Fatal("UnionAll accepted a different range")
	}
}

func TestRankSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, sh := range shapes {
		m := randomModel(r, sh.base, sh.n, sh.density)
		rk := NewRanked(m.set())
		if rk.Total() != uint64(len(m.ps)) {
			t.Fatalf("%s: Total %d", sh.name, rk.Total())
		}
		for i, p := range m.ps {
			if got, ok := rk.Lookup(p); !ok || got != uint64(i) {
				t.Fatalf("%s: Lookup(%d) = %d,%v want %d", sh.name, p, got, ok, i)
			}
			if got, ok := rk.Select(uint64(i)); !ok || got != p {
				t.Fatalf("%s: Select(%d) = %d want %d", sh.name, i, got, p)
			}
		}
		if _, ok := rk.Select(uint64(len(m.ps))); ok {
			t.Fatalf("%s: Select past the end", sh.name)
		}
		if _, ok := rk.Lookup(sh.base + sh.n); ok {
			t.Fatalf("%s: Lookup past the range", sh.name)
		}
	}
}

func TestAddAtomicConcurrent(t *testing.T) {
	s := New(0, 1<<16)
	done := make(chan bool)
	for g := range 4 {
		go func() {
			for p := uint64(g); p < 1<<16; p += 4 {
				s.AddAtomic(p)
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	if s.Count() != 1<<16 {
		t.Fatalf("Count %d after concurrent adds", s.Count())
	}
}

func TestAddRange(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 500 {
		s := New(1000, 300)
		want := map[uint64]bool{}
		for range 3 {
			lo := 1000 + r.Uint64N(300)
			hi := lo + r.Uint64N(1300-lo)
			s.AddRange(lo, hi)
			for p := lo; p <= hi; p++ {
				want[p] = true
			}
		}
		if s.Count() != uint64(len(want)) {
			t.Fatalf("Count %d, want %d", s.Count(), len(want))
		}
		for p := range want {
			if !s.Test(p) {
				t.Fatalf("%d missing", p)
			}
		}
	}
	s := New(math.MaxUint64-63, 64)
	s.AddRange(math.MaxUint64-63, math.MaxUint64)
	if s.Count() != 64 {
		t.Fatal("AddRange to 2^64-1")
	}
}

func TestAtomicVariants(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 200 {
		base := r.Uint64N(1000)
		n := 1 + r.Uint64N(700)
		a, b := New(base, n), New(base, n)
		data := make([]byte, 1+r.IntN(40))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		pos := base + r.Uint64N(n)
		okA := a.OrMSB(pos, data)
		okB := b.OrMSBAtomic(pos, data)
		if okA != okB || !a.Equal(b) {
			t.Fatalf("OrMSBAtomic differs from OrMSB (ok %v %v)", okA, okB)
		}
		lo := base + r.Uint64N(n)
		hi := lo + r.Uint64N(base+n-lo)
		a.AddRange(lo, hi)
		b.AddRangeAtomic(lo, hi)
		if !a.Equal(b) {
			t.Fatal("AddRangeAtomic differs from AddRange")
		}
	}
}

// TestCountIn compares CountIn with the model, over ranges that start and
// end inside words, across them and outside the set.
func TestCountIn(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 50 {
		m := randomModel(r, r.Uint64N(1000), 1+r.Uint64N(700), 1.0/3)
		s := m.set()
		for range 200 {
			lo := 1 + r.Uint64N(m.base+m.n+70)
			hi := lo + r.Uint64N(200)
			if r.UintN(10) == 0 {
				hi = lo - 1 // an empty range
			}
			var want uint64
			for _, p := range m.ps {
				if lo <= p && p <= hi {
					want++
				}
			}
			if got := s.CountIn(lo, hi); got != want {
				t.Fatalf("base %d len %d: CountIn(%d, %d) = %d, want %d", m.base, m.n, lo, hi, got, want)
			}
		}
	}
	top := model{base: math.MaxUint64 - 99, n: 100, ps: []uint64{math.MaxUint64 - 99, math.MaxUint64}}
	if got := top.set().CountIn(0, math.MaxUint64); got != 2 {
		t.Fatalf("set at the top of the range: CountIn = %d, want 2", got)
	}
}

// TestNewRankedWorkers: the index built in parallel is the serial one, on
// sets large enough for several shares (and an uneven last block). The
// sets are random words, built once per size (the index does not change
// its set): a member at a time, the 58M-bit set took minutes under the
// race detector.
func TestNewRankedWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []uint64{0, 100, 3*rankChunk*512 + 77, 7 * rankChunk * 512} {
		words := make([]uint64, (n+63)/64)
		for i := range words {
			words[i] = r.Uint64() & r.Uint64() // a density of 1/4
		}
		if n%64 != 0 {
			words[len(words)-1] &= 1<<(n%64) - 1
		}
		s := FromWords(5, n, words)
		want := NewRanked(s)
		if c := s.Count(); want.Total() != c {
			t.Fatalf("n %d: serial index counts %d members, the set %d", n, want.Total(), c)
		}
		for _, w := range []int{2, 3, 8} {
			got := NewRankedWorkers(s, w)
			if got.Total() != want.Total() || !slices.Equal(got.counts, want.counts) {
				t.Fatalf("n %d, %d workers: index differs (total %d, want %d)", n, w, got.Total(), want.Total())
			}
		}
	}
}
