package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/tiersolve/tiersolve/internal/cli"
	"io"
	"path/filepath"
	"strings"

	"github.com/tiersolve/tiersolve/gamecodecs/xg"
)

func init() {
	program.Register(&cli.Command{
		Name:    "xg",
		Usage:   "xg [--json | --positions] FILE",
		Summary: "print an eXtreme Gammon .xg/.xgp match: summary, records or positions",
		Run:     runXG,
	})
}

func runXG(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("xg"))
	asJSON := fs.Bool("json", false, "print one JSON object per record (JSON lines)")
	positions := fs.Bool("positions", false, "print one line per decision: POSID:MATCHID DICE MOVE")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cli.UsageError("need exactly one FILE")
	}
	if *asJSON && *positions {
		return cli.UsageError("--json and --positions exclude each other")
	}
	if err := needFile(fs.Arg(0)); err != nil {
		return err
	}
	f, err := xg.Open(fs.Arg(0)) // errors name the file
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.Stdout)
	switch {
	case *asJSON:
		err = writeXGJSON(e, w, f)
	case *positions:
		err = writeXGPositions(w, f)
	default:
		writeXGSummary(w, filepath.Base(fs.Arg(0)), f)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	return w.Flush()
}

// xgRecordJSON is one line of --json. Numbers are XG's own: players are
// 1 and -1, positions are PositionEngine as stored (26 counts).
type xgRecordJSON struct {
	Index int    `json:"index"`
	Type  string `json:"type"`

	// match_header
	Player1     string  `json:"player1,omitempty"`
	Player2     string  `json:"player2,omitempty"`
	MatchLength *int    `json:"match_length,omitempty"`
	Version     *int    `json:"version,omitempty"`
	Event       *string `json:"event,omitempty"`
	Round       string  `json:"round,omitempty"`
	Location    string  `json:"location,omitempty"`
	Date        string  `json:"date,omitempty"`
	Crawford    *bool   `json:"crawford,omitempty"`
	Jacoby      *bool   `json:"jacoby,omitempty"`

	// game_header, game_footer, match_footer
	Score1     *int `json:"score1,omitempty"`
	Score2     *int `json:"score2,omitempty"`
	GameNumber *int `json:"game_number,omitempty"`

	// cube and move
	Active      *int         `json:"active,omitempty"`
	Double      *int         `json:"double,omitempty"`
	Take        *int         `json:"take,omitempty"`
	Cube        *int         `json:"cube,omitempty"`
	Dice        *[2]int      `json:"dice,omitempty"`
	DiceRolled  *string      `json:"dice_rolled,omitempty"`
	Position    *xg.Position `json:"position,omitempty"`
	PositionEnd *xg.Position `json:"position_end,omitempty"`
	Moves       *[8]int      `json:"moves,omitempty"`
	Played      *bool        `json:"played,omitempty"`
	Move        *string      `json:"move,omitempty"`
	Action      *string      `json:"action,omitempty"`
	PosID       string       `json:"posid,omitempty"`
	MatchID     string       `json:"matchid,omitempty"`

	// game_footer, match_footer
	Winner      *int    `json:"winner,omitempty"`
	PointsWon   *int    `json:"points_won,omitempty"`
	Termination *int    `json:"termination,omitempty"`
	Ending      *string `json:"ending,omitempty"`
}

// xgRef returns a pointer to v, for the optional JSON fields.
func xgRef[T any](v T) *T { return &v }

