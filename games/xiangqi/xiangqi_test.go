package xiangqi

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

func newGame(t testing.TB, material string) *Game {
	t.Helper()
	opts := tiergame.Options{}
	if material != "" {
		opts["material"] = material
	}
	g, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return g.(*Game)
}

func TestParseMaterial(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"KRvK", "KRvK"},
		{"KCAvK", "KCAvK"},
		{"KACvK", "KCAvK"},
		{"kacvk", "KCAvK"},
		{"KHEvKE", "KNBvKB"},
		{"KRNvKAABB", "KRNvKAABB"},
		{"BBAAKvKPPPPP", "KAABBvKPPPPP"},
	} {
		m, err := ParseMaterial(c.in)
		if err != nil || m.String() != c.want {
			t.Errorf("ParseMaterial(%q) = %v, %v; want %s", c.in, m, err, c.want)
			continue
		}
		back, ok := MaterialOf(m.Tier())
		if !ok || back != m {
			t.Errorf("%s: tier %d gives back %v", c.in, m.Tier(), back)
		}
	}
	for _, c := range []struct{ in, why string }{
		{"KRK", "want red's pieces, v"},
		{"KXvK", "unknown piece"},
		{"RvK", "red has no general"},
		{"KRvR", "black has no general"},
		{"KKvK", "2 kings"},
		{"KAAAvK", "3 advisors"},
		{"KPPPPPPvK", "6 soldiers"},
	} {
		_, err := ParseMaterial(c.in)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseMaterial(%q): %v, want an error saying %q", c.in, err, c.why)
		}
	}
	_, err := New(tiergame.Options{"material": "KAAAvK"})
	if err == nil || !strings.Contains(err.Error(), "option material=KAAAvK") {
		t.Errorf("New with 3 advisors: %v, want an error naming the option", err)
	}
	if _, err := New(tiergame.Options{"pieces": "3"}); err == nil {
		t.Error("an unknown option was accepted")
	}
}

