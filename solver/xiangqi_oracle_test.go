package solver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games/xiangqi"
	"github.com/tiersolve/tiersolve/internal/xq"
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
	} else if oracleRace {
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
	o, err := OpenOracle(r.Dir, r.Game)
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
	o, err := OpenOracle(r.Dir, r.Game)
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
