package universal

import (
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/internal/xq"
)

// dshogiCodec is Dōbutsu shōgi as GamesmanOne's dshogi (UWAPI game
// "dshogi", variant "regular"): the position "1_" (forest, upper case, to
// move) or "2_", the 12 squares row by row from the top ('-' empty, L G E
// C H forest, l g e c h sky), '_', the forest's hand as three digits
// (giraffes, elephants, chicks), '_' and the sky's ("1_gle-c--C-ELG_000_000").
// The AutoGUI position is the turn, the squares and six characters for the
// hands, one per type and side: '-' for none, else the piece letter for one
// and another letter for two (G/B, E/A, C/D; g/b, e/a, c/d). A move is
// "B3 B2" (squares by column A-C and row 1-4 from the top) or a drop "G
// B2" (lower case for the sky), its AutoGUI move "M_7_4_x", or
// "A_T_C_y" for a drop of type T (0 giraffe, 1 elephant, 2 chick) on
// center C = 12*T + square + 18. GamesmanOne lists moves by square from,
// then square to, then drops by type and square.
type dshogiCodec struct{}

// dshogiHand are the hand types in GamesmanOne's order.
const dshogiHand = "GEC"

func (dshogiCodec) toText(p string) (string, error) {
	turn, rest, err := turnPrefix(p)
	if err != nil {
		return "", err
	}
	if len(rest) != 20 || rest[12] != '_' || rest[16] != '_' {
		return "", fmt.Errorf("%w: want TURN_SQUARES_GEC_gec, as 1_gle-c--C-ELG_000_000", errShape)
	}
	if err := checkAlphabet(rest[:12], 12, "LlGgEeCcHh-"); err != nil {
		return "", err
	}
	var hands strings.Builder
	for side, digits := range []string{rest[13:16], rest[17:20]} {
		for i := range 3 {
			n := digits[i]
			if n < '0' || n > '2' {
				return "", fmt.Errorf("%w: a hand holds 0 to 2 of a type, not %q", errShape, n)
			}
			letter := dshogiHand[i]
			if side == 1 {
				letter += 'a' - 'A'
			}
			hands.WriteString(strings.Repeat(string(letter), int(n-'0')))
		}
	}
	h := hands.String()
	if h == "" {
		h = "-"
	}
	return "FS"[turn:turn+1] + ":" + rows(rest[:12], 3, func(c byte) byte {
		if c == '-' {
			return '.'
		}
		return c
	}) + ":" + h, nil
}

func (dshogiCodec) fromText(text string) (string, string, error) {
	parts := strings.Split(text, ":")
	if len(parts) != 3 || (parts[0] != "F" && parts[0] != "S") {
		return "", "", fmt.Errorf("%w: want SIDE:ROWS:HANDS", errShape)
	}
	board, err := unrows(parts[1], 3, 4, func(b byte) (byte, bool) {
		if b == '.' {
			return '-', true
		}
		return b, strings.IndexByte("LlGgEeCcHh", b) >= 0
	})
	if err != nil {
		return "", "", err
	}
	var count [2][3]int
	if parts[2] != "-" {
		for i := 0; i < len(parts[2]); i++ {
			c := parts[2][i]
			side := 0
			if c >= 'a' {
				side, c = 1, c-('a'-'A')
			}
			t := strings.IndexByte(dshogiHand, c)
			if t < 0 || count[side][t] == 2 {
				return "", "", fmt.Errorf("%w: hand %q", errShape, parts[2])
			}
			count[side][t]++
		}
	}
	turn := "1_"
	if parts[0] == "S" {
		turn = "2_"
	}
	pos := turn + board + fmt.Sprintf("_%d%d%d_%d%d%d", count[0][0], count[0][1], count[0][2], count[1][0], count[1][1], count[1][2])
	// One and two of each type, forest then sky.
	marks := [2][3]string{{"GB", "EA", "CD"}, {"gb", "ea", "cd"}}
	auto := turn + board
	for side := range 2 {
		for t := range 3 {
			if n := count[side][t]; n == 0 {
				auto += "-"
			} else {
				auto += marks[side][t][n-1 : n]
			}
		}
	}
	return pos, auto, nil
}

func (dshogiCodec) moves(text string, names []string) ([]uwapiMove, error) {
	out := make([]uwapiMove, len(names))
	sq := func(s string) (int, string, error) {
		c, err := cellOf(s, 3, 4)
		return c, strings.ToUpper(s), err
	}
	for i, n := range names {
		if len(n) < 4 {
			return nil, fmt.Errorf("%w: move %q", errShape, n)
		}
		if n[1] == '*' {
			t := strings.IndexByte(dshogiHand, strings.ToUpper(n[:1])[0])
			to, name, err := sq(n[2:])
			if err != nil || t < 0 {
				return nil, fmt.Errorf("%w: drop %q", errShape, n)
			}
			out[i] = uwapiMove{move: n[:1] + " " + name, autogui: fmt.Sprintf("A_%d_%d_y", t, 12*t+to+18), order: (12+t)*12 + to}
			continue
		}
		if len(n) < 6 {
			return nil, fmt.Errorf("%w: move %q", errShape, n)
		}
		from, a, err1 := sq(n[1:3])
		to, b, err2 := sq(n[4:6])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w: move %q", errShape, n)
		}
		out[i] = uwapiMove{move: a + " " + b, autogui: fmt.Sprintf("M_%d_%d_x", from, to), order: from*12 + to}
	}
	return out, nil
}

