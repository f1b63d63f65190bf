package egf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// testGame is nine moves of the main line of the Central Cannon against
// Screen Horses with the red chariot crossing the river (1. C2=5 H8+7
// 2. H2+3 R9=8 3. R1=2 H2+3 4. P7+1 P7+1 5. R2+6 C8=9 6. R2=3 C9-1
// 7. H8+7 A4+5 8. H7+6 C9=7 9. R3=4 H7+8), followed by a run of exchanges
// (cannon takes soldier, horse takes cannon, horse takes horse, chariot
// takes advisor with check, king takes chariot). Every move is checked
// against the reference rules in reference_test.go.
var testGame = []string{
	"h3-e3", "h10-g8",
	"h1-g3", "i10-h10",
	"i1-h1", "b10-c8",
	"c4-c5", "g7-g6",
	"h1-h7", "h8-i8",
	"h7-g7", "i8-i9",
	"b1-c3", "d10-e9",
	"c3-d5", "i9-g9",
	"g7-f7", "g8-h6",
	"e3-e7", "c8-e7",
	"d5-e7", "g10-e8",
	"f7-f10", "e10-f10",
}

// testFinalFEN was checked by hand, rank by rank, against the moves above.
const testFinalFEN = "r1b2k1r1/4a1c2/1c2b4/p1p1N3p/6pn1/2P6/P3P1P1P/1C4N2/9/R1BAKAB2 w - - 0 13"

// must unwraps fixture results; a failure panics, which fails the test
// with a stack trace.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func sqr(t testing.TB, name string) Square {
	t.Helper()
	s, err := ParseSquare(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// buildGame plays moves from the start, filling in the captured codes.
func buildGame(t testing.TB, moves []string) *Game {
	t.Helper()
	g := NewGame()
	b := g.Start
	for _, mv := range moves {
		from, to, _ := strings.Cut(mv, "-")
		m := Move{From: sqr(t, from), To: sqr(t, to)}
		m.Captured = b.At(m.To)
		b.Set(m.To, b.At(m.From))
		b.Set(m.From, 0)
		g.Moves = append(g.Moves, m)
	}
	return g
}

func fullGame(t testing.TB) *Game {
	g := buildGame(t, testGame)
	g.Header = Header{
		Event: "Test Cup", Site: "Beijing", Date: "2014.05.01", Round: "3",
		RedName: "Red Player", RedElo: "2400", BlackName: "Black Player", BlackElo: "2350",
		Result: BlackWins, Description: "central cannon v screen horses",
		Author: "tiersolve", TimeControl: "90+30",
	}
	g.MovesDone = len(g.Moves)
	g.Comments = []string{"opening", "", "\xba\xc3" /* GBK bytes, kept raw */, strings.Repeat("x", 300)}
	return g
}

func TestStartFEN(t *testing.T) {
	g := NewGame()
	p := must(g.PositionAfter(0))
	const want = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
	if got := p.FEN(); got != want {
		t.Fatalf("start FEN %s, want %s", got, want)
	}
	// Piece codes follow the list order, each side from its own left.
	loc := g.Start.Locations()
	for code, name := range map[int]string{1: "e1", 2: "d1", 3: "f1", 8: "a1", 9: "i1", 12: "a4", 16: "i4",
		17: "e10", 18: "f10", 24: "i10", 25: "a10", 26: "h8", 28: "i7", 32: "a7"} {
		if loc[code-1].String() != name {
			t.Errorf("piece %d on %s, want %s", code, loc[code-1], name)
		}
	}
	for i, sq := range loc {
		if g.Start.At(sq) != Piece(i+1) {
			t.Errorf("piece %d: board and list disagree", i+1)
		}
	}
}

func TestSquares(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   Square
	}{{"i10", 34}, {"i1", 43}, {"h10", 50}, {"a1", 171}, {"a10", 162}, {"e5", 34 + 16*4 + 5}} {
		sq, err := ParseSquare(tc.name)
		if err != nil || sq != tc.id || sq.String() != tc.name {
			t.Errorf("ParseSquare(%s) = %d (%s), %v; want %d", tc.name, sq, sq, err, tc.id)
		}
	}
	for _, bad := range []string{"", "e", "j1", "e0", "e11", "e01", "E1", "e+1", "e1x"} {
		if _, err := ParseSquare(bad); err == nil {
			t.Errorf("ParseSquare(%q) succeeded", bad)
		}
	}
	valid := 0
	for i := 0; i < 256; i++ {
		if Square(i).Valid() {
			valid++
			if SquareAt(Square(i).File(), Square(i).Rank()) != Square(i) {
				t.Errorf("square %d does not round-trip", i)
			}
		}
	}
	if valid != 90 {
		t.Errorf("%d valid squares, want 90", valid)
	}
}

