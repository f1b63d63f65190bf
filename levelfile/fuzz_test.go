package levelfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
)

// fuzzOptions keep the fuzzers' memory small.
var fuzzOptions = &Options{MaxSpan: 1 << 20, MaxDecompressed: 1 << 22}

// FuzzReadRaw feeds arbitrary decompressed bytes to the reader. It must
// never panic; whatever it accepts must survive a write and a read back.
func FuzzReadRaw(f *testing.F) {
	for _, raw := range [][]byte{
		spec("1\n# c\n0\n1 9 |\n1 5 9 |\n1"),
		spec("1\n1\n0 9 |\n\x09|\n1"),
		spec("1\n2\n0 9 |\n\x80|\n1"),
		spec("1\n3\n0 9 |\n\xc0\x40|\n1"),
		[]byte("1\n### GAMESMAN Bagh Chal Type 2 Level Files\n2\n0 9 8 \x0c\n\x80\x0c\n1"),
		[]byte("1\n3\n0 9 \x0c\n\xff\xc0\x0c1"),
		spec("1\n0\n0 0 |\n|\n1"),
	} {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := NewReader(bytes.NewReader(gzipBytes(raw)), fuzzOptions)
		if err != nil {
			checkErr(t, err)
			return
		}
		s, err := r.ReadSet()
		if err != nil {
			checkErr(t, err)
			return
		}
		checkRewrite(t, r.Header, s)
	})
}

// FuzzReadGzip feeds arbitrary bytes, gzip framing included.
func FuzzReadGzip(f *testing.F) {
	for _, typ := range []Type{Type0, Type1, Type2, Type3} {
		var b bytes.Buffer
		Write(&b, setOf(10, 100, 10, 20, 33, 109), &WriteOptions{Types: Types(typ)})
		f.Add(b.Bytes())
	}
	if vs, err := filepath.Glob(classicDir + "/*/*.dat.gz"); err == nil {
		for _, v := range vs {
			if b, err := os.ReadFile(v); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), fuzzOptions)
		if err != nil {
			checkErr(t, err)
			return
		}
		if _, err := r.Count(); err != nil {
			checkErr(t, err)
		}
	})
}

// FuzzRoundTrip writes a set made from the input with every type and
// dialect and reads it back.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint64(0), []byte{0x80})
	f.Add(uint64(1<<63), []byte{0x12, 0x0c, 0x0a, 0x31})
	f.Add(uint64(1<<64-64), []byte{1, 2, 3, 4, 5, 6, 7, 0xff})
	f.Fuzz(func(t *testing.T, base uint64, bits []byte) {
		n := uint64(len(bits)) * 8
		if n == 0 || base+n-1 < base {
			return
		}
		s, _ := bitarray.FromMSB(bits, base, n)
		want := membersOf(s)
		for _, d := range []Dialect{Spec, Classic} {
			for typ := Type0; typ <= Type3; typ++ {
				var b bytes.Buffer
				if _, err := Write(&b, s, &WriteOptions{Types: Types(typ), Dialect: d}); err != nil {
					t.Fatal(err)
				}
				_, got := readBytes(t, b.Bytes())
				if !sameMembers(got, want) {
					t.Fatalf("type %d %v: read %v, want %v", typ, d, got, want)
				}
			}
			var b bytes.Buffer // stored, as a cluster's partials are
			if _, err := Write(&b, s, &WriteOptions{Stored: true, Dialect: d}); err != nil {
				t.Fatal(err)
			}
			if _, got := readBytes(t, b.Bytes()); !sameMembers(got, want) {
				t.Fatalf("stored %v: read %v, want %v", d, got, want)
			}
		}
	})
}

func checkErr(t *testing.T, err error) {
	if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error not ErrFormat/ErrTooLarge: %v", err)
	}
}

// checkRewrite writes an accepted set and reads it back unchanged.
func checkRewrite(t *testing.T, h Header, s *bitarray.Set) {
	want := membersOf(s)
	var b bytes.Buffer
	res, err := Write(&b, s, &WriteOptions{Dialect: h.Dialect})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) > 0 && (res.Header.Min != h.Min || res.Header.Max != h.Max) {
		t.Fatalf("rewrite changed min/max")
	}
	_, got := readBytes(t, b.Bytes())
	if !sameMembers(got, want) {
		t.Fatalf("rewrite read %v, want %v", got, want)
	}
}
