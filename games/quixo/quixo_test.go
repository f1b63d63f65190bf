package quixo

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// TestConformance checks Quixo with the kit: every hash of 3x3 (every
// board is a position), or under -short and the race detector the first
// reachable ones and random ones; and random positions of 4x4 and 5x5.
func TestConformance(t *testing.T) {
	small := tiergametest.Options{MaxPositions: 1 << 20, Hashes: 1 << 20}
	if testing.Short() || race.Enabled {
		small = tiergametest.Options{MaxPositions: 3000, Samples: 500, Hashes: 1000}
	}
	large := tiergametest.Options{MaxPositions: race.Samples(2000, 300), Samples: race.Samples(1000, 100), Hashes: race.Samples(1000, 100)}
	for n, opts := range []tiergametest.Options{3: small, 4: large, 5: large} {
		if n < MinSize {
			continue
		}
		opts.New = New
		tiergametest.Check(t, mustNew(t, n), opts)
	}
}

func mustNew(t testing.TB, n int) *Game {
	t.Helper()
	g, err := NewSize(n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// refBoard is the plain reference model: cells row by row, 0 blank,
// 1 X, 2 O, and the side to move (1 or 2).
type refBoard struct {
	cells [MaxSize * MaxSize]byte
	turn  byte
}

func refHasLine(b *refBoard, n int, who byte) bool {
	diag, anti := true, true
	for i := 0; i < n; i++ {
		row, col := true, true
		for j := 0; j < n; j++ {
			row = row && b.cells[i*n+j] == who
			col = col && b.cells[j*n+i] == who
		}
		if row || col {
			return true
		}
		diag = diag && b.cells[i*n+i] == who
		anti = anti && b.cells[i*n+n-1-i] == who
	}
	return diag || anti
}

// refValue applies the terminal rule for the player to move.
func refValue(b *refBoard, n int) tiergame.Value {
	switch {
	case refHasLine(b, n, b.turn):
		return tiergame.Win
	case refHasLine(b, n, 3-b.turn):
		return tiergame.Lose
	}
	return tiergame.Undecided
}

// refMoves lists the children of b in the documented order: by source cell,
// then pushing in at the row's left end, its right end, the column's top,
// its bottom.
func refMoves(b *refBoard, n int) []refBoard {
	var out []refBoard
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			if r != 0 && r != n-1 && c != 0 && c != n-1 {
				continue
			}
			if v := b.cells[r*n+c]; v != 0 && v != b.turn {
				continue
			}
			// Each destination as a walk from src to the end: the cells
			// on the way move one step back toward src.
			for _, d := range [][2]int{{0, -1}, {0, 1}, {-1, 0}, {1, 0}} {
				er, ec := r, c
				for er+d[0] >= 0 && er+d[0] < n && ec+d[1] >= 0 && ec+d[1] < n {
					er, ec = er+d[0], ec+d[1]
				}
				if er == r && ec == c {
					continue // src is that end
				}
				nb := *b
				cr, cc := r, c
				for cr != er || cc != ec {
					nb.cells[cr*n+cc] = b.cells[(cr+d[0])*n+cc+d[1]]
					cr, cc = cr+d[0], cc+d[1]
				}
				nb.cells[er*n+ec] = b.turn
				nb.turn = 3 - b.turn
				out = append(out, nb)
			}
		}
	}
	return out
}

// refTier returns a board's tier.
func refTier(b *refBoard) tiergame.Tier {
	var x, o int
	for _, v := range b.cells {
		switch v {
		case 1:
			x++
		case 2:
			o++
		}
	}
	return tierID(x, o)
}

// toRef and fromRef convert between the game's hash and the model.
func toRef(g *Game, t tiergame.Tier, p tiergame.Position) refBoard {
	xs, os, side := g.unhash(g.tierOf(t), uint64(p))
	var b refBoard
	for i := 0; i < g.cells; i++ {
		switch {
		case xs>>i&1 != 0:
			b.cells[i] = 1
		case os>>i&1 != 0:
			b.cells[i] = 2
		}
	}
	b.turn = byte(side) + 1
	return b
}

func fromRef(g *Game, b *refBoard) tiergame.Child {
	var xs, os uint32
	for i := 0; i < g.cells; i++ {
		switch b.cells[i] {
		case 1:
			xs |= 1 << i
		case 2:
			os |= 1 << i
		}
	}
	t := refTier(b)
	return tiergame.Child{Tier: t, Pos: tiergame.Position(g.hash(g.tierOf(t), xs, os, uint64(b.turn-1)))}
}

