package gnubgid

import (
	"bufio"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// vectorDir holds vectors produced by gnubg 1.07 (read in place).
const vectorDir = "../../../shared/testvectors/gnubg"

func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	if _, err := os.Stat(vectorDir); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s not present", vectorDir)
	}
	f, err := os.Open(filepath.Join(vectorDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s line %d: %v", name, len(out)+1, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return out
}

type posVector struct {
	Board0 [25]int `json:"board0_not_on_roll"`
	Board1 [25]int `json:"board1_on_roll"`
	PosID  string  `json:"posid"`
	Key    [10]int `json:"key"`
}

func TestPositionVectors(t *testing.T) {
	for i, v := range readJSONL[posVector](t, "posid_vectors.jsonl") {
		want := Board{v.Board0, v.Board1}
		got, err := DecodePosition(v.PosID)
		if err != nil {
			t.Errorf("vector %d: %v", i, err)
			continue
		}
		if got != want {
			t.Errorf("vector %d: DecodePosition(%s) = %v, want %v", i, v.PosID, got, want)
		}
		id, err := EncodePosition(want)
		if err != nil || id != v.PosID {
			t.Errorf("vector %d: EncodePosition = %q, %v; want %q", i, id, err, v.PosID)
		}
		var key [11]byte
		if err := decode64(key[:], v.PosID); err != nil {
			t.Fatal(err)
		}
		for j, b := range v.Key {
			if int(key[j]) != b {
				t.Errorf("vector %d: key byte %d = %d, want %d", i, j, key[j], b)
			}
		}
	}
}

type matchVector struct {
	Cube      int    `json:"cube"`
	CubeOwner int    `json:"cubeowner"`
	Move      int    `json:"move"`
	MatchTo   int    `json:"matchto"`
	Score     [2]int `json:"score"`
	Crawford  int    `json:"crawford"`
	Jacoby    int    `json:"jacoby_in_cubeinfo"`
	Turn      int    `json:"turn"`
	Resigned  int    `json:"resigned"`
	Doubled   int    `json:"doubled"`
	GameState int    `json:"gamestate"`
	Dice      [2]int `json:"dice"`
	MatchID   string `json:"matchid"`
}

func (v matchVector) match() Match {
	return Match{
		Cube: v.Cube, CubeOwner: v.CubeOwner, Move: v.Move, Crawford: v.Crawford == 1,
		GameState: v.GameState, Turn: v.Turn, Doubled: v.Doubled == 1, Resigned: v.Resigned,
		Dice: v.Dice, MatchLength: v.MatchTo, Score: v.Score, Jacoby: v.Jacoby == 1,
	}
}

func TestMatchVectors(t *testing.T) {
	for i, v := range readJSONL[matchVector](t, "matchid_vectors.jsonl") {
		m := v.match()
		id, err := EncodeMatch(m)
		if err != nil || id != v.MatchID {
			t.Errorf("vector %d: EncodeMatch(%+v) = %q, %v; want %q", i, m, id, err, v.MatchID)
		}
		got, err := DecodeMatch(v.MatchID)
		if err != nil {
			t.Errorf("vector %d: %v", i, err)
			continue
		}
		if m.Dice[0] < m.Dice[1] { // gnubg stores the larger die first
			m.Dice[0], m.Dice[1] = m.Dice[1], m.Dice[0]
		}
		if got != m {
			t.Errorf("vector %d: DecodeMatch(%s) = %+v, want %+v", i, v.MatchID, got, m)
		}
	}
}

// TestSeedExample follows the worked example of the match ID description:
// score 2-4 in a 9-point match, player 0 holds a 2-cube, player 1 has just
// rolled 52.
func TestSeedExample(t *testing.T) {
	m := Match{
		Cube: 2, CubeOwner: 0, Move: 1, GameState: GamePlaying, Turn: 1,
		Dice: [2]int{5, 2}, MatchLength: 9, Score: [2]int{2, 4},
	}
	// The seed's bit string, key bit 0 first, without bit 66.
	const bits = "1000" + "00" + "1" + "0" + "100" + "1" + "0" + "00" + "101" + "010" +
		"100100000000000" + "010000000000000" + "001000000000000"
	wantKey := [9]byte{0x41, 0x89, 0x2A, 0x01, 0x20, 0x00, 0x20, 0x00, 0x00}
	var k matchKey
	for i, c := range bits {
		if c == '1' {
			k.put(i, 1, 1)
		}
	}
	if k != wantKey {
		t.Fatalf("seed bit string packs to % x, want % x", k[:], wantKey[:])
	}
	for _, tc := range []struct {
		id     string
		jacoby bool
	}{
		{"QYkqASAAIAAA", true},  // the seed's ID: bit 66 = 0
		{"QYkqASAAIAAE", false}, // what gnubg 1.07 prints: bit 66 = 1
	} {
		m.Jacoby = tc.jacoby
		got, err := DecodeMatch(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if got != m {
			t.Errorf("DecodeMatch(%s) = %+v, want %+v", tc.id, got, m)
		}
		id, err := EncodeMatch(m)
		if err != nil || id != tc.id {
			t.Errorf("EncodeMatch(%+v) = %q, %v; want %s", m, id, err, tc.id)
		}
		var key [9]byte
		if err := decode64(key[:], tc.id); err != nil {
			t.Fatal(err)
		}
		want := wantKey
		if !tc.jacoby {
			want[8] |= 1 << 2 // bit 66
		}
		if key != want {
			t.Errorf("%s: key % x, want % x", tc.id, key[:], want[:])
		}
	}
}

func TestStartPosition(t *testing.T) {
	side := [25]int{5: 5, 7: 3, 12: 5, 23: 2}
	start := Board{side, side}
	id, err := EncodePosition(start)
	if err != nil || id != "4HPwATDgc/ABMA" {
		t.Fatalf("EncodePosition(start) = %q, %v", id, err)
	}
	s, err := EncodeCombined(start, Match{Cube: 1, CubeOwner: -1, GameState: GamePlaying})
	if err != nil {
		t.Fatal(err)
	}
	b, m, err := DecodeCombined(s)
	if err != nil || b != start || m.Cube != 1 || m.CubeOwner != -1 {
		t.Fatalf("DecodeCombined(%s) = %v, %+v, %v", s, b, m, err)
	}
}

// randomBoard returns a valid board: it drops checkers one by one on
// slots that stay legal, so every count profile from empty to 15 a side
// comes up.
func randomBoard(r *rand.Rand) Board {
	var b Board
	for side := range b {
		n := r.IntN(MaxCheckers + 1)
		for n > 0 {
			slot := r.IntN(25)
			if slot < 24 && b[1-side][23-slot] > 0 {
				continue
			}
			b[side][slot]++
			n--
		}
	}
	if b.Validate() != nil { // the rare closed-boards deadlock
		b[0][24] = 0
	}
	return b
}

func randomMatch(r *rand.Rand) Match {
	m := Match{
		Cube:      1 << r.IntN(16),
		CubeOwner: r.IntN(3) - 1,
		Move:      r.IntN(2),
		GameState: r.IntN(5),
		Turn:      r.IntN(2),
		Doubled:   r.IntN(2) == 1,
		Resigned:  r.IntN(4),
		Jacoby:    r.IntN(2) == 1,
	}
	if r.IntN(4) > 0 {
		m.Dice = [2]int{1 + r.IntN(6), 1 + r.IntN(6)}
	}
	if r.IntN(3) > 0 {
		m.MatchLength = 1 + r.IntN(MaxMatchLength)
		m.Score = [2]int{r.IntN(m.MatchLength + 1), r.IntN(m.MatchLength + 1)}
		m.Crawford = r.IntN(2) == 1
	} else {
		m.Score = [2]int{r.IntN(1 << 15), r.IntN(1 << 15)}
	}
	return m
}

// refPositionKey is a deliberately naive reference: the bit string as a
// []bool, then packed.
func refPositionKey(b Board) [10]byte {
	var bits []bool
	for side := range b {
		for _, n := range b[side] {
			for range n {
				bits = append(bits, true)
			}
			bits = append(bits, false)
		}
	}
	var key [10]byte
	for i, one := range bits {
		if one {
			key[i/8] |= 1 << (i % 8)
		}
	}
	return key
}

func TestPositionRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := randomBoard(r)
		id, err := EncodePosition(b)
		if err != nil {
			t.Fatalf("EncodePosition(%v): %v", b, err)
		}
		key := refPositionKey(b)
		if want := encode64(key[:]); id != want {
			t.Fatalf("EncodePosition(%v) = %s, reference %s", b, id, want)
		}
		got, err := DecodePosition(id)
		if err != nil || got != b {
			t.Fatalf("DecodePosition(%s) = %v, %v; want %v", id, got, err, b)
		}
	}
}

func TestMatchRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		m := randomMatch(r)
		id, err := EncodeMatch(m)
		if err != nil {
			t.Fatalf("EncodeMatch(%+v): %v", m, err)
		}
		got, err := DecodeMatch(id)
		if m.Dice[0] < m.Dice[1] {
			m.Dice[0], m.Dice[1] = m.Dice[1], m.Dice[0]
		}
		if err != nil || got != m {
			t.Fatalf("DecodeMatch(%s) = %+v, %v; want %+v", id, got, err, m)
		}
		again, err := EncodeMatch(got)
		if err != nil || again != id {
			t.Fatalf("re-encode %+v = %s, %v; want %s", got, again, err, id)
		}
	}
}

// positionRejects lists Position IDs to refuse; gnubg=true marks those
// gnubg 1.07 refuses as well (the interop test checks that column). The
// others gnubg accepts after dropping bits it does not use.
var positionRejects = []struct {
	name  string
	id    string
	err   error
	gnubg bool
}{
	{"16 checkers on the bar", "AAAA//8AAAAAAA", ErrTooManyCheckers, true},
	{"all ones", "//////////////", ErrTooManyCheckers, true},
	{"both on point 1/24", "AQAAAAAAAgAAAA", ErrSharedPoint, true},
	{"both on bar, closed boards", "27YBANC2bQAABA", ErrClosedBoards, true},
	{"bad character", "4HPwATDgc/AB!A", ErrBadChar, true},
	{"url alphabet", "4HPwATDgc_ABMA", ErrBadChar, true},
	{"newline", "4HPwATDgc/ABM\n", ErrBadChar, true},
	{"padding bits set", "4HPwATDgc/ABMB", ErrNonCanonical, false},
	{"padding bits set 2", "4HPwATDgc/ABMP", ErrNonCanonical, false},
	{"one after last slot", "AAAAAAAABAAAAA", ErrNonCanonical, false},
	{"too short", "4HPwATDgc/AB", ErrLength, false},
	{"too long", "4HPwATDgc/ABMAAA", ErrLength, false},
	{"padded", "4HPwATDgc/ABMA==", ErrLength, false},
	{"empty", "", ErrLength, false},
}

