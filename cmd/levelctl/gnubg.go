package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tiersolve/tiersolve/internal/cli"
	"io"
	"strings"

	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
)

func init() {
	program.Register(&cli.Command{
		Name:    "gnubg",
		Usage:   "gnubg decode [--json] ID... | gnubg encode < JSON-lines",
		Summary: "decode and encode GNU Backgammon position and match IDs",
		Run:     runGnubg,
	})
}

// runGnubg dispatches to decode or encode. Bad IDs or input lines are
// reported one line each on stderr; the others are still processed, and
// the command exits 1.
func runGnubg(e *cli.Env, args []string) error {
	if len(args) == 0 {
		return cli.UsageError("need decode or encode")
	}
	switch args[0] {
	case "decode":
		return gnubgDecode(e, args[1:])
	case "encode":
		return gnubgEncode(e, args[1:])
	case "-h", "-help", "--help":
		program.FlagSet(e, program.Command("gnubg")).Usage()
		return cli.ErrSilent
	}
	return cli.UsageError("unknown subcommand %q (want decode or encode)", args[0])
}

// gnubgJSON is the JSON form of a Position ID, a Match ID, or both.
type gnubgJSON struct {
	PosID string         `json:"posid,omitempty"`
	Board *gnubgid.Board `json:"board,omitempty"`
	*gnubgMatchJSON
}

type gnubgMatchJSON struct {
	MatchID     string `json:"matchid"`
	Cube        int    `json:"cube"`
	CubeOwner   int    `json:"cube_owner"`
	Move        int    `json:"move"`
	Crawford    bool   `json:"crawford"`
	GameState   int    `json:"game_state"`
	Turn        int    `json:"turn"`
	Doubled     bool   `json:"doubled"`
	Resigned    int    `json:"resigned"`
	Dice        [2]int `json:"dice"`
	MatchLength int    `json:"match_length"`
	Score       [2]int `json:"score"`
	Jacoby      bool   `json:"jacoby"`
}

func matchJSON(id string, m gnubgid.Match) *gnubgMatchJSON {
	return &gnubgMatchJSON{
		MatchID: id, Cube: m.Cube, CubeOwner: m.CubeOwner, Move: m.Move, Crawford: m.Crawford,
		GameState: m.GameState, Turn: m.Turn, Doubled: m.Doubled, Resigned: m.Resigned,
		Dice: m.Dice, MatchLength: m.MatchLength, Score: m.Score, Jacoby: m.Jacoby,
	}
}

// decodeGnubgID decodes a Position ID (14 characters), a Match ID (12) or
// the combined POSID:MATCHID form.
func decodeGnubgID(id string) (gnubgJSON, error) {
	var out gnubgJSON
	switch {
	case strings.Contains(id, ":"):
		b, m, err := gnubgid.DecodeCombined(id)
		if err != nil {
			return out, fmt.Errorf("ID %q: %w", id, err)
		}
		pos, _, _ := strings.Cut(id, ":")
		out.PosID, out.Board = pos, &b
		out.gnubgMatchJSON = matchJSON(id[len(pos)+1:], m)
	case len(id) == gnubgid.PositionIDLen:
		b, err := gnubgid.DecodePosition(id)
		if err != nil {
			return out, err
		}
		out.PosID, out.Board = id, &b
	case len(id) == gnubgid.MatchIDLen:
		m, err := gnubgid.DecodeMatch(id)
		if err != nil {
			return out, err
		}
		out.gnubgMatchJSON = matchJSON(id, m)
	default:
		return out, fmt.Errorf("ID %q: %d characters, neither a position ID (14) nor a match ID (12)", id, len(id))
	}
	return out, nil
}

func gnubgDecode(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("gnubg"))
	asJSON := fs.Bool("json", false, "print one JSON object per ID")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.UsageError("need at least one ID")
	}
	failed := false
	for i, id := range fs.Args() {
		v, err := decodeGnubgID(id)
		if err != nil {
			fmt.Fprintf(e.Stderr, "levelctl gnubg: %v\n", err)
			failed = true
			continue
		}
		if *asJSON {
			line, err := json.Marshal(v)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.Stdout, "%s\n", line)
			continue
		}
		if i > 0 {
			fmt.Fprintln(e.Stdout)
		}
		writeGnubgText(e.Stdout, v)
	}
	if failed {
		return cli.ErrSilent
	}
	return nil
}