// xiangqiCodec is xiangqi as the UWAPI's own chinesechess module: the
// position "1_" (red to move) or "2_" then the 90 points rank by rank from
// black's back rank, each file a to i, '-' empty, K A B N R C P red, lower
// case black, the same string as the AutoGUI position. A move is "M_S_T_x"
// from point S to point T (from 0, in the same order), 'y' instead of 'x'
// for a capture; its AutoGUI move the same. The module lists the moves by
// point from, then in the order its piece's steps are tried.
type xiangqiCodec struct{}

const xiangqiPieces = "KABNRCPkabnrcp"

func (xiangqiCodec) toText(p string) (string, error) {
	turn, board, err := turnPrefix(p)
	if err != nil {
		return "", err
	}
	if err := checkAlphabet(board, 90, xiangqiPieces+"-"); err != nil {
		return "", err
	}
	var b strings.Builder
	for r := range 10 {
		if r > 0 {
			b.WriteByte('/')
		}
		empty := 0
		for f := range 9 {
			c := board[r*9+f]
			if c == '-' {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(c)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
	}
	b.WriteString([]string{" w", " b"}[turn])
	return b.String(), nil
}

// xiangqiBoard returns the 90 points of a FEN, as the UWAPI writes them,
// and the side to move (0 red).
func xiangqiBoard(text string) ([]byte, int, error) {
	b, side, err := xq.ParseFEN(text)
	if err != nil {
		return nil, 0, err
	}
	out := make([]byte, 90)
	for r := range 10 {
		for f := range 9 {
			c := byte('-')
			if p := b.At(xq.At(f, 9-r)); p != xq.NoPiece {
				c = p.Letter()
			}
			out[r*9+f] = c
		}
	}
	turn := 0
	if side != xq.Red {
		turn = 1
	}
	return out, turn, nil
}

func (xiangqiCodec) fromText(text string) (string, string, error) {
	board, turn, err := xiangqiBoard(text)
	if err != nil {
		return "", "", err
	}
	p := string(rune('1'+turn)) + "_" + string(board)
	return p, p, nil
}

// xiangqiSteps are the steps (rows down, files right) of each kind of
// piece in the order chinesechess.py's all_moves tries them; rooks and
// cannons are listed by the point they reach instead.
var xiangqiSteps = map[byte][][2]int{
	'B': {{2, 2}, {2, -2}, {-2, 2}, {-2, -2}},
	'N': {{-2, 1}, {-1, 2}, {1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}},
	'A': {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}},
	'K': {{0, 1}, {0, -1}, {1, 0}, {-1, 0}},
	'P': {{0, 1}, {0, -1}, {1, 0}, {-1, 0}},
}

// xiangqiOrder ranks the move from point src to point dst among those its
// piece (letter kind, upper case) tries.
func xiangqiOrder(kind byte, src, dst int) int {
	sr, sf, dr, df := src/9, src%9, dst/9, dst%9
	if kind == 'R' || kind == 'C' {
		if df == sf {
			return dr // the file first, by row
		}
		return 10 + df // then the rank, by file
	}
	for i, s := range xiangqiSteps[kind] {
		if sr+s[0] == dr && sf+s[1] == df {
			return i
		}
	}
	return 31
}

// xiangqiPoint reads an ICCS point ("e0") as a UWAPI point index.
func xiangqiPoint(s string) (int, error) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'i' || s[1] < '0' || s[1] > '9' {
		return 0, fmt.Errorf("%w: point %q", errShape, s)
	}
	return (9-int(s[1]-'0'))*9 + int(s[0]-'a'), nil
}

func (xiangqiCodec) moves(text string, names []string) ([]uwapiMove, error) {
	board, _, err := xiangqiBoard(text)
	if err != nil {
		return nil, err
	}
	out := make([]uwapiMove, len(names))
	for i, n := range names {
		if len(n) != 4 {
			return nil, fmt.Errorf("%w: move %q", errShape, n)
		}
		src, err1 := xiangqiPoint(n[:2])
		dst, err2 := xiangqiPoint(n[2:])
		if err1 != nil || err2 != nil || board[src] == '-' {
			return nil, fmt.Errorf("%w: move %q", errShape, n)
		}
		sound := 'x'
		if board[dst] != '-' {
			sound = 'y'
		}
		m := fmt.Sprintf("M_%d_%d_%c", src, dst, sound)
		kind := strings.ToUpper(string(board[src]))[0]
		out[i] = uwapiMove{move: m, autogui: m, order: src*32 + xiangqiOrder(kind, src, dst)}
	}
	return out, nil
}
