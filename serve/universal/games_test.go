package universal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestConnect4Walk walks 4x4 Connect Four through the API: values against
// the run, and each move's strings against the board it leads to (the
// piece lands in its column, on the lowest empty cell; the arrow stands
// over that column).
func TestConnect4Walk(t *testing.T) {
	o := solved(t, "connect4", "width=4,height=4", false)
	s := server(t, o)
	c := connect4Codec{w: 4, h: 4}
	walk(t, s, "connect4", "4x4", "1_"+strings.Repeat("-", 16), 2000, func(a *position) {
		checkAgainstOracle(t, o, c, a)
		mark := "XO"[a.Position[0]-'1']
		for _, m := range a.Moves {
			col, _ := strconv.Atoi(m.Move)
			var from, to int
			if _, err := fmt.Sscanf(m.AutoguiMove, "M_%d_%d_x", &from, &to); err != nil || from != 16+col-1 || to != from+4 {
				t.Fatalf("%s: move %s: AutoGUI move %s", a.Position, m.Move, m.AutoguiMove)
			}
			changed := diff(a.Position[2:], m.Position[2:])
			if len(changed) != 1 || changed[0]/4 != col-1 || m.Position[2+changed[0]] != mark ||
				(changed[0]%4 != 3 && a.Position[2+changed[0]+1] == '-') {
				t.Fatalf("%s: move %s leads to %s", a.Position, m.Move, m.Position)
			}
		}
	})
}

// diff lists the indices where a and b differ.
func diff(a, b string) []int {
	var out []int
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			out = append(out, i)
		}
	}
	return out
}

// quixoSources is GamesmanOne's kDirIndexToSrc: for each push (R, L, D,
// U) the cells it can be made from, in the order it generates them.
var quixoSources = map[int][4][]int{
	5: {
		{0, 1, 2, 3, 5, 10, 15, 20, 21, 22, 23},
		{1, 2, 3, 4, 9, 14, 19, 21, 22, 23, 24},
		{0, 1, 2, 3, 4, 5, 9, 10, 14, 15, 19},
		{5, 9, 10, 14, 15, 19, 20, 21, 22, 23, 24},
	},
	4: {
		{0, 1, 2, 4, 8, 12, 13, 14},
		{1, 2, 3, 7, 11, 13, 14, 15},
		{0, 1, 2, 3, 4, 7, 8, 11},
		{4, 7, 8, 11, 12, 13, 14, 15},
	},
	3: {
		{0, 1, 3, 6, 7},
		{1, 2, 5, 7, 8},
		{0, 1, 2, 3, 5},
		{3, 5, 6, 7, 8},
	},
}

func TestQuixoOrder(t *testing.T) {
	for n, dirs := range quixoSources {
		q := quixoCodec{n: n}
		for d, srcs := range dirs {
			for i, src := range srcs {
				if got := q.rank(src, d); got != i {
					t.Errorf("%dx%d: push %c from %d: rank %d, GamesmanOne's %d", n, n, quixoDirs[d], src, got, i)
				}
			}
		}
	}
}

// TestQuixoWalk walks 3x3 Quixo (GamesmanOne's variant 2): values against
// the run, and each move's strings against the board it leads to: the
// mover's cube stands at the end the move names, and the AutoGUI arrow
// points that way.
func TestQuixoWalk(t *testing.T) {
	o := solved(t, "quixo", "size=3", false)
	s := server(t, o)
	q := quixoCodec{n: 3}
	centers := quixoImages(3).Themes["regular"].Centers
	walk(t, s, "quixo", "3x3", "1_---------", 2000, func(a *position) {
		checkAgainstOracle(t, o, q, a)
		if want := strings.ReplaceAll(a.Position, "-", "B"); a.AutoguiPosition != want {
			t.Fatalf("%s: AutoGUI position %s", a.Position, a.AutoguiPosition)
		}
		mark := "XO"[a.Position[0]-'1']
		for _, m := range a.Moves {
			var src int
			var d byte
			if _, err := fmt.Sscanf(m.Move, "%d %c", &src, &d); err != nil {
				t.Fatalf("%s: move %q", a.Position, m.Move)
			}
			src--
			r, c := src/3, src%3
			end := map[byte]int{'R': r*3 + 2, 'L': r * 3, 'D': 6 + c, 'U': c}[d]
			if m.Position[2+end] != mark || (a.Position[2+src] != '-' && a.Position[2+src] != mark) {
				t.Fatalf("%s: move %s leads to %s", a.Position, m.Move, m.Position)
			}
			var from, to int
			if _, err := fmt.Sscanf(m.AutoguiMove, "M_%d_%d_x", &from, &to); err != nil || from != src {
				t.Fatalf("%s: move %s: AutoGUI move %s", a.Position, m.Move, m.AutoguiMove)
			}
			dx, dy := centers[to][0]-centers[from][0], centers[to][1]-centers[from][1]
			if ok := map[byte]bool{'R': dx > 0 && dy == 0, 'L': dx < 0 && dy == 0, 'D': dy > 0 && dx == 0, 'U': dy < 0 && dx == 0}[d]; !ok {
				t.Fatalf("%s: move %s: the arrow %s points (%v, %v)", a.Position, m.Move, m.AutoguiMove, dx, dy)
			}
		}
	})
}

