package connect4

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games/internal/comb"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// vectors is the shared test-vector folder, read in place.
const vectors = "../../../shared/testvectors/games"

func mustNew(t testing.TB, w, h int) *Game {
	t.Helper()
	g, err := NewSize(w, h)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// upTo keeps the tiers of at most n pieces.
func upTo(n int) func(tiergame.Tier) bool {
	return func(t tiergame.Tier) bool { return int(t) <= n }
}

// TestConformance checks Connect Four with the kit: every position of
// small boards (4x4 but under -short and the race detector) and random
// ones of larger boards.
func TestConformance(t *testing.T) {
	whole := tiergametest.Options{MaxPositions: 1 << 20, Hashes: 1 << 20}
	some := tiergametest.Options{MaxPositions: race.Samples(3000, 1000), Samples: race.Samples(1000, 300), Hashes: race.Samples(1000, 300)}
	mid := whole // 4x4: 161,029 reachable positions
	if testing.Short() || race.Enabled {
		mid = some
	}
	for _, tc := range []struct {
		w, h int
		opts tiergametest.Options
	}{
		{1, 6, whole}, {7, 1, whole}, {3, 3, whole}, {4, 3, whole}, {3, 4, whole},
		{4, 4, mid},
		{5, 4, some}, {6, 5, some}, {7, 6, some},
	} {
		tc.opts.New = New
		tiergametest.Check(t, mustNew(t, tc.w, tc.h), tc.opts)
	}
}

// tiers yields every tier of a board of each of sizes (width, height),
// with the board's game.
func tiers(t testing.TB, sizes [][2]int) iter.Seq2[*Game, int] {
	return func(yield func(*Game, int) bool) {
		for _, size := range sizes {
			g := mustNew(t, size[0], size[1])
			for n := 0; n <= g.cells; n++ {
				if !yield(g, n) {
					return
				}
			}
		}
	}
}

// checkReach checks how many positions of tiers 0 to len(want)-1 of g
// are reachable against want.
func checkReach(t *testing.T, g *Game, want []uint64) {
	t.Helper()
	got := tiergametest.Reach(t, g, upTo(len(want)-1), nil)
	for n, w := range want {
		if got[tiergame.Tier(n)] != w {
			t.Errorf("tier %d: %d positions, want %d", n, got[tiergame.Tier(n)], w)
		}
	}
}

// readVector returns the shared test vector file name, and skips the test
// where the shared vectors are not present.
func readVector(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectors, name))
	if err != nil {
		if _, serr := os.Stat(vectors); os.IsNotExist(serr) {
			t.Skip("shared test vectors not present")
		}
		t.Fatal(err)
	}
	return data
}

func TestReachable7x6(t *testing.T) {
	// OEIS A212693.
	checkReach(t, mustNew(t, 7, 6), []uint64{1, 7, 49, 238, 1120, 4263, 16422, 54859})
}

