package valuedb

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// randomProbs returns n probabilities, a quarter of them certain.
func randomProbs(r *rand.Rand, n int) []tiergame.Prob {
	ps := make([]tiergame.Prob, n)
	for i := range ps {
		switch r.IntN(8) {
		case 0:
			ps[i] = 0
		case 1:
			ps[i] = tiergame.ProbOne
		default:
			ps[i] = tiergame.Prob(r.Uint32N(uint32(tiergame.ProbOne)))
		}
	}
	return ps
}

func TestProbRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	for _, tc := range []struct{ n, block int }{{0, 0}, {1, 0}, {1000, 100}, {70000, 4096}, {5000, 999}} {
		ps := randomProbs(r, tc.n)
		path := filepath.Join(dir, "p.vdb")
		h, err := WriteProbs(path, Header{Game: "g", Option: "o", Tier: 9, TierName: "nine"}, ps, &WriteOptions{BlockRecords: tc.block})
		if err != nil {
			t.Fatal(err)
		}
		var wins, losses uint64
		var sum float64
		for _, p := range ps {
			wins += b2u(p == tiergame.ProbOne)
			losses += b2u(p == 0)
			sum += p.Float()
		}
		if h.Kind != KindProbability || h.Count != uint64(tc.n) || h.Win != wins || h.Lose != losses || (tc.n > 0 && h.Mean != sum/float64(tc.n)) {
			t.Fatalf("header %+v", h)
		}
		db := mustOpen(t, path)
		if db.Header() != h {
			t.Fatalf("read header %+v, wrote %+v", db.Header(), h)
		}
		if err := db.Verify(); err != nil {
			t.Fatal(err)
		}
		all, err := db.ReadAllProbs(2)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range ps {
			if all[i] != want {
				t.Fatalf("ReadAllProbs[%d] = %v, want %v", i, all[i], want)
			}
			if i%97 == 0 {
				if got, err := db.LookupProb(uint64(i)); err != nil || got != want {
					t.Fatalf("LookupProb(%d) = %v, %v; want %v", i, got, err, want)
				}
			}
		}
		if _, err := db.Lookup(0); tc.n > 0 && !errors.Is(err, ErrKind) {
			t.Errorf("Lookup of a probability database: %v", err)
		}
		if _, err := db.ReadAll(1); !errors.Is(err, ErrKind) {
			t.Errorf("ReadAll of a probability database: %v", err)
		}
		db.Close()
	}
	// A value database refuses to be read as probabilities.
	path := filepath.Join(dir, "v.vdb")
	if _, err := Write(path, Header{Game: "g"}, randomRecords(r, 10, 5), nil); err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, path)
	defer db.Close()
	if _, err := db.LookupProb(0); !errors.Is(err, ErrKind) {
		t.Errorf("LookupProb of a value database: %v", err)
	}
	if _, err := db.ReadAllProbs(1); !errors.Is(err, ErrKind) {
		t.Errorf("ReadAllProbs of a value database: %v", err)
	}
	if _, err := WriteProbs(path, Header{}, []tiergame.Prob{tiergame.ProbOne + 1}, nil); err == nil {
		t.Error("WriteProbs accepted a probability above one")
	}
}

// TestProbFormat checks the version 2 framing: magic, kind, and that a
// probability file with the version 1 magic (or the reverse) is refused.
func TestProbFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.vdb")
	if _, err := WriteProbs(path, Header{Game: "g"}, randomProbs(rand.New(rand.NewPCG(1, 1)), 100), nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b[:8]) != "TSVDB02\n" {
		t.Fatalf("magic %q", b[:8])
	}
	copy(b, "TSVDB01\n")
	os.WriteFile(path, b, 0o644)
	if _, err := Open(path); !errors.Is(err, ErrFormat) {
		t.Errorf("a probability header under the version 1 magic: %v", err)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// TestPlanesRoundTrip writes planes and reads them back, whole and one
// position at a time, and checks the kinds are kept apart.
func TestPlanesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	dir := t.TempDir()
	names := []string{"centered", "owned", "opponent"}
	for _, tc := range []struct{ n, block int }{{0, 0}, {1, 0}, {1000, 100}, {9000, 4096}, {5000, 999}} {
		vals := randomProbs(r, 3*tc.n)
		path := filepath.Join(dir, "planes.vdb")
		h, err := WritePlanes(path, Header{Game: "g", Option: "o", Tier: 9, TierName: "nine"}, names, vals, &WriteOptions{BlockRecords: tc.block})
		if err != nil {
			t.Fatal(err)
		}
		if h.Kind != KindPlanes || h.Count != uint64(tc.n) || h.RecordBytes != 12 || h.Planes != "centered,owned,opponent" {
			t.Fatalf("header %+v", h)
		}
		db := mustOpen(t, path)
		if db.Header() != h || !slices.Equal(db.Header().PlaneNames(), names) {
			t.Fatalf("read header %+v, wrote %+v", db.Header(), h)
		}
		if err := db.Verify(); err != nil {
			t.Fatal(err)
		}
		all, err := db.ReadAllPlanes(2)
		if err != nil || !slices.Equal(all, vals) {
			t.Fatalf("ReadAllPlanes: %v (%d values, wrote %d)", err, len(all), len(vals))
		}
		for i := 0; i < tc.n; i += 1 + tc.n/50 {
			got, err := db.LookupPlanes(uint64(i))
			if err != nil || !slices.Equal(got, vals[3*i:3*i+3]) {
				t.Fatalf("LookupPlanes(%d) = %v, %v; want %v", i, got, err, vals[3*i:3*i+3])
			}
		}
		if _, err := db.LookupProb(0); !errors.Is(err, ErrKind) {
			t.Errorf("LookupProb on planes: %v, want ErrKind", err)
		}
		if _, err := db.Lookup(0); tc.n > 0 && !errors.Is(err, ErrKind) {
			t.Errorf("Lookup on planes: %v, want ErrKind", err)
		}
		if _, err := db.LookupPlanes(uint64(tc.n)); err == nil {
			t.Errorf("LookupPlanes past the end: no error")
		}
		db.Close()
	}
	// A probability database is not one of planes.
	path := filepath.Join(dir, "p.vdb")
	if _, err := WriteProbs(path, Header{}, randomProbs(r, 10), nil); err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, path)
	defer db.Close()
	if _, err := db.LookupPlanes(0); !errors.Is(err, ErrKind) {
		t.Errorf("LookupPlanes on probabilities: %v, want ErrKind", err)
	}
	for _, bad := range [][]string{nil, {""}, {"a,b"}, make([]string, MaxPlanes+1)} {
		if _, err := WritePlanes(filepath.Join(dir, "bad.vdb"), Header{}, bad, nil, nil); err == nil {
			t.Errorf("WritePlanes with names %q: no error", bad)
		}
	}
	if _, err := WritePlanes(filepath.Join(dir, "bad.vdb"), Header{}, names, make([]tiergame.Prob, 4), nil); err == nil {
		t.Errorf("WritePlanes with 4 values in 3 planes: no error")
	}
}
