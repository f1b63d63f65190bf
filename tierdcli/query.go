package tierdcli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/query"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

func (p *Program) runQuery(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "query")
	game := fs.String("game", "", "game (see "+p.Name()+" games)")
	option := fs.String("option", "", "game options, K=V,...")
	db := fs.String("db", "", "solved run folder")
	asJSON := fs.Bool("json", false, "print JSON")
	roll := fs.String("roll", "", "in a game with dice, list every play of this roll (31 or 13)")
	cube := addCubeFlags(fs)
	args, position := splitPosition(fs, args)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if position == "" && fs.NArg() == 1 {
		position = fs.Arg(0)
	} else if fs.NArg() > 0 {
		position = ""
	}
	if *db == "" || position == "" {
		return cli.UsageError("need --db and one POSITION")
	}
	// The game and its options default to the run's.
	if *game == "" || *option == "" {
		m, err := runfolder.LoadManifest(*db)
		if err != nil {
			return err
		}
		if *game == "" {
			*game = m.Game
		}
		if *option == "" && *game == m.Game {
			*option = m.Option
		}
	}
	g, err := p.games.New(*game, *option)
	if err != nil {
		return cli.UsageError("%v", err)
	}
	t, pos, err := query.Parse(g, position)
	if err != nil {
		return err
	}
	o, err := oracle.Open(*db, g)
	if err != nil {
		return err
	}
	defer o.Close()
	opts, err := cube.options(fs)
	if err != nil {
		return err
	}
	opts.Roll = *roll
	ans, err := query.Position(context.Background(), o, t, pos, opts)
	switch {
	case errors.Is(err, query.ErrBadOption):
		return cli.UsageError("%v", err)
	case errors.Is(err, query.ErrUnreachable):
		// Said with the position as typed, as tierd query always has.
		return fmt.Errorf("position %q (tier %s, hash %d) is not reachable from the start, so it was not solved", position, g.TierName(t), pos)
	case err != nil:
		return err
	}
	if *asJSON {
		return json.NewEncoder(e.Stdout).Encode(ans)
	}
	return ans.WriteText(e.Stdout)
}

// splitPosition takes the position off the end of args when it starts
// with '-' (tic-tac-toe's "---/-x-/---"), which the flag package would
// take for a flag: the last argument is the position unless it is a flag
// of fs or the value of one.
func splitPosition(fs *flag.FlagSet, args []string) (rest []string, position string) {
	n := len(args)
	if n == 0 || !strings.HasPrefix(args[n-1], "-") || isFlag(fs, args[n-1]) {
		return args, ""
	}
	if n >= 2 && isFlag(fs, args[n-2]) && !strings.Contains(args[n-2], "=") {
		if f := fs.Lookup(strings.TrimLeft(args[n-2], "-")); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				return args, "" // the value of a flag
			}
		}
	}
	return args[:n-1], args[n-1]
}

// isFlag reports whether arg names a flag of fs ("-json", "--db=DIR").
func isFlag(fs *flag.FlagSet, arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name != "" && fs.Lookup(name) != nil || arg == "--" || name == "h" || name == "help"
}

// verifyJSON is the JSON printed by verify --json.
type verifyJSON struct {
	Dir        string   `json:"dir"`
	OK         bool     `json:"ok"`
	Files      int      `json:"files_checked"`
	FileErrors []string `json:"file_errors"`
	Tiers      int      `json:"tiers_rederived"`
	Positions  uint64   `json:"positions_rederived"`
	Mismatches uint64   `json:"mismatches"`
	// RuleRederived: records the game's rules of play decided, given
	// again by their tier solved again, rule pass included; RuleDeclared:
	// those of them declared lost (solver.VerifyReport).
	RuleRederived uint64   `json:"rule_rederived,omitempty"`
	RuleDeclared  uint64   `json:"rule_declared,omitempty"`
	Examples      []string `json:"examples"`
	// Full, for a symmetric run, is the full game's positions by tier and
	// value that the canonical ones stand for (solver.VerifyReport.Full).
	Full []fullTier `json:"full_game,omitempty"`
}

// fullTier is one tier's positions of the full game, by value.
type fullTier struct {
	Tier      uint64 `json:"tier"`
	Name      string `json:"name"`
	Positions uint64 `json:"positions"`
	Win       uint64 `json:"win"`
	Lose      uint64 `json:"lose"`
	Tie       uint64 `json:"tie"`
	Draw      uint64 `json:"draw"`
}

