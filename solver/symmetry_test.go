package solver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
)

// TestSymmetricMatchesFull solves every bundled game and size of the test
// suite twice, with and without Symmetry, and compares them through the
// oracle (which canonicalizes): every position of the full run has the
// same record in the symmetric run, and, for all but the largest, the same
// moves with the same values; each symmetric level file holds exactly the
// canonical forms of the full one's positions; the symmetric run verifies.
func TestSymmetricMatchesFull(t *testing.T) {
	for _, tc := range []struct {
		game, option string
		moves        bool // compare every position's moves too
		long         bool // skipped under -short and -race unless TIERSOLVE_LONG=1
	}{
		{"tictactoe", "", true, false},
		{"connect4", "width=3,height=3", true, false},
		{"connect4", "width=4,height=3", true, false},
		{"connect4", "width=3,height=4", true, false},
		{"connect4", "width=4,height=4", true, false},
		{"connect4", "width=5,height=4", false, true},
		{"quixo", "size=3", true, false},
	} {
		t.Run(tc.game+"-"+tc.option, func(t *testing.T) {
			if tc.long && !longTests() && (testing.Short() || race.Enabled) {
				t.Skip("skipped under -short and -race unless TIERSOLVE_LONG=1")
			}
			full := solveRun(t, tc.game, tc.option, Config{})
			sym := solveRun(t, tc.game, tc.option, Config{Symmetry: true})
			compareSymmetric(t, full, sym, tc.moves)
			checkVerifies(t, sym, sym.Manifest.Total)
			checkFullCounts(t, full, sym)
			// The files do not depend on the cut into ranges, nor on
			// how a loopy tier finds parents.
			if !tc.long {
				compareRuns(t, sym, solveRun(t, tc.game, tc.option, Config{Symmetry: true, Workers: 2, Ranges: 7, ReverseIndex: true}))
			}
			t.Logf("%d positions, %d canonical", full.Manifest.Total, sym.Manifest.Total)
		})
	}
}

// TestTicTacToeClasses: tic-tac-toe has 765 reachable positions up to
// symmetry, a known figure (the essentially different positions).
func TestTicTacToeClasses(t *testing.T) {
	r := solveRun(t, "tictactoe", "", Config{Symmetry: true})
	if r.Manifest.Total != 765 {
		t.Errorf("%d canonical positions, want 765", r.Manifest.Total)
	}
}

// compareSymmetric checks a symmetric run against the full run of the
// same game.
func compareSymmetric(t *testing.T, full, sym *Run, moves bool) {
	t.Helper()
	g := quotient.Base(full.Game)
	s := g.(tiergame.Symmetric)
	mf, ms := full.Manifest, sym.Manifest
	if mf.Symmetry || !ms.Symmetry {
		t.Fatalf("manifests say symmetry %v and %v", mf.Symmetry, ms.Symmetry)
	}
	if *mf.Start != *ms.Start {
		t.Errorf("start %+v, symmetric %+v", *mf.Start, *ms.Start)
	}
	of, err := oracle.Open(full.Dir, g)
	if err != nil {
		t.Fatal(err)
	}
	defer of.Close()
	os, err := oracle.Open(sym.Dir, g)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Close()
	for _, tier := range full.Graph.Tiers {
		set, err := full.loadLevel(tier)
		if err != nil {
			t.Fatal(err)
		}
		symSet, err := sym.loadLevel(tier)
		if err != nil {
			t.Fatal(err)
		}
		canon := bitarray.New(0, g.TierSize(tier))
		for p := range set.All() {
			pos := tiergame.Position(p)
			canon.Add(uint64(s.Canonical(tier, pos)))
			rf, err := of.Lookup(tier, pos)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := os.Lookup(tier, pos)
			if err != nil {
				t.Fatalf("tier %s %s: %v", g.TierName(tier), g.Format(tier, pos), err)
			}
			if rf != rs {
				t.Fatalf("tier %s %s: full run %v, symmetric %v", g.TierName(tier), g.Format(tier, pos), rf, rs)
			}
			if !moves {
				continue
			}
			mvf, err := of.Moves(tier, pos)
			if err != nil {
				t.Fatal(err)
			}
			mvs, err := os.Moves(tier, pos)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(mvf, mvs) {
				t.Fatalf("tier %s %s: moves %v, symmetric %v", g.TierName(tier), g.Format(tier, pos), mvf, mvs)
			}
		}
		if !canon.Equal(symSet) {
			t.Errorf("tier %s: the symmetric level file holds %d positions, the canonical forms of the full one's are %d",
				g.TierName(tier), symSet.Count(), canon.Count())
		}
		if rec := ms.Tier(uint64(tier)); rec.Reachable != canon.Count() {
			t.Errorf("tier %s: manifest says %d canonical positions, want %d", g.TierName(tier), rec.Reachable, canon.Count())
		}
	}
	if ms.Total >= mf.Total && mf.Total > 10 {
		t.Errorf("symmetric run has %d positions, the full run %d", ms.Total, mf.Total)
	}
}

// TestSymmetryRecordedAndRefused: a symmetric folder's manifest says so,
// its level files carry the mark, and opening it with the other setting
// (either way) is refused with ErrSymmetryMismatch; a game without
// symmetries is refused with quotient.ErrNoSymmetry.
func TestSymmetryRecordedAndRefused(t *testing.T) {
	g, err := games.New("connect4", "width=4,height=3")
	if err != nil {
		t.Fatal(err)
	}
	for _, symmetric := range []bool{true, false} {
		t.Run(fmt.Sprint("symmetric=", symmetric), func(t *testing.T) {
			dir := t.TempDir()
			r := reopen(t, g, dir, Config{Symmetry: symmetric})
			if err := r.Reach(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, tier := range r.Graph.Tiers {
				h, _ := levelMembers(t, r.levelPath(tier))
				if h.Symmetric() != symmetric {
					t.Errorf("tier %d: level file mark %v", tier, h.Symmetric())
				}
			}
			r.Close()
			_, err := Open(Config{Game: g, Dir: dir, Symmetry: !symmetric})
			if !errors.Is(err, ErrSymmetryMismatch) {
				t.Fatalf("reopened with the other setting: %v", err)
			}
			t.Log(err)
		})
	}
	tg := &testGameNoSymmetry{g}
	if _, err := Open(Config{Game: tg, Dir: t.TempDir(), Symmetry: true}); !errors.Is(err, quotient.ErrNoSymmetry) {
		t.Fatalf("a game without symmetries: %v", err)
	}
}

// testGameNoSymmetry hides a game's symmetries.
type testGameNoSymmetry struct{ tiergame.Game }

// checkFullCounts: what Verify of the symmetric run counts for the full
// game, tier by tier, is what the full run's manifest records.
func checkFullCounts(t *testing.T, full, sym *Run) {
	t.Helper()
	rep, err := sym.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Full) != len(full.Manifest.Tiers) {
		t.Fatalf("Verify counted %d tiers of the full game, the full run has %d", len(rep.Full), len(full.Manifest.Tiers))
	}
	for _, c := range rep.Full {
		m := full.Manifest.Tier(uint64(c.Tier))
		want := FullCounts{Tier: c.Tier, Name: c.Name, Positions: m.Reachable, Win: m.Win, Lose: m.Lose, Tie: m.Tie, Draw: m.Draw}
		if c != want {
			t.Errorf("tier %s: full-game counts %+v, the full run has %+v", c.Name, c, want)
		}
	}
	if rep, err := full.Verify(t.Context()); err != nil || rep.Full != nil {
		t.Errorf("Verify of a run without symmetry: Full %v, error %v", rep.Full, err)
	}
}
