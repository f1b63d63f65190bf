package main

import (
	"encoding/json"
	"fmt"
	"github.com/tiersolve/tiersolve/internal/cli"
	"io"
	"os"

	"github.com/tiersolve/tiersolve/gamecodecs/egf"
)

func init() {
	program.Register(&cli.Command{
		Name:    "egf",
		Usage:   "egf [--json] FILE",
		Summary: "print the header, moves and positions of a Xie Xie EGF xiangqi game",
		Run:     runEGF,
	})
}

// egfJSON is the --json output. Header strings are raw bytes of unknown
// encoding; JSON shows invalid UTF-8 as U+FFFD.
type egfJSON struct {
	Event       string        `json:"event"`
	Site        string        `json:"site"`
	Date        string        `json:"date"`
	Round       string        `json:"round"`
	RedName     string        `json:"red_name"`
	RedElo      string        `json:"red_elo"`
	BlackName   string        `json:"black_name"`
	BlackElo    string        `json:"black_elo"`
	Result      string        `json:"result"`
	Description string        `json:"description"`
	Author      string        `json:"author"`
	TimeControl string        `json:"time_control"`
	StartSide   string        `json:"start_side"`
	MovesDone   int           `json:"moves_done"`
	Moves       []egfMoveJSON `json:"moves"`
	Positions   []string      `json:"positions"`
	Comments    []string      `json:"comments"`
}

type egfMoveJSON struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Captured int    `json:"captured"` // piece code, 0 if none
}

func runEGF(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("egf"))
	asJSON := fs.Bool("json", false, "print one JSON object")
	file, err := oneFile(fs, args, "FILE")
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return err // *PathError names the file
	}
	defer f.Close()
	g, err := egf.Decode(f)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	positions, err := g.Positions()
	if err != nil { // Decode replays the moves, so this cannot happen
		return fmt.Errorf("%s: %w", file, err)
	}
	if *asJSON {
		return writeEGFJSON(e.Stdout, g, positions)
	}
	writeEGFText(e.Stdout, g, positions)
	return nil
}

func writeEGFJSON(w io.Writer, g *egf.Game, positions []egf.Position) error {
	h := g.Header
	out := egfJSON{
		Event: h.Event, Site: h.Site, Date: h.Date, Round: h.Round,
		RedName: h.RedName, RedElo: h.RedElo, BlackName: h.BlackName, BlackElo: h.BlackElo,
		Result: h.Result.String(), Description: h.Description, Author: h.Author, TimeControl: h.TimeControl,
		StartSide: g.StartSide.String(), MovesDone: g.MovesDone,
		Moves: []egfMoveJSON{}, Positions: []string{}, Comments: []string{},
	}
	for _, m := range g.Moves {
		out.Moves = append(out.Moves, egfMoveJSON{From: m.From.String(), To: m.To.String(), Captured: int(m.Captured)})
	}
	for i := range positions {
		out.Positions = append(out.Positions, positions[i].FEN())
	}
	out.Comments = append(out.Comments, g.Comments...)
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func writeEGFText(w io.Writer, g *egf.Game, positions []egf.Position) {
	h := g.Header
	for _, f := range []struct{ name, value string }{
		{"Event", h.Event}, {"Site", h.Site}, {"Date", h.Date}, {"Round", h.Round},
		{"Red", h.RedName}, {"RedElo", h.RedElo}, {"Black", h.BlackName}, {"BlackElo", h.BlackElo},
		{"Description", h.Description}, {"Author", h.Author},
		{"TimeControl", h.TimeControl},
	} {
		fmt.Fprintf(w, "%-12s %q\n", f.name, f.value)
	}
	fmt.Fprintf(w, "%-12s %s\n", "Result", h.Result)
	fmt.Fprintf(w, "%-12s %s\n", "Start side", g.StartSide)
	fmt.Fprintf(w, "%-12s %d of %d\n", "Moves done", g.MovesDone, len(g.Moves))
	fmt.Fprintf(w, "\nStart position: %s\n%s", positions[0].FEN(), positions[0].Board.String())
	if len(g.Moves) > 0 {
		fmt.Fprintln(w, "\nMoves (position after each):")
	}
	for i, m := range g.Moves {
		before := &positions[i]
		piece := before.Board.At(m.From)
		capture := ""
		if m.Captured != 0 {
			capture = fmt.Sprintf(" x%c", m.Captured.Letter())
		}
		fmt.Fprintf(w, "%3d. %-5s %c %s-%s%-3s  %s\n", i+1, before.ToMove, piece.Letter(), m.From, m.To, capture, positions[i+1].FEN())
	}
	if len(positions) > 1 {
		last := &positions[len(positions)-1]
		fmt.Fprintf(w, "\nFinal position:\n%s", last.Board.String())
	}
	if len(g.Comments) > 0 {
		fmt.Fprintln(w, "\nComments:")
		for i, c := range g.Comments {
			fmt.Fprintf(w, "%3d. %q\n", i+1, c)
		}
	}
}
