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
	cfg.Game = g
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	r, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
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