// TestReachable3x3 compares the positions reachable on 3x3, per tier, with
// a breadth-first search of the reference model over a Go map.
func TestReachable3x3(t *testing.T) {
	const n = 3
	start := refBoard{turn: 1}
	seen := map[refBoard]bool{start: true}
	queue := []refBoard{start}
	want := map[tiergame.Tier]uint64{}
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		want[refTier(&b)]++
		if refValue(&b, n) != tiergame.Undecided {
			continue
		}
		for _, c := range refMoves(&b, n) {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	g := mustNew(t, n)
	got := tiergametest.Reach(t, g, nil, nil)
	if len(got) != len(want) {
		t.Errorf("%d tiers reached, want %d", len(got), len(want))
	}
	var total uint64
	for tier, w := range want {
		total += w
		if got[tier] != w {
			t.Errorf("tier %s: %d positions, want %d", g.TierName(tier), got[tier], w)
		}
	}
	t.Logf("3x3: %d positions reachable in %d tiers", total, len(want))
}

// TestMovesAgainstModel compares Moves and the primitive values with the
// reference model: every position of 3x3 and random ones of 4x4 and 5x5.
func TestMovesAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := MinSize; n <= MaxSize; n++ {
		g := mustNew(t, n)
		for _, tier := range allTiers(g) {
			size := g.TierSize(tier)
			count := size
			if n > 3 {
				count = min(size, uint64(race.Samples(100, 20)/(n-3)))
			}
			for i := uint64(0); i < count; i++ {
				p := tiergame.Position(i)
				if n > 3 {
					p = tiergame.Position(rng.Uint64N(size))
				}
				b := toRef(g, tier, p)
				if c := fromRef(g, &b); c.Tier != tier || c.Pos != p {
					t.Fatalf("size %d: hash(unhash(%s, %d)) = (%s, %d)", n, g.TierName(tier), p, g.TierName(c.Tier), c.Pos)
				}
				v, children := g.Moves(tier, p, nil)
				if wv := refValue(&b, n); v != wv {
					t.Fatalf("%s: value %v, want %v", g.Format(tier, p), v, wv)
				}
				if v != tiergame.Undecided {
					continue
				}
				var want []tiergame.Child
				for _, c := range refMoves(&b, n) {
					want = append(want, fromRef(g, &c))
				}
				if !slices.Equal(children, want) {
					t.Fatalf("%s: children %v, want %v", g.Format(tier, p), children, want)
				}
			}
		}
	}
}

func allTiers(g *Game) []tiergame.Tier {
	var ts []tiergame.Tier
	for x := 0; x <= g.cells; x++ {
		for o := 0; x+o <= g.cells; o++ {
			ts = append(ts, tierID(x, o))
		}
	}
	return ts
}

func TestTierSizes(t *testing.T) {
	for n := MinSize; n <= MaxSize; n++ {
		g := mustNew(t, n)
		var total uint64
		for _, tier := range allTiers(g) {
			x, o := int(tier>>8), int(tier&0xff)
			want := 2 * multinomial(g.cells, x, o)
			if got := g.TierSize(tier); got != want {
				t.Errorf("size %d: TierSize(%s) = %d, want %d", n, g.TierName(tier), got, want)
			}
			total += want
		}
		want := uint64(2)
		for range g.cells {
			want *= 3
		}
		if total != want {
			t.Errorf("size %d: tiers hold %d positions, want 2*3^%d = %d", n, total, g.cells, want)
		}
		if g.TierSize(tierID(g.cells, 1)) != 0 || g.TierSize(tierID(g.cells+1, 0)) != 0 || g.ChildTiers(tierID(g.cells, 1)) != nil {
			t.Errorf("size %d: a tier with too many cubes exists", n)
		}
	}
	if got := mustNew(t, 4).TierSize(tierID(0, 0)) + 0; got != 2 {
		t.Errorf("TierSize(x0o0) = %d", got)
	}
}

// TestHashBijection3x3 checks every hash of every tier of 3x3.
func TestHashBijection3x3(t *testing.T) {
	g := mustNew(t, 3)
	for _, tier := range allTiers(g) {
		ti := g.tierOf(tier)
		for p := uint64(0); p < ti.size; p++ {
			xs, os, side := g.unhash(ti, p)
			if xs&os != 0 || bits.OnesCount32(xs) != ti.x || bits.OnesCount32(os) != ti.o || (xs|os)>>g.cells != 0 {
				t.Fatalf("%s hash %d: bad board %b %b", g.TierName(tier), p, xs, os)
			}
			if q := g.hash(ti, xs, os, side); q != p {
				t.Fatalf("%s: hash(unhash(%d)) = %d", g.TierName(tier), p, q)
			}
		}
	}
}