func TestFullGame(t *testing.T) {
	g := fullGame(t)
	data := must(g.MarshalBinary())
	got := must(Parse(data))
	if got.Header != g.Header {
		t.Errorf("header %+v, want %+v", got.Header, g.Header)
	}
	if got.Start != g.Start || got.StartSide != Red || got.MovesDone != len(testGame) {
		t.Errorf("start/side/done differ: %v %d", got.StartSide, got.MovesDone)
	}
	if len(got.Moves) != len(g.Moves) {
		t.Fatalf("%d moves, want %d", len(got.Moves), len(g.Moves))
	}
	for i := range g.Moves {
		if got.Moves[i] != g.Moves[i] {
			t.Errorf("move %d: %+v, want %+v", i+1, got.Moves[i], g.Moves[i])
		}
	}
	if strings.Join(got.Comments, "|") != strings.Join(g.Comments, "|") || len(got.Comments) != len(g.Comments) {
		t.Errorf("comments %q", got.Comments)
	}
	if got.Unknown.BoardLead != 1 || got.Unknown.Trailing != nil {
		t.Errorf("unknown bytes %+v", got.Unknown)
	}
	// Captures: five, with the codes of the pieces taken.
	wantCaptured := map[int]Piece{19: 30, 20: 11, 21: 23, 23: 18, 24: 9}
	for i, m := range got.Moves {
		if m.Captured != wantCaptured[i+1] {
			t.Errorf("move %d captured %d, want %d", i+1, m.Captured, wantCaptured[i+1])
		}
	}

	positions := must(got.Positions())
	if len(positions) != len(testGame)+1 {
		t.Fatalf("%d positions", len(positions))
	}
	ref := refFromBoard(&got.Start)
	for i, m := range got.Moves {
		p := positions[i]
		if refFromBoard(&p.Board) != ref {
			t.Fatalf("position %d differs from the reference", i)
		}
		legal := ref.legal(p.ToMove == Red)
		found := false
		for _, lm := range legal {
			if lm[0] == refSquare(m.From) && lm[1] == refSquare(m.To) {
				found = true
			}
		}
		if !found {
			t.Fatalf("move %d %s-%s is not legal (%d legal moves)", i+1, m.From, m.To, len(legal))
		}
		f, to := refSquare(m.From), refSquare(m.To)
		ref[to.r][to.f], ref[f.r][f.f] = ref[f.r][f.f], 0
		// The piece list of each position follows the board.
		loc := positions[i+1].Board.Locations()
		if m.Captured != 0 && loc[m.Captured-1] != 0 {
			t.Errorf("move %d: captured piece %d still listed on %s", i+1, m.Captured, loc[m.Captured-1])
		}
	}
	last := positions[len(positions)-1]
	if last.FEN() != testFinalFEN {
		t.Errorf("final FEN\n %s\nwant\n %s", last.FEN(), testFinalFEN)
	}
	if p := must(got.PositionAfter(len(testGame))); p.FEN() != testFinalFEN {
		t.Errorf("PositionAfter(last) = %s", p.FEN())
	}
	if p := must(got.PositionAfter(20)); p.FEN() != positions[20].FEN() || p.Halfmove != 0 || p.Fullmove != 11 {
		t.Errorf("PositionAfter(20) = %s", p.FEN())
	}
	if _, err := got.PositionAfter(len(testGame) + 1); err == nil {
		t.Error("PositionAfter beyond the end succeeded")
	}
	// Writing again gives the same bytes.
	var buf bytes.Buffer
	if err := got.Encode(&buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("rewrite differs (%v)", err)
	}
	dec := must(Decode(bytes.NewReader(data)))
	if dec.Header != g.Header {
		t.Error("Decode differs from Parse")
	}
}

