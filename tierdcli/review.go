package tierdcli

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"text/tabwriter"

	"github.com/tiersolve/tiersolve/gamecodecs/egf"
	"github.com/tiersolve/tiersolve/gamecodecs/xg"
	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/review"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

func (p *Program) runReview(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "review")
	db := fs.String("db", "", "solved run folder (bearoff for .xg matches, xiangqi for .egf games)")
	asJSON := fs.Bool("json", false, "print JSON")
	rf := addReviewCubeFlags(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *db == "" || fs.NArg() != 1 {
		return cli.UsageError("need --db DIR and one FILE.xg or FILE.egf")
	}
	files := fs.Args()
	m, err := runfolder.LoadManifest(*db)
	if err != nil {
		return err
	}
	switch m.Game {
	case "xiangqi":
		return p.reviewXiangqi(e, *db, m, files[0], *asJSON)
	case "bearoff":
	default:
		return fmt.Errorf("%s holds a run of %s: review takes a bearoff run (.xg matches) or a xiangqi run (.egf games)", *db, m.Game)
	}
	tg, err := p.games.New(m.Game, m.Option)
	if err != nil {
		return err
	}
	g := tg.(*bearoff.Game)
	o, err := oracle.Open(*db, g)
	if err != nil {
		return err
	}
	defer o.Close()
	f, err := xg.Open(files[0])
	if err != nil {
		return err
	}
	opts, err := rf.options(f)
	if err != nil {
		return err
	}
	rep, err := review.Match(f, g, o, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	if *asJSON {
		return json.NewEncoder(e.Stdout).Encode(rep)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "game\tplayer\tposition\troll\tplayed\tvalue\tbest\tvalue\tlost\tmeasure")
	for _, d := range rep.Decisions {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.4f\t%s\n", d.Game, rep.Totals[d.Player-1].Name, d.Position, d.Roll,
			d.Played, value(d.Measure, d.Equity), d.Best, value(d.Measure, d.BestEquity), d.Lost, d.Measure)
	}
	tw.Flush()
	printCubeReview(e.Stdout, rep)
	if len(rep.NotCovered) > 0 {
		reasons := make([]string, 0, len(rep.Reasons))
		for r := range rep.Reasons {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		fmt.Fprintf(e.Stdout, "%d bearoff plays not covered by %s (%s):", len(rep.NotCovered), *db, m.Option)
		for _, r := range reasons {
			fmt.Fprintf(e.Stdout, " %d %s;", rep.Reasons[r], r)
		}
		fmt.Fprintln(e.Stdout)
	}
	return nil
}

// reviewXiangqi reviews the moves of an EGF game against a xiangqi run.
func (p *Program) reviewXiangqi(e *cli.Env, db string, m *runfolder.Manifest, file string, asJSON bool) error {
	g, err := p.games.New(m.Game, m.Option)
	if err != nil {
		return err
	}
	o, err := oracle.Open(db, g)
	if err != nil {
		return err
	}
	defer o.Close()
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	game, err := egf.Decode(f)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	rep, err := review.Xiangqi(game, g, o)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if asJSON {
		return json.NewEncoder(e.Stdout).Encode(rep)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ply\tside\tmove\tbefore\tafter\tbest\terror")
	for _, mv := range rep.Moves {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", mv.Ply, mv.Side, mv.Move, mv.Before, mv.After, mv.Best, mv.Error)
	}
	tw.Flush()
	for _, t := range rep.Totals {
		fmt.Fprintf(e.Stdout, "%s: %d moves reviewed, %d errors (%d wins thrown to a loss, %d to a draw, %d draws thrown to a loss, %d slower wins losing %d plies)\n",
			t.Side, t.Moves, t.Errors, t.WinToLoss, t.WinToDraw, t.DrawToLoss, t.SlowerWins, t.PliesLost)
	}
	if rep.NotCovered > 0 {
		reasons := make([]string, 0, len(rep.Reasons))
		for r := range rep.Reasons {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		fmt.Fprintf(e.Stdout, "%d moves from positions %s does not cover:", rep.NotCovered, db)
		for _, r := range reasons {
			fmt.Fprintf(e.Stdout, " %d %s;", rep.Reasons[r], r)
		}
		fmt.Fprintln(e.Stdout)
	}
	return nil
}
