package universal

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/games/xiangqi"
	"github.com/tiersolve/tiersolve/tiergame"
)

// codec converts between a game's text form (tiergame.Game's Parse and
// Format, and its move names) and the strings GamesCrafters' back end uses
// for it.
type codec interface {
	// toText reads a UWAPI position string (the "position" field, which
	// GamesmanUni sends back as p) into the game's text form. It checks the
	// string's shape and alphabet; the game's Parse checks the rest.
	toText(p string) (string, error)
	// fromText returns the UWAPI position and AutoGUI position of a
	// position in the game's text form.
	fromText(text string) (position, autogui string, err error)
	// moves returns the UWAPI move, AutoGUI move and the back end's order
	// of each named move of the position text.
	moves(text string, names []string) ([]uwapiMove, error)
}

// uwapiMove is a move as the back end names it.
type uwapiMove struct {
	move, autogui string
	order         int // rank in the back end's move generation
}

// errShape is wrapped by codec errors for a string not of the game's form.
var errShape = errors.New("malformed position")

// describe returns the game and variant the API offers a run of g as, with
// the variant's codec.
func describe(g tiergame.Game) (*game, *variant, error) {
	opts, err := tiergame.ParseOptions(g.Option())
	if err != nil && g.Option() != "default" {
		return nil, nil, fmt.Errorf("options %q: %w", g.Option(), err)
	}
	switch g.Name() {
	case "tictactoe":
		return &game{id: "tictactoe", name: "Tic-Tac-Toe", gui: "v3", instructions: tictactoeRules},
			&variant{id: "regular", name: "Regular", gui: "v3", codec: tictactoeCodec{},
				drawMoveRemoteness: remotenessInfinity}, nil
	case "connect4":
		w, err1 := opts.Int("width", 7, 1, 7)
		h, err2 := opts.Int("height", 6, 1, 6)
		if err := errors.Join(err1, err2); err != nil {
			return nil, nil, err
		}
		// GamesmanClassic names its boards rows x columns ("6x7").
		id := fmt.Sprintf("%dx%d", h, w)
		return &game{id: "connect4", name: "Connect 4", gui: "v3", instructions: connect4Rules},
			&variant{id: id, name: id, gui: "v3", codec: connect4Codec{w: w, h: h},
				imageAutoGUI: connect4Images(w, h), drawMoveRemoteness: remotenessInfinity}, nil
	case "quixo":
		n, err := opts.Int("size", 4, 3, 5)
		if err != nil {
			return nil, nil, err
		}
		id := fmt.Sprintf("%dx%d", n, n)
		return &game{id: "quixo", name: "Quixo", gui: "v3", instructions: quixoRules},
			&variant{id: id, name: id, gui: "v3", codec: quixoCodec{n: n},
				imageAutoGUI: quixoImages(n)}, nil
	case "teeko":
		return &game{id: "teeko", name: "Teeko", gui: "v3", instructions: teekoRules},
			&variant{id: "standard", name: "Standard", gui: "v3", codec: teekoCodec{},
				imageAutoGUI: teekoImages()}, nil
	case "dshogi":
		pieces := opts["pieces"]
		id, name := "regular", "Regular"
		if pieces != "" && pieces != "LGEC" {
			// GamesCrafters has only the full game; smaller sets of
			// pieces get ids of our own.
			id, name = strings.ToLower(pieces), "Pieces "+pieces
		}
		return &game{id: "dshogi", name: "Dōbutsu shōgi", gui: "v3", instructions: dshogiRules},
			&variant{id: id, name: name, gui: "v3", codec: dshogiCodec{},
				imageAutoGUI: dshogiImages()}, nil
	case xiangqi.Name:
		xg, ok := g.(*xiangqi.Game)
		if !ok {
			return nil, nil, errors.New("not the bundled xiangqi")
		}
		m, one := xg.Material()
		if !one {
			return nil, nil, errors.New("the variant of every endgame has no start position to offer")
		}
		// GamesCrafters offers one variant, "regular", the whole game
		// from its opening, read from endgame tables; a run here is an
		// endgame and what its captures lead to, offered under its
		// material.
		id := m.String()
		return &game{id: "chinesechess", name: "Chinese Chess", gui: "v3", instructions: xiangqiRules},
			&variant{id: id, name: id + " endgame", gui: "v2", codec: xiangqiCodec{},
				imageAutoGUI: chineseChessImages(), drawMoveRemoteness: 1}, nil
	}
	return nil, nil, errors.New("the universal API has no id for this game")
}

// turnPrefix reads the "1_" or "2_" that starts a UWAPI position and
// returns the side (0 for the first player) and the rest.
func turnPrefix(p string) (int, string, error) {
	if len(p) < 2 || p[1] != '_' || (p[0] != '1' && p[0] != '2') {
		return 0, "", fmt.Errorf("%w: want 1_ or 2_ (the player to move) first", errShape)
	}
	return int(p[0] - '1'), p[2:], nil
}

// checkAlphabet checks that s has n bytes, each in alphabet.
func checkAlphabet(s string, n int, alphabet string) error {
	if len(s) != n {
		return fmt.Errorf("%w: the board has %d cells, want %d", errShape, len(s), n)
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(alphabet, s[i]) < 0 {
			return fmt.Errorf("%w: cell %d is %q, want one of %q", errShape, i, s[i], alphabet)
		}
	}
	return nil
}

// rows cuts board into rows of w cells separated by '/', mapping each
// byte through m.
func rows(board string, w int, m func(byte) byte) string {
	var b strings.Builder
	for i := 0; i < len(board); i++ {
		if i > 0 && i%w == 0 {
			b.WriteByte('/')
		}
		b.WriteByte(m(board[i]))
	}
	return b.String()
}

// unrows joins rows separated by '/' (checking there are h of w cells),
// mapping each byte through m.
func unrows(text string, w, h int, m func(byte) (byte, bool)) (string, error) {
	rs := strings.Split(text, "/")
	if len(rs) != h {
		return "", fmt.Errorf("%w: %d rows, want %d", errShape, len(rs), h)
	}
	b := make([]byte, 0, w*h)
	for _, r := range rs {
		if len(r) != w {
			return "", fmt.Errorf("%w: row %q, want %d cells", errShape, r, w)
		}
		for i := 0; i < len(r); i++ {
			c, ok := m(r[i])
			if !ok {
				return "", fmt.Errorf("%w: cell %q", errShape, r[i])
			}
			b = append(b, c)
		}
	}
	return string(b), nil
}

// cellOf reads a cell name, column letter and row number from the top
// ("b3"), on a board w cells wide and h high, as a row-major index.
func cellOf(s string, w, h int) (int, error) {
	if len(s) != 2 || s[0] < 'a' || int(s[0]-'a') >= w || s[1] < '1' || int(s[1]-'1') >= h {
		return 0, fmt.Errorf("%w: cell %q", errShape, s)
	}
	return int(s[1]-'1')*w + int(s[0]-'a'), nil
}

// turnOf returns the side to move when x and o pieces alternate from x.
func turnOf(board string, x, o byte) int {
	nx, no := strings.Count(board, string(x)), strings.Count(board, string(o))
	if nx > no {
		return 1
	}
	return 0
}