func TestTiers(t *testing.T) {
	g := newGame(t, "KRNvKAABB")
	start, _ := g.Start()
	if g.TierName(start) != "KRNvKAABB" || g.Option() != "material=KRNvKAABB" {
		t.Fatalf("start tier %s, option %s", g.TierName(start), g.Option())
	}
	// Both sides to move, red's general, black's general, advisors and
	// elephants on distinct points, then the horse and the chariot on the
	// 84 and 83 points left.
	home := 0
	ks, as, bs := xq.Places(xq.Black, xq.King), xq.Places(xq.Black, xq.Advisor), xq.Places(xq.Black, xq.Elephant)
	for _, k := range ks {
		for i, a1 := range as {
			for _, a2 := range as[i+1:] {
				for j, b1 := range bs {
					for _, b2 := range bs[j+1:] {
						if k != a1 && k != a2 && k != b1 && k != b2 {
							home++
						}
					}
				}
			}
		}
	}
	if got, want := g.TierSize(start), uint64(2*9*home*84*83); got != want {
		t.Errorf("hash space %d, want %d", got, want)
	}
	var names []string
	for _, c := range g.ChildTiers(start) {
		names = append(names, g.TierName(c))
	}
	slices.Sort(names)
	if want := []string{"KNvKAABB", "KRNvKAAB", "KRNvKAABB", "KRNvKABB", "KRvKAABB"}; !slices.Equal(names, want) {
		t.Errorf("child tiers %v, want %v", names, want)
	}
	if g.TierSize(tiergame.Tier(1)) != 0 || g.ChildTiers(tiergame.Tier(1<<30)) != nil {
		t.Error("a tier outside the endgame has positions")
	}
	all := newGame(t, "")
	if err := all.NeedsSeeds(); err == nil || g.NeedsSeeds() != nil {
		t.Error("NeedsSeeds: want an error for every endgame only")
	}
	if st, _ := all.Start(); all.TierSize(st) != 0 {
		t.Errorf("every endgame: the start tier %s has %d positions, want none", all.TierName(st), all.TierSize(st))
	}
	if all.Option() != "maxpieces=6" {
		t.Errorf("every endgame: option %q", all.Option())
	}
	all16, err := New(tiergame.Options{"maxpieces": "16"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m         string
		in6, in16 bool
	}{{"KRvKAB", true, true}, {"KRNvKAABB", false, true}, {"KRRNNCCvKAABB", false, true}, {"KRRNNCCPPvKAABBPP", false, false}} {
		mat, _ := ParseMaterial(c.m)
		if in := all.TierSize(mat.Tier()) > 0; in != c.in6 {
			t.Errorf("every endgame of 6 pieces holds %s: %v", c.m, in)
		}
		if in := all16.TierSize(mat.Tier()) > 0; in != c.in16 {
			t.Errorf("every endgame of 16 pieces holds %s: %v", c.m, in)
		}
	}
	if _, _, err := all.Parse("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"); err == nil || !strings.Contains(err.Error(), "more than 6 pieces") {
		t.Errorf("every endgame of 6 pieces parses the opening: %v", err)
	}
	if _, err := New(tiergame.Options{"material": "KRvK", "maxpieces": "6"}); err == nil {
		t.Error("material and maxpieces together were accepted")
	}
}

// forEachHash calls f with every hash of tier t when it is small, else with
// a random sample.
func forEachHash(g *Game, t tiergame.Tier, sample int, f func(h uint64)) {
	n := g.TierSize(t)
	if n <= uint64(sample) {
		for h := uint64(0); h < n; h++ {
			f(h)
		}
		return
	}
	r := rand.New(rand.NewPCG(uint64(t), 7))
	for range sample {
		f(r.Uint64N(n))
	}
}

// TestHashes checks, on every tier of a few endgames, that the hash of a
// placement is its own, that FEN round trips, and that LegalWords,
// Legal and Check agree.
func TestHashes(t *testing.T) {
	for _, mat := range []string{"KRvK", "KPPvKAB", "KCNvKAABB", "KRNvKAABB", "KPPPvKPP"} {
		g := newGame(t, mat)
		start, _ := g.Start()
		sample := 20000
		if race.Enabled {
			sample = 1000
		}
		for _, tier := range g.ChildTiers(start) {
			l := g.layout(tier)
			forEachHash(g, tier, sample, func(h uint64) {
				var st state
				if !l.load(h, &st) {
					return
				}
				if got := l.encode(&st.b, st.pl.side); got != h {
					t.Fatalf("%s: hash %d encodes back to %d (%s)", l.m, h, got, st.b.FEN(st.pl.side))
				}
				legal := g.Legal(tier, tiergame.Position(h))
				if check := st.b.Check(st.pl.side); (check == nil) != legal {
					t.Fatalf("%s: %s: Legal %v, Check %v", l.m, st.b.FEN(st.pl.side), legal, check)
				}
				if !legal {
					return
				}
				fen := g.Format(tier, tiergame.Position(h))
				pt, pp, err := g.Parse(fen)
				if err != nil || pt != tier || pp != tiergame.Position(h) {
					t.Fatalf("Parse(%q) = %d, %d, %v; want %d, %d", fen, pt, pp, err, tier, h)
				}
			})
			// LegalWords against Legal over a window.
			n := g.TierSize(tier)
			lo := (n / 2) &^ 63
			words := make([]uint64, 40)
			g.LegalWords(tier, tiergame.Position(lo), words)
			for i := uint64(0); i < 64*uint64(len(words)); i++ {
				want := g.Legal(tier, tiergame.Position(lo+i))
				if got := words[i/64]>>(i%64)&1 != 0; got != want {
					t.Fatalf("%s: LegalWords says %v of hash %d, Legal %v", l.m, got, lo+i, want)
				}
			}
		}
	}
}

// legalPositions lists every legal position of tier t.
func legalPositions(g *Game, t tiergame.Tier) []tiergame.Position {
	var out []tiergame.Position
	for h := uint64(0); h < g.TierSize(t); h++ {
		if g.Legal(t, tiergame.Position(h)) {
			out = append(out, tiergame.Position(h))
		}
	}
	return out
}

// TestMovesCursorsParents checks, on every legal position of small
// endgames, that cursors give Moves' children, that Parents is the exact
// inverse of the moves without capture, that MoveNames names Moves, and
// that children are legal positions of the declared tiers.
func TestMovesCursorsParents(t *testing.T) {
	endgames := []string{"KRvKA", "KNvKB", "KPvKA"}
	if race.Enabled {
		endgames = []string{"KRvK", "KPvK"}
	}
	for _, mat := range endgames {
		g := newGame(t, mat)
		tier, _ := g.Start()
		kids := g.ChildTiers(tier)
		cur := g.Cursor(tier).(tiergame.ByTierCursor)
		var edges []uint64 // child<<32 | parent: the moves inside the tier
		positions := legalPositions(g, tier)
		for _, p := range positions {
			v, moves := g.Moves(tier, p, nil)
			cv, cmoves := cur.Moves(p, nil)
			if v != cv || !slices.Equal(moves, cmoves) {
				t.Fatalf("%s: cursor moves differ", g.Format(tier, p))
			}
			names := g.MoveNames(tier, p)
			if len(names) != len(moves) {
				t.Fatalf("%s: %d names for %d moves", g.Format(tier, p), len(names), len(moves))
			}
			// Each child is the position the named move leads to, hashed
			// afresh.
			b, side, _ := xq.ParseFEN(g.Format(tier, p))
			for k, name := range names {
				m, _ := xq.ParseMove(name)
				q := b.Play(m)
				ct, cp, err := g.Parse(b.FEN(side.Other()))
				b.Unplay(m, q)
				if err != nil || ct != moves[k].Tier || cp != moves[k].Pos {
					t.Fatalf("%s: move %s leads to hash %d of %s, the position after it is %d of %s (%v)", g.Format(tier, p), name,
						moves[k].Pos, g.TierName(moves[k].Tier), cp, g.TierName(ct), err)
				}
			}
			lists := make([][]tiergame.Position, len(kids))
			for i := range lists {
				lists[i] = []tiergame.Position{}
			}
			if bv := cur.MovesByTier(p, lists); bv != v {
				t.Fatalf("%s: MovesByTier value %v, Moves %v", g.Format(tier, p), bv, v)
			}
			n := 0
			for i, l := range lists {
				for _, q := range l {
					if !slices.Contains(moves, tiergame.Child{Tier: kids[i], Pos: q}) {
						t.Fatalf("%s: MovesByTier child %s not among Moves", g.Format(tier, p), g.Format(kids[i], q))
					}
				}
				n += len(l)
			}
			if n != len(moves) {
				t.Fatalf("%s: MovesByTier gives %d children, Moves %d", g.Format(tier, p), n, len(moves))
			}
			// Without the tier's own list, a position still tells whether
			// it has moves.
			lists[slices.Index(kids, tier)] = nil
			if cur.MovesByTier(p, lists) != v {
				t.Fatalf("%s: MovesByTier without its own tier gives another value", g.Format(tier, p))
			}
			for _, c := range moves {
				if !slices.Contains(kids, c.Tier) || !g.Legal(c.Tier, c.Pos) {
					t.Fatalf("%s: child %s (tier %s) is not a legal position of a child tier", g.Format(tier, p), g.Format(c.Tier, c.Pos), g.TierName(c.Tier))
				}
				if c.Tier == tier {
					edges = append(edges, uint64(c.Pos)<<32|uint64(p))
				}
			}
		}
		if g.TierSize(tier) >= 1<<32 {
			t.Fatalf("%s: hashes do not fit the test's packing", mat)
		}
		slices.Sort(edges)
		var got []tiergame.Position
		for _, q := range positions {
			got = g.Parents(tier, q, tier, got[:0])
			slices.Sort(got)
			lo, _ := slices.BinarySearch(edges, uint64(q)<<32)
			hi := lo
			for hi < len(edges) && edges[hi]>>32 == uint64(q) {
				hi++
			}
			if len(got) != hi-lo {
				t.Fatalf("%s: %d parents, want %d", g.Format(tier, q), len(got), hi-lo)
			}
			for i, p := range got {
				if tiergame.Position(uint32(edges[lo+i])) != p {
					t.Fatalf("%s: parent %s is not a parent", g.Format(tier, q), g.Format(tier, p))
				}
			}
		}
	}
}

func TestMirror(t *testing.T) {
	for _, m := range []string{"KRNvKAB", "KPPvKAABB", "KCPvKP"} {
		t.Run(m, func(t *testing.T) { testMirror(t, m) })
	}
}

func testMirror(t *testing.T, material string) {
	g := newGame(t, material)
	tier, _ := g.Start()
	forEachHash(g, tier, 20000, func(h uint64) {
		p := tiergame.Position(h)
		if !g.Legal(tier, p) {
			if g.Canonical(tier, g.mirror(tier, p)) != g.Canonical(tier, p) {
				t.Fatalf("hash %d (no legal position): canonical %d, of its mirror %d", p, g.Canonical(tier, p), g.Canonical(tier, g.mirror(tier, p)))
			}
			return
		}
		im := g.Images(tier, p, nil)
		if len(im) != 2 || im[0] != p || g.mirror(tier, im[1]) != p {
			t.Fatalf("%s: images %v", g.Format(tier, p), im)
		}
		c := g.Canonical(tier, p)
		if c != g.Canonical(tier, im[1]) || g.Canonical(tier, c) != c {
			t.Fatalf("%s: canonical %d, of the mirror %d", g.Format(tier, p), c, g.Canonical(tier, im[1]))
		}
		b, side, _ := xq.ParseFEN(g.Format(tier, p))
		m := b.Mirror()
		if g.Format(tier, im[1]) != m.FEN(side) {
			t.Fatalf("%s: mirror %s, want %s", g.Format(tier, p), g.Format(tier, im[1]), m.FEN(side))
		}
	})
}

func BenchmarkCursorMoves(b *testing.B) {
	g := newGame(b, "KRNvKAABB")
	tier, _ := g.Start()
	kids := g.ChildTiers(tier)
	cur := g.Cursor(tier).(tiergame.ByTierCursor)
	lists := make([][]tiergame.Position, len(kids))
	for i := range lists {
		lists[i] = make([]tiergame.Position, 0, 64)
	}
	h := g.TierSize(tier) / 3
	n := 0
	for b.Loop() {
		for !g.Legal(tier, tiergame.Position(h)) {
			h++
		}
		for i := range lists {
			lists[i] = lists[i][:0]
		}
		cur.MovesByTier(tiergame.Position(h), lists)
		h++
		n++
	}
}

func BenchmarkParents(b *testing.B) {
	g := newGame(b, "KRNvKAABB")
	tier, _ := g.Start()
	r := rand.New(rand.NewPCG(1, 2))
	var ps []tiergame.Position
	for len(ps) < 1000 {
		if p := tiergame.Position(r.Uint64N(g.TierSize(tier))); g.Legal(tier, p) {
			ps = append(ps, p)
		}
	}
	var dst []tiergame.Position
	i := 0
	for b.Loop() {
		dst = g.Parents(tier, ps[i%len(ps)], tier, dst[:0])
		i++
	}
}

func BenchmarkLegalWords(b *testing.B) {
	g := newGame(b, "KRNvKAABB")
	tier, _ := g.Start()
	words := make([]uint64, 1<<10)
	lo := tiergame.Position(g.TierSize(tier)/3) &^ 63
	for b.Loop() {
		g.LegalWords(tier, lo, words)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64*len(words)), "ns/hash")
}

