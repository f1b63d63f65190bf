package levelfile

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	racedetector "github.com/tiersolve/tiersolve/internal/race"
)

// edgeSets are the cases the issue lists: one position, max = min, offsets
// near 2^64, every bitsPerPosition, empty sets, SEP bytes in binary data.
func edgeSets() map[string]*bitarray.Set {
	r := rand.New(rand.NewPCG(42, 1))
	sets := map[string]*bitarray.Set{
		"empty":            bitarray.New(0, 100),
		"empty-no-range":   bitarray.New(0, 0),
		"zero":             setOf(0, 10, 0),
		"one":              setOf(1000, 10, 1005),
		"min=max-near-top": setOf(math.MaxUint64-9, 10, math.MaxUint64),
		"two-adjacent":     setOf(0, 10, 3, 4),
		"top-of-uint64":    setOf(math.MaxUint64-999, 1000, math.MaxUint64-999, math.MaxUint64-500, math.MaxUint64),
		"dense":            randomSet(r, 77, 5000, 0.9),
		"sparse":           randomSet(r, 1<<40, 20000, 0.01),
		"half":             randomSet(r, 0, 4096, 0.5),
		"full":             randomSet(r, 5, 999, 1.1),
		// 0x12 and 0x0C patterns in packed data: offsets 0x12, 0x0C and
		// bitmaps with those bytes.
		"sep-bytes":     setOf(0, 301, 0, 0x0C, 0x12, 0x120, 0x12C),
		"sep-bitmap":    sepBitmap(),
		"trailer-alike": setOf(0, 64, 0, 0x31, 0x3f), // ...0x0A 0x31 in packed form
	}
	// bitsPerPosition 1 to 20 with two members max−min = 2^(b−1) apart;
	// TestWideOffsets covers the rest.
	for b := 1; b <= 20; b++ {
		lo, hi := uint64(1000), uint64(1000)+1<<(b-1)
		sets[fmt.Sprintf("bits-%02d", b)] = setOf(lo, hi-lo+1, lo, hi)
	}
	return sets
}

// sepBitmap is a set whose type-3 bitmap is full of SEP and "\n1" bytes.
func sepBitmap() *bitarray.Set {
	data := bytes.Repeat([]byte{0x92, 0x12, 0x0C, 0x12, 0x0A, 0x31}, 50)
	data[0] |= 0x80
	data[len(data)-1] |= 1
	s, _ := bitarray.FromMSB(data, 0, uint64(len(data))*8)
	return s
}

func TestRoundTripEveryTypeAndDialect(t *testing.T) {
	for name, s := range edgeSets() {
		want := membersOf(s)
		for _, d := range []Dialect{Spec, Classic} {
			for typ := Type0; typ <= Type3; typ++ {
				t.Run(fmt.Sprintf("%s/%v/%d", name, d, typ), func(t *testing.T) {
					b, res := writeBytes(t, s, &WriteOptions{Types: Types(typ), Dialect: d})
					h, got := readBytes(t, b)
					if !sameMembers(got, want) {
						t.Fatalf("read %v, want %v", got, want)
					}
					wantType := typ
					if len(want) == 0 {
						wantType = Type0 // the empty set is always type 0
					}
					if h.Type != wantType || res.Header.Type != wantType || h.Dialect != d {
						t.Fatalf("header type %d (result %d) dialect %v", h.Type, res.Header.Type, h.Dialect)
					}
					if res.Count != uint64(len(want)) {
						t.Fatalf("count %d", res.Count)
					}
					if len(want) > 0 && (h.Min != want[0] || h.Max != want[len(want)-1]) {
						t.Fatalf("min/max %d/%d", h.Min, h.Max)
					}
					if h.Empty != (len(want) == 0) {
						t.Fatalf("Empty = %v", h.Empty)
					}
					// The standard library agrees the gzip stream is valid.
					gunzip(t, b)
					// ReadSet and Count agree with All.
					r, _ := NewReader(bytes.NewReader(b), nil)
					rs, err := r.ReadSet()
					if err != nil {
						t.Fatal(err)
					}
					if !sameMembers(membersOf(rs), want) {
						t.Fatal("ReadSet differs")
					}
					r, _ = NewReader(bytes.NewReader(b), nil)
					if n, err := r.Count(); err != nil || n != uint64(len(want)) {
						t.Fatalf("Count %d %v", n, err)
					}
				})
			}
		}
	}
}

