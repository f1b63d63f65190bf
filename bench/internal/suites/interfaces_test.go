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
	first := func(g tiergame.Game) tiergame.Cursor {
		st, _ := g.Start()
		return tiergame.NewCursor(g, st)
	}
	// has tells whether a wrapped game still offers an interface.
	has := map[string]func(g tiergame.Game) bool{
		"counting cursor":   func(g tiergame.Game) bool { _, ok := first(g).(tiergame.CountingCursor); return ok },
		"by-tier cursor":    func(g tiergame.Game) bool { _, ok := first(g).(tiergame.ByTierCursor); return ok },
		"canonical cursor":  func(g tiergame.Game) bool { _, ok := first(g).(tiergame.CanonicalCursor); return ok },
		"un-moves":          func(g tiergame.Game) bool { _, ok := g.(tiergame.Unmover); return ok },
		"canonical parents": func(g tiergame.Game) bool { _, ok := g.(tiergame.CanonicalUnmover); return ok },
		"legality":          func(g tiergame.Game) bool { _, ok := g.(tiergame.Legality); return ok },
		"symmetric":         func(g tiergame.Game) bool { _, ok := g.(tiergame.Symmetric); return ok },
		"kernel":            func(g tiergame.Game) bool { _, ok := g.(tiergame.ChanceKernel); return ok },
		"whole tiers":       tiergame.HasWholeTiers,
		"exhaustive":        tiergame.IsExhaustive,
	}
	quixoCursor := map[string]bool{"by-tier cursor": false, "un-moves": true, "symmetric": false}
	for _, c := range []struct {
		game, option string
		args         ifaceArgs
		want         map[string]bool
	}{
		{"xiangqi", "material=KRvK", ifaceArgs{Cursor: cursorByTier},
			map[string]bool{"counting cursor": false, "by-tier cursor": true, "un-moves": true, "legality": true, "whole tiers": true}},
		{"quixo", "size=4", ifaceArgs{Cursor: cursorMoves}, quixoCursor},
		{"quixo", "size=4", ifaceArgs{Cursor: cursorNone}, quixoCursor},
		{"quixo", "size=4", ifaceArgs{Cursor: cursorNoCanon, Symmetry: true},
			map[string]bool{"canonical cursor": false, "canonical parents": false, "symmetric": true}},
		{"bearoff", "checkers=3,points=6", ifaceArgs{NoKernel: true}, map[string]bool{"kernel": false, "exhaustive": true}},
		{"bearoff", "checkers=3,points=6", ifaceArgs{NotExhaustive: true}, map[string]bool{"kernel": true, "exhaustive": false}},
	} {
		g, err := ifaceGames.New(c.game, c.option)
		if err != nil {
			t.Fatal(err)
		}
		w, err := hide(g, c.args)
		if err != nil {
			t.Fatalf("%s %+v: %v", c.game, c.args, err)
		}
		for name, want := range c.want {
			if got := has[name](w); got != want {
				t.Errorf("%s %+v: %s %v, want %v", c.game, c.args, name, got, want)
			}
		}
	}
}
