package levelfile

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
)

// benchSet is a random set over [0, 2^26) at the given density, built word
// by word so that setup stays quick.
func benchSet(density float64) *bitarray.Set {
	r := rand.New(rand.NewPCG(26, uint64(density*1000)))
	s := bitarray.New(0, 1<<26)
	ws := s.Words()
	for i := range ws {
		var w uint64
		for b := range 64 {
			if r.Float64() < density {
				w |= 1 << b
			}
		}
		ws[i] = w
	}
	return s
}

var benchDensities = []float64{0.5, 0.01}

// BenchmarkWriteFile writes a 2^26-position tier with auto and with only the
// type that wins, to a real file (synced and renamed).
func BenchmarkWriteFile(b *testing.B) {
	dir := b.TempDir()
	for _, d := range benchDensities {
		s := benchSet(d)
		res, err := Write(&bytes.Buffer{}, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		winner := res.Header.Type
		for _, mode := range []struct {
			name string
			opts *WriteOptions
		}{
			{"auto", nil},
			{fmt.Sprintf("only-type%d", winner), &WriteOptions{Types: Types(winner)}},
		} {
			b.Run(fmt.Sprintf("density=%g/%s", d, mode.name), func(b *testing.B) {
				name := filepath.Join(dir, "m.dat.gz")
				var res Result
				for b.Loop() {
					if res, err = WriteFile(name, s, mode.opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(res.Bytes), "bytes")
				b.ReportMetric(float64(s.Count())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpos/s")
			})
		}
	}
}

// BenchmarkRead reads a 2^26-position tier of each type into a set.
func BenchmarkRead(b *testing.B) {
	for _, d := range benchDensities {
		s := benchSet(d)
		for typ := Type0; typ <= Type3; typ++ {
			var buf bytes.Buffer
			if _, err := Write(&buf, s, &WriteOptions{Types: Types(typ)}); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("density=%g/type%d", d, typ), func(b *testing.B) {
				b.SetBytes(int64(buf.Len()))
				dst := bitarray.New(0, 1<<26)
				for b.Loop() {
					r, err := NewReader(bytes.NewReader(buf.Bytes()), nil)
					if err != nil {
						b.Fatal(err)
					}
					if err := r.ReadInto(dst); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(s.Count())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpos/s")
			})
		}
	}
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}