// TestWideOffsets covers bitsPerPosition 21..64 with sets whose two members
// are far apart: the set is sparse in a huge range, so it is built as a
// small set over a window and written with the original span by merging
// two one-member files.
func TestWideOffsets(t *testing.T) {
	for b := 21; b <= 64; b++ {
		lo := uint64(12345)
		if b == 64 {
			lo = 0
		}
		hi := lo + 1<<(b-1) + 7
		if b == 64 {
			hi = math.MaxUint64
		}
		for typ := Type0; typ <= Type1; typ++ {
			// A set over [lo, hi] does not fit in memory; write the file
			// by hand through the packed encoder with a fake plan.
			raw := rawFile(typ, Spec, lo, hi, []uint64{lo, hi})
			_, got := readBytes(t, gzipBytes(raw))
			if !sameMembers(got, []uint64{lo, hi}) {
				t.Fatalf("b=%d type %d: read %v", b, typ, got)
			}
		}
	}
}

// rawFile builds the uncompressed bytes of a type 0 or 1 file by the
// document's rules, independently of the writer.
func rawFile(typ Type, d Dialect, min, max uint64, ps []uint64) []byte {
	h := Header{Type: typ, Dialect: d, Min: min, Max: max, Comments: []string{"# test"}}
	out := appendHeader(nil, h)
	width := uint(h.BitsPerPosition())
	switch typ {
	case Type0:
		for _, p := range ps {
			out = fmt.Appendf(out, "%d ", p)
		}
	case Type1:
		var bitsOut []byte // one byte per bit, then packed
		for _, p := range ps {
			v := p - min
			for i := int(width) - 1; i >= 0; i-- {
				bitsOut = append(bitsOut, byte(v>>uint(i)&1))
			}
		}
		for len(bitsOut)%8 != 0 {
			bitsOut = append(bitsOut, 0)
		}
		for i := 0; i < len(bitsOut); i += 8 {
			var x byte
			for j := range 8 {
				x = x<<1 | bitsOut[i+j]
			}
			out = append(out, x)
		}
	}
	return append(out, trailer(typ, d)...)
}

// TestAutoEqualsExhaustive: the chosen type is always the one compressing
// all four completely would choose, on sets of many shapes and densities.
func TestAutoEqualsExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	type shape struct {
		n       uint64
		density float64
	}
	var shapes []shape
	for _, n := range []uint64{1, 2, 9, 64, 1000, 1 << 14, 1 << 18, 3 << 20} {
		for _, d := range []float64{0.0001, 0.003, 0.02, 0.1, 0.5, 0.9, 0.999, 1} {
			if (testing.Short() || racedetector.Enabled) && n > 1<<18 || racedetector.Enabled && n > 1<<14 && d != 0.5 {
				continue
			}
			shapes = append(shapes, shape{n, d})
		}
	}
	for _, sh := range shapes {
		s := randomSet(r, r.Uint64N(1<<20), sh.n, sh.density)
		for _, lvl := range []int{1, DefaultLevel} {
			_, auto := writeBytes(t, s, &WriteOptions{Level: lvl})
			_, exh := writeBytes(t, s, &WriteOptions{Level: lvl, Exhaustive: true})
			// And each type on its own.
			bestT, bestSize := TypeAuto, int64(math.MaxInt64)
			for typ := Type0; typ <= Type3; typ++ {
				_, one := writeBytes(t, s, &WriteOptions{Level: lvl, Types: Types(typ)})
				if one.Header.Type != typ && s.Count() > 0 {
					t.Fatalf("single type %d wrote %d", typ, one.Header.Type)
				}
				if exh.Candidates[typ].Tried && (!exh.Candidates[typ].Complete || exh.Candidates[typ].Size != one.Bytes) && s.Count() > 0 {
					t.Fatalf("exhaustive size of type %d = %+v, alone %d", typ, exh.Candidates[typ], one.Bytes)
				}
				if one.Bytes < bestSize {
					bestT, bestSize = one.Header.Type, one.Bytes
				}
			}
			if auto.Header.Type != bestT || auto.Bytes != bestSize || exh.Header.Type != bestT {
				t.Fatalf("n=%d density=%g level %d: auto chose %d (%d bytes), exhaustive %d, alone best %d (%d bytes)",
					sh.n, sh.density, lvl, auto.Header.Type, auto.Bytes, exh.Header.Type, bestT, bestSize)
			}
			// Every dropped candidate's bound really is a lower bound.
			for typ := Type0; typ <= Type3; typ++ {
				c := auto.Candidates[typ]
				if c.Tried && !c.Complete && c.Size > exh.Candidates[typ].Size {
					t.Fatalf("type %d: bound %d above its true size %d", typ, c.Size, exh.Candidates[typ].Size)
				}
			}
		}
	}
}

