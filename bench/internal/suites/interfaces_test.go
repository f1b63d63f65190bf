package suites

import (
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// TestInterfaceJobs runs every setting of the interfaces suite on small
// games: hiding an interface changes the work, never the result (the
// same start value, and the same positions but in symmetric runs and the
// bearoff explored from its start, which reaches fewer).
func TestInterfaceJobs(t *testing.T) {
	s := Interfaces()
	for _, tc := range []struct {
		game, option string
		variants     []ifaceArgs
	}{
		{"dodgem", "size=3", []ifaceArgs{{}, {ReverseIndex: true}}},
		{"connect4", "width=4,height=3", []ifaceArgs{{}, {Cursor: cursorMoves}, {Cursor: cursorNone}}},
		{"quixo", "size=3", []ifaceArgs{{}, {Cursor: cursorMoves}, {Cursor: cursorNone}, {ReverseIndex: true},
			{Symmetry: true}, {Symmetry: true, Cursor: cursorNoCanon}}},
		{"xiangqi", "material=KRvK", []ifaceArgs{{}, {Cursor: cursorByTier}, {Cursor: cursorMoves}, {Cursor: cursorNone},
			{ReverseIndex: true}, {Symmetry: true}}},
		{"bearoff", "checkers=3,points=6", []ifaceArgs{{}, {NoKernel: true}, {NotExhaustive: true}}},
	} {
		var ref map[string]float64
		var refStart string
		for i, a := range tc.variants {
			a.Game, a.Option, a.Workers = tc.game, tc.option, 2
			got := runJob(t, s, "solve", a, "")
			if i == 0 {
				ref, refStart = got.Metrics, got.Facts["start"]
				continue
			}
			if got.Facts["start"] != refStart {
				t.Errorf("%s %s %+v: start %s, want %s", tc.game, tc.option, a, got.Facts["start"], refStart)
			}
			if !a.Symmetry && !a.NotExhaustive && got.Metrics["positions"] != ref["positions"] {
				t.Errorf("%s %s %+v: %v positions, want %v", tc.game, tc.option, a, got.Metrics["positions"], ref["positions"])
			}
		}
	}
}

// TestHide checks that each setting hides what it says and keeps what
// the solver needs to solve the same positions.
func TestHide(t *testing.T) {
	wrap := func(game, option string, a ifaceArgs) tiergame.Game {
		t.Helper()
		g, err := ifaceGames.New(game, option)
		if err != nil {
			t.Fatal(err)
		}
		w, err := hide(g, a)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	is := func(name string, ok, want bool) {
		t.Helper()
		if ok != want {
			t.Errorf("%s: %v, want %v", name, ok, want)
		}
	}
	first := func(g tiergame.Game) tiergame.Cursor {
		st, _ := g.Start()
		return tiergame.NewCursor(g, st)
	}

	x := wrap("xiangqi", "material=KRvK", ifaceArgs{Cursor: cursorByTier})
	_, counting := first(x).(tiergame.CountingCursor)
	_, byTier := first(x).(tiergame.ByTierCursor)
	_, unmoves := x.(tiergame.Unmover)
	_, legal := x.(tiergame.Legality)
	is("xiangqi bytier: counting", counting, false)
	is("xiangqi bytier: by tier", byTier, true)
	is("xiangqi bytier: un-moves", unmoves, true)
	is("xiangqi bytier: legality", legal, true)
	is("xiangqi bytier: whole tiers", tiergame.HasWholeTiers(x), true)

	for _, c := range []string{cursorMoves, cursorNone} {
		q := wrap("quixo", "size=4", ifaceArgs{Cursor: c})
		_, byTier = first(q).(tiergame.ByTierCursor)
		_, unmoves = q.(tiergame.Unmover)
		_, symmetric := q.(tiergame.Symmetric)
		is("quixo "+c+": by tier", byTier, false)
		is("quixo "+c+": un-moves", unmoves, true)
		is("quixo "+c+": symmetric", symmetric, false)
	}
	q := wrap("quixo", "size=4", ifaceArgs{Cursor: cursorNoCanon, Symmetry: true})
	_, canonCursor := first(q).(tiergame.CanonicalCursor)
	_, canonParents := q.(tiergame.CanonicalUnmover)
	_, symmetric := q.(tiergame.Symmetric)
	is("quixo nocanon: canonical cursor", canonCursor, false)
	is("quixo nocanon: canonical parents", canonParents, false)
	is("quixo nocanon: symmetric", symmetric, true)

	b := wrap("bearoff", "checkers=3,points=6", ifaceArgs{NoKernel: true})
	_, kernel := b.(tiergame.ChanceKernel)
	is("bearoff no-kernel: kernel", kernel, false)
	is("bearoff no-kernel: exhaustive", tiergame.IsExhaustive(b), true)
	b = wrap("bearoff", "checkers=3,points=6", ifaceArgs{NotExhaustive: true})
	_, kernel = b.(tiergame.ChanceKernel)
	is("bearoff explored: kernel", kernel, true)
	is("bearoff explored: exhaustive", tiergame.IsExhaustive(b), false)
}
