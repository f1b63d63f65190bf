package xq

import (
	"math/rand/v2"
	"testing"
)

// Published perft figures of the standard opening position.
var startPerft = []uint64{1, 44, 1920, 79666, 3290240}

func TestPerftStart(t *testing.T) {
	depth := 3
	if testing.Short() {
		depth = 2
	}
	b := Start()
	for d := 0; d <= depth; d++ {
		if got := Perft(&b, Red, d); got != startPerft[d] {
			t.Errorf("perft(%d) = %d, want %d", d, got, startPerft[d])
		}
	}
	if b != Start() {
		t.Error("perft changed the board")
	}
}

func TestFENRoundTrip(t *testing.T) {
	b := Start()
	const want = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"
	if got := b.FEN(Red); got != want {
		t.Fatalf("start FEN %q, want %q", got, want)
	}
	for _, fen := range []string{want, "3k5/9/9/9/9/9/9/9/9/R3K4 w", "3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1", "4k4/4a4/4bh3/9/9/9/9/9/4E4/3K5 r"} {
		b, side, err := ParseFEN(fen)
		if err != nil {
			t.Fatalf("%s: %v", fen, err)
		}
		b2, side2, err := ParseFEN(b.FEN(side))
		if err != nil || b2 != b || side2 != side {
			t.Errorf("%s: round trip gives %s", fen, b.FEN(side))
		}
	}
	for _, bad := range []string{"", "9/9", "3k6/9/9/9/9/9/9/9/9/R3K4 w", "3k5/9/9/9/9/9/9/9/9/R3K4X w", "3k5/9/9/9/9/9/9/9/9/R3K4 x", "3k4/9/9/9/9/9/9/9/9/R3K4 w"} {
		if _, _, err := ParseFEN(bad); err == nil {
			t.Errorf("ParseFEN(%q) accepted", bad)
		}
	}
}

func TestPlaces(t *testing.T) {
	want := map[Kind]int{King: 9, Advisor: 5, Elephant: 7, Horse: 90, Chariot: 90, Cannon: 90, Soldier: 55}
	for side := Red; side <= Black; side++ {
		for k, n := range want {
			if got := len(Places(side, k)); got != n {
				t.Errorf("%s %s: %d places, want %d", side, k, got, n)
			}
			for _, s := range Places(side, k) {
				if !CanStand(side, k, s.Mirror()) {
					t.Errorf("%s %s: %s allowed, its mirror %s not", side, k, s, s.Mirror())
				}
				// Black's places are red's turned upside down.
				if !CanStand(side.Other(), k, At(s.File(), Ranks-1-s.Rank())) {
					t.Errorf("%s %s on %s: the other side's image not allowed", side, k, s)
				}
			}
		}
	}
	b := Start()
	if err := b.Check(Red); err != nil {
		t.Fatalf("start position: %v", err)
	}
}

// TestUnmovesInvertMoves checks on random playouts that the un-moves of a
// position are exactly the moves without capture that lead to it.
func TestUnmovesInvertMoves(t *testing.T) {
	for _, fen := range []string{
		"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
		"3k5/4a4/4b4/9/2p6/4P4/9/4C4/4N4/3AK1R2 w",
		"2bak4/4a4/4b4/1R7/9/6P2/9/9/4N4/4K4 b",
	} {
		b, side, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		checkUnmoves(t, &b, side)
		var buf [128]Move
		for _, m := range b.PseudoMoves(side, buf[:0]) {
			q := b.Play(m)
			checkUnmoves(t, &b, side.Other())
			b.Unplay(m, q)
		}
	}
}

// checkUnmoves compares b's un-moves by the side that just moved (not
// toMove) with a brute force: every non-capturing pseudo-move from every
// board that could have preceded.
func checkUnmoves(t *testing.T, b *Board, toMove Side) {
	t.Helper()
	mover := toMove.Other()
	got := map[Move]bool{}
	for _, m := range b.Unmoves(mover, nil) {
		if got[m] {
			t.Errorf("%s: un-move %s twice", b.FEN(toMove), m)
		}
		got[m] = true
	}
	want := map[Move]bool{}
	b.Each(mover, func(to Square, p Piece) {
		for from := Square(0); from < NumSquares; from++ {
			if b.At(from) != NoPiece || !CanStand(mover, p.Kind(), from) {
				continue
			}
			m := Move{from, to}
			b.Unplay(m, NoPiece)
			if b.IsPseudoMove(m) {
				want[m] = true
			}
			b.Play(m)
		}
	})
	for m := range want {
		if !got[m] {
			t.Errorf("%s: un-move %s missing", b.FEN(toMove), m)
		}
	}
	for m := range got {
		if !want[m] {
			t.Errorf("%s: un-move %s is not a move", b.FEN(toMove), m)
		}
	}
}

