package valuedb

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestVersion1Bytes pins the bytes of version 1 files: adding the
// probability format must not change a value database by one byte. The
// hashes were taken with the writer before version 2 existed.
func TestVersion1Bytes(t *testing.T) {
	for _, tc := range []struct {
		n, maxRem int
		sum       string
	}{
		{100000, 63, "688e9c86ed3cc9e68a3e428229c63b8163e55c3ac96c61abe81725a0ddeba579"},
		{5000, 300, "dd6e87d0e96c1ab9906b575d224bb619ba7bc2fce0d78e492b950b62e8fbd9c6"},
	} {
		recs := randomRecords(rand.New(rand.NewPCG(7, uint64(tc.n))), tc.n, tc.maxRem)
		path := filepath.Join(t.TempDir(), "v1.vdb")
		if _, err := Write(path, Header{Game: "g", Option: "o", Tier: 3, TierName: "three"}, recs, &WriteOptions{BlockRecords: 4096, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != tc.sum {
			t.Errorf("n=%d: SHA-256 %s, want %s", tc.n, got, tc.sum)
		}
	}
}

// TestSpillSameBytes writes databases whose blocks go to a spill file
// (all of them, or past the first few) and checks that the bytes are
// those of the blocks kept in memory, over several batches of blocks,
// and that the spill leaves no file behind.
func TestSpillSameBytes(t *testing.T) {
	recs := randomRecords(rand.New(rand.NewPCG(3, 9)), 70000, 300)
	write := func(t *testing.T, limit int, name string) []byte {
		t.Helper()
		old := spillAbove
		spillAbove = limit
		defer func() { spillAbove = old }()
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		if _, err := Write(path, Header{Game: "g", Tier: 1}, recs, &WriteOptions{BlockRecords: 1024, Workers: 3}); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 {
			t.Fatalf("limit %d: the folder holds %d files, want the database only", limit, len(entries))
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	kept := write(t, 1<<30, "kept.vdb")
	if len(kept) < 4*5000 {
		t.Fatalf("the database is %d bytes: too small to spill past 5000", len(kept))
	}
	for _, limit := range []int{0, 5000} {
		if got := write(t, limit, "spilled.vdb"); !bytes.Equal(got, kept) {
			t.Errorf("limit %d: %d bytes differ from the %d written from memory", limit, len(got), len(kept))
		}
	}
}
