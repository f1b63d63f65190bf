package tierdcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"text/tabwriter"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/gamecodecs/xg"
	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/review"
)

// reviewCubeFlags are review's flags of the cube in matches.
type reviewCubeFlags struct {
	metFile *string
	memory  *string
	set     func(name string) bool
}

func addReviewCubeFlags(fs *flag.FlagSet) *reviewCubeFlags {
	rf := &reviewCubeFlags{
		metFile: fs.String("met", met.DefaultFile, "gnubg's match equity table (XML), by which a match's decisions are judged"),
		memory:  fs.String("memory", "", "most memory one game's exact match evaluation may take (default 4GiB)"),
	}
	rf.set = func(name string) bool {
		found := false
		fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
		return found
	}
	return rf
}

// options returns the review's options for match f: the match equity
// table (none for a money session, nor when the default table is not
// installed and none was named).
func (rf *reviewCubeFlags) options(f *xg.File) (*review.Options, error) {
	opts := &review.Options{}
	if *rf.memory != "" {
		n, err := memsize.Parse(*rf.memory)
		if err != nil {
			return nil, cli.UsageError("--memory %q: %v", *rf.memory, err)
		}
		opts.MaxMemory = n
	}
	if h := f.MatchHeader(); h == nil || h.Unlimited() {
		return opts, nil
	}
	t, err := met.ReadFile(*rf.metFile)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !rf.set("met"):
		return opts, nil // the report says which decisions that leaves out
	case err != nil:
		return nil, err
	}
	opts.Table = t
	return opts, nil
}

// printCubeReview prints a review's cube decisions and the totals.
func printCubeReview(w io.Writer, rep *review.Report) {
	if len(rep.CubeDecisions) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "game\tplayer\tposition\tcube\tscore\taction\tright\tno double\tdouble/take\tdouble/pass\tlost\ttake lost\tmeasure")
		for _, d := range rep.CubeDecisions {
			score := "money"
			if d.Measure == review.MWC {
				score = fmt.Sprintf("%d-%d", d.Score[0], d.Score[1])
				if d.Crawford {
					score += " Crawford"
				}
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d %s\t%s\t%s\t%s\t%s\t%s\t%s\t%.4f\t%.4f\t%s\n", d.Game, rep.Totals[d.Player-1].Name, d.Position,
				d.Cube, d.CubeState, score, d.Action, d.Right, value(d.Measure, d.NoDouble), value(d.Measure, d.DoubleTake), value(d.Measure, d.DoublePass),
				d.Lost, d.TakeLost, d.Measure)
		}
		tw.Flush()
	}
	for _, t := range rep.Totals {
		fmt.Fprintf(w, "%s: %d bearoff plays, %d lost something: %.4f equity", t.Name, t.Decisions, t.Errors, t.Lost)
		if !rep.Money {
			fmt.Fprintf(w, ", %.4f match winning chance", t.LostMWC)
		}
		fmt.Fprintf(w, "; %d cube decisions, %d lost something: %.4f equity", t.CubeDecisions, t.CubeErrors, t.CubeLost)
		if !rep.Money {
			fmt.Fprintf(w, ", %.4f match winning chance", t.CubeLostMWC)
		}
		fmt.Fprintln(w)
	}
	if rep.Table != "" {
		fmt.Fprintf(w, "match decisions judged by match winning chance with %s\n", rep.Table)
	}
}

// value formats a value of a review: an equity with its sign, a match
// winning chance without.
func value(measure string, v float64) string {
	if measure == review.MWC {
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%+.4f", v)
}
