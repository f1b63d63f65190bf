package solver

import (
	"context"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

func newRun(t testing.TB, game, option string, cfg Config) *Run {
	t.Helper()
	g, err := games.New(game, option)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	return reopen(t, g, cfg.Dir, cfg)
}

func reachCounts(t testing.TB, r *Run) map[tiergame.Tier]uint64 {
	t.Helper()
	if err := r.Reach(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[tiergame.Tier]uint64{}
	for _, rec := range r.Manifest.Tiers {
		out[tiergame.Tier(rec.Tier)] = rec.Reachable
	}
	return out
}

func TestTicTacToe(t *testing.T) {
	r := newRun(t, "tictactoe", "", Config{})
	counts := reachCounts(t, r)
	want := []uint64{1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78}
	for tier, n := range want {
		if counts[tiergame.Tier(tier)] != n {
			t.Errorf("tier %d: %d reachable, want %d", tier, counts[tiergame.Tier(tier)], n)
		}
	}
	if r.Manifest.Total != 5478 {
		t.Errorf("total %d, want 5478", r.Manifest.Total)
	}
	if err := r.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := r.Manifest.Start; s == nil || s.Value != "tie" || s.Remoteness != 9 {
		t.Fatalf("start %+v, want tie in 9", s)
	}
}

func TestDedup(t *testing.T) {
	var tab dedupTable
	for _, tc := range []struct{ in, want []uint64 }{
		{nil, nil},
		{[]uint64{5}, []uint64{5}},
		{[]uint64{3, 3}, []uint64{3}},
		{[]uint64{1, 2, 1, 3, 2, 0, 0, ^uint64(0) - 1}, []uint64{1, 2, 3, 0, ^uint64(0) - 1}},
	} {
		got := dedup(append([]uint64(nil), tc.in...), &tab)
		if len(got) != len(tc.want) {
			t.Fatalf("dedup(%v) = %v", tc.in, got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("dedup(%v) = %v", tc.in, got)
			}
		}
	}
	// Long lists and many collisions.
	var xs []uint64
	for i := range 200 {
		xs = append(xs, uint64(i%70)<<56)
	}
	if got := dedup(xs, &tab); len(got) != 70 {
		t.Fatalf("dedup of 70 distinct: %d", len(got))
	}
}

// TestVerifyEveryBundledGame solves a variant of every bundled game and
// runs Verify on it: every stored value must follow from its children.
func TestVerifyEveryBundledGame(t *testing.T) {
	for _, c := range []struct{ game, option string }{
		{"tictactoe", ""},
		{"connect4", "width=4,height=4"},
		{"quixo", "size=3"},
	} {
		t.Run(c.game, func(t *testing.T) {
			r := newRun(t, c.game, c.option, Config{})
			if err := r.Reach(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := r.Solve(context.Background()); err != nil {
				t.Fatal(err)
			}
			rep, err := r.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() || rep.Positions != r.Manifest.Total {
				t.Fatalf("verify: %d mismatches %v, file errors %v, %d of %d positions checked",
					rep.Mismatches, rep.Examples, rep.FileErrors, rep.Positions, r.Manifest.Total)
			}
		})
	}
}
