package valuedb

import (
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