func (p *Program) runVerify(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "verify")
	db := fs.String("db", "", "solved run folder")
	workers := fs.Int("workers", 0, "worker goroutines (default: all cores)")
	asJSON := fs.Bool("json", false, "print the result as JSON on stdout")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *db == "" || fs.NArg() > 0 {
		return cli.UsageError("need --db DIR")
	}
	m, err := runfolder.LoadManifest(*db)
	if err != nil {
		return err
	}
	g, err := p.games.New(m.Game, m.Option)
	if err != nil {
		return err
	}
	r, err := solver.Open(solver.Config{Game: g, Dir: *db, Workers: *workers, Symmetry: m.Symmetry, Log: e.Log, Terminal: e.Stderr})
	if err != nil {
		return err
	}
	defer r.Close()
	rep, err := r.Verify(context.Background())
	if err != nil {
		return err
	}
	out := verifyJSON{Dir: *db, OK: rep.OK(), Files: rep.Files, FileErrors: append([]string{}, rep.FileErrors...),
		Tiers: rep.Tiers, Positions: rep.Positions, Mismatches: rep.Mismatches, RuleRederived: rep.RuleRederived, RuleDeclared: rep.RuleDeclared, Examples: []string{}}
	for _, x := range rep.Examples {
		out.Examples = append(out.Examples, x.String())
	}
	for _, c := range rep.Full {
		out.Full = append(out.Full, fullTier{uint64(c.Tier), c.Name, c.Positions, c.Win, c.Lose, c.Tie, c.Draw})
	}
	if *asJSON {
		if err := json.NewEncoder(e.Stdout).Encode(out); err != nil {
			return err
		}
	} else {
		printVerify(e, p.Name(), out)
	}
	if !rep.OK() {
		return cli.ErrSilent
	}
	return nil
}

// printVerify says what verify checked and what it found.
func printVerify(e *cli.Env, prog string, v verifyJSON) {
	for _, f := range v.FileErrors {
		fmt.Fprintf(e.Stderr, "%s verify: %s\n", prog, f)
	}
	for _, x := range v.Examples {
		fmt.Fprintf(e.Stderr, "%s verify: %s: %s\n", prog, v.Dir, x)
	}
	switch {
	case len(v.FileErrors) > 0 && v.Tiers == 0:
		fmt.Fprintf(e.Stderr, "%s verify: %s: %d of %d files do not match the manifest, so no value was re-derived; %s solve --out %s redoes what is damaged\n",
			prog, v.Dir, len(v.FileErrors), v.Files, prog, v.Dir)
	case !v.OK:
		fmt.Fprintf(e.Stderr, "%s verify: %s: %d files checked, %d do not match the manifest; %d of %d positions in %d tiers do not match their children\n",
			prog, v.Dir, v.Files, len(v.FileErrors), v.Mismatches, v.Positions, v.Tiers)
	default:
		fmt.Fprintf(e.Stdout, "%s: ok: %d files match the manifest (size and SHA-256); %d positions in %d tiers re-derived from their children\n",
			v.Dir, v.Files, v.Positions, v.Tiers)
		if v.RuleRederived > 0 {
			fmt.Fprintf(e.Stdout, "  %d of them decided by the rules of play (%d declared lost), each given again by its tier solved again, rule pass included\n",
				v.RuleRederived, v.RuleDeclared)
		}
	}
	if len(v.Full) > 0 {
		printFullGame(e.Stdout, v.Full)
	}
}

// printFullGame prints a symmetric run's counts of the full game.
func printFullGame(w io.Writer, full []fullTier) {
	fmt.Fprintln(w, "the full game's positions, which the canonical ones stand for:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tier\tpositions\twin\tlose\ttie\tdraw\t")
	var sum fullTier
	for _, c := range full {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", c.Name, c.Positions, c.Win, c.Lose, c.Tie, c.Draw)
		sum.Positions, sum.Win, sum.Lose, sum.Tie, sum.Draw = sum.Positions+c.Positions, sum.Win+c.Win, sum.Lose+c.Lose, sum.Tie+c.Tie, sum.Draw+c.Draw
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t\n", sum.Positions, sum.Win, sum.Lose, sum.Tie, sum.Draw)
	tw.Flush()
}