// TestLayout builds a small file by hand from the format description and
// compares it with the writer's output, so the writer cannot drift from
// the description while still reading its own output.
func TestLayout(t *testing.T) {
	g := buildGame(t, []string{"h3-e3", "h10-g8"})
	g.Header = Header{Event: "E", RedName: "R", Result: Draw, Author: "AU", TimeControl: "T"}
	g.MovesDone = 1
	g.Comments = []string{"ab", "c"}

	want := []byte{7, 13}
	want = append(want, 1, 1, 'E', 2, 0, 3, 0, 4, 0, 5, 1, 'R', 6, 0, 7, 0, 8, 0)
	want = append(want, 9, 0, 0, 0, 0, 10, 3)
	want = append(want, 11, 0, 0, 12, 2, 0, 'A', 'U', 13, 1, 0, 'T')
	want = append(want, 1)                   // board block lead
	want = append(want, make([]byte, 34)...) // 34 zeros
	start := StartBoard()
	for f := 8; f >= 0; f-- { // files i..a
		for r := 10; r >= 1; r-- {
			want = append(want, byte(start.At(SquareAt(f, r))))
		}
		if f > 0 {
			want = append(want, make([]byte, 6)...)
		}
	}
	want = append(want, make([]byte, 36)...)
	want = append(want, 0) // the unknown byte
	for _, sq := range start.Locations() {
		want = append(want, 0, 0, 0, byte(sq))
	}
	want = append(want, 0, 0, 0, 0 /* red */, 0, 0, 0, 1 /* done */, 0, 0, 0, 2 /* total */, 0, 0, 0)
	for _, m := range g.Moves {
		rec := make([]byte, 20)
		rec[0], rec[2], rec[4] = byte(m.From), byte(m.To), byte(m.Captured)
		want = append(want, rec...)
	}
	want = append(want, 2, 0, 0, 2, 0, 'a', 'b', 0, 1, 0, 'c')

	got := must(g.MarshalBinary())
	if !bytes.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("byte %d: %d, want %d (len %d vs %d)", i, got[i], want[i], len(got), len(want))
			}
		}
		t.Fatalf("length %d, want %d", len(got), len(want))
	}
	// Spot checks against the description: h3 holds the red cannon 11
	// (file h is the second file written, rank 3 the eighth of its ten).
	off := 2 + 18 + 7 + 12 + 1 + 34 + 16 + 7
	if want[off] != 11 {
		t.Errorf("h3 byte is %d, want red cannon 11", want[off])
	}
}

func TestUnknownBytesSurvive(t *testing.T) {
	g := buildGame(t, testGame[:4])
	g.Unknown = Unknown{
		Tag9: [4]byte{1, 2, 3, 4}, BoardLead: 9, BoardTail: [4]byte{5, 6, 7, 8},
		CommentPad: [2]byte{0xAA, 0xBB}, Trailing: []byte("tail"),
	}
	for i := range g.Unknown.BoardPad {
		g.Unknown.BoardPad[i] = byte(i + 1)
	}
	for i := range g.Moves {
		for j := range g.Moves[i].Unknown {
			g.Moves[i].Unknown[j] = byte(i*16 + j)
		}
	}
	g.Header.Result = 7
	g.StartSide = Red
	data := must(g.MarshalBinary())
	got := must(Parse(data))
	if got.Unknown.Tag9 != g.Unknown.Tag9 || got.Unknown.BoardPad != g.Unknown.BoardPad ||
		got.Unknown.BoardTail != g.Unknown.BoardTail || got.Unknown.CommentPad != g.Unknown.CommentPad ||
		string(got.Unknown.Trailing) != "tail" || got.Unknown.BoardLead != 9 || got.Header.Result != 7 {
		t.Errorf("unknown bytes changed: %+v", got.Unknown)
	}
	for i := range g.Moves {
		if got.Moves[i] != g.Moves[i] {
			t.Errorf("move %d: %+v", i, got.Moves[i])
		}
	}
	if again := must(got.MarshalBinary()); !bytes.Equal(again, data) {
		t.Error("rewrite differs")
	}
}

func TestBlackStarts(t *testing.T) {
	g := NewGame()
	g.StartSide = Black
	g.Moves = []Move{{From: sqr(t, "h10"), To: sqr(t, "g8")}}
	got := must(Parse(must(g.MarshalBinary())))
	p := must(got.PositionAfter(1))
	if p.ToMove != Red || p.Fullmove != 2 || !strings.HasSuffix(p.FEN(), " w - - 1 2") {
		t.Errorf("after black's first move: %s", p.FEN())
	}
	g.StartSide = Red
	if _, err := g.MarshalBinary(); !errors.Is(err, ErrIllegal) {
		t.Errorf("red moving a black horse: %v", err)
	}
}

