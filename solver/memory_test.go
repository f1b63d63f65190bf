package solver

import (
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestCanonicalBound checks the sampled bound on a symmetric tier's
// canonical positions against their exact count: above it, and not by
// much. Under the race detector not on the tiers of 1.7M and 1.8M hashes,
// whose exact counts take half a minute with it (.ci/run runs them
// without it).
func TestCanonicalBound(t *testing.T) {
	for _, tc := range []struct {
		game, option string
		tier         tiergame.Tier
		large        bool
	}{
		{"dshogi", "pieces=LC", 0, false},
		{"dshogi", "pieces=LGE", 1, true},
		{"quixo", "size=4", 4<<8 | 4, true},
		{"tictactoe", "", 4, false},
	} {
		if tc.large && race.Enabled {
			continue
		}
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
// positions before reachability, and a loopy tier's cells by position
// when most of the tier may be reachable.
func TestEstimateSymmetric(t *testing.T) {
	g, err := games.New("dshogi", "")
	if err != nil {
		t.Fatal(err)
	}
	run := func(symmetry bool) *Run {
		r, err := Plan(Config{Game: g, Workers: 2, Memory: 64 << 30, Symmetry: symmetry})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	full, sym := run(false), run(true)
	size := g.TierSize(0)
	// The full run: the play tier's set, a cell a hash and half a byte a
	// hash for the longest wins elsewhere, and its two child tiers' sets
	// and cells.
	want := plan.BitsetBytes(size) + size + plan.WinsBytes(size)
	for _, c := range []tiergame.Tier{1, 2} {
		want += plan.BitsetBytes(g.TierSize(c)) + g.TierSize(c)
	}
	if n := full.solveBytes(0, false); n != want {
		t.Errorf("full run's play tier needs %d, want %d", n, want)
	}
	if e := full.Estimate(); e.Need < want {
		t.Errorf("full run needs %d, less than its play tier's %d", e.Need, want)
	}
	// About half the positions are canonical, so the cells stay one a
	// hash (dense), but the symmetric run counts fewer of them.
	if n := sym.count(0); !(float64(n) > 0.45*float64(size) && float64(n) < 0.6*float64(size)) {
		t.Errorf("symmetric run counts %d positions of %d hashes", n, size)
	}
	if a, b := sym.solveBytes(0, false), full.solveBytes(0, false); a > b {
		t.Errorf("symmetric run's play tier needs %d, more than the full run's %d", a, b)
	}
}

// TestEstimateLean: a loopy tier whose step fits the budget only without
// its longest wins elsewhere kept is solved lean, and the estimate says
// so; with room for them it is not.
func TestEstimateLean(t *testing.T) {
	g, err := games.New("dshogi", "")
	if err != nil {
		t.Fatal(err)
	}
	estimate := func(memory uint64) Estimate {
		r, err := Plan(Config{Game: g, Workers: 2, Memory: memory})
		if err != nil {
			t.Fatal(err)
		}
		return r.Estimate()
	}
	roomy := estimate(64 << 30)
	if len(roomy.Lean) != 0 || !roomy.Fits {
		t.Fatalf("64 GiB: lean tiers %v, fits %v", roomy.Lean, roomy.Fits)
	}
	half := plan.WinsBytes(g.TierSize(0)) // the play tier's nibbles
	tight := estimate(roomy.Need - half/2)
	if !slices.Equal(tight.Lean, []tiergame.Tier{0}) || !tight.Fits {
		t.Fatalf("budget %d: lean tiers %v, fits %v (need %d)", roomy.Need-half/2, tight.Lean, tight.Fits, tight.Need)
	}
	if tight.Need > roomy.Need-half/2 || tight.Need < roomy.Need-half {
		t.Errorf("lean need %d, want between %d and %d", tight.Need, roomy.Need-half, roomy.Need-half/2)
	}
}
