package teeko_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games/teeko"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

func TestConformance(t *testing.T) {
	opts := tiergametest.Options{MaxPositions: race.Samples(50000, 5000), Samples: race.Samples(3000, 300), Hashes: race.Samples(20000, 2000), New: teeko.New}
	tiergametest.Check(t, teeko.Game{}, opts)
}

// ref is a reference Teeko position: 25 points row by row from the top
// left, '.', 'x' or 'o', and the side to move.
type ref struct {
	cells [25]byte
	turn  byte
}

func (r ref) String() string {
	var b strings.Builder
	b.WriteByte(r.turn)
	b.WriteByte(':')
	for i, c := range r.cells {
		if i > 0 && i%5 == 0 {
			b.WriteByte('/')
		}
		b.WriteByte(c)
	}
	return b.String()
}

func (r ref) count(who byte) int { return strings.Count(string(r.cells[:]), string(who)) }

func other(who byte) byte { return 'x' + 'o' - who }

// won reports whether who has four in a row in any direction or the
// corners of a 2x2 square, looked for from every point.
func (r ref) won(who byte) bool {
	at := func(row, col int) bool {
		return row >= 0 && row < 5 && col >= 0 && col < 5 && r.cells[row*5+col] == who
	}
	for row := range 5 {
		for col := range 5 {
			for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				if at(row, col) && at(row+d[0], col+d[1]) && at(row+2*d[0], col+2*d[1]) && at(row+3*d[0], col+3*d[1]) {
					return true
				}
			}
			if at(row, col) && at(row+1, col) && at(row, col+1) && at(row+1, col+1) {
				return true
			}
		}
	}
	return false
}

func (r ref) primitive() bool { return r.won('x') || r.won('o') }

func name(i int) string { return fmt.Sprintf("%c%d", 'a'+i%5, i/5+1) }

// moves returns the reference's moves by name and the positions they
// lead to: drops while a side has pieces to drop, then steps to an empty
// neighbour.
func (r ref) moves() map[string]ref {
	out := map[string]ref{}
	if r.primitive() {
		return out
	}
	next := r
	next.turn = other(r.turn)
	if r.count('x')+r.count('o') < 8 {
		for i, c := range r.cells {
			if c == '.' {
				n := next
				n.cells[i] = r.turn
				out[name(i)] = n
			}
		}
		return out
	}
	for i, c := range r.cells {
		if c != r.turn {
			continue
		}
		for j, d := range r.cells {
			dr, dc := j/5-i/5, j%5-i%5
			if d == '.' && dr*dr <= 1 && dc*dc <= 1 {
				n := next
				n.cells[i], n.cells[j] = '.', r.turn
				out[name(i)+"-"+name(j)] = n
			}
		}
	}
	return out
}

// randomRef returns a random position with pieces on the board, none of
// them a pattern but for the side that moved last, and at most one
// pattern.
func randomRef(rng *rand.Rand, pieces int) ref {
	for {
		var r ref
		for i := range r.cells {
			r.cells[i] = '.'
		}
		perm := rng.Perm(25)
		for k, i := range perm[:pieces] {
			r.cells[i] = "xo"[k%2]
		}
		r.turn = "xo"[pieces%2]
		if pieces == 8 {
			r.turn = "xo"[rng.IntN(2)]
		}
		if !(r.won('x') && r.won('o')) {
			return r
		}
	}
}

// TestAgainstReference compares Moves, MoveNames and the primitive
// values with the reference on random positions of every tier.
func TestAgainstReference(t *testing.T) {
	g := teeko.Game{}
	rng := rand.New(rand.NewPCG(7, 8))
	for pieces := 0; pieces <= 8; pieces++ {
		for range race.Samples(3000, 300) {
			r := randomRef(rng, pieces)
			tier, p, err := g.Parse(r.String())
			if err != nil {
				t.Fatalf("Parse(%s): %v", r, err)
			}
			if tier != tiergame.Tier(pieces) || g.Format(tier, p) != r.String() {
				t.Fatalf("Parse(%s) = tier %d %s", r, tier, g.Format(tier, p))
			}
			v, children := g.Moves(tier, p, nil)
			names := g.MoveNames(tier, p)
			want := r.moves()
			if (v == tiergame.Lose) != r.primitive() || (v != tiergame.Lose && v != tiergame.Undecided) {
				t.Fatalf("%s: value %v, reference primitive %v", r, v, r.primitive())
			}
			if len(children) != len(want) || len(names) != len(want) {
				t.Fatalf("%s: %d moves, %d names, want %d", r, len(children), len(names), len(want))
			}
			for i, c := range children {
				w, ok := want[names[i]]
				if !ok || g.Format(c.Tier, c.Pos) != w.String() || c.Tier != tiergame.Tier(min(pieces+1, 8)) {
					t.Fatalf("%s: move %s leads to %s (tier %d), want %s", r, names[i], g.Format(c.Tier, c.Pos), c.Tier, w)
				}
			}
		}
	}
}

