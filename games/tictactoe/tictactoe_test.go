package tictactoe

import (
	"errors"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// TestConformance checks every reachable position and every hash of
// every tier (those Parse accepts are the reachable ones) with the kit.
func TestConformance(t *testing.T) {
	tiergametest.Check(t, Game{}, tiergametest.Options{Hashes: 1 << 20, New: New})
}

func TestReachableCounts(t *testing.T) {
	g := Game{}
	want := []uint64{1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78}
	values := map[tiergame.Value]int{}
	counts := tiergametest.Reach(t, g, nil, func(tier tiergame.Tier, p tiergame.Position, v tiergame.Value, _ []tiergame.Child) {
		values[v]++
	})
	for n, w := range want {
		if got := counts[tiergame.Tier(n)]; got != w {
			t.Errorf("tier %d: %d positions, want %d", n, got, w)
		}
	}
	// 958 terminal positions: 626 won by the last mover, 16 full ties.
	if values[tiergame.Lose] != 942 || values[tiergame.Tie] != 16 {
		t.Errorf("primitive values %v, want 942 lose and 16 tie", values)
	}
}

// TestHashBijection checks hash(unhash(p)) == p for every hash of every
// tier, and that unhash gives boards of the tier's piece counts.
func TestHashBijection(t *testing.T) {
	for n := 0; n <= cells; n++ {
		size := Game{}.TierSize(tiergame.Tier(n))
		for p := tiergame.Position(0); uint64(p) < size; p++ {
			x, o := unhash(n, p)
			if x&o != 0 || popcount(x) != (n+1)/2 || popcount(o) != n/2 {
				t.Fatalf("tier %d hash %d: bad board x=%09b o=%09b", n, p, x, o)
			}
			if q := hash(x, o); q != p {
				t.Fatalf("tier %d: hash(unhash(%d)) = %d", n, p, q)
			}
		}
	}
	if got := (Game{}).TierSize(10); got != 0 {
		t.Errorf("TierSize(10) = %d", got)
	}
}

func TestPrimitive(t *testing.T) {
	tests := []struct {
		board string
		want  tiergame.Value
	}{
		{"---/---/---", tiergame.Undecided},
		{"xxx/oo-/---", tiergame.Lose},
		{"xo-/xo-/x--", tiergame.Lose},
		{"xxo/-o-/o-x", tiergame.Lose}, // o's anti-diagonal, x to move
		{"xox/xox/oxo", tiergame.Tie},
		{"xxx/oxo/oxo", tiergame.Lose}, // full board with a line
		{"xx-/oo-/---", tiergame.Undecided},
	}
	g := Game{}
	for _, tc := range tests {
		tier, p, err := g.Parse(tc.board)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.board, err)
		}
		v, children := g.Moves(tier, p, nil)
		if v != tc.want {
			t.Errorf("%s: value %v, want %v", tc.board, v, tc.want)
		}
		if v == tiergame.Undecided && len(children) != cells-int(tier) {
			t.Errorf("%s: %d moves, want %d", tc.board, len(children), cells-int(tier))
		}
	}
}

func TestMoves(t *testing.T) {
	g := Game{}
	tier, p, err := g.Parse("xx-/oo-/---")
	if err != nil {
		t.Fatal(err)
	}
	_, children := g.Moves(tier, p, nil)
	names := g.MoveNames(tier, p)
	wantNames := []string{"c1", "c2", "a3", "b3", "c3"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("MoveNames = %q, want %q", names, wantNames)
	}
	wantBoards := []string{"xxx/oo-/---", "xx-/oox/---", "xx-/oo-/x--", "xx-/oo-/-x-", "xx-/oo-/--x"}
	for i, c := range children {
		if got := g.Format(c.Tier, c.Pos); got != wantBoards[i] || c.Tier != 5 {
			t.Errorf("child %d = %q in tier %d, want %q in tier 5", i, got, c.Tier, wantBoards[i])
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		s       string
		invalid bool // wraps ErrInvalid
	}{
		{"", false},
		{"---/---", false},
		{"---/---/---/---", false},
		{"----/---/---", false},
		{"--/---/---", false},
		{"-a-/---/---", false},
		{"-X-/---/---", false},
		{"o--/---/---", true}, // o moved first
		{"xx-/---/---", true}, // two x, no o
		{"xxx/ooo/x--", true}, // both have lines
		{"ooo/xx-/xx-", true}, // o to move has a line
		{"xxx/oo-/o--", true}, // x to move has a line
	}
	for _, tc := range tests {
		_, _, err := Game{}.Parse(tc.s)
		if err == nil {
			t.Errorf("Parse(%q) succeeded", tc.s)
			continue
		}
		if errors.Is(err, ErrInvalid) != tc.invalid {
			t.Errorf("Parse(%q) = %v; wraps ErrInvalid = %v, want %v", tc.s, err, !tc.invalid, tc.invalid)
		}
	}
	// Two lines through the last move are fine.
	if _, _, err := (Game{}).Parse("xxx/xoo/xoo"); err != nil {
		t.Errorf("two lines through one move: %v", err)
	}
}

func TestNew(t *testing.T) {
	if _, err := New(tiergame.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(tiergame.Options{"size": "4"}); err == nil {
		t.Error("New accepted an unknown option")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"---/---/---", "x-o/-x-/--o", "xxx/oo-/---", "xox/xox/oxo", "xx/---/---", "x-o/-x-/--oo"} {
		f.Add(s)
	}
	g := Game{}
	f.Fuzz(func(t *testing.T, s string) {
		tier, p, err := g.Parse(s)
		if err != nil {
			return
		}
		if uint64(p) >= g.TierSize(tier) {
			t.Fatalf("Parse(%q) = (%d, %d) outside the tier", s, tier, p)
		}
		if f := g.Format(tier, p); f != s {
			t.Fatalf("Format(Parse(%q)) = %q", s, f)
		}
	})
}
