package solver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games/xiangqi"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// A naive xiangqi endgame solver for the tests: every legal position of an
// endgame and of the endgames its captures lead to, found by putting the
// pieces on the board every way they can stand (not through the game's
// hashes), kept by FEN in a map, with moves from the rules package, and
// solved by the reference retrograde solver of oracle_test.go. It shares
// the move generator with the game (perft and egf's reference model check
// that) and nothing else.

// xqPiece is a piece to place.
type xqPiece struct {
	side xq.Side
	kind xq.Kind
}

// xqPieces lists the pieces of an endgame such as "KRvKA".
func xqPieces(t testing.TB, material string) []xqPiece {
	red, black, ok := strings.Cut(material, "v")
	if !ok {
		t.Fatalf("material %q", material)
	}
	var out []xqPiece
	for side, s := range [2]string{red, black} {
		for i := 0; i < len(s); i++ {
			k, ok := xq.KindOf(s[i])
			if !ok {
				t.Fatalf("material %q", material)
			}
			out = append(out, xqPiece{xq.Side(side), k})
		}
	}
	return out
}

// xqPlacements calls f with every board that puts pieces on points where
// they can stand, one piece a point (alike pieces in every order: the
// caller keeps each position once).
func xqPlacements(pieces []xqPiece, f func(b *xq.Board)) {
	var b xq.Board
	var place func(i int)
	place = func(i int) {
		if i == len(pieces) {
			f(&b)
			return
		}
		p := xq.MakePiece(pieces[i].side, pieces[i].kind)
		for _, s := range xq.Places(pieces[i].side, pieces[i].kind) {
			if b.At(s) == xq.NoPiece {
				b.Put(s, p)
				place(i + 1)
				b.Remove(s)
			}
		}
	}
	place(0)
}

