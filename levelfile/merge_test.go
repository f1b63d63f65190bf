package levelfile

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
)

func TestMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	dir := t.TempDir()
	union := bitarray.New(0, 1<<20)
	var names []string
	for i := range 7 {
		// Partials over different sub-ranges, of different types, with
		// overlaps, and one empty.
		lo := r.Uint64N(1 << 19)
		part := randomSet(r, lo, 1<<19, []float64{0.5, 0.01, 0.0001, 0.9, 0, 0.2, 0.05}[i])
		if err := union.Or(part); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, PartialName("g", "o", 5, lo, Type(i%4)))
		if _, err := WriteFile(name, part, &WriteOptions{Types: Types(Type(i % 4)), Game: "g"}); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	var calls int
	got, err := Merge(context.Background(), names, &MergeOptions{Progress: func(files int, _ int64) { calls = files }})
	if err != nil {
		t.Fatal(err)
	}
	if calls != len(names) {
		t.Errorf("progress reported %d files", calls)
	}
	if !got.SameMembers(union) {
		t.Fatalf("merge has %d members, union %d", got.Count(), union.Count())
	}
	// A corrupt partial fails the merge with its name.
	bad := filepath.Join(dir, "bad.dat.gz")
	writeRaw(t, bad, spec("1\n0\n1 9 |\n1 5 |\n1"))
	if _, err := Merge(context.Background(), append(names, bad), nil); err == nil || !contains(err.Error(), bad) {
		t.Fatalf("merge with a corrupt file: %v", err)
	}
}

func contains(s, sub string) bool { return stringIndex(s, sub) >= 0 }
