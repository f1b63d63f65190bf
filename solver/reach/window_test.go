package reach_test

import (
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
)

// TestLoadLevelWindow: a window of a tier's level file holds the tier's
// members in its hashes, and a window outside the tier is refused.
func TestLoadLevelWindow(t *testing.T) {
	g, err := games.New("quixo", "size=3")
	if err != nil {
		t.Fatal(err)
	}
	gr, err := tiergraph.New(g)
	if err != nil {
		t.Fatal(err)
	}
	tt := gr.Tiers[0]
	for _, u := range gr.Tiers {
		if g.TierSize(u) > g.TierSize(tt) {
			tt = u
		}
	}
	size := g.TierSize(tt)
	whole := bitarray.New(0, size)
	for p := uint64(0); p < size; p += 7 {
		whole.Add(p) // members across the tier
	}
	path := filepath.Join(t.TempDir(), "level.dat.gz")
	if _, err := reach.WriteLevel(path, g, whole, levelfile.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range [][2]uint64{{0, size}, {0, 0}, {1, 64}, {size / 3, 2 * size / 3}, {size - 5, size}} {
		got, err := reach.LoadLevelWindow(path, g, tt, w[0], w[1])
		if err != nil {
			t.Fatalf("window [%d, %d): %v", w[0], w[1], err)
		}
		if got.Base() != w[0] || got.End() != w[1] || !got.Equal(whole.Sub(w[0], w[1])) {
			t.Errorf("window [%d, %d): %d members over [%d, %d), want %d", w[0], w[1], got.Count(), got.Base(), got.End(), whole.Sub(w[0], w[1]).Count())
		}
	}
	if _, err := reach.LoadLevelWindow(path, g, tt, 0, size+1); err == nil {
		t.Error("a window past the tier's hashes is read")
	}
}
