package bytier_test

import (
	"context"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/internal/bytier"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestValue: Value gives Elsewhere's value for every position of a
// game's tiers, and the children in the tier counted after it are those
// counted after Elsewhere, for games whose cursors list by tier (xiangqi,
// Quixo; every hash of their tiers) and one whose moves are sorted by
// tier here (tic-tac-toe).
func TestValue(t *testing.T) {
	for _, tc := range []struct{ game, option string }{{"xiangqi", "material=KRvKA"}, {"quixo", "size=3"}, {"tictactoe", ""}} {
		g, err := games.New(tc.game, tc.option)
		if err != nil {
			t.Fatal(err)
		}
		gr, err := tiergraph.New(g)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, tt := range gr.Tiers {
			set, err := reach.FullTier(context.Background(), g, tt, 1)
			if err != nil {
				t.Fatal(err)
			}
			a, b := bytier.New(g, tt), bytier.New(g, tt)
			var sa, sb bytier.DedupTable
			for p := range set.All() {
				want, _, err := a.Elsewhere(p)
				if err != nil {
					t.Fatal(err)
				}
				got, err := b.Value(p)
				if err != nil || got != want {
					t.Fatalf("%s tier %d position %d: Value %v (%v), Elsewhere %v", tc.game, tt, p, got, err, want)
				}
				if want == tiergame.Undecided && a.CountWithin(p, &sa) != b.CountWithin(p, &sb) {
					t.Fatalf("%s tier %d position %d: %d children in the tier after Value, %d after Elsewhere", tc.game, tt, p, b.CountWithin(p, &sb), a.CountWithin(p, &sa))
				}
				checked++
			}
		}
		if checked < 1000 {
			t.Errorf("%s: %d positions checked", tc.game, checked)
		}
	}
}
