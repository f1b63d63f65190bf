package solver

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/internal/bytier"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
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
	var tab bytier.DedupTable
	for _, tc := range []struct{ in, want []uint64 }{
		{nil, nil},
		{[]uint64{5}, []uint64{5}},
		{[]uint64{3, 3}, []uint64{3}},
		{[]uint64{1, 2, 1, 3, 2, 0, 0, ^uint64(0) - 1}, []uint64{1, 2, 3, 0, ^uint64(0) - 1}},
	} {
		got := bytier.Dedup(append([]uint64(nil), tc.in...), &tab)
		if len(got) != len(tc.want) {
			t.Fatalf("bytier.Dedup(%v) = %v", tc.in, got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("bytier.Dedup(%v) = %v", tc.in, got)
			}
		}
	}
	// Long lists and many collisions.
	var xs []uint64
	for i := range 200 {
		xs = append(xs, uint64(i%70)<<56)
	}
	if got := bytier.Dedup(xs, &tab); len(got) != 70 {
		t.Fatalf("bytier.Dedup of 70 distinct: %d", len(got))
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
			r := solveRun(t, c.game, c.option, Config{})
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

// lyingGame is tic-tac-toe whose ChildTiers or TierSize lie, as a buggy
// game's might.
type lyingGame struct {
	tiergame.Game
	noChildren bool // ChildTiers lists nothing
	small      bool // child tiers' hash spaces are too small
}

func (g lyingGame) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	if g.noChildren {
		return nil
	}
	return g.Game.ChildTiers(t)
}

func (g lyingGame) TierSize(t tiergame.Tier) uint64 {
	if g.small && t > 0 {
		return 1
	}
	return g.Game.TierSize(t)
}