// TestDeterministic: the bytes written do not depend on the number of
// workers (chunks are compressed independently).
func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	n := uint64(5 << 20)
	if racedetector.Enabled {
		n = 3 << 20 // still three chunks of each type
	}
	s := randomSet(r, 0, n, 0.3)
	for typ := Type0; typ <= Type3; typ++ {
		a, _ := writeBytes(t, s, &WriteOptions{Types: Types(typ), Workers: 1})
		b, _ := writeBytes(t, s, &WriteOptions{Types: Types(typ), Workers: 3})
		if !bytes.Equal(a, b) {
			t.Fatalf("type %d: output depends on the number of workers", typ)
		}
	}
}

// TestStored: with WriteOptions.Stored every candidate is stored, not
// compressed (the gzip stream is larger than what it holds), the file
// reads back to the same set, type 0 takes no part, and the type kept is
// the smallest of types 1 to 3 written stored one by one.
func TestStored(t *testing.T) {
	for name, s := range edgeSets() {
		want := membersOf(s)
		for _, d := range []Dialect{Spec, Classic} {
			t.Run(fmt.Sprintf("%s/%v", name, d), func(t *testing.T) {
				b, res := writeBytes(t, s, &WriteOptions{Stored: true, Dialect: d})
				h, got := readBytes(t, b)
				if !sameMembers(got, want) {
					t.Fatalf("read %v, want %v", got, want)
				}
				if raw := gunzip(t, b); len(want) > 0 && len(b) <= len(raw) {
					t.Fatalf("%d bytes hold %d raw bytes: compressed, not stored", len(b), len(raw))
				}
				if len(want) == 0 {
					if h.Type != Type0 {
						t.Fatalf("the empty set is type %d", h.Type)
					}
					return
				}
				if res.Candidates[Type0].Tried {
					t.Fatal("type 0 took part")
				}
				best, bestType := int64(math.MaxInt64), Type0
				for typ := Type1; typ <= Type3; typ++ {
					_, one := writeBytes(t, s, &WriteOptions{Stored: true, Types: Types(typ), Dialect: d})
					if one.Bytes < best {
						best, bestType = one.Bytes, typ
					}
				}
				if h.Type != bestType || res.Bytes != best {
					t.Fatalf("kept type %d (%d bytes), want type %d (%d bytes)", h.Type, res.Bytes, bestType, best)
				}
			})
		}
	}
	var b bytes.Buffer
	if _, err := Write(&b, setOf(0, 10, 3), &WriteOptions{Stored: true, Types: Types(Type0)}); err == nil {
		t.Fatal("Stored with type 0 alone: no error")
	}
}