// xqEndgames returns material and every material its captures lead to.
func xqEndgames(material string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(m string) {
		if seen[m] {
			return
		}
		seen[m] = true
		for i := 0; i < len(m); i++ {
			if c := m[i]; c != 'K' && c != 'v' {
				walk(m[:i] + m[i+1:])
			}
		}
	}
	walk(material)
	var out []string
	for m := range seen {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// xqTier is the tier of the position's material, by the game's numbering.
func xqTier(t testing.TB, b *xq.Board) tiergame.Tier {
	var name [2]strings.Builder
	for s := xq.Square(0); s < xq.NumSquares; s++ {
		if p := b.At(s); p != xq.NoPiece {
			name[p.Side()].WriteByte(p.Kind().Letter())
		}
	}
	m, err := xiangqi.ParseMaterial(name[0].String() + "v" + name[1].String())
	if err != nil {
		t.Fatal(err)
	}
	return m.Tier()
}

// xqReference solves every legal position of material and its
// sub-endgames naively.
func xqReference(t testing.TB, material string) []refPos {
	var fens []string
	index := map[string]int32{}
	var boards []xq.Board
	var sides []xq.Side
	for _, m := range xqEndgames(material) {
		xqPlacements(xqPieces(t, m), func(b *xq.Board) {
			for side := xq.Red; side <= xq.Black; side++ {
				if b.Check(side) != nil {
					continue
				}
				fen := b.FEN(side)
				if _, dup := index[fen]; dup {
					continue
				}
				index[fen] = int32(len(fens))
				fens = append(fens, fen)
				boards = append(boards, *b)
				sides = append(sides, side)
			}
		})
	}
	g := &refGraph{prim: make([]tiergame.Value, len(fens)), kids: make([][]int32, len(fens))}
	for i := range fens {
		b, side := boards[i], sides[i]
		moves := b.LegalMoves(side, nil)
		if len(moves) == 0 {
			g.prim[i] = tiergame.Lose // mate and stalemate lose
			continue
		}
		for _, mv := range moves {
			q := b.Play(mv)
			j, ok := index[b.FEN(side.Other())]
			if !ok {
				t.Fatalf("%s: move %s leads to %s, which is no legal position", fens[i], mv, b.FEN(side.Other()))
			}
			g.kids[i] = append(g.kids[i], j)
			b.Unplay(mv, q)
		}
	}
	recs := g.solve()
	out := make([]refPos, len(fens))
	for i := range fens {
		out[i] = refPos{text: fens[i], tier: xqTier(t, &boards[i]), rec: recs[i]}
	}
	return out
}

// TestXiangqiAgainstReference solves endgames of up to four pieces with
// the tier solver and checks every position of them against the naive
// solver, and the symmetric run against the full one.
func TestXiangqiAgainstReference(t *testing.T) {
	endgames := []string{"KRvK", "KNvK", "KCvK", "KPvK", "KRvKA", "KNvKB", "KPvKA", "KCvKA"}
	if longTests() {
		endgames = append(endgames, "KPvKP", "KCvKN", "KRvKR", "KNvKR", "KCvKC")
	} else if race.Enabled {
		endgames = []string{"KRvK", "KCvK", "KPvKA"}
	}
	for _, m := range endgames {
		t.Run(m, func(t *testing.T) {
			ref := xqReference(t, m)
			r := solveRun(t, "xiangqi", "material="+m, Config{Workers: 2, Ranges: 5})
			defer r.Close()
			checkAgainstRef(t, r, slices.Values(ref))
		})
	}
}

// xqStats counts a tier's values by side to move.
type xqStats struct {
	win, lose, draw [2]int
	longest         [2]int // the largest remoteness
}

func (s xqStats) String() string {
	return fmt.Sprintf("red to move %d/%d/%d, black %d/%d/%d (win/lose/draw), longest %d and %d plies",
		s.win[0], s.lose[0], s.draw[0], s.win[1], s.lose[1], s.draw[1], s.longest[0], s.longest[1])
}

// xqTierStats reads every position of the run's tier of material.
func xqTierStats(t testing.TB, r *Run, material string) xqStats {
	t.Helper()
	m, err := xiangqi.ParseMaterial(material)
	if err != nil {
		t.Fatal(err)
	}
	o, err := oracle.Open(r.Dir, r.Game)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	var s xqStats
	g := r.Game.(*xiangqi.Game)
	tier := m.Tier()
	for h := uint64(0); h < g.TierSize(tier); h++ {
		p := tiergame.Position(h)
		if !g.Legal(tier, p) {
			continue
		}
		rec, err := o.Lookup(tier, p)
		if err != nil {
			t.Fatal(err)
		}
		side := h & 1 // the hash's low bit is the side to move
		switch rec.Value() {
		case tiergame.Win:
			s.win[side]++
		case tiergame.Lose:
			s.lose[side]++
		case tiergame.Draw:
			s.draw[side]++
		}
		s.longest[side] = max(s.longest[side], rec.Remoteness())
	}
	return s
}

// TestXiangqiFacts checks what any correct table shows.
func TestXiangqiFacts(t *testing.T) {
	solve := func(m string) *Run {
		r := solveRun(t, "xiangqi", "material="+m, Config{Workers: 2})
		t.Cleanup(func() { r.Close() })
		return r
	}
	krk := xqTierStats(t, solve("KRvK"), "KRvK")
	t.Logf("KRvK: %v", krk)
	if krk.lose[0] != 0 || krk.draw[0] != 0 || krk.longest[0] > 3 {
		t.Errorf("K+R v K with red to move: %v; want won everywhere in at most 3 plies", krk)
	}
	kck := xqTierStats(t, solve("KCvK"), "KCvK")
	t.Logf("KCvK: %v", kck)
	if kck.win != [2]int{} || kck.lose != [2]int{} {
		t.Errorf("K+C v K: %v; want drawn everywhere", kck)
	}
	knk := xqTierStats(t, solve("KNvK"), "KNvK")
	t.Logf("KNvK: %v", knk)
	if knk.lose[0] != 0 || knk.draw[0] != 0 || knk.longest[0] > 13 {
		t.Errorf("K+N v K with red to move: %v; want won everywhere in at most 13 plies", knk)
	}
	// K+P v K: a soldier on black's back rank cannot win.
	r := solve("KPvK")
	o, err := oracle.Open(r.Dir, r.Game)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	g := r.Game
	checked := 0
	for _, fen := range []string{"3k5/9/9/9/9/9/9/9/9/4K4", "P3k4/9/9/9/9/9/9/9/9/4K4", "4kP3/9/9/9/9/9/9/9/9/3K5", "3k4P/9/9/9/9/9/9/9/9/5K3"} {
		for _, side := range []string{" w", " b"} {
			tier, p, err := g.Parse(fen + side)
			if err != nil {
				continue // an illegal placement (in check)
			}
			rec, err := o.Lookup(tier, p)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			if rec.Value() == tiergame.Win && side == " w" || rec.Value() == tiergame.Lose && side == " b" {
				t.Errorf("%s%s: %v; a soldier on the back rank cannot win", fen, side, rec)
			}
		}
	}
	if checked < 4 {
		t.Errorf("only %d K+P v K positions checked", checked)
	}
}

// felicityFacts are the counts of the Felicity EGTB generator (github
// nguyenpham/FelicityEgtb at bcdd225, MIT), which has this game's rules
// (distance to mate in plies, stalemate loses, no repetition rules), read
// back from the tables it wrote: per side to move, over the whole board;
// the longest win of red to move and loss of black to move; and the
// counts of mirror pairs (a position and its mirror image once), which
// Felicity's own index holds. Red is the side with the attackers.
var felicityFacts = []struct {
	material                    string
	redWin, redDraw, redLoss    int
	blkWin, blkDraw, blkLoss    int
	redLongest, blkLongest      int // -1: none
	pairWin, pairDraw, pairLoss int
}{
	{"KRvK", 3834, 0, 0, 0, 108, 4806, 3, 4, 1917, 54, 2430},
	{"KNvK", 4590, 0, 0, 0, 108, 4806, 13, 14, 2322, 54, 2430},
	{"KCvK", 0, 4914, 0, 0, 4914, 0, -1, -1, 0, 4968, 0},
	{"KPvK", 2394, 432, 0, 0, 546, 2469, 19, 20, 1215, 489, 1257},
	{"KRvKA", 18507, 0, 0, 0, 732, 22074, 9, 10, 9264, 366, 11055},
	{"KRvKB", 26808, 0, 0, 0, 1530, 32436, 11, 12, 13422, 768, 16236},
	{"KNvKA", 21366, 60, 0, 0, 816, 21990, 37, 38, 10701, 438, 11013},
	{"KNvKB", 7668, 24132, 0, 0, 31904, 2062, 31, 30, 3840, 28054, 1031},
	{"KCvKA", 0, 22314, 0, 0, 22806, 0, -1, -1, 0, 22587, 0},
	{"KCvKB", 0, 33732, 0, 0, 33966, 0, -1, -1, 0, 33876, 0},
	{"KPvKA", 1104, 11988, 0, 0, 13536, 363, 13, 12, 555, 12783, 183},
	{"KPvKB", 684, 18717, 0, 0, 20670, 12, 13, 6, 345, 19719, 6},
	// Five pieces: with TIERSOLVE_LONG=1.
	{"KRRvK", 134190, 0, 0, 0, 0, 220383, 3, 4, 67095, 0, 110310},
	{"KRNvK", 325665, 0, 0, 0, 0, 440766, 5, 14, 162927, 0, 220620},
	{"KRCvK", 348021, 0, 0, 0, 10026, 430740, 5, 6, 174105, 5046, 215574},
	{"KRPvK", 199899, 0, 0, 0, 864, 269577, 5, 20, 100014, 432, 134970},
	{"KCCvK", 217662, 66, 0, 0, 9996, 210387, 13, 14, 108879, 5064, 105279},
	{"KCNvK", 409311, 0, 0, 0, 10026, 430740, 13, 14, 204822, 5046, 215574},
	{"KCPvK", 213654, 38679, 0, 0, 49299, 221142, 19, 20, 106914, 44046, 110712},
	{"KNNvK", 192465, 0, 0, 0, 0, 220383, 13, 14, 96351, 0, 110310},
	{"KNPvK", 237402, 0, 0, 0, 864, 269577, 13, 20, 118851, 432, 134970},
	{"KPPvK", 70803, 1566, 0, 0, 2484, 79884, 19, 20, 35445, 2025, 40008},
	{"KRvKAA", 35166, 0, 0, 0, 1302, 40368, 19, 20, 17583, 654, 20235},
	{"KRvKAB", 128664, 0, 0, 0, 8700, 148410, 15, 16, 64341, 4350, 74214},
	{"KRvKBB", 80328, 0, 0, 0, 5640, 94962, 23, 24, 40164, 2826, 47556},
	{"KNvKAA", 2859, 36501, 0, 0, 41421, 249, 43, 42, 1434, 39060, 129},
	{"KNvKAB", 13428, 134514, 0, 0, 156138, 972, 43, 42, 6714, 145344, 486},
	{"KNvKBB", 444, 93972, 0, 0, 100602, 0, 29, -1, 222, 97449, 0},
	{"KCvKAB", 0, 152988, 0, 0, 157110, 0, -1, -1, 0, 155067, 0},
}

// TestXiangqiAgainstFelicity compares every endgame of felicityFacts
// (the four-piece ones in short runs) with a full run, counted by side to
// move, and with a symmetric run, whose canonical positions are the
// mirror pairs.
func TestXiangqiAgainstFelicity(t *testing.T) {
	for i, f := range felicityFacts {
		if f.material == "KRRvK" && !longTests() {
			break
		}
		if race.Enabled && i >= 4 {
			break
		}
		t.Run(f.material, func(t *testing.T) {
			r := solveRun(t, "xiangqi", "material="+f.material, Config{Workers: 2})
			defer r.Close()
			s := xqTierStats(t, r, f.material)
			want := xqStats{win: [2]int{f.redWin, f.blkWin}, lose: [2]int{f.redLoss, f.blkLoss}, draw: [2]int{f.redDraw, f.blkDraw}}
			want.longest = s.longest
			if f.redLongest >= 0 {
				want.longest[0] = f.redLongest
			}
			if f.blkLongest >= 0 {
				want.longest[1] = f.blkLongest
			}
			if s != want || f.redLongest < 0 && s.win[0] > 0 || f.blkLongest < 0 && s.lose[1] > 0 {
				t.Errorf("ours: %v\nFelicity: %v", s, want)
			}
			sym := solveRun(t, "xiangqi", "material="+f.material, Config{Workers: 2, Symmetry: true})
			defer sym.Close()
			m, _ := xiangqi.ParseMaterial(f.material)
			rec := sym.Manifest.Tier(uint64(m.Tier()))
			if got := [3]uint64{rec.Win, rec.Draw, rec.Lose}; got != [3]uint64{uint64(f.pairWin), uint64(f.pairDraw), uint64(f.pairLoss)} {
				t.Errorf("symmetric run: win/draw/lose %v, Felicity's mirror pairs %d/%d/%d", got, f.pairWin, f.pairDraw, f.pairLoss)
			}
		})
	}
}