// writeGnubgText prints a decoded ID for people: the board from the
// point of view of the side on roll (X), and the match fields.
func writeGnubgText(w io.Writer, v gnubgJSON) {
	if v.Board != nil {
		b := v.Board
		fmt.Fprintf(w, "Position ID %s\n", v.PosID)
		fmt.Fprintln(w, "X = side on roll (board[1]), O = side not on roll (board[0]); points numbered for X")
		// cell shows what stands on X's point p: X's checkers are
		// b[1][p-1], O's are on O's point 25-p, b[0][24-p].
		cell := func(p int) string {
			switch x, o := b[1][p-1], b[0][24-p]; {
			case x > 0:
				return fmt.Sprintf("%2dX", x)
			case o > 0:
				return fmt.Sprintf("%2dO", o)
			}
			return "  ."
		}
		row := func(points []int) {
			for i, p := range points {
				if i == 6 {
					fmt.Fprint(w, " |")
				}
				fmt.Fprint(w, cell(p))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, " 13 14 15 16 17 18 | 19 20 21 22 23 24")
		row([]int{13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24})
		row([]int{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1})
		fmt.Fprintln(w, " 12 11 10  9  8  7 |  6  5  4  3  2  1")
		off := func(side [25]int) int {
			n := gnubgid.MaxCheckers
			for _, c := range side {
				n -= c
			}
			return n
		}
		fmt.Fprintf(w, "bar: X %d, O %d   off: X %d, O %d\n", b[1][24], b[0][24], off(b[1]), off(b[0]))
	}
	if m := v.gnubgMatchJSON; m != nil {
		owner := "centred"
		if m.CubeOwner >= 0 {
			owner = fmt.Sprintf("player %d", m.CubeOwner)
		}
		length := "money game"
		if m.MatchLength > 0 {
			length = fmt.Sprintf("%d-point match, score %d-%d", m.MatchLength, m.Score[0], m.Score[1])
		}
		states := []string{"no game", "playing", "game over", "resigned", "cube dropped"}
		fmt.Fprintf(w, "Match ID %s\n", m.MatchID)
		fmt.Fprintf(w, "  %s\n", length)
		fmt.Fprintf(w, "  cube %d, owner %s, doubled %v\n", m.Cube, owner, m.Doubled)
		fmt.Fprintf(w, "  on roll: player %d, turn: player %d, dice %d-%d\n", m.Move, m.Turn, m.Dice[0], m.Dice[1])
		fmt.Fprintf(w, "  game state %d (%s), resigned %d, Crawford %v, Jacoby %v\n",
			m.GameState, states[m.GameState], m.Resigned, m.Crawford, m.Jacoby)
	}
}

// gnubgInput is one line read by "gnubg encode". Pointer fields tell
// which parts are present; posid and matchid are accepted and ignored,
// so decode's output can be fed back.
type gnubgInput struct {
	PosID       string    `json:"posid"`
	Board       [][]int   `json:"board"`
	MatchID     string    `json:"matchid"`
	Cube        *int      `json:"cube"`
	CubeOwner   *int      `json:"cube_owner"`
	Move        *int      `json:"move"`
	Crawford    *flexBool `json:"crawford"`
	GameState   *int      `json:"game_state"`
	Turn        *int      `json:"turn"`
	Doubled     *flexBool `json:"doubled"`
	Resigned    *int      `json:"resigned"`
	Dice        *[2]int   `json:"dice"`
	MatchLength *int      `json:"match_length"`
	Score       *[2]int   `json:"score"`
	Jacoby      *flexBool `json:"jacoby"`
}

// flexBool accepts true/false and 0/1.
type flexBool bool

func (f *flexBool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true", "1":
		*f = true
	case "false", "0":
		*f = false
	default:
		return fmt.Errorf("want true, false, 0 or 1, got %s", b)
	}
	return nil
}

// match builds the Match of a line; ok is false when the line has no
// match fields. A missing cube is 1 and a missing owner is centred.
func (in *gnubgInput) match() (m gnubgid.Match, ok bool) {
	m = gnubgid.Match{Cube: 1, CubeOwner: -1}
	setInt := func(dst *int, src *int) {
		if src != nil {
			*dst, ok = *src, true
		}
	}
	setBool := func(dst *bool, src *flexBool) {
		if src != nil {
			*dst, ok = bool(*src), true
		}
	}
	setInt(&m.Cube, in.Cube)
	setInt(&m.CubeOwner, in.CubeOwner)
	setInt(&m.Move, in.Move)
	setBool(&m.Crawford, in.Crawford)
	setInt(&m.GameState, in.GameState)
	setInt(&m.Turn, in.Turn)
	setBool(&m.Doubled, in.Doubled)
	setInt(&m.Resigned, in.Resigned)
	if in.Dice != nil {
		m.Dice, ok = *in.Dice, true
	}
	setInt(&m.MatchLength, in.MatchLength)
	if in.Score != nil {
		m.Score, ok = *in.Score, true
	}
	setBool(&m.Jacoby, in.Jacoby)
	return m, ok
}

// encodeGnubgLine turns one JSON object into a Position ID, a Match ID or
// POSID:MATCHID, depending on which fields it has.
func encodeGnubgLine(line []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var in gnubgInput
	if err := dec.Decode(&in); err != nil {
		return "", err
	}
	if dec.More() {
		return "", errors.New("more than one JSON value")
	}
	m, hasMatch := in.match()
	var b gnubgid.Board
	if in.Board != nil {
		if len(in.Board) != 2 || len(in.Board[0]) != 25 || len(in.Board[1]) != 25 {
			return "", errors.New("board must be two arrays of 25 counts")
		}
		copy(b[0][:], in.Board[0])
		copy(b[1][:], in.Board[1])
	}
	switch {
	case in.Board != nil && hasMatch:
		return gnubgid.EncodeCombined(b, m)
	case in.Board != nil:
		return gnubgid.EncodePosition(b)
	case hasMatch:
		return gnubgid.EncodeMatch(m)
	}
	return "", errors.New("neither a board nor match fields")
}

func gnubgEncode(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("gnubg"))
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("encode reads JSON lines on stdin and takes no arguments")
	}
	sc := bufio.NewScanner(e.Stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	failed := false
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		id, err := encodeGnubgLine(line)
		if err != nil {
			fmt.Fprintf(e.Stderr, "levelctl gnubg: stdin line %d: %v\n", n, err)
			failed = true
			continue
		}
		fmt.Fprintln(e.Stdout, id)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("stdin: %w", err)
	}
	if failed {
		return cli.ErrSilent
	}
	return nil
}
