package naive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/levelfile"
)

func setOf(base, n uint64, ps ...uint64) *bitarray.Set {
	s := bitarray.New(base, n)
	for _, p := range ps {
		s.Add(p)
	}
	return s
}

func randomSet(r *rand.Rand, base, n uint64, density float64) *bitarray.Set {
	s := bitarray.New(base, n)
	for i := range n {
		if r.Float64() < density {
			s.Add(base + i)
		}
	}
	return s
}

// testSets are small sets of many shapes: every width from 1 to 16 bits,
// positions near 2^64, SEP bytes in the data, and random densities.
func testSets() map[string]*bitarray.Set {
	r := rand.New(rand.NewPCG(7, 7))
	sets := map[string]*bitarray.Set{
		"empty":       bitarray.New(0, 100),
		"zero":        setOf(0, 10, 0),
		"one":         setOf(1000, 10, 1005),
		"top":         setOf(math.MaxUint64-999, 1000, math.MaxUint64-999, math.MaxUint64-500, math.MaxUint64),
		"sep-offsets": setOf(0, 301, 0, 0x0C, 0x12, 0x120, 0x12C),
		"full":        randomSet(r, 5, 999, 1.1),
		"long-runs":   setOf(0, 1<<16), // filled below
	}
	for p := uint64(0); p < 1<<16; p++ {
		if p/1000%2 == 0 {
			sets["long-runs"].Add(p)
		}
	}
	for b := 1; b <= 16; b++ {
		lo, hi := uint64(1000), uint64(1000)+1<<(b-1)
		sets[fmt.Sprintf("bits-%02d", b)] = setOf(lo, hi-lo+1, lo, hi)
	}
	for i, d := range []float64{0.001, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99} {
		sets[fmt.Sprintf("random-%g", d)] = randomSet(r, uint64(i)*1e6, 20000+uint64(r.IntN(20000)), d)
	}
	return sets
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readSet decodes a level file with levelfile's strict reader.
func readSet(t *testing.T, r io.Reader) (levelfile.Header, *bitarray.Set) {
	t.Helper()
	lr, err := levelfile.NewReader(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	s, err := lr.ReadSet()
	if err != nil {
		t.Fatal(err)
	}
	return lr.Header, s
}

// TestEncodeEveryType checks each encoder against levelfile: its reader
// decodes the same members, and the decompressed bytes equal what
// levelfile writes for that type (same header and comments), so only the
// compressor differs.
func TestEncodeEveryType(t *testing.T) {
	for name, s := range testSets() {
		for typ := levelfile.Type0; typ <= levelfile.Type3; typ++ {
			t.Run(fmt.Sprintf("%s/type%d", name, typ), func(t *testing.T) {
				var got bytes.Buffer
				err := Encode(&got, s, typ)
				if s.Count() == 0 && typ != levelfile.Type0 {
					if err != ErrEmptyType {
						t.Fatalf("empty set as type %d: err %v, want ErrEmptyType", typ, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				h, read := readSet(t, bytes.NewReader(got.Bytes()))
				if h.Type != typ || h.Dialect != levelfile.Spec {
					t.Fatalf("header type %v dialect %v", h.Type, h.Dialect)
				}
				if !read.SameMembers(s) {
					t.Fatalf("read back %d members, want %d", read.Count(), s.Count())
				}
				var want bytes.Buffer
				if _, err := levelfile.Write(&want, s, &levelfile.WriteOptions{Types: levelfile.Types(typ), Workers: 1}); err != nil {
					t.Fatal(err)
				}
				if g, w := gunzip(t, got.Bytes()), gunzip(t, want.Bytes()); !bytes.Equal(g, w) {
					t.Fatalf("decompressed %d bytes differ from levelfile's %d", len(g), len(w))
				}
			})
		}
	}
}

func TestEncodeBadType(t *testing.T) {
	for _, typ := range []levelfile.Type{levelfile.TypeAuto, 4} {
		if err := Encode(io.Discard, setOf(0, 10, 3), typ); err == nil {
			t.Errorf("type %v: no error", typ)
		}
	}
}

// TestWriteFile checks the kept file, the choice rule and the clean-up,
// and compares the choice with levelfile's exhaustive one. The sizes come
// from different compressors (compress/gzip here, klauspost's chunked
// deflate there), so the choices may differ; both files must hold the set.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	agree, total := 0, 0
	for name, s := range testSets() {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".dat.gz")
			res, err := WriteFile(path, s)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, read := readSet(t, f)
			if !read.SameMembers(s) || h.Type != res.Type || res.Count != s.Count() {
				t.Fatalf("file: type %v, %d members; result %+v; want %d members", h.Type, read.Count(), res, s.Count())
			}
			if st, _ := f.Stat(); st.Size() != res.Bytes {
				t.Fatalf("file has %d bytes, result says %d", st.Size(), res.Bytes)
			}
			for typ, size := range res.Sizes {
				if size >= 0 && (size < res.Bytes || size == res.Bytes && levelfile.Type(typ) < res.Type) {
					t.Fatalf("kept type %v (%d bytes) but type %d has %d", res.Type, res.Bytes, typ, size)
				}
				if _, err := os.Stat(levelfile.IntermediateName(path, levelfile.Type(typ))); !os.IsNotExist(err) {
					t.Fatalf("intermediate of type %d left behind (%v)", typ, err)
				}
			}
			// levelfile's exhaustive choice, in another folder since it
			// keeps its intermediates.
			lpath := filepath.Join(t.TempDir(), name+".dat.gz")
			lres, err := levelfile.WriteFile(lpath, s, &levelfile.WriteOptions{Exhaustive: true, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			_, lset, err := levelfile.ReadFile(lpath, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !lset.SameMembers(read) {
				t.Fatalf("levelfile's file and the naive one hold different sets")
			}
			total++
			if lres.Header.Type == res.Type {
				agree++
			}
			t.Logf("naive type %v sizes %v; levelfile type %v", res.Type, res.Sizes, lres.Header.Type)
		})
	}
	t.Logf("naive and levelfile's exhaustive choice agree on %d of %d sets", agree, total)
}

func TestWriteFileError(t *testing.T) {
	name := filepath.Join(t.TempDir(), "missing", "x.dat.gz")
	if _, err := WriteFile(name, setOf(0, 10, 1)); err == nil {
		t.Fatal("no error for a missing folder")
	}
}

// TestPacker compares the packer with writing one bit at a time, for every
// width up to 64 (the sets above reach only small widths).
func TestPacker(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for w := uint(1); w <= 64; w++ {
		for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 200} {
			var want []byte
			var nbits int
			var got bytes.Buffer
			bw := bufio.NewWriter(&got)
			pk := packer{w: bw, width: w}
			for range n {
				v := r.Uint64() >> (64 - w)
				pk.put(v)
				for i := int(w) - 1; i >= 0; i-- {
					if nbits%8 == 0 {
						want = append(want, 0)
					}
					if v>>uint(i)&1 == 1 {
						want[nbits/8] |= 0x80 >> (nbits % 8)
					}
					nbits++
				}
			}
			if err := pk.flush(); err != nil {
				t.Fatal(err)
			}
			bw.Flush()
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("width %d, %d fields: got %x, want %x", w, n, got.Bytes(), want)
			}
		}
	}
}

// FuzzEncode round-trips sets made from the input through every encoder
// and levelfile's reader, and compares the decompressed bytes with
// levelfile's: the input's first 8 bytes give the range's base (so wide
// positions occur), the rest is the set's bitmap.
func FuzzEncode(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0, 0x12, 0x0c, 0x0a, 0x31})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0, 0, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 8 || len(data) > 8+4096 {
			return
		}
		base := binary.BigEndian.Uint64(data)
		bitmap := data[8:]
		n := uint64(len(bitmap)) * 8
		if base > math.MaxUint64-n+1 {
			base = math.MaxUint64 - n + 1 // the range must end by 2^64
		}
		s, err := bitarray.FromMSB(bitmap, base, n)
		if err != nil {
			t.Fatal(err)
		}
		for typ := levelfile.Type0; typ <= levelfile.Type3; typ++ {
			var got bytes.Buffer
			if err := Encode(&got, s, typ); err != nil {
				if s.Count() == 0 && err == ErrEmptyType {
					continue
				}
				t.Fatalf("type %d: %v", typ, err)
			}
			_, read := readSet(t, bytes.NewReader(got.Bytes()))
			if !read.SameMembers(s) {
				t.Fatalf("type %d: read back %d members, want %d", typ, read.Count(), s.Count())
			}
			var want bytes.Buffer
			if _, err := levelfile.Write(&want, s, &levelfile.WriteOptions{Types: levelfile.Types(typ), Workers: 1}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gunzip(t, got.Bytes()), gunzip(t, want.Bytes())) {
				t.Fatalf("type %d: decompressed bytes differ from levelfile's", typ)
			}
		}
	})
}
