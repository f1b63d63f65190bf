package solver

import (
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestCanonicalBound checks the sampled bound on a symmetric tier's
// canonical positions against their exact count: above it, and not by
// much.
func TestCanonicalBound(t *testing.T) {
	for _, tc := range []struct {
		game, option string
		tier         tiergame.Tier
	}{
		{"dshogi", "pieces=LC", 0},
		{"dshogi", "pieces=LGE", 1},
		{"quixo", "size=4", 4<<8 | 4},
		{"tictactoe", "", 4},
	} {
		g, err := games.New(tc.game, tc.option)
		if err != nil {
			t.Fatal(err)
		}
		s := g.(tiergame.Symmetric)
		size := g.TierSize(tc.tier)
		var exact uint64
		for p := range size {
			if s.Canonical(tc.tier, tiergame.Position(p)) == tiergame.Position(p) {
				exact++
			}
		}
		bound := canonicalBound(s, tc.tier, size)
		t.Logf("%s %s tier %d: %d hashes, %d canonical, bound %d", tc.game, tc.option, tc.tier, size, exact, bound)
		// Three standard deviations of 1024 samples are at most 4.7% of
		// the hashes.
		if bound < exact || bound > exact+size*6/100 {
			t.Errorf("%s %s tier %d: bound %d for %d canonical positions", tc.game, tc.option, tc.tier, bound, exact)
		}
	}
}

// TestEstimateSymmetric: a symmetric run's estimate counts the canonical
// positions before reachability, and a loopy tier's work words by
// position when most of the tier is reachable.
func TestEstimateSymmetric(t *testing.T) {
	g, err := games.New("dshogi", "")
	if err != nil {
		t.Fatal(err)
	}
	need := func(symmetry bool) uint64 {
		r, err := Plan(Config{Game: g, Workers: 2, Memory: 64 << 30, Symmetry: symmetry})
		if err != nil {
			t.Fatal(err)
		}
		return r.Estimate().Need
	}
	full, sym := need(false), need(true)
	size := g.TierSize(0)
	// The full run: the play tier's set, 2+4+8 bytes a position, and
	// its two child tiers at 6 bytes a position.
	want := bitsetBytes(size) + size*14 + bitsetBytes(g.TierSize(1)) + bitsetBytes(g.TierSize(2)) + 6*(g.TierSize(1)+g.TierSize(2))
	if full != want {
		t.Errorf("full run needs %d, want %d", full, want)
	}
	// About half the positions are canonical, but the work words stay
	// one a hash: 4 bytes a hash and 10 a canonical position in play.
	if !(float64(sym) > 0.55*float64(full) && float64(sym) < 0.75*float64(full)) {
		t.Errorf("symmetric run needs %d, the full run %d", sym, full)
	}
}