func TestDecodePositionRejects(t *testing.T) {
	for _, tc := range positionRejects {
		_, err := DecodePosition(tc.id)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: DecodePosition(%q) error %v, want %v", tc.name, tc.id, err, tc.err)
		}
	}
}

func TestEncodePositionRejects(t *testing.T) {
	closedBar := [25]int{2, 2, 2, 2, 2, 2, 24: 1}
	for _, tc := range []struct {
		name string
		b    Board
		err  error
	}{
		{"16 checkers", Board{{0: 16}}, ErrTooManyCheckers},
		{"16 spread", Board{1: {0: 8, 5: 8}}, ErrTooManyCheckers},
		{"negative", Board{{3: -1}}, ErrNegative},
		{"shared point", Board{{0: 1}, {23: 1}}, ErrSharedPoint},
		{"shared point 12/13", Board{{11: 2}, {12: 3}}, ErrSharedPoint},
		{"closed boards, both on bar", Board{closedBar, closedBar}, ErrClosedBoards},
	} {
		if _, err := EncodePosition(tc.b); !errors.Is(err, tc.err) {
			t.Errorf("%s: EncodePosition error %v, want %v", tc.name, err, tc.err)
		}
	}
	// Both bars occupied with only one board closed is fine.
	open := closedBar
	open[5] = 1
	if _, err := EncodePosition(Board{closedBar, open}); err != nil {
		t.Errorf("one closed board: %v", err)
	}
}

