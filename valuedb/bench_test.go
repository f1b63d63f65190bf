package valuedb

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// benchRecords are n records of every value, remoteness below 64.
func benchRecords(n int) []Record {
	rng := rand.New(rand.NewPCG(1, 1))
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Make(tiergame.Value(1+rng.IntN(4)), rng.IntN(40))
	}
	return recs
}

// BenchmarkWrite: records per second written (not synced), by one worker
// and by all cores.
func BenchmarkWrite(b *testing.B) {
	recs := benchRecords(1 << 22)
	path := filepath.Join(b.TempDir(), "db")
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(recs)))
			for b.Loop() {
				if _, err := Write(path, Header{Game: "g"}, recs, &WriteOptions{Workers: workers, NoSync: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadAll: records per second decoded (one worker).
func BenchmarkReadAll(b *testing.B) {
	recs := benchRecords(1 << 22)
	path := filepath.Join(b.TempDir(), "db")
	if _, err := Write(path, Header{Game: "g"}, recs, &WriteOptions{Workers: 1, NoSync: true}); err != nil {
		b.Fatal(err)
	}
	db := mustOpen(b, path)
	defer db.Close()
	b.SetBytes(int64(len(recs)))
	for b.Loop() {
		if _, err := db.ReadAll(1); err != nil {
			b.Fatal(err)
		}
	}
}