// Offsets into the file of fullGame, computed from the layout.
func offsets(g *Game) (board, pieces, counts, moves, comments int) {
	h := &g.Header
	n := 2
	for _, s := range []string{h.Event, h.Site, h.Date, h.Round, h.RedName, h.RedElo, h.BlackName, h.BlackElo} {
		n += 2 + len(s)
	}
	n += 5 + 2
	for _, s := range []string{h.Description, h.Author, h.TimeControl} {
		n += 3 + len(s)
	}
	board = n + 1
	pieces = board + boardArray + 4
	counts = pieces + 4*NumPieces
	moves = counts + 12
	comments = moves + moveSize*len(g.Moves)
	return
}

func TestHostile(t *testing.T) {
	g := fullGame(t)
	good := must(g.MarshalBinary())
	board, pieces, counts, moves, comments := offsets(g)
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	put32 := func(b []byte, off int, v uint32) []byte { binary.LittleEndian.PutUint32(b[off:], v); return b }
	e1 := sqr(t, "e1")
	for _, tc := range []struct {
		name string
		data []byte
		err  error
	}{
		{"empty", nil, ErrMagic},
		{"one byte", []byte{7}, ErrMagic},
		{"bad magic", edit(func(b []byte) []byte { b[1] = 14; return b }), ErrMagic},
		{"magic only", good[:2], ErrTruncated},
		{"tag out of order", edit(func(b []byte) []byte { b[2] = 2; return b }), ErrCorrupt},
		{"string runs past the end", edit(func(b []byte) []byte { return append(b[:3], 200, 'x') }), ErrTruncated},
		{"piece code 33 on the board", edit(func(b []byte) []byte { b[board+int(e1)] = 33; return b }), ErrCorrupt},
		{"piece twice on the board", edit(func(b []byte) []byte { b[board+35] = b[board+int(e1)]; return b }), ErrCorrupt},
		{"piece list disagrees", edit(func(b []byte) []byte { return put32(b, pieces, 0) }), ErrCorrupt},
		{"impossible location in list", edit(func(b []byte) []byte { return put32(b, pieces, 44) }), ErrCorrupt},
		{"location beyond a byte", edit(func(b []byte) []byte { return put32(b, pieces, 0x100+uint32(e1)) }), ErrCorrupt},
		{"side 2", edit(func(b []byte) []byte { return put32(b, counts, 2) }), ErrCorrupt},
		{"negative moves done", edit(func(b []byte) []byte { return put32(b, counts+4, 0xFFFFFFFF) }), ErrCorrupt},
		{"moves done > total", edit(func(b []byte) []byte { return put32(b, counts+4, 25) }), ErrCorrupt},
		{"move count exceeds the data", edit(func(b []byte) []byte { return put32(b, counts+8, 0x7FFFFFFF) }), ErrCorrupt},
		{"move count one too many", edit(func(b []byte) []byte { return put32(b, counts+8, uint32((len(b)-moves-3)/20+1)) }), ErrCorrupt},
		{"move from a pad location", edit(func(b []byte) []byte { b[moves] = 44; return b }), ErrCorrupt},
		{"move location high byte", edit(func(b []byte) []byte { b[moves+3] = 1; return b }), ErrCorrupt},
		{"move from an empty point", edit(func(b []byte) []byte { b[moves] = byte(sqr(t, "e5")); return b }), ErrIllegal},
		{"wrong captured code", edit(func(b []byte) []byte { b[moves+18*20+4] = 29; return b }), ErrCorrupt},
		{"capture not recorded", edit(func(b []byte) []byte { b[moves+18*20+4] = 0; return b }), ErrCorrupt},
		{"captured code 40", edit(func(b []byte) []byte { b[moves+4] = 40; return b }), ErrCorrupt},
		{"illegal horse move", edit(func(b []byte) []byte { b[moves+20+2] = byte(sqr(t, "h9")); return b }), ErrIllegal},
		{"wrong side moves", edit(func(b []byte) []byte { return put32(b, counts, 1) }), ErrIllegal},
		{"comment separator", edit(func(b []byte) []byte { b[comments+3+2+len("opening")] = 1; return b }), ErrCorrupt},
		{"comment count too high", edit(func(b []byte) []byte { b[comments] = 200; return b }), ErrTruncated},
		{"no comment section", good[:comments], ErrCorrupt}, // the move count no longer fits
	} {
		_, err := Parse(tc.data)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.err)
		} else if !strings.HasPrefix(err.Error(), "egf: offset ") {
			t.Errorf("%s: error %q lacks the offset", tc.name, err)
		}
	}
	// Every proper prefix fails cleanly.
	for n := range len(good) {
		if _, err := Parse(good[:n]); err == nil {
			t.Fatalf("prefix of %d bytes parsed", n)
		}
	}
}