func BenchmarkPerft4(b *testing.B) {
	for b.Loop() {
		bd := Start()
		if n := Perft(&bd, Red, 4); n != startPerft[4] {
			b.Fatalf("perft(4) = %d", n)
		}
	}
}

// FuzzParseFEN: any text either fails to parse or gives a board whose FEN
// parses back to the same board and side; moves likewise.
func FuzzParseFEN(f *testing.F) {
	for _, s := range []string{
		"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
		"3k5/9/9/9/9/9/9/9/9/R3K4 w", "4k4/4a4/4bh3/9/9/9/9/9/4E4/3K5 r", "9/9/9/9/9/9/9/9/9/9 b", "h2e2", "a0a9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if m, err := ParseMove(s); err == nil {
			if m2, err := ParseMove(m.String()); err != nil || m2 != m {
				t.Fatalf("ParseMove(%q) = %v; its name parses to %v, %v", s, m, m2, err)
			}
		}
		b, side, err := ParseFEN(s)
		if err != nil {
			return
		}
		b2, side2, err := ParseFEN(b.FEN(side))
		if err != nil || b2 != b || side2 != side {
			t.Fatalf("ParseFEN(%q): FEN %q parses to another board (%v)", s, b.FEN(side), err)
		}
		if b.Check(side) == nil {
			// A legal position: its moves and un-moves do not panic, and
			// every move can be taken back.
			for _, m := range b.LegalMoves(side, nil) {
				q := b.Play(m)
				b.Unplay(m, q)
			}
			if b != b2 {
				t.Fatalf("%s: playing and taking back moves changed the board", s)
			}
			b.Unmoves(side.Other(), nil)
			b.Uncaptures(side.Other(), nil)
		}
	})
}

// TestGuard compares the guard's answers, and Legal's (which play
// nothing), with playing the move (or taking it back) and asking
// Attacked, on positions of random playouts
// from the opening and from random endgame placements.
func TestGuard(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var boards []Board
	var sides []Side
	// Playouts from the opening.
	for game := 0; game < 60; game++ {
		b, side := Start(), Red
		for ply := 0; ply < 150; ply++ {
			boards, sides = append(boards, b), append(sides, side)
			moves := b.LegalMoves(side, nil)
			if len(moves) == 0 {
				break
			}
			b.Play(moves[r.IntN(len(moves))])
			side = side.Other()
		}
	}
	// Random endgames: two generals and a few pieces anywhere they stand.
	kinds := []Kind{Advisor, Elephant, Horse, Chariot, Cannon, Soldier}
	for len(boards) < 40000 {
		var b Board
		b.Put(Places(Red, King)[r.IntN(9)], MakePiece(Red, King))
		b.Put(Places(Black, King)[r.IntN(9)], MakePiece(Black, King))
		for range 2 + r.IntN(5) {
			side, k := Side(r.IntN(2)), kinds[r.IntN(len(kinds))]
			ps := Places(side, k)
			if s := ps[r.IntN(len(ps))]; b.At(s) == NoPiece {
				b.Put(s, MakePiece(side, k))
			}
		}
		side := Side(r.IntN(2))
		if b.Check(side) == nil {
			boards, sides = append(boards, b), append(sides, side)
		}
	}
	checked := 0
	for i := range boards {
		b, side := &boards[i], sides[i]
		g := b.Guard(side)
		for _, m := range b.PseudoMoves(side, nil) {
			q := b.Play(m)
			want := !b.Attacked(side)
			b.Unplay(m, q)
			if got := b.Legal(m); got != want {
				t.Fatalf("%s: Legal(%s) = %v, playing it says %v", b.FEN(side), m, got, want)
			}
			if got := g.Legal(b, m); got != want {
				t.Fatalf("%s: Guard.Legal(%s) = %v, playing it says %v", b.FEN(side), m, got, want)
			}
			checked++
		}
		// Un-moves of the side that just moved, guarded for side's general.
		for _, m := range b.Unmoves(side.Other(), nil) {
			b.Unplay(m, NoPiece)
			want := !b.Attacked(side)
			b.Play(m)
			if got := g.SafeBefore(b, m); got != want {
				t.Fatalf("%s: Guard.SafeBefore(%s) = %v, taking it back says %v", b.FEN(side), m, got, want)
			}
			checked++
		}
	}
	t.Logf("%d moves and un-moves of %d positions", checked, len(boards))
}