// TestExpandRangeBadGame checks that a game whose moves reach a tier its
// ChildTiers does not list, or a position outside a tier's hash space, gets
// an error from reach.ExpandRange, not a panic.
func TestExpandRangeBadGame(t *testing.T) {
	base, err := games.New("tictactoe", "")
	if err != nil {
		t.Fatal(err)
	}
	start, p := base.Start()
	set := bitarray.New(0, base.TierSize(start))
	set.Add(uint64(p))
	r := plan.Range{Lo: 0, Hi: set.Len()}
	for _, tc := range []struct {
		name string
		g    tiergame.Game
		want string
	}{
		{"unlisted tier", lyingGame{Game: base, noChildren: true}, "does not list"},
		{"outside the hash space", lyingGame{Game: base, small: true}, "outside its hash space"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			targets := reach.ChildTargets(tc.g, tc.g.ChildTiers(start))
			_, err := reach.ExpandRange(context.Background(), tc.g, start, set, r, targets, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ExpandRange: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestPieces checks that the pieces of a partial cover its set exactly:
// consecutive ranges from its base to its end, starting on a word, with
// the same members, none shorter than minPieceWords but the whole set,
// and with about equal member counts when the members crowd one end.
func TestPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, words := range []uint64{1, minPieceWords - 1, 2 * minPieceWords, 3*minPieceWords + 5, 40 * minPieceWords} {
		for _, tail := range []uint64{0, 37} {
			for _, skew := range []bool{false, true} {
				n := words*64 - tail
				set := bitarray.New(1000, n)
				for range n / 50 {
					q := rng.Uint64N(n)
					if skew {
						q = q * q / n // most members near the base
					}
					set.Add(1000 + q)
				}
				for parts := 1; parts <= 9; parts++ {
					checkPieces(t, set, parts, words, tail)
				}
			}
		}
	}
}

func checkPieces(t *testing.T, set *bitarray.Set, parts int, words, tail uint64) {
	t.Helper()
	ps := pieces(set, parts)
	most := max(1, min(parts, int(words/minPieceWords)))
	if len(ps) < 1 || len(ps) > most {
		t.Fatalf("%d bits, %d parts: %d pieces, want 1 to %d", set.Len(), parts, len(ps), most)
	}
	next, count, biggest := set.Base(), uint64(0), uint64(0)
	for _, p := range ps {
		if p.Base() != next || (p.Base()-set.Base())%64 != 0 {
			t.Fatalf("%d bits, %d parts: a piece starts at %d, want %d on a word", set.Len(), parts, p.Base(), next)
		}
		if len(ps) > 1 && p.Len() < minPieceWords*64-tail {
			t.Fatalf("%d bits, %d parts: a piece of %d positions", set.Len(), parts, p.Len())
		}
		c := uint64(0)
		for q := range p.All() {
			if !set.Contains(q) {
				t.Fatalf("%d bits, %d parts: %d in a piece, not in the set", set.Len(), parts, q)
			}
			c++
		}
		count += c
		biggest = max(biggest, c)
		next = p.End()
	}
	if next != set.End() || count != set.Count() {
		t.Fatalf("%d bits, %d parts: pieces end at %d with %d members, the set at %d with %d",
			set.Len(), parts, next, count, set.End(), set.Count())
	}
	// With room for every piece, none holds much more than its share.
	if most == parts && len(ps) == parts && biggest > 2*count/uint64(parts)+64 {
		t.Errorf("%d bits, %d parts: a piece of %d of %d members", set.Len(), parts, biggest, count)
	}
}

// TestSplitShrinking checks the cut of a tier into ranges (units, in a
// cluster): they cover it without gaps or overlaps, in order, and their
// member counts shrink about as n, n-1, ..., 1.
func TestSplitShrinking(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		base, size uint64
		density    float64
		n          int
	}{{0, 1 << 16, 0.5, 4}, {1000, 1 << 14, 0.01, 6}, {0, 100, 1, 1}, {0, 1 << 12, 0.9, 2}, {7, 64, 0.05, 10}} {
		set := bitarray.New(tc.base, tc.size)
		for p := tc.base; p < tc.base+tc.size; p++ {
			if rng.Float64() < tc.density {
				set.Add(p)
			}
		}
		ranked := bitarray.NewRanked(set)
		rs := plan.SplitShrinking(ranked, tc.n)
		if rs[0].Lo != tc.base || rs[len(rs)-1].Hi != tc.base+tc.size {
			t.Fatalf("%+v: ranges %v do not cover the tier", tc, rs)
		}
		total, weights := ranked.Total(), uint64(tc.n*(tc.n+1)/2)
		for i, r := range rs {
			if r.Lo >= r.Hi || (i > 0 && r.Lo != rs[i-1].Hi) {
				t.Fatalf("%+v: ranges %v overlap, leave a gap or are empty", tc, rs)
			}
			got := uint64(0)
			for range set.Range(r.Lo, r.Hi) {
				got++
			}
			if len(rs) == tc.n {
				want := total * uint64(tc.n-i) / weights
				if got+1 < want || got > want+1 {
					t.Errorf("%+v: range %d holds %d members, want about %d", tc, i, got, want)
				}
			}
		}
		if !slices.Equal(rs, plan.SplitShrinking(ranked, tc.n)) {
			t.Fatalf("%+v: the cut is not deterministic", tc)
		}
	}
}

// TestSplitShrinkingAligned: the cut at multiples of align covers the
// tier without gaps or empty ranges, every range but the last holds a
// multiple of align members, and each cut is within align/2 members of
// plan.SplitShrinking's.
func TestSplitShrinkingAligned(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		size    uint64
		density float64
		n       int
		align   uint64
	}{{1 << 16, 0.5, 4, 1024}, {1 << 16, 0.5, 8, 4096}, {1 << 14, 0.3, 6, 1 << 12}, {1 << 12, 0.1, 3, 1 << 10}, {1000, 0.5, 4, 1}, {1 << 16, 0.9, 16, 8192}} {
		set := bitarray.New(0, tc.size)
		for p := range tc.size {
			if rng.Float64() < tc.density {
				set.Add(p)
			}
		}
		ranked := bitarray.NewRanked(set)
		rs := plan.SplitShrinkingAligned(ranked, tc.n, tc.align)
		exact := plan.SplitShrinking(ranked, tc.n)
		if rs[0].Lo != 0 || rs[len(rs)-1].Hi != tc.size {
			t.Fatalf("%+v: ranges %v do not cover the tier", tc, rs)
		}
		for i, r := range rs {
			if r.Lo >= r.Hi || (i > 0 && r.Lo != rs[i-1].Hi) {
				t.Fatalf("%+v: ranges %v overlap, leave a gap or are empty", tc, rs)
			}
			count := r.Count(ranked)
			if count == 0 || i < len(rs)-1 && count%tc.align != 0 {
				t.Errorf("%+v: range %d of %v holds %d members", tc, i, rs, count)
			}
			if len(rs) == len(exact) && i < len(rs)-1 {
				a, b := ranked.Rank(r.Hi), ranked.Rank(exact[i].Hi)
				if max(a, b)-min(a, b) > tc.align/2 {
					t.Errorf("%+v: cut %d at rank %d, plan.SplitShrinking's at %d", tc, i, a, b)
				}
			}
		}
		if tc.align == 1 && !slices.Equal(rs, exact) {
			t.Errorf("%+v: aligned to 1, %v, not plan.SplitShrinking's %v", tc, rs, exact)
		}
	}
}