// TestChildHashes checks on sampled positions of endgames with several
// groups of every kind that a move's child is the position after the
// move, hashed afresh, and that the parents of a position list it among
// their children.
func TestChildHashes(t *testing.T) {
	for _, mat := range []string{"KRNvKAABB", "KRRvKNA", "KNCPvKCB", "KPPvKPPA", "KAABvKRC"} {
		g := newGame(t, mat)
		tier, _ := g.Start()
		checked := 0
		forEachHash(g, tier, 1000, func(h uint64) {
			p := tiergame.Position(h)
			if !g.Legal(tier, p) {
				return
			}
			checked++
			_, moves := g.Moves(tier, p, nil)
			b, side, _ := xq.ParseFEN(g.Format(tier, p))
			for k, name := range g.MoveNames(tier, p) {
				m, _ := xq.ParseMove(name)
				q := b.Play(m)
				ct, cp, err := g.Parse(b.FEN(side.Other()))
				b.Unplay(m, q)
				if err != nil || ct != moves[k].Tier || cp != moves[k].Pos {
					t.Fatalf("%s: move %s leads to hash %d, the position after it is %d (%v)", g.Format(tier, p), name, moves[k].Pos, cp, err)
				}
			}
			for _, q := range g.Parents(tier, p, tier, nil) {
				_, kids := g.Moves(tier, q, nil)
				if !slices.Contains(kids, tiergame.Child{Tier: tier, Pos: p}) {
					t.Fatalf("%s: parent %s does not move to it", g.Format(tier, p), g.Format(tier, q))
				}
			}
		})
		if checked < 50 {
			t.Errorf("%s: only %d legal positions sampled", mat, checked)
		}
	}
}