// parentTiers lists the tiers that have t among their children.
func parentTiers(g *Game, t tiergame.Tier) []tiergame.Tier {
	var pts []tiergame.Tier
	for _, pt := range []tiergame.Tier{t, t - 1<<8, t - 1} {
		if g.TierSize(pt) > 0 && slices.Contains(g.ChildTiers(pt), t) {
			pts = append(pts, pt)
		}
	}
	return pts
}

// TestParents3x3 checks Parents against Moves over every position of 3x3:
// q is in Parents(c, tier of q) exactly when q is not primitive and c is
// among its children, and no parent is listed twice.
func TestParents3x3(t *testing.T) {
	g := mustNew(t, 3)
	type key struct {
		child tiergame.Child
		pt    tiergame.Tier
	}
	want := map[key][]tiergame.Position{}
	var children []tiergame.Child
	for _, pt := range allTiers(g) {
		for q := tiergame.Position(0); uint64(q) < g.TierSize(pt); q++ {
			var v tiergame.Value
			if v, children = g.Moves(pt, q, children[:0]); v != tiergame.Undecided {
				continue
			}
			for _, c := range children {
				k := key{c, pt}
				if l := want[k]; len(l) == 0 || l[len(l)-1] != q {
					want[k] = append(l, q)
				}
			}
		}
	}
	var parents []tiergame.Position
	for _, tier := range allTiers(g) {
		pts := parentTiers(g, tier)
		for p := tiergame.Position(0); uint64(p) < g.TierSize(tier); p++ {
			c := tiergame.Child{Tier: tier, Pos: p}
			for _, pt := range pts {
				parents = g.Parents(tier, p, pt, parents[:0])
				got := slices.Clone(parents)
				slices.Sort(got)
				w := want[key{c, pt}]
				if !slices.Equal(got, w) {
					t.Fatalf("Parents(%s, %s) = %v, want %v", g.Format(tier, p), g.TierName(pt), got, w)
				}
			}
			// A tier that is no parent tier yields nothing.
			if got := g.Parents(tier, p, tier+2, nil); len(got) != 0 {
				t.Fatalf("Parents(%s, %s) = %v", g.Format(tier, p), g.TierName(tier+2), got)
			}
		}
	}
}

func TestPrimitive(t *testing.T) {
	g := mustNew(t, 4)
	tests := []struct {
		s    string
		want tiergame.Value
	}{
		{"x:..../..../..../....", tiergame.Undecided},
		{"x:xxxx/oo../o.../....", tiergame.Win},  // mover's row
		{"o:xxxx/oo../o.../....", tiergame.Lose}, // opponent's row
		{"o:x.../x.../x.../xo..", tiergame.Lose}, // column
		{"x:o.../.o../..o./...o", tiergame.Lose}, // diagonal
		{"o:...o/..o./.o../o...", tiergame.Win},  // anti-diagonal
		{"x:xxxx/oooo/..../....", tiergame.Win},  // both: the mover wins
		{"o:xxxx/oooo/..../....", tiergame.Win},  // both: the mover wins
		{"x:xxx./ooo./..../....", tiergame.Undecided},
	}
	for _, tc := range tests {
		tier, p, err := g.Parse(tc.s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.s, err)
		}
		if v, _ := g.Moves(tier, p, nil); v != tc.want {
			t.Errorf("%s: %v, want %v", tc.s, v, tc.want)
		}
	}
}

func TestMoveNames(t *testing.T) {
	g := mustNew(t, 4)
	tier, p := g.Start()
	names := g.MoveNames(tier, p)
	if len(names) != 32 {
		t.Fatalf("%d moves at the start, want 32", len(names))
	}
	if want := []string{"a1-d1", "a1-a4", "b1-a1", "b1-d1", "b1-b4"}; !slices.Equal(names[:5], want) {
		t.Errorf("first moves %q, want %q", names[:5], want)
	}
	_, children := g.Moves(tier, p, nil)
	if got := g.Format(children[0].Tier, children[0].Pos); got != "o:...x/..../..../...." {
		t.Errorf("a1-d1 from the start gives %q", got)
	}
	// O's cubes cannot be taken.
	tier, p, err := g.Parse("x:o..o/..../..../o..o")
	if err != nil {
		t.Fatal(err)
	}
	if names := g.MoveNames(tier, p); len(names) != 24 || slices.ContainsFunc(names, func(s string) bool { return strings.HasPrefix(s, "a1") }) {
		t.Errorf("moves with o in the corners: %q", names)
	}
}