func TestDecodeTooLarge(t *testing.T) {
	r := bytes.NewReader(make([]byte, MaxFileSize+10))
	if _, err := Decode(r); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized input: %v", err)
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Game)
	}{
		{"long event", func(g *Game) { g.Header.Event = strings.Repeat("e", 256) }},
		{"long author", func(g *Game) { g.Header.Author = strings.Repeat("a", 1<<16) }},
		{"too many comments", func(g *Game) { g.Comments = make([]string, 256) }},
		{"long comment", func(g *Game) { g.Comments = []string{strings.Repeat("c", 1<<16)} }},
		{"moves done > total", func(g *Game) { g.MovesDone = len(g.Moves) + 1 }},
		{"negative moves done", func(g *Game) { g.MovesDone = -1 }},
		{"bad side", func(g *Game) { g.StartSide = 2 }},
		{"piece code 40", func(g *Game) { g.Start[0] = 40 }},
		{"duplicate piece", func(g *Game) { g.Start[40] = g.Start[0] }},
		{"illegal move", func(g *Game) { g.Moves[0].To = sqr(t, "e9") }},
		{"wrong capture", func(g *Game) { g.Moves[1].Captured = 5 }},
		{"invalid square", func(g *Game) { g.Moves[0].From = 44 }},
	} {
		g := fullGame(t)
		tc.edit(g)
		if _, err := g.MarshalBinary(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid", tc.name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(must(fullGame(f).MarshalBinary()))
	f.Add(must(NewGame().MarshalBinary()))
	f.Add(must(buildGame(f, testGame[:3]).MarshalBinary()))
	f.Add([]byte{7, 13})
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Parse(data)
		if err != nil {
			return
		}
		// Everything read is kept: writing gives the input back.
		out, err := g.MarshalBinary()
		if err != nil {
			t.Fatalf("parsed game does not encode: %v", err)
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("rewrite differs from input")
		}
		if _, err := g.Positions(); err != nil {
			t.Fatalf("parsed game does not replay: %v", err)
		}
	})
}

// FuzzRoundTrip mutates a game through its fields (moves appended from
// the fuzzer's bytes) and checks write -> read -> write.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("h3e3"), "event", "comment", uint8(0))
	f.Add([]byte{}, "", "", uint8(3))
	f.Fuzz(func(t *testing.T, moveBytes []byte, event, comment string, result uint8) {
		g := NewGame()
		if len(event) > 255 || len(comment) > 1000 {
			return
		}
		g.Header.Event, g.Header.Result = event, Result(result)
		g.Comments = []string{comment, event}
		// Interpret pairs of bytes as moves, keeping the legal ones.
		pos := must(g.PositionAfter(0))
		for i := 0; i+1 < len(moveBytes) && len(g.Moves) < 200; i += 2 {
			m := Move{From: SquareAt(int(moveBytes[i]%9), int(moveBytes[i]/9%10)+1),
				To: SquareAt(int(moveBytes[i+1]%9), int(moveBytes[i+1]/9%10)+1)}
			m.Captured = pos.Board.At(m.To)
			next := pos
			if next.apply(m) == nil {
				g.Moves = append(g.Moves, m)
				pos = next
			}
		}
		data, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		h, err := Parse(data)
		if err != nil {
			t.Fatalf("own output does not parse: %v", err)
		}
		if h.Header != g.Header || len(h.Moves) != len(g.Moves) || h.Start != g.Start {
			t.Fatal("round trip changed the game")
		}
		again, err := h.MarshalBinary()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("second write differs: %v", err)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	var moves []string
	for range 100 { // 400 moves: horses out and back
		moves = append(moves, "h1-g3", "h10-g8", "g3-h1", "g8-h10")
	}
	data := must(buildGame(b, moves).MarshalBinary())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