// TestConformance runs the project's conformance kit on small endgames
// whole and on a large one by samples.
func TestConformance(t *testing.T) {
	for _, c := range []struct {
		material string
		opts     tiergametest.Options
	}{
		{"KRvK", tiergametest.Options{MaxPositions: 20000, Samples: 50, Hashes: 20000}}, // 2,000 each with -race
		{"KPvKA", tiergametest.Options{MaxPositions: 300, Samples: 100, Hashes: 1000}},
		{"KRNvKAABB", tiergametest.Options{MaxPositions: 500, Samples: 50, Hashes: 1000}},
		{"KCPPvKNAB", tiergametest.Options{MaxPositions: 500, Samples: 50, Hashes: 1000}},
	} {
		t.Run(c.material, func(t *testing.T) {
			if race.Enabled {
				c.opts.MaxPositions, c.opts.Hashes = min(c.opts.MaxPositions, 2000), min(c.opts.Hashes, 2000)
			}
			c.opts.New = New
			tiergametest.Check(t, newGame(t, c.material), c.opts)
		})
	}
}

// FuzzParse: whatever parses is a legal position of the variant, which
// the kit checks there.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"3k5/9/9/9/9/9/9/9/9/R3K4 w", "3k5/4a4/4b4/9/9/9/9/9/4N4/R3K4 b", "2bak4/4a4/4b4/1R7/9/6P2/9/9/4N4/4K4 b",
		"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
	} {
		f.Add(s)
	}
	g := newGame(f, "")
	f.Fuzz(func(t *testing.T, s string) {
		tier, p, err := g.Parse(s)
		if err != nil {
			return
		}
		if uint64(p) >= g.TierSize(tier) || !g.Legal(tier, p) {
			t.Fatalf("Parse(%q) = hash %d of tier %s, not a legal position", s, p, g.TierName(tier))
		}
		m, _ := MaterialOf(tier)
		tiergametest.CheckPosition(t, newGame(t, m.String()), tier, p)
	})
}