// TestFormatParse checks the text form on examples and bad input
// (TestConformance checks that positions of every size round-trip).
func TestFormatParse(t *testing.T) {
	g := mustNew(t, 4)
	tier, p, err := g.Parse("o:x.../..../..../....")
	if err != nil || g.TierName(tier) != "x1o0" || p&1 != 1 {
		t.Errorf("Parse(o:x...) = (%s, %d, %v)", g.TierName(tier), p, err)
	}
	for _, bad := range []string{
		"", "x:", "x..../..../..../....", "z:..../..../..../....", "x:..../..../....",
		"x:..../..../..../..../....", "x:.../..../..../....", "x:..../..../..../...-",
		"X:..../..../..../....", "x:..../..../..../...X",
	} {
		if _, _, err := g.Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestTiers(t *testing.T) {
	g := mustNew(t, 4)
	if got := g.ChildTiers(tierID(5, 4)); !slices.Equal(got, []tiergame.Tier{tierID(6, 4), tierID(5, 5), tierID(5, 4)}) {
		t.Errorf("ChildTiers(x5o4) = %v", got)
	}
	if got := g.ChildTiers(tierID(8, 8)); !slices.Equal(got, []tiergame.Tier{tierID(8, 8)}) {
		t.Errorf("ChildTiers(x8o8) = %v", got)
	}
	if got := g.TierName(tierID(5, 4)); got != "x5o4" {
		t.Errorf("TierName = %q", got)
	}
	if tier, p := g.Start(); g.Format(tier, p) != "x:..../..../..../...." {
		t.Errorf("start %q", g.Format(tier, p))
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		opts   tiergame.Options
		option string
	}{{tiergame.Options{}, "size=4"}, {tiergame.Options{"size": "3"}, "size=3"}, {tiergame.Options{"size": "5"}, "size=5"}} {
		g, err := New(tc.opts)
		if err != nil || g.Option() != tc.option {
			t.Errorf("New(%v) = %v, %v; want option %q", tc.opts, g, err, tc.option)
		}
	}
	for _, bad := range []tiergame.Options{{"size": "6"}, {"size": "2"}, {"width": "4"}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%v) succeeded", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"x:..../..../..../....", "o:x.../..../..../....", "x:xxxx/oo../o.../....", "o:.../.x./...", "x:...../...../..x../...../....."} {
		f.Add(s)
	}
	games := []*Game{mustNew(f, 3), mustNew(f, 4), mustNew(f, 5)}
	f.Fuzz(func(t *testing.T, s string) {
		for _, g := range games {
			tier, p, err := g.Parse(s)
			if err != nil {
				continue
			}
			if uint64(p) >= g.TierSize(tier) {
				t.Fatalf("Parse(%q) = (%s, %d) outside the tier", s, g.TierName(tier), p)
			}
			if got := g.Format(tier, p); got != s {
				t.Fatalf("Format(Parse(%q)) = %q", s, got)
			}
			if v, children := g.Moves(tier, p, nil); v == tiergame.Undecided && len(children) == 0 {
				t.Fatalf("%q: no moves", s)
			}
		}
	})
}

// randomPositions returns count random non-primitive hashes of a tier.
func randomPositions(g *Game, tier tiergame.Tier, count int) []tiergame.Position {
	rng := rand.New(rand.NewPCG(5, 6))
	var ps []tiergame.Position
	for len(ps) < count {
		p := tiergame.Position(rng.Uint64N(g.TierSize(tier)))
		if v, _ := g.Moves(tier, p, nil); v == tiergame.Undecided {
			ps = append(ps, p)
		}
	}
	return ps
}

// BenchmarkMoves measures Moves on random non-primitive positions of the
// middle tier x4o4 of 4x4.
func BenchmarkMoves(b *testing.B) {
	g := mustNew(b, 4)
	tier := tierID(4, 4)
	ps := randomPositions(g, tier, 1<<14)
	children := make([]tiergame.Child, 0, 64)
	moves := 0
	for i := 0; b.Loop(); i++ {
		_, children = g.Moves(tier, ps[i%len(ps)], children[:0])
		moves += len(children)
	}
	b.ReportMetric(float64(moves)/float64(b.N), "moves/op")
}

// BenchmarkParents measures Parents on random positions of x4o4 of 4x4,
// for the tier itself and for x3o4 or x4o3 (whichever holds parents).
func BenchmarkParents(b *testing.B) {
	g := mustNew(b, 4)
	tier := tierID(4, 4)
	ps := randomPositions(g, tier, 1<<14)
	parents := make([]tiergame.Position, 0, 64)
	found := 0
	for i := 0; b.Loop(); i++ {
		p := ps[i%len(ps)]
		pt := tier
		if i&1 != 0 {
			pt = tierID(3, 4) // the parent tier where X moved
			if p&1 == 0 {
				pt = tierID(4, 3) // O moved
			}
		}
		parents = g.Parents(tier, p, pt, parents[:0])
		found += len(parents)
	}
	b.ReportMetric(float64(found)/float64(b.N), "parents/op")
}