// matchKeyID builds a Match ID from raw field values, bypassing Validate.
func matchKeyID(fields ...[3]int) string {
	var k matchKey
	for _, f := range fields {
		k.put(f[0], f[1], f[2])
	}
	return encode64(k[:])
}

var matchRejects = []struct {
	name  string
	id    string
	err   error
	gnubg bool // gnubg 1.07's "set matchid" says "Illegal match ID"
}{
	{"match length 65", "MAEgCAAAAAAE", ErrInvalidMatch, true},
	{"die of 7", "MIEHAAAAAAAE", ErrInvalidMatch, true},
	{"score above match length", "MAHgAIAAAAAE", ErrInvalidMatch, true},
	{"Crawford in money play", "sAEAAAAAAAAE", ErrInvalidMatch, true},
	{"dice smaller first", "MIEYAAAAAAAE", ErrNonCanonical, false},
	{"cube owner 2", "IAEAAAAAAAAE", ErrNonCanonical, false},
	{"bits 67-71 set", "MAHgAAAAAAD8", ErrNonCanonical, false},
	{"game state 5", "MAUAAAAAAAAE", ErrInvalidMatch, false},
	{"game state 7", "MAcAAAAAAAAE", ErrInvalidMatch, false},
	{"one die rolled", "MAEDAAAAAAAE", ErrInvalidMatch, false},
	{"bad character", "QYkqASAAIAA*", ErrBadChar, true},
	{"too short", "QYkqASAAIAA", ErrLength, false},
	{"too long", "QYkqASAAIAAEA", ErrLength, false},
}

func TestDecodeMatchRejects(t *testing.T) {
	// The table's IDs, rebuilt from fields so the table stays honest.
	checks := map[string]string{
		"match length 65": matchKeyID([3]int{4, 2, 3}, [3]int{8, 3, 1}, [3]int{21, 15, 65}, [3]int{66, 1, 1}),
		"die of 7":        matchKeyID([3]int{4, 2, 3}, [3]int{8, 3, 1}, [3]int{15, 3, 7}, [3]int{18, 3, 1}, [3]int{66, 1, 1}),
		"cube owner 2":    matchKeyID([3]int{4, 2, 2}, [3]int{8, 3, 1}, [3]int{66, 1, 1}),
		"bits 67-71 set":  matchKeyID([3]int{4, 2, 3}, [3]int{8, 3, 1}, [3]int{21, 15, 7}, [3]int{66, 6, 63}),
		"game state 5":    matchKeyID([3]int{4, 2, 3}, [3]int{8, 3, 5}, [3]int{66, 1, 1}),
		"dice smaller first": matchKeyID([3]int{4, 2, 3}, [3]int{8, 3, 1}, [3]int{15, 3, 1},
			[3]int{18, 3, 6}, [3]int{66, 1, 1}),
	}
	for _, tc := range matchRejects {
		if want, ok := checks[tc.name]; ok && want != tc.id {
			t.Errorf("%s: table ID %s, fields give %s", tc.name, tc.id, want)
		}
		_, err := DecodeMatch(tc.id)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: DecodeMatch(%q) error %v, want %v", tc.name, tc.id, err, tc.err)
		}
	}
}

