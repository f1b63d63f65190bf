package levelfile

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
)

// setOf builds a set over [base, base+n) with the given members.
func setOf(base, n uint64, ps ...uint64) *bitarray.Set {
	s := bitarray.New(base, n)
	for _, p := range ps {
		s.Add(p)
	}
	return s
}

func membersOf(s *bitarray.Set) []uint64 {
	var out []uint64
	for p := range s.All() {
		out = append(out, p)
	}
	return out
}

// randomSet returns a set over [base, base+n) with the given density.
func randomSet(r *rand.Rand, base, n uint64, density float64) *bitarray.Set {
	s := bitarray.New(base, n)
	for i := uint64(0); i < n; i++ {
		if r.Float64() < density {
			s.Add(base + i)
		}
	}
	return s
}

// gunzip decompresses with the standard library, a second opinion on the
// gzip stream our chunked writer produces.
func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return out
}

// gzipBytes compresses raw as one plain gzip stream.
func gzipBytes(raw []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(raw)
	w.Close()
	return b.Bytes()
}

func writeBytes(t testing.TB, s *bitarray.Set, o *WriteOptions) ([]byte, Result) {
	t.Helper()
	var b bytes.Buffer
	res, err := Write(&b, s, o)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if int64(b.Len()) != res.Bytes {
		t.Fatalf("Result.Bytes %d, wrote %d", res.Bytes, b.Len())
	}
	return b.Bytes(), res
}

func readBytes(t testing.TB, b []byte) (Header, []uint64) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), nil)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var ps []uint64
	for p := range r.All() {
		ps = append(ps, p)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("read: %v", err)
	}
	return r.Header, ps
}

func sameMembers(a, b []uint64) bool { return slices.Equal(a, b) }

func newRand() *rand.Rand { return rand.New(rand.NewPCG(99, 100)) }

func writeRaw(t testing.TB, name string, raw []byte) {
	t.Helper()
	if err := os.WriteFile(name, gzipBytes(raw), 0o644); err != nil {
		t.Fatal(err)
	}
}

func stringIndex(s, sub string) int { return strings.Index(s, sub) }
