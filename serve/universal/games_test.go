package universal

import (
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
	walk(t, s, "connect4", "4x4", "1_"+strings.Repeat("-", 16), 3000, func(a *position) {
		checkAgainstOracle(t, o, c, a)
		mark := "XO"[a.Position[0]-'1']
		for _, m := range a.Moves {
			col, _ := strconv.Atoi(m.Move)
			var from, to int
			if _, err := fmtSscanf(m.AutoguiMove, "M_%d_%d_x", &from, &to); err != nil || from != 16+col-1 || to != from+4 {
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
	walk(t, s, "quixo", "3x3", "1_---------", 3000, func(a *position) {
		checkAgainstOracle(t, o, q, a)
		if want := strings.ReplaceAll(a.Position, "-", "B"); a.AutoguiPosition != want {
			t.Fatalf("%s: AutoGUI position %s", a.Position, a.AutoguiPosition)
		}
		mark := "XO"[a.Position[0]-'1']
		for _, m := range a.Moves {
			var src int
			var d byte
			if _, err := fmtSscanf(m.Move, "%d %c", &src, &d); err != nil {
				t.Fatalf("%s: move %q", a.Position, m.Move)
			}
			src--
			r, c := src/3, src%3
			end := map[byte]int{'R': r*3 + 2, 'L': r * 3, 'D': 6 + c, 'U': c}[d]
			if m.Position[2+end] != mark || (a.Position[2+src] != '-' && a.Position[2+src] != mark) {
				t.Fatalf("%s: move %s leads to %s", a.Position, m.Move, m.Position)
			}
			var from, to int
			if _, err := fmtSscanf(m.AutoguiMove, "M_%d_%d_x", &from, &to); err != nil || from != src {
				t.Fatalf("%s: move %s: AutoGUI move %s", a.Position, m.Move, m.AutoguiMove)
			}
			dx, dy := centers[to][0]-centers[from][0], centers[to][1]-centers[from][1]
			if ok := map[byte]bool{'R': dx > 0 && dy == 0, 'L': dx < 0 && dy == 0, 'D': dy > 0 && dx == 0, 'U': dy < 0 && dx == 0}[d]; !ok {
				t.Fatalf("%s: move %s: the arrow %s points (%v, %v)", a.Position, m.Move, m.AutoguiMove, dx, dy)
			}
		}
	})
}

// TestTeekoCodec checks Teeko's strings against GamesmanOne's forms: the
// start, drops as points from 0, moves as two points.
func TestTeekoCodec(t *testing.T) {
	g, err := games.New("teeko", "")
	if err != nil {
		t.Fatal(err)
	}
	c := teekoCodec{}
	for _, tc := range []struct {
		uwapi, text string
		moves       []string // the first moves, as GamesmanOne names them
		autogui     []string
	}{
		{"1_-------------------------", "x:...../...../...../...../.....", []string{"0", "1", "2"}, []string{"A_-_0_y", "A_-_1_y", "A_-_2_y"}},
		{"2_X-----------------------O", "", nil, nil}, // not O's turn with one X
		{"2_XX---OO---------XX----O-O", "o:xx.../oo.../...../.xx../..o.o", []string{"5 10", "5 11", "6 2"}, []string{"M_5_10_x", "M_5_11_x", "M_6_2_x"}},
	} {
		text, err := c.toText(tc.uwapi)
		if err == nil {
			_, _, err = g.Parse(text)
		}
		if tc.text == "" {
			if err == nil {
				t.Errorf("%s: accepted as %s", tc.uwapi, text)
			}
			continue
		}
		if err != nil || text != tc.text {
			t.Errorf("%s: %q, %v, want %q", tc.uwapi, text, err, tc.text)
			continue
		}
		tier, pos, _ := g.Parse(text)
		back, auto, err := c.fromText(g.Format(tier, pos))
		if err != nil || back != tc.uwapi || auto != tc.uwapi {
			t.Errorf("%s: back %q %q %v", tc.uwapi, back, auto, err)
		}
		ms, err := c.moves(text, moveNames(t, g, text))
		if err != nil {
			t.Fatal(err)
		}
		sortByOrder(ms)
		for i := range tc.moves {
			if ms[i].move != tc.moves[i] || ms[i].autogui != tc.autogui[i] {
				t.Errorf("%s: move %d: %+v, want %s %s", tc.uwapi, i, ms[i], tc.moves[i], tc.autogui[i])
			}
		}
	}
}

// TestDshogiCodec checks Dōbutsu shōgi's strings against GamesmanOne's
// forms.
func TestDshogiCodec(t *testing.T) {
	g, err := games.New("dshogi", "")
	if err != nil {
		t.Fatal(err)
	}
	c := dshogiCodec{}
	for _, tc := range []struct {
		uwapi, autogui, text string
		moves                []string
		autoMoves            []string
	}{
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
		text, err := c.toText(tc.uwapi)
		if err == nil {
			_, _, err = g.Parse(text)
		}
		if tc.text == "" {
			if err == nil {
				t.Errorf("%s: accepted as %s", tc.uwapi, text)
			}
			continue
		}
		if err != nil || text != tc.text {
			t.Errorf("%s: %q, %v, want %q", tc.uwapi, text, err, tc.text)
			continue
		}
		tier, pos, _ := g.Parse(text)
		back, auto, err := c.fromText(g.Format(tier, pos))
		if err != nil || back != tc.uwapi || auto != tc.autogui {
			t.Errorf("%s: back %q %q %v, want AutoGUI %q", tc.uwapi, back, auto, err, tc.autogui)
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