// TestQuixoUnreachable asks for a board the run does not hold: O to move
// on the empty board.
func TestQuixoUnreachable(t *testing.T) {
	s := server(t, solved(t, "quixo", "size=3", false))
	var e errorBody
	getJSON(t, s, positionPath("quixo", "3x3", "2_---------"), &e)
	if e.Error != "Invalid Position" || !strings.Contains(e.Reason, "does not hold") {
		t.Errorf("%+v", e)
	}
}

// TestTeekoCodec checks Teeko's strings against GamesmanOne's forms: the
// start, drops as points from 0, moves as two points.
func TestTeekoCodec(t *testing.T) {
	g, err := games.New("teeko", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []codecCase{
		{uwapi: "1_-------------------------", text: "x:...../...../...../...../.....", moves: []string{"0", "1", "2"}, autoMoves: []string{"A_-_0_y", "A_-_1_y", "A_-_2_y"}},
		{uwapi: "2_X-----------------------O"}, // not O's turn with one X
		{uwapi: "2_XX---OO---------XX----O-O", text: "o:xx.../oo.../...../.xx../..o.o", moves: []string{"5 10", "5 11", "6 2"}, autoMoves: []string{"M_5_10_x", "M_5_11_x", "M_6_2_x"}},
	} {
		checkCodec(t, g, teekoCodec{}, tc)
	}
}

// TestDshogiCodec checks Dōbutsu shōgi's strings against GamesmanOne's
// forms.
func TestDshogiCodec(t *testing.T) {
	g, err := games.New("dshogi", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []codecCase{
		// The start: GamesmanOne's initial board "gle-c--C-ELG"; the
		// forest's moves by square from, then to: the chick takes, the
		// lion steps, the giraffe steps.
		{"1_gle-c--C-ELG_000_000", "1_gle-c--C-ELG------", "F:gle/.c./.C./ELG:-",
			[]string{"B3 B2", "B4 A3", "B4 C3", "C4 C3"}, []string{"M_7_4_x", "M_10_6_x", "M_10_8_x", "M_11_8_x"}},
		// The sky to move with a chick and two elephants in hand: board
		// moves first, then drops of elephants, then of the chick.
		{"2_g-l--L------_110_012", "2_g-l--L------GE--ed", "S:g.l/..L/.../...:GEecc", nil, nil},
		{"1_gle-c--C-ELG_000_00", "", "", nil, nil},
		{"1_gle-c--C-ELG_000_003", "", "", nil, nil},
		{"1_gle-c--C-ELX_000_000", "", "", nil, nil},
	} {
		checkCodec(t, g, dshogiCodec{}, tc)
	}
}

// moveNames returns the move names of a position in the game's text.
func moveNames(t *testing.T, g tiergame.Game, text string) []string {
	t.Helper()
	tier, pos, err := g.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return g.(tiergame.MoveNamer).MoveNames(tier, pos)
}

// sortByOrder puts moves in the back end's order.
func sortByOrder(ms []uwapiMove) {
	slices.SortStableFunc(ms, func(a, b uwapiMove) int { return a.order - b.order })
}

// TestDshogiWalk walks the lions-and-chicks Dōbutsu shōgi (a variant of
// our own: GamesCrafters has only the full game) through the API: values
// against the run, draws (infinite remoteness for the position, 0 for a
// move, as GamesmanOne writes it), and each move's strings against the
// board it leads to.
func TestDshogiWalk(t *testing.T) {
	o := solved(t, "dshogi", "pieces=LC", false)
	s := server(t, o)
	var v struct{ ID, StartPosition string }
	getJSON(t, s, "/dshogi/lc/", &v)
	if v.StartPosition != "1_-l--c--C--L-_000_000" {
		t.Fatalf("start %q", v.StartPosition)
	}
	draws := 0
	walk(t, s, "dshogi", "lc", v.StartPosition, 2000, func(a *position) {
		checkAgainstOracle(t, o, dshogiCodec{}, a)
		forest := a.Position[0] == '1'
		mine := func(c byte) bool { return c != '-' && (c < 'a') == forest }
		for _, m := range a.Moves {
			if m.PositionValue == "draw" {
				draws++
				if m.Remoteness != 0 {
					t.Fatalf("%s: move %s to a draw: remoteness %d, want 0 as GamesmanOne writes it", a.Position, m.Move, m.Remoteness)
				}
			}
			var from, to, typ, center int
			if _, err := fmt.Sscanf(m.AutoguiMove, "M_%d_%d_x", &from, &to); err == nil {
				if !mine(a.Position[2+from]) || a.Position[2+to] != '-' && mine(a.Position[2+to]) ||
					m.Position[2+from] != '-' || !mine(m.Position[2+to]) ||
					m.Move != strings.ToUpper(squareName(from)+" "+squareName(to)) {
					t.Fatalf("%s: move %s %s leads to %s", a.Position, m.Move, m.AutoguiMove, m.Position)
				}
				continue
			}
			if _, err := fmt.Sscanf(m.AutoguiMove, "A_%d_%d_y", &typ, &center); err != nil || typ < 0 || typ > 2 {
				t.Fatalf("%s: AutoGUI move %s", a.Position, m.AutoguiMove)
			}
			to = center - 18 - 12*typ
			letter := dshogiHand[typ]
			if !forest {
				letter += 'a' - 'A'
			}
			if to < 0 || to > 11 || a.Position[2+to] != '-' || m.Position[2+to] != letter || m.Move != string(letter)+" "+strings.ToUpper(squareName(to)) {
				t.Fatalf("%s: drop %s %s leads to %s", a.Position, m.Move, m.AutoguiMove, m.Position)
			}
		}
	})
	if draws == 0 {
		t.Error("no move to a draw seen")
	}
	raw := map[string]any{}
	getJSON(t, s, positionPath("dshogi", "lc", v.StartPosition), &raw)
	// GamesmanOne answers an empty "partMoves", which the UWAPI's
	// multipart_wrangle takes out.
	if _, ok := raw["partMoves"]; ok || raw["moves"] == nil {
		t.Errorf("answer %v: want moves and no partMoves", raw)
	}
}

// squareName names a square of the 3x4 board as GamesmanOne does, lower
// case.
func squareName(s int) string { return string(rune('a'+s%3)) + string(rune('1'+s/3)) }

// TestXiangqiWalk walks K+R v K+A (and K+R v K, K v K+A, K v K below it)
// under chinesechess: values against the run, draws (a move to one has
// remoteness 1, as the UWAPI's module writes it), each move against the
// board it leads to; a position of another material is refused.
func TestXiangqiWalk(t *testing.T) {
	o := solved(t, "xiangqi", "material=KRvKA", false)
	s := server(t, o)
	var g struct {
		Variants []struct{ ID, Name, GUI string }
	}
	getJSON(t, s, "/chinesechess/", &g)
	if len(g.Variants) != 1 || g.Variants[0].ID != "KRvKA" || g.Variants[0].GUI != "v2" {
		t.Fatalf("variants %+v", g.Variants)
	}
	var v struct{ StartPosition string }
	getJSON(t, s, "/chinesechess/KRvKA/", &v)
	draws, captures := 0, 0
	walk(t, s, "chinesechess", "KRvKA", v.StartPosition, 2000, func(a *position) {
		checkAgainstOracle(t, o, xiangqiCodec{}, a)
		for _, m := range a.Moves {
			if m.PositionValue == "draw" {
				draws++
				if m.Remoteness != 1 {
					t.Fatalf("%s: move %s to a draw: remoteness %d, want 1", a.Position, m.Move, m.Remoteness)
				}
			}
			var from, to int
			var sound byte
			if _, err := fmt.Sscanf(m.Move, "M_%d_%d_%c", &from, &to, &sound); err != nil || m.AutoguiMove != m.Move ||
				m.Position[2+to] != a.Position[2+from] || m.Position[2+from] != '-' ||
				(sound == 'y') != (a.Position[2+to] != '-') {
				t.Fatalf("%s: move %s leads to %s", a.Position, m.Move, m.Position)
			}
			if sound == 'y' {
				captures++
			}
		}
	})
	if draws == 0 || captures == 0 {
		t.Errorf("%d moves to draws, %d captures seen", draws, captures)
	}
	// K+N v K is not part of this run; K+R v K (a capture away) is.
	other := "1_" + strings.Repeat("-", 3) + "k" + strings.Repeat("-", 81) + "K" + "N" + strings.Repeat("-", 3)
	var e position
	getJSON(t, s, positionPath("chinesechess", "KRvKA", other), &e)
	if e.Error != "Invalid Position" {
		t.Errorf("K+N v K: %+v", e)
	}
	sub := "1_" + strings.Repeat("-", 3) + "k" + strings.Repeat("-", 81) + "K" + "R" + strings.Repeat("-", 3)
	var p position
	getJSON(t, s, positionPath("chinesechess", "KRvKA", sub), &p)
	if p.Error != "" || p.PositionValue != "win" {
		t.Errorf("K+R v K: %+v", p)
	}
}

// TestXiangqiRules answers K+R v K+N solved under rules=chessdb: a
// position the rules decided says so in "rule" with the plies within the
// decision as its remoteness (not the stored 4096 and up), so does a move
// into one; an ordinary position's answer has no "rule" and lists its
// mates before its rule wins. A walk from the start checks every answer
// against the run.
func TestXiangqiRules(t *testing.T) {
	o := solved(t, "xiangqi", "material=KRvKN,rules=chessdb", false)
	s := server(t, o)
	uwapi := func(text string) string {
		t.Helper()
		p, _, err := xiangqiCodec{}.fromText(text)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ask := func(text string) ([]byte, *position) {
		t.Helper()
		code, b := get(t, s, positionPath("chinesechess", "KRvKN", uwapi(text)))
		var a position
		if err := json.Unmarshal(b, &a); code != http.StatusOK || err != nil || a.Error != "" {
			t.Fatalf("%s: status %d, %v: %s", text, code, err, b)
		}
		checkAgainstOracle(t, o, xiangqiCodec{}, &a)
		return b, &a
	}
	check0 := tiergame.RuleInfo{Rule: "perpetual check", Round: 1, Plies: 0}
	check1 := tiergame.RuleInfo{Rule: "perpetual check", Round: 1, Plies: 1}

	// Black, checking for ever with its knight, has lost by the rules.
	b, a := ask("9/9/4k4/9/9/9/9/9/1n1K5/R8 b")
	if !bytes.HasSuffix(b, []byte(`"positionValue":"lose","remoteness":0,"rule":{"rule":"perpetual check","round":1,"plies":0}}`+"\n")) {
		t.Errorf("declared position: %s", b)
	}
	byPos := map[string]int{}
	for i, m := range a.Moves {
		byPos[m.Position] = i
	}
	knight := a.Moves[byPos[uwapi("9/9/4k4/9/9/9/2n6/9/3K5/R8 w")]]
	if knight.Rule == nil || *knight.Rule != check1 || knight.Remoteness != 1 || knight.PositionValue != "win" {
		t.Errorf("the knight's check b1c3: %+v", knight)
	}
	if king := a.Moves[byPos[uwapi("9/4k4/9/9/9/9/9/9/1n1K5/R8 w")]]; king.Rule != nil || king.Remoteness != 7 {
		t.Errorf("the king's e7e8: %+v", king)
	}
	if !bytes.Contains(b, []byte(`"positionValue":"win","remoteness":1,"rule":{"rule":"perpetual check","round":1,"plies":1}}`)) {
		t.Errorf("no move into a rule win in its JSON: %s", b)
	}

	// Red wins in 7 by mate; some of its moves win by the rules at once,
	// listed after every mate.
	b, a = ask("9/4k4/9/9/9/9/9/9/1n1K5/R8 w")
	if a.Rule != nil || !bytes.HasSuffix(b, []byte(`"positionValue":"win","remoteness":7}`+"\n")) {
		t.Errorf("ordinary position: %s", b)
	}
	mates, ruleWins := 0, 0
	for _, m := range a.Moves {
		switch {
		case m.MoveValue != "win":
		case m.Rule == nil:
			mates++
			if ruleWins > 0 {
				t.Errorf("mate %s after a rule win", m.Move)
			}
		default:
			ruleWins++
			if m.Remoteness != 0 || *m.Rule != check0 {
				t.Errorf("rule win %+v", m)
			}
		}
	}
	if mates == 0 || ruleWins == 0 || a.Moves[0].Remoteness != 6 || a.Moves[0].DeltaRemoteness != 0 {
		t.Errorf("%d mates, %d rule wins, first %+v", mates, ruleWins, a.Moves[0])
	}

	// Every answer near the start and near the declared position agrees
	// with the run.
	var v struct{ StartPosition string }
	getJSON(t, s, "/chinesechess/KRvKN/", &v)
	rulePositions, ruleMoves := 0, 0
	defer func() { t.Logf("%d positions and %d moves the rules decided", rulePositions, ruleMoves) }()
	for _, start := range []string{v.StartPosition, uwapi("9/9/4k4/9/9/9/9/9/1n1K5/R8 b")} {
		walk(t, s, "chinesechess", "KRvKN", start, 800, func(a *position) {
			checkAgainstOracle(t, o, xiangqiCodec{}, a)
			if a.Rule != nil {
				rulePositions++
			}
			for _, m := range a.Moves {
				if m.Rule != nil {
					ruleMoves++
				}
			}
		})
	}
	if rulePositions == 0 || ruleMoves == 0 {
		t.Errorf("walk: %d positions and %d moves the rules decided", rulePositions, ruleMoves)
	}
}

// TestXiangqiOrder checks the order the chinesechess module tries moves
// in, on the position it starts from: a chariot's moves up and down its
// file first (by rank from black's side), then along its rank.
func TestXiangqiOrder(t *testing.T) {
	text := "3k5/9/9/9/9/9/9/9/9/R3K4 w"
	board, _, err := xiangqiBoard(text)
	if err != nil {
		t.Fatal(err)
	}
	g, err := games.New("xiangqi", "material=KRvK")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := xiangqiCodec{}.moves(text, moveNames(t, g, text))
	if err != nil {
		t.Fatal(err)
	}
	sortByOrder(ms)
	var got []string
	for _, m := range ms {
		got = append(got, m.move)
	}
	// The chariot at a0 (point 81): a9 ... a1 (points 0, 9, ... 72), then
	// b0, c0, d0; then the general at e0 (point 85): f0 (86), e1 (76)
	// (d0 would face the black general).
	want := []string{"M_81_0_x", "M_81_9_x", "M_81_18_x", "M_81_27_x", "M_81_36_x", "M_81_45_x", "M_81_54_x", "M_81_63_x", "M_81_72_x",
		"M_81_82_x", "M_81_83_x", "M_81_84_x", "M_85_86_x", "M_85_76_x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("moves\n%v\nwant\n%v", got, want)
	}
	if string(board[81]) != "R" || string(board[3]) != "k" {
		t.Errorf("board %s", board)
	}
}

// codecCase is a UWAPI position string and what a codec should make of
// it. An empty text means the string is to be refused (by the codec or by
// the game's Parse); an empty autogui means the AutoGUI position is the
// UWAPI one.
type codecCase struct {
	uwapi, autogui, text string
	moves                []string // the first moves, as GamesmanOne names them
	autoMoves            []string // and their AutoGUI moves
}

// checkCodec checks one case against codec c of game g: the string reads
// to the text, the text's formatted form writes back to the same strings,
// and the first moves, in GamesmanOne's order, carry the names given.
func checkCodec(t *testing.T, g tiergame.Game, c codec, tc codecCase) {
	t.Helper()
	text, err := c.toText(tc.uwapi)
	if err == nil {
		_, _, err = g.Parse(text)
	}
	if tc.text == "" {
		if err == nil {
			t.Errorf("%s: accepted as %s", tc.uwapi, text)
		}
		return
	}
	if err != nil || text != tc.text {
		t.Errorf("%s: %q, %v, want %q", tc.uwapi, text, err, tc.text)
		return
	}
	autogui := tc.autogui
	if autogui == "" {
		autogui = tc.uwapi
	}
	tier, pos, _ := g.Parse(text)
	back, auto, err := c.fromText(g.Format(tier, pos))
	if err != nil || back != tc.uwapi || auto != autogui {
		t.Errorf("%s: back %q %q %v, want AutoGUI %q", tc.uwapi, back, auto, err, autogui)
	}
	ms, err := c.moves(text, moveNames(t, g, text))
	if err != nil {
		t.Fatal(err)
	}
	sortByOrder(ms)
	for i := range tc.moves {
		if ms[i].move != tc.moves[i] || ms[i].autogui != tc.autoMoves[i] {
			t.Errorf("%s: move %d: %+v, want %s %s", tc.uwapi, i, ms[i], tc.moves[i], tc.autoMoves[i])
		}
	}
}