// FuzzParseMaterial: an endgame's name round trips, and so does its tier.
func FuzzParseMaterial(f *testing.F) {
	for _, s := range []string{"KRvK", "KCAvK", "KRNvKAABB", "KPPPPPvKPPPPP", "kHeVkE", "KvK", "v", "KAAAvK"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMaterial(s)
		if err != nil {
			return
		}
		m2, err := ParseMaterial(m.String())
		if err != nil || m2 != m {
			t.Fatalf("ParseMaterial(%q) = %v; its name gives %v, %v", s, m, m2, err)
		}
		if m3, ok := MaterialOf(m.Tier()); !ok || m3 != m {
			t.Fatalf("%v: tier %d gives %v", m, m.Tier(), m3)
		}
	})
}

// TestHashWaste checks that the hash space of every tier of a few
// endgame families holds at most twice its legal positions, by sampling
// (the note on the issue gives the exact counts: K+R+N v K+A+A+B+B's 36
// tiers 1.37x to 1.63x, 1.42x in all).
func TestHashWaste(t *testing.T) {
	for _, mat := range []string{"KRNvKAABB", "KCPPvKAB", "KNNPvKP", "KRCvKPPP"} {
		g := newGame(t, mat)
		start, _ := g.Start()
		seen := map[tiergame.Tier]bool{}
		var walk func(tiergame.Tier)
		walk = func(tier tiergame.Tier) {
			if seen[tier] {
				return
			}
			seen[tier] = true
			legal, n := 0, 0
			forEachHash(g, tier, 4000, func(h uint64) {
				n++
				if g.Legal(tier, tiergame.Position(h)) {
					legal++
				}
			})
			if ratio := float64(n) / float64(max(legal, 1)); ratio > 1.9 {
				t.Errorf("%s: %d of %d hashes sampled are legal positions (%.2fx)", g.TierName(tier), legal, n, ratio)
			}
			for _, c := range g.ChildTiers(tier) {
				walk(c)
			}
		}
		walk(start)
	}
}