func writeXGJSON(e *cli.Env, w io.Writer, f *xg.File) error {
	// The IDs are extras: a file whose positions gnubg cannot express (a
	// match over 64 points) still prints its records.
	ids := map[int]xg.Decision{}
	if ds, err := f.Decisions(); err != nil {
		e.Log.Warn("no gnubg IDs", "err", err)
	} else {
		for _, d := range ds {
			ids[d.Record] = d
		}
	}
	enc := json.NewEncoder(w)
	for i, r := range f.Records {
		out := xgRecordJSON{Index: i, Type: r.Type().String()}
		switch r := r.(type) {
		case *xg.MatchHeader:
			out.Player1, out.Player2 = r.PlayerName(1), r.PlayerName(2)
			out.MatchLength, out.Version, out.Event = xgRef(r.MatchLength), xgRef(r.Version), xgRef(r.EventName())
			out.Round, out.Location = r.Round, r.Location
			if t := r.Date.Time(); !t.IsZero() {
				out.Date = t.Format("2006-01-02T15:04:05")
			}
			out.Crawford, out.Jacoby = xgRef(r.Crawford), xgRef(r.Jacoby)
		case *xg.GameHeader:
			out.Score1, out.Score2, out.GameNumber, out.Crawford = xgRef(r.Score1), xgRef(r.Score2), xgRef(r.GameNumber), xgRef(r.CrawfordApply)
		case *xg.CubeEntry:
			out.Active, out.Double, out.Take, out.Cube = xgRef(r.Actif), xgRef(r.Double), xgRef(r.Take), xgRef(r.CubeB)
			out.DiceRolled, out.Position = xgRef(r.DiceRolled), xgRef(r.Position)
			if a := r.CubeAction(); a != "" {
				out.Action = &a
			}
		case *xg.MoveEntry:
			out.Active, out.Dice, out.Cube = xgRef(r.ActifP), xgRef(r.Dice), xgRef(r.CubeA)
			out.Position, out.PositionEnd, out.Moves, out.Played = xgRef(r.PositionI), xgRef(r.PositionEnd), xgRef(r.Moves), xgRef(r.Played)
			if d, ok := ids[i]; ok {
				out.Move = xgRef(d.Move)
			}
		case *xg.GameFooter:
			out.Winner, out.PointsWon, out.Score1, out.Score2 = xgRef(r.Winner), xgRef(r.PointsWon), xgRef(r.Score1), xgRef(r.Score2)
			out.Termination, out.Ending = xgRef(r.Termination), xgRef(r.Ending())
		case *xg.MatchFooter:
			out.Score1, out.Score2, out.Winner = xgRef(r.Score1), xgRef(r.Score2), xgRef(r.Winner)
		}
		if d, ok := ids[i]; ok {
			out.PosID, out.MatchID = d.PositionID, d.MatchID
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return nil
}

// writeXGPositions prints each decision as "POSID:MATCHID DICE MOVE": the
// dice as rolled ("-" before a cube decision) and the checker play in
// gnubg's notation or the cube action.
func writeXGPositions(w io.Writer, f *xg.File) error {
	ds, err := f.Decisions()
	if err != nil {
		return err
	}
	for _, d := range ds {
		dice, what := "-", d.Action
		if d.Kind == xg.TypeMove {
			dice, what = fmt.Sprintf("%d%d", d.Dice[0], d.Dice[1]), d.Move
			if what == "" {
				what = "(no move)"
			}
		}
		fmt.Fprintf(w, "%s:%s %s %s\n", d.PositionID, d.MatchID, dice, what)
	}
	return nil
}

func writeXGSummary(w io.Writer, name string, f *xg.File) {
	h := f.MatchHeader()
	p1, p2 := h.PlayerName(1), h.PlayerName(2)
	fmt.Fprintf(w, "%s: eXtreme Gammon file version %d\n", name, f.Version)
	fmt.Fprintf(w, "  %-11s %s vs %s\n", "players", p1, p2)
	length := "unlimited (money)"
	if !h.Unlimited() {
		length = fmt.Sprintf("%d points", h.MatchLength)
	}
	var rules []string
	for _, r := range []struct {
		on   bool
		name string
	}{{h.Crawford, "Crawford"}, {h.Jacoby, "Jacoby"}, {h.Beaver, "beavers"}, {h.AutoDouble, "automatic doubles"}} {
		if r.on {
			rules = append(rules, r.name)
		}
	}
	if len(rules) > 0 {
		length += ", " + strings.Join(rules, ", ")
	}
	fmt.Fprintf(w, "  %-11s %s\n", "match", length)
	for _, l := range []struct{ label, value string }{
		{"event", h.EventName()}, {"round", h.Round}, {"location", h.Location}, {"transcriber", h.Transcriber},
	} {
		if l.value != "" {
			fmt.Fprintf(w, "  %-11s %s\n", l.label, l.value)
		}
	}
	if t := h.Date.Time(); !t.IsZero() {
		fmt.Fprintf(w, "  %-11s %s\n", "date", t.Format("2006-01-02 15:04"))
	}
	var counts [8]int
	for _, r := range f.Records {
		counts[r.Type()]++
	}
	fmt.Fprintf(w, "  %-11s %d: %d games, %d cube, %d moves; %d rollouts, %d comments\n", "records",
		len(f.Records), counts[xg.TypeGameHeader], counts[xg.TypeCube], counts[xg.TypeMove], len(f.Rollouts), len(f.Comments))
	winnerName := func(winner int) string {
		if winner == 1 {
			return p1
		}
		return p2
	}
	var game *xg.GameHeader
	for _, r := range f.Records {
		switch r := r.(type) {
		case *xg.GameHeader:
			game = r
		case *xg.GameFooter:
			if game == nil {
				continue
			}
			crawford := ""
			if game.CrawfordApply {
				crawford = " (Crawford)"
			}
			fmt.Fprintf(w, "  game %-6d %d-%d%s: %s wins %d (%s), %d-%d\n", game.GameNumber, game.Score1, game.Score2, crawford,
				winnerName(r.Winner), r.PointsWon, r.Ending(), r.Score1, r.Score2)
		case *xg.MatchFooter:
			fmt.Fprintf(w, "  %-11s %s wins %d-%d\n", "result", winnerName(r.Winner), r.Score1, r.Score2)
		}
	}
}