func TestEncodeMatchRejects(t *testing.T) {
	ok := Match{Cube: 1, CubeOwner: -1, GameState: GamePlaying, MatchLength: 7}
	for _, tc := range []struct {
		name string
		edit func(*Match)
	}{
		{"cube 0", func(m *Match) { m.Cube = 0 }},
		{"cube 3", func(m *Match) { m.Cube = 3 }},
		{"cube 65536", func(m *Match) { m.Cube = 1 << 16 }},
		{"owner 2", func(m *Match) { m.CubeOwner = 2 }},
		{"owner -2", func(m *Match) { m.CubeOwner = -2 }},
		{"move 2", func(m *Match) { m.Move = 2 }},
		{"turn -1", func(m *Match) { m.Turn = -1 }},
		{"game state 5", func(m *Match) { m.GameState = 5 }},
		{"resigned 4", func(m *Match) { m.Resigned = 4 }},
		{"die 7", func(m *Match) { m.Dice = [2]int{7, 1} }},
		{"one die", func(m *Match) { m.Dice = [2]int{0, 3} }},
		{"match length 65", func(m *Match) { m.MatchLength = 65 }},
		{"negative length", func(m *Match) { m.MatchLength = -1 }},
		{"score 8 of 7", func(m *Match) { m.Score[1] = 8 }},
		{"negative score", func(m *Match) { m.Score[0] = -1 }},
		{"money Crawford", func(m *Match) { m.MatchLength = 0; m.Crawford = true }},
		{"money score 32768", func(m *Match) { m.MatchLength = 0; m.Score[0] = 1 << 15 }},
	} {
		m := ok
		tc.edit(&m)
		if _, err := EncodeMatch(m); !errors.Is(err, ErrInvalidMatch) {
			t.Errorf("%s: EncodeMatch error %v, want ErrInvalidMatch", tc.name, err)
		}
	}
	if _, err := EncodeMatch(ok); err != nil {
		t.Errorf("valid match: %v", err)
	}
}

func TestDecodeCombinedRejects(t *testing.T) {
	for _, s := range []string{
		"4HPwATDgc/ABMA",
		"4HPwATDgc/ABMA:",
		":QYkqASAAIAAE",
		"4HPwATDgc/ABMA:QYkqASAAIAAE:",
		"4HPwATDgc/ABMA QYkqASAAIAAE",
		"QYkqASAAIAAE:4HPwATDgc/ABMA",
	} {
		if _, _, err := DecodeCombined(s); err == nil {
			t.Errorf("DecodeCombined(%q) succeeded", s)
		}
	}
}

func FuzzDecodePosition(f *testing.F) {
	f.Add("4HPwATDgc/ABMA")
	f.Add("AAAAAAAAAAAAAA")
	f.Add("AAAAxgwhSCMAAA")
	for _, tc := range positionRejects {
		f.Add(tc.id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		b, err := DecodePosition(id)
		if err != nil {
			return
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("DecodePosition(%q) gave invalid board: %v", id, err)
		}
		again, err := EncodePosition(b)
		if err != nil || again != id {
			t.Fatalf("DecodePosition(%q) re-encodes to %q, %v", id, again, err)
		}
	})
}

func FuzzDecodeMatch(f *testing.F) {
	f.Add("QYkqASAAIAAA")
	f.Add("QYkqASAAIAAE")
	f.Add("cGEgA3ABaAAE")
	for _, tc := range matchRejects {
		f.Add(tc.id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		m, err := DecodeMatch(id)
		if err != nil {
			return
		}
		again, err := EncodeMatch(m)
		if err != nil || again != id {
			t.Fatalf("DecodeMatch(%q) = %+v re-encodes to %q, %v", id, m, again, err)
		}
	})
}

// benchValues returns 1024 random values made by random from seed.
func benchValues[T any](seed uint64, random func(*rand.Rand) T) []T {
	r := rand.New(rand.NewPCG(seed, seed+1))
	vs := make([]T, 1024)
	for i := range vs {
		vs[i] = random(r)
	}
	return vs
}

// benchEncode measures encode over vs in turn.
func benchEncode[T any](b *testing.B, vs []T, encode func(T) (string, error)) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := encode(vs[i%len(vs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDecode measures decode over the IDs of vs in turn.
func benchDecode[T any](b *testing.B, vs []T, encode func(T) (string, error), decode func(string) (T, error)) {
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i], _ = encode(v)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := decode(ids[i%len(ids)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodePosition(b *testing.B) {
	benchEncode(b, benchValues(5, randomBoard), EncodePosition)
}

func BenchmarkDecodePosition(b *testing.B) {
	benchDecode(b, benchValues(5, randomBoard), EncodePosition, DecodePosition)
}

func BenchmarkEncodeMatch(b *testing.B) {
	benchEncode(b, benchValues(7, randomMatch), EncodeMatch)
}

func BenchmarkDecodeMatch(b *testing.B) {
	benchDecode(b, benchValues(7, randomMatch), EncodeMatch, DecodeMatch)
}
