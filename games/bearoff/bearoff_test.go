package bearoff

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// TestConformance checks small variants whole with the kit (every hash of
// every tier is a position), and random positions of larger ones.
func TestConformance(t *testing.T) {
	for _, v := range []struct {
		checkers, points int
		opts             tiergametest.Options
	}{
		{1, 1, tiergametest.Options{Hashes: 1 << 20}},
		{4, 3, tiergametest.Options{Hashes: 1 << 20}},
		{2, 6, tiergametest.Options{Hashes: 1 << 20}},
		{6, 6, tiergametest.Options{MaxPositions: 100, Samples: 30, Hashes: 30}},
	} {
		g, err := NewGame(v.checkers, v.points)
		if err != nil {
			t.Fatal(err)
		}
		v.opts.New = New
		tiergametest.Check(t, g, v.opts)
	}
}

// TestIndex checks gnubg's one-sided index on the values its
// documentation gives (../shared/specs/gnubg-ids.md).
func TestIndex(t *testing.T) {
	for _, tc := range []struct {
		b    Board
		want int
	}{
		{Board{}, 0},
		{Board{1}, 1},
		{Board{0, 0, 0, 0, 0, 1}, 6},
		{Board{2}, 7},
		{Board{0, 0, 0, 0, 0, 15}, 54263},
	} {
		if got := Index(tc.b, 6); got != tc.want {
			t.Errorf("Index(%v) = %d, want %d", tc.b, got, tc.want)
		}
	}
	// With exactly c checkers: [C(5+c, 6), C(6+c, 6)).
	g, _ := NewGame(15, 6)
	lo := 0
	for i, b := range g.sides.boards {
		c := b.Checkers()
		if c < lo {
			t.Fatalf("board %d (%v) has %d checkers after boards with %d", i, b, c, lo)
		}
		lo = c
	}
}

// TestPositions round-trips every pair of sides of small variants through
// Position and SidesOf, and checks every move: it lowers the mover's pips
// by 1 to 24, leaves the opponent alone and hands it the turn.
func TestPositions(t *testing.T) {
	for _, v := range [][2]int{{3, 6}, {4, 3}, {1, 1}} {
		g, err := NewGame(v[0], v[1])
		if err != nil {
			t.Fatal(err)
		}
		seen := map[tiergame.Child]bool{}
		for i := range g.n {
			for j := range g.n {
				tier, p := g.Position(i, j)
				if seen[tiergame.Child{Tier: tier, Pos: p}] || uint64(p) >= g.TierSize(tier) {
					t.Fatalf("%s: (%d, %d) at %d/%d", g.Option(), i, j, tier, p)
				}
				seen[tiergame.Child{Tier: tier, Pos: p}] = true
				if ii, jj := g.SidesOf(tier, p); ii != i || jj != j {
					t.Fatalf("%s: SidesOf(Position(%d, %d)) = %d, %d", g.Option(), i, j, ii, jj)
				}
				_, cs := g.Moves(tier, p, nil)
				for _, c := range cs {
					ci, cj := g.SidesOf(c.Tier, c.Pos)
					drop := int(g.sides.pips[i]) - int(g.sides.pips[cj])
					if ci != j || drop < 1 || drop > 24 || !slices.Contains(g.ChildTiers(tier), c.Tier) {
						t.Fatalf("%s: move from (%d, %d) to (%d, %d)", g.Option(), i, j, ci, cj)
					}
				}
			}
		}
		var total uint64
		for tier := range g.tiers {
			total += g.TierSize(tiergame.Tier(tier))
		}
		if total != uint64(g.n*g.n) || len(seen) != g.n*g.n {
			t.Errorf("%s: tiers hold %d positions, want %d", g.Option(), total, g.n*g.n)
		}
	}
}

// TestMoveLists checks the move lists the solver uses (built die by die)
// against the plays of the plain recursive generator, for every board of
// 6 checkers and random boards of 15 (10 with the race detector).
func TestMoveLists(t *testing.T) {
	check := func(g *Game, i int) {
		if i == 0 { // no checker left: no moves
			return
		}
		for k, r := range rolls {
			var want []uint32
			for _, pl := range plays(g.sides.boards[i], g.points, r) {
				want = append(want, uint32(Index(pl.After, g.points)))
			}
			slices.Sort(want)
			if got := g.moveLists().moves(i, k); !slices.Equal(got, want) {
				t.Fatalf("%s board %v roll %v: moves %v, plays %v", g.Option(), g.sides.boards[i], r, got, want)
			}
			var lv levels
			if got := g.boardMoves(i, k, &lv, nil); !slices.Equal(got, want) {
				t.Fatalf("%s board %v roll %v: one board's moves %v, plays %v", g.Option(), g.sides.boards[i], r, got, want)
			}
			if len(want) == 0 {
				t.Fatalf("%s board %v roll %v: no play", g.Option(), g.sides.boards[i], r)
			}
		}
	}
	g6, _ := NewGame(6, 6)
	for i := range g6.n {
		check(g6, i)
	}
	many := 15
	if race.Enabled {
		many = 10
	}
	g, _ := NewGame(many, 6)
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		check(g, r.IntN(g.n))
	}
}

func TestParseErrors(t *testing.T) {
	g, _ := NewGame(6, 5)
	id := func(us, them [6]int) string {
		var b gnubgid.Board
		copy(b[1][:], us[:])
		copy(b[0][:], them[:])
		s, err := gnubgid.EncodePosition(b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		id   string
		want error
	}{
		{"4HPwATDgc/ABMA", ErrNotBearoff}, // the start of a game
		{id([6]int{7}, [6]int{1}), ErrVariant},
		{id([6]int{1}, [6]int{0, 0, 0, 0, 0, 1}), ErrVariant}, // the six point, with 5 points
	} {
		if _, _, err := g.Parse(tc.id); !errors.Is(err, tc.want) {
			t.Errorf("Parse(%s) = %v, want %v", tc.id, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	g, _ := NewGame(6, 6)
	for _, s := range []string{"AQAABAEAAAAAAA", "4HPwATDgc/ABMA", "4AcAAPADAAAAAA", "", "AAAAAAAAAAAAAA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tier, p, err := g.Parse(s)
		if err != nil {
			return
		}
		if got := g.Format(tier, p); got != s {
			t.Fatalf("Format(Parse(%q)) = %q", s, got)
		}
	})
}
