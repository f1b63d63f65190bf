package valuedb

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// mustOpen opens the database at path, and ends the test if it cannot.
func mustOpen(t testing.TB, path string) *DB {
	t.Helper()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func randomRecords(r *rand.Rand, n int, maxRem int) []Record {
	recs := make([]Record, n)
	for i := range recs {
		v := []tiergame.Value{tiergame.Win, tiergame.Lose, tiergame.Tie, tiergame.Draw}[r.IntN(4)]
		rem := r.IntN(maxRem + 1)
		if v == tiergame.Draw {
			rem = 0
		}
		recs[i] = Make(v, rem)
	}
	return recs
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for _, tc := range []struct {
		n, maxRem, block int
		width            int
	}{
		{0, 0, 0, 1}, {1, 5, 0, 1}, {1000, 63, 100, 1}, {100000, 63, 0, 1}, {70000, 300, 4096, 2}, {5000, 16383, 999, 2},
	} {
		recs := randomRecords(r, tc.n, tc.maxRem)
		path := filepath.Join(dir, "t.vdb")
		h, err := Write(path, Header{Game: "g", Option: "o", Tier: 7, TierName: "seven"}, recs, &WriteOptions{BlockRecords: tc.block})
		if err != nil {
			t.Fatal(err)
		}
		if h.RecordBytes != tc.width && tc.n > 0 {
			t.Errorf("n=%d: record width %d, want %d", tc.n, h.RecordBytes, tc.width)
		}
		db := mustOpen(t, path)
		if got := db.Header(); got != h || got.Count != uint64(tc.n) || got.Win+got.Lose+got.Tie+got.Draw != uint64(tc.n) {
			t.Fatalf("header %+v, wrote %+v", got, h)
		}
		if err := db.Verify(); err != nil {
			t.Fatal(err)
		}
		all, err := db.ReadAll(2)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range recs {
			if all[i] != want {
				t.Fatalf("ReadAll[%d] = %v, want %v", i, all[i], want)
			}
		}
		for range 2000 {
			if tc.n == 0 {
				break
			}
			i := r.IntN(tc.n)
			if got, err := db.Lookup(uint64(i)); err != nil || got != recs[i] {
				t.Fatalf("Lookup(%d) = %v, %v; want %v", i, got, err, recs[i])
			}
		}
		if _, err := db.Lookup(uint64(tc.n)); err == nil {
			t.Error("Lookup past the end")
		}
		db.Close()
	}
}

func TestCorruption(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	path := filepath.Join(t.TempDir(), "t.vdb")
	recs := randomRecords(r, 50000, 40)
	if _, err := Write(path, Header{Game: "g", Tier: 1}, recs, &WriteOptions{BlockRecords: 5000}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	for i := 0; i < len(good); i += 1 + len(good)/300 {
		bad := append([]byte(nil), good...)
		bad[i] ^= 0x10
		os.WriteFile(path, bad, 0o644)
		db, err := Open(path)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("byte %d: open error %v is not ErrFormat", i, err)
			}
			continue
		}
		verr := db.Verify()
		_, rerr := db.ReadAll(1)
		db.Close()
		if verr == nil && rerr == nil {
			t.Fatalf("flipped byte %d went unnoticed", i)
		}
	}
	for _, n := range []int{0, 5, 20, len(good) - 1} {
		os.WriteFile(path, good[:n], 0o644)
		if db, err := Open(path); err == nil {
			db.Close()
			t.Fatalf("truncated to %d bytes: opened", n)
		}
	}
}

// TestRemotenessBeyondHeader: a record whose remoteness is beyond the
// header's largest (an edited header: its checksum covers the blocks
// only) is a format error, as readers size their cells by the header.
func TestRemotenessBeyondHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.vdb")
	recs := []Record{Make(tiergame.Win, 39), Make(tiergame.Lose, 2), Make(tiergame.Tie, 0)}
	h, err := Write(path, Header{Game: "g", Tier: 1}, recs, nil)
	if err != nil || h.MaxRemoteness != 39 {
		t.Fatal(h, err)
	}
	good, _ := os.ReadFile(path)
	bad := bytes.Replace(good, []byte(`"max_remoteness":39`), []byte(`"max_remoteness":10`), 1)
	if bytes.Equal(bad, good) {
		t.Fatal("no max_remoteness in the header")
	}
	os.WriteFile(path, bad, 0o644)
	db := mustOpen(t, path)
	defer db.Close()
	if _, err := db.ReadAll(1); !errors.Is(err, ErrFormat) {
		t.Errorf("ReadAll: %v, want ErrFormat", err)
	}
	if _, err := db.Lookup(1); !errors.Is(err, ErrFormat) {
		t.Errorf("Lookup: %v, want ErrFormat", err)
	}
}

func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "seed.vdb")
	Write(path, Header{Game: "g"}, randomRecords(rand.New(rand.NewPCG(1, 1)), 300, 70), &WriteOptions{BlockRecords: 64})
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	probs := filepath.Join(dir, "probs.vdb")
	WriteProbs(probs, Header{Game: "g"}, randomProbs(rand.New(rand.NewPCG(1, 2)), 300), &WriteOptions{BlockRecords: 64})
	seed, _ = os.ReadFile(probs)
	f.Add(seed)
	planes := filepath.Join(dir, "planes.vdb")
	WritePlanes(planes, Header{Game: "g"}, []string{"a", "b"}, randomProbs(rand.New(rand.NewPCG(1, 3)), 600), &WriteOptions{BlockRecords: 64})
	seed, _ = os.ReadFile(planes)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f.vdb")
		os.WriteFile(p, b, 0o644)
		db, err := Open(p)
		if err != nil {
			return
		}
		defer db.Close()
		db.Verify()
		if h := db.Header(); h.Count <= 1<<16 {
			// What reads without error is within the header.
			recs, err := db.ReadAll(1)
			for _, r := range recs {
				if err == nil && (r.Remoteness() > h.MaxRemoteness || r.Value() < tiergame.Win || r.Value() > tiergame.Draw) {
					t.Fatalf("record %v beyond header %+v", r, h)
				}
			}
		}
		db.Lookup(0)
		if db.Header().Count <= 1<<16 {
			db.ReadAllProbs(1)
		}
		db.LookupProb(0)
		if db.Header().Count <= 1<<16 {
			db.ReadAllPlanes(1)
		}
		db.LookupPlanes(0)
	})
}