func TestReachable6x5(t *testing.T) {
	data := readVector(t, "connect4_6x5_EXTERNAL_unverified.json")
	var v struct {
		Width, Height int
		Reachable     []uint64 `json:"reachable_by_pieces"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if v.Width != 6 || v.Height != 5 || len(v.Reachable) != 31 {
		t.Fatalf("unexpected vector file: %dx%d, %d tiers", v.Width, v.Height, len(v.Reachable))
	}
	checkReach(t, mustNew(t, 6, 5), v.Reachable[:race.Samples(11, 8)+1])
}

func TestReachable5x5(t *testing.T) {
	r := csv.NewReader(bytes.NewReader(readVector(t, "markus7800_results_solve_w5_h5.csv")))
	r.TrimLeadingSpace = true
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint64, race.Samples(12, 9)+1) // by ply: win + draw + loss
	for _, rec := range recs[1:] {
		var n [4]uint64
		for i, s := range []string{rec[2], rec[3], rec[4], rec[5]} {
			if n[i], err = strconv.ParseUint(s, 10, 64); err != nil {
				t.Fatalf("record %q: %v", rec, err)
			}
		}
		if n[0] < uint64(len(want)) {
			want[n[0]] = n[1] + n[2] + n[3]
		}
	}
	checkReach(t, mustNew(t, 5, 5), want)
}

// refReach counts the positions reachable on a w x h board by pieces with a
// plainly written model: a grid of bytes, a map of visited boards.
func refReach(w, h int) []uint64 {
	type board [MaxWidth][MaxHeight]byte
	wins := func(b *board, who byte) bool {
		for c := 0; c < w; c++ {
			for r := 0; r < h; r++ {
				for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
					k := 0
					for ; k < 4; k++ {
						cc, rr := c+k*d[0], r+k*d[1]
						if cc < 0 || cc >= w || rr < 0 || rr >= h || b[cc][rr] != who {
							break
						}
					}
					if k == 4 {
						return true
					}
				}
			}
		}
		return false
	}
	counts := make([]uint64, w*h+1)
	level := map[board]bool{{}: true}
	for n := 0; len(level) > 0; n++ {
		counts[n] = uint64(len(level))
		next := map[board]bool{}
		mover, last := byte('x'), byte('o')
		if n%2 == 1 {
			mover, last = last, mover
		}
		for b := range level {
			if wins(&b, last) {
				continue
			}
			for c := 0; c < w; c++ {
				for r := 0; r < h; r++ {
					if b[c][r] == 0 {
						nb := b
						nb[c][r] = mover
						next[nb] = true
						break
					}
				}
			}
		}
		level = next
	}
	return counts
}

// TestReachableSmall compares every board size of at most 12 cells, and
// 4x4, with the reference model over all tiers.
func TestReachableSmall(t *testing.T) {
	for w := 1; w <= MaxWidth; w++ {
		for h := 1; h <= MaxHeight; h++ {
			if w*h > 12 && (w != 4 || h != 4) {
				continue
			}
			g := mustNew(t, w, h)
			want := refReach(w, h)
			var values [5]int
			got := tiergametest.Reach(t, g, upTo(w*h), func(_ tiergame.Tier, _ tiergame.Position, v tiergame.Value, _ []tiergame.Child) {
				values[v]++
			})
			for n := range want {
				if got[tiergame.Tier(n)] != want[n] {
					t.Errorf("%dx%d tier %d: %d positions, want %d", w, h, n, got[tiergame.Tier(n)], want[n])
				}
			}
			if w < 4 && h < 4 && values[tiergame.Lose] != 0 {
				t.Errorf("%dx%d: %d lost positions on a board without room for four", w, h, values[tiergame.Lose])
			}
		}
	}
}

// TestMovesAgainstHash checks the incremental child hashes of Moves against
// hashing each child board from scratch, for random hashes of all tiers
// (reachable or not) on several board sizes.
func TestMovesAgainstHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for g, n := range tiers(t, [][2]int{{7, 6}, {6, 5}, {5, 4}, {4, 4}, {1, 6}, {7, 1}, {3, 2}}) {
		tier := tiergame.Tier(n)
		for range 200 {
			p := tiergame.Position(rng.Uint64N(g.TierSize(tier)))
			x, o := g.unhash(n, p)
			if ht, hp := g.hash(x, o); ht != tier || hp != p {
				t.Fatalf("%dx%d: hash(unhash(%d, %d)) = (%d, %d)", g.w, g.h, tier, p, ht, hp)
			}
			v, children := g.Moves(tier, p, nil)
			want := refMoves(g, x, o)
			if v == tiergame.Undecided && !slices.Equal(children, want) {
				t.Fatalf("%dx%d %s: children %v, want %v", g.w, g.h, g.Format(tier, p), children, want)
			}
		}
	}
}

// refMoves hashes the child boards of x, o from scratch.
func refMoves(g *Game, x, o uint64) []tiergame.Child {
	var out []tiergame.Child
	xToMove := (x|o) == 0 || popcount(x) == popcount(o)
	for c := 0; c < g.w; c++ {
		hc := g.colHeight(x|o, c)
		if hc == g.h {
			continue
		}
		bit := uint64(1) << (uint(c)*g.stride + uint(hc))
		cx, co := x, o
		if xToMove {
			cx |= bit
		} else {
			co |= bit
		}
		ct, cp := g.hash(cx, co)
		out = append(out, tiergame.Child{Tier: ct, Pos: cp})
	}
	return out
}

func popcount(b uint64) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// TestDecode checks decode against the definition of its outputs for every
// rank of up to 16 places, for both movers.
func TestDecode(t *testing.T) {
	for n := 0; n <= 16; n++ {
		k := (n + 1) / 2
		for r := uint64(0); r < comb.Binom(n, k); r++ {
			want := comb.Unrank(r, n, k)
			ps := places(want)
			for delta := 0; delta < 2; delta++ {
				var acc [32]uint64
				if got := decode(n, k, delta, r, &acc); got != want {
					t.Fatalf("decode(%d, %d, %d) = %b, want %b", n, k, r, got, want)
				}
				for a := 0; a <= k; a++ {
					if v := childTerms(ps, a, delta); acc[a] != v {
						t.Fatalf("decode(%d, %d, %d), delta %d: acc[%d] = %d, want %d", n, k, r, delta, a, acc[a], v)
					}
				}
			}
		}
	}
}

// TestWalk checks the walker and its tables against the definitions of
// their outputs for every rank of up to 16 places, both movers and every
// insertion index: the X set is comb.Unrank's, and each child's X rank is
// comb.Rank of the set with the piece inserted. It visits the ranks in
// order through update, as a cursor does, and each one afresh.
func TestWalk(t *testing.T) {
	for n := 0; n <= 16; n++ {
		k := (n + 1) / 2
		seq := &walker{high: make([]walk, max(n-lowBits, 0))}
		seq.init(n)
		for r := uint64(0); r < comb.Binom(n, k); r++ {
			var fresh walker
			fresh.init(n)
			fresh.start(r)
			if r == 0 {
				seq.start(r)
			} else {
				seq.update(r)
			}
			want := comb.Unrank(r, n, k)
			for _, w := range []*walker{&fresh, seq} {
				i := w.row()
				if got := w.lo.x | uint64(lowPattern[i]); got != want {
					t.Fatalf("n %d rank %d: X set %b, want %b", n, r, got, want)
				}
				for e := 0; e <= n; e++ {
					got := r + w.highRank(uint(e))
					if e < lowBits {
						got = w.lowRank(i, uint(e))
					}
					below := want & (1<<e - 1)
					child := below | (want^below)<<1 | uint64(w.delta)<<e
					if rank := comb.Rank(child); got != rank {
						t.Fatalf("n %d rank %d delta %d: child rank at %d = %d, want %d", n, r, w.delta, e, got, rank)
					}
				}
			}
		}
	}
}

// TestHashBijectionSmall checks every hash of every tier of small boards.
func TestHashBijectionSmall(t *testing.T) {
	for g, n := range tiers(t, [][2]int{{3, 3}, {4, 3}, {2, 6}}) {
		for p := tiergame.Position(0); uint64(p) < g.TierSize(tiergame.Tier(n)); p++ {
			x, o := g.unhash(n, p)
			if popcount(x) != (n+1)/2 || popcount(o) != n/2 || x&o != 0 {
				t.Fatalf("%dx%d tier %d hash %d: bad board", g.w, g.h, n, p)
			}
			if ht, hp := g.hash(x, o); int(ht) != n || hp != p {
				t.Fatalf("%dx%d: hash(unhash(%d, %d)) = (%d, %d)", g.w, g.h, n, p, ht, hp)
			}
		}
	}
}

func TestTierSize7x6(t *testing.T) {
	g := mustNew(t, 7, 6)
	var total uint64
	for n := 0; n <= 42; n++ {
		s := g.TierSize(tiergame.Tier(n))
		if total+s < total {
			t.Fatal("tier sizes overflow")
		}
		total += s
	}
	if g.TierSize(43) != 0 || g.ChildTiers(42) != nil {
		t.Error("tier 43 exists")
	}
	if got := g.TierSize(21); got != 60691*352716 {
		t.Errorf("TierSize(21) = %d", got)
	}
}

func TestPrimitive(t *testing.T) {
	g := mustNew(t, 7, 6)
	tests := []struct {
		s    string
		want tiergame.Value
	}{
		{"moves:", tiergame.Undecided},
		{"moves:4453", tiergame.Undecided},
		{"moves:1212121", tiergame.Lose},  // x vertical
		{"moves:1122334", tiergame.Lose},  // x horizontal
		{"moves:12121232", tiergame.Lose}, // o vertical
		{"moves:112233", tiergame.Undecided},
		{"......./......./...x.../..xo.../.xoo.../xoox.x.", tiergame.Lose}, // x diagonal
		{"......./......./...x.../...ox../...oox./.x.xoox", tiergame.Lose}, // x anti-diagonal
		{"......./......./......./..xo.../.xoo.../xoox.x.", tiergame.Undecided},
	}
	for _, tc := range tests {
		tier, p, err := g.Parse(tc.s)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.s, err)
			continue
		}
		if v, _ := g.Moves(tier, p, nil); v != tc.want {
			t.Errorf("%s (%s): value %v, want %v", tc.s, g.Format(tier, p), v, tc.want)
		}
	}
}

func TestTie(t *testing.T) {
	g := mustNew(t, 2, 2)
	tier, p, err := g.Parse("ox/xo")
	if err != nil {
		t.Fatal(err)
	}
	if v, c := g.Moves(tier, p, nil); v != tiergame.Tie || len(c) != 0 {
		t.Errorf("full 2x2 board: %v with %d moves", v, len(c))
	}
}

func TestFormatParse(t *testing.T) {
	g := mustNew(t, 7, 6)
	tier, p, err := g.Parse("moves:4453")
	if err != nil {
		t.Fatal(err)
	}
	want := "......./......./......./......./...o.../..oxx.."
	if got := g.Format(tier, p); got != want || tier != 4 {
		t.Errorf("moves:4453 = %q in tier %d, want %q in tier 4", got, tier, want)
	}
	if names := g.MoveNames(tier, p); !slices.Equal(names, strings.Split("1 2 3 4 5 6 7", " ")) {
		t.Errorf("MoveNames = %q", names)
	}
	bt, bp, err := g.Parse(want)
	if err != nil || bt != tier || bp != p {
		t.Errorf("Parse(%q) = (%d, %d, %v), want (%d, %d)", want, bt, bp, err, tier, p)
	}
	g54 := mustNew(t, 5, 4)
	if _, _, err := g54.Parse("...../...../...../.xo.."); err != nil {
		t.Errorf("5x4: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	g := mustNew(t, 4, 4)
	tests := []struct {
		s       string
		invalid bool // wraps ErrInvalid
	}{
		{"", false},
		{"..../..../....", false},
		{"..../..../..../..../....", false},
		{"..../..../..../...", false},
		{"..../..../..../x..o.", false},
		{"..../..../..../xX..", false},
		{"..../..../..../x-..", false},
		{"moves:5", false},
		{"moves:0", false},
		{"moves:1a", false},
		{"..../..../x.../....", true}, // floating piece
		{"..../..../..../o...", true}, // o first
		{"..../..../..../xx..", true}, // two x
		{"x.../x.../xo../xooo", true}, // x to move has four
		{"..../..../oooo/xxxx", true}, // x to move has four
		{"x.../xooo/xooo/xxxx", true}, // two x fours, no top piece in both
		{"moves:11111", true},         // column full
		{"moves:12121213", true},      // move after x won
	}
	if _, _, err := g.Parse("..../..../ooo./xxxx"); err != nil {
		t.Errorf("x won at column 4: %v", err)
	}
	for _, tc := range tests {
		_, _, err := g.Parse(tc.s)
		if err == nil {
			t.Errorf("Parse(%q) succeeded", tc.s)
			continue
		}
		if errors.Is(err, ErrInvalid) != tc.invalid {
			t.Errorf("Parse(%q) = %v; wraps ErrInvalid = %v, want %v", tc.s, err, !tc.invalid, tc.invalid)
		}
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		opts   tiergame.Options
		option string
	}{
		{tiergame.Options{}, "width=7,height=6"},
		{tiergame.Options{"width": "5", "height": "4"}, "width=5,height=4"},
		{tiergame.Options{"height": "1"}, "width=7,height=1"},
	}
	for _, tc := range tests {
		g, err := New(tc.opts)
		if err != nil {
			t.Errorf("New(%v): %v", tc.opts, err)
			continue
		}
		if g.Option() != tc.option {
			t.Errorf("New(%v).Option() = %q, want %q", tc.opts, g.Option(), tc.option)
		}
	}
	for _, bad := range []tiergame.Options{{"width": "8"}, {"height": "0"}, {"width": "x"}, {"depth": "3"}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%v) succeeded", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"moves:4453", "moves:", "moves:1212121", "......./......./......./......./...o.../..oxx..",
		"..../..../..../x..o", "x.../x.../xo../xooo", "..../..../oo../xxxx",
	} {
		f.Add(uint8(7), uint8(6), s)
		f.Add(uint8(4), uint8(4), s)
	}
	games := map[[2]int]*Game{}
	f.Fuzz(func(t *testing.T, w, h uint8, s string) {
		size := [2]int{int(w%MaxWidth) + 1, int(h%MaxHeight) + 1}
		g := games[size]
		if g == nil {
			g = mustNew(t, size[0], size[1])
			games[size] = g
		}
		tier, p, err := g.Parse(s)
		if err != nil {
			return
		}
		if uint64(p) >= g.TierSize(tier) {
			t.Fatalf("Parse(%q) = (%d, %d) outside the tier", s, tier, p)
		}
		tiergametest.CheckPosition(t, g, tier, p)
	})
}

// randomPositions returns count reachable positions of tier n, from random
// games stopped at n pieces (restarted when they end earlier).
func randomPositions(g *Game, n, count int) []tiergame.Position {
	rng := rand.New(rand.NewPCG(5, 6))
	var ps, children []tiergame.Child
	for len(ps) < count {
		tier, p := g.Start()
		var v tiergame.Value
		for int(tier) < n {
			if v, children = g.Moves(tier, p, children[:0]); v != tiergame.Undecided {
				break
			}
			c := children[rng.IntN(len(children))]
			tier, p = c.Tier, c.Pos
		}
		if int(tier) == n {
			ps = append(ps, tiergame.Child{Tier: tier, Pos: p})
		}
	}
	out := make([]tiergame.Position, len(ps))
	for i, c := range ps {
		out[i] = c.Pos
	}
	return out
}

func benchMoves(b *testing.B, w, h, n int) {
	g := mustNew(b, w, h)
	ps := randomPositions(g, n, 1<<16)
	children := make([]tiergame.Child, 0, MaxWidth)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		_, children = g.Moves(tiergame.Tier(n), ps[i%len(ps)], children[:0])
	}
}

// BenchmarkMoves measures Moves over random reachable positions of a middle
// tier: unhash, primitive test and the hashes of all children.
func BenchmarkMoves(b *testing.B) {
	b.Run("5x4/tier10", func(b *testing.B) { benchMoves(b, 5, 4, 10) })
	b.Run("6x5/tier12", func(b *testing.B) { benchMoves(b, 6, 5, 12) })
	b.Run("6x5/tier15", func(b *testing.B) { benchMoves(b, 6, 5, 15) })
	b.Run("6x5/tier22", func(b *testing.B) { benchMoves(b, 6, 5, 22) })
	b.Run("7x6/tier21", func(b *testing.B) { benchMoves(b, 7, 6, 21) })
}