func TestParse(t *testing.T) {
	g := teeko.Game{}
	for _, tc := range []struct {
		in   string
		tier tiergame.Tier
		err  string
	}{
		{"x:...../...../...../...../.....", 0, ""},
		{"o:x..../...../...../...../.....", 1, ""},
		{"x:xxxx./ooo../...../...../.....", 7, "o is to move"},
		{"o:xxxx./ooo../...../...../.....", 7, ""},
		{"x:xxxx./oooo./...../...../.....", 8, "both sides have a pattern"},
		{"o:xx.../xx.../oo.../.oo../.....", 8, ""},
		{"x:xxxx./....o/...o./..o../.o...", 8, "both sides"},
		{"x:x..../...../...../...../.....", 0, "o is to move"},
		{"x:xxxxx/...../...../...../.....", 0, "at most 4"},
		{"o:xxx../...../...../...../.....", 0, "x drops first"},
		{"x:...../...../...../.....", 0, "4 rows"},
		{"x:...../...../...../...../....", 0, "want 5 points"},
		{"x:...../...../...../...../....X", 0, "want '.', 'x' or 'o'"},
		{"...../...../...../...../.....", 0, `want "x:" or "o:"`},
		{"", 0, `want "x:" or "o:"`},
	} {
		tier, p, err := g.Parse(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Parse(%q): error %v, want one saying %q", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("Parse(%q): %v", tc.in, err)
		case tc.err == "" && (tier != tc.tier || g.Format(tier, p) != tc.in):
			t.Errorf("Parse(%q) = tier %d %s", tc.in, tier, g.Format(tier, p))
		}
	}
}

func TestTiers(t *testing.T) {
	g := teeko.Game{}
	want := []uint64{1, 25, 600, 6900, 75900, 531300, 3542000, 16824500, 151420500}
	for tier, size := range want {
		if got := g.TierSize(tiergame.Tier(tier)); got != size {
			t.Errorf("TierSize(%d) = %d, want %d", tier, got, size)
		}
	}
	if g.TierSize(9) != 0 || g.ChildTiers(9) != nil {
		t.Errorf("tier 9 exists")
	}
	if !slices.Equal(g.ChildTiers(teeko.MovingTier), []tiergame.Tier{teeko.MovingTier}) || !slices.Equal(g.ChildTiers(3), []tiergame.Tier{4}) {
		t.Errorf("ChildTiers(8) = %v, ChildTiers(3) = %v", g.ChildTiers(8), g.ChildTiers(3))
	}
	if st, sp := g.Start(); st != 0 || g.Format(st, sp) != "x:...../...../...../...../....." {
		t.Errorf("start %d %s", st, g.Format(st, sp))
	}
	if _, err := teeko.New(tiergame.Options{"size": "4"}); err == nil || !strings.Contains(err.Error(), "no options") {
		t.Errorf("New with an option: %v", err)
	}
}

// FuzzParse checks that every text Parse accepts is a position of the
// game, written back the same way, and keeps the kit's rules
// (tiergametest.CheckPosition).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"x:...../...../...../...../.....",
		"o:x..../...../..x../...../....o",
		"o:xxxx./ooo../...../...../.....",
		"o:xx.../.oo../.o..x/...o./x....",
		"x:xx.../.oo../.oo.x/...../x....",
		"x:xxxx./oooo./...../...../.....",
		"o:xxxxx/...../...../...../.....",
	} {
		f.Add(s)
	}
	g := teeko.Game{}
	f.Fuzz(func(t *testing.T, s string) {
		tier, p, err := g.Parse(s)
		if err != nil {
			return
		}
		if got := g.Format(tier, p); got != s {
			t.Fatalf("Format(Parse(%q)) = %q", s, got)
		}
		tiergametest.CheckPosition(t, g, tier, p)
	})
}
