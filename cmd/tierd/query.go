package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

func init() {
	program.Register(&cli.Command{Name: "query", Run: runQuery,
		Usage:   "query --game NAME [--option K=V,...] --db DIR [--json] [--roll D1D2] POSITION",
		Summary: "print a position's value and remoteness and every move's, best first (with chance: its chance to win, and every play of a roll)"})
	program.Register(&cli.Command{Name: "verify", Run: runVerify,
		Usage:   "verify --db DIR [--workers N]",
		Summary: "check a solved run: file checksums, and every value re-derived from its children"})
}

type queryMove struct {
	Move       string `json:"move"`
	Position   string `json:"position"`
	Value      string `json:"value"` // for the player making the move
	Remoteness int    `json:"remoteness"`
}

type queryResult struct {
	Position   string      `json:"position"`
	Tier       uint64      `json:"tier"`
	TierName   string      `json:"tier_name"`
	Value      string      `json:"value"`
	Remoteness int         `json:"remoteness"`
	Moves      []queryMove `json:"moves"`
}

func runQuery(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("query"))
	game := fs.String("game", "", "game (see tierd games)")
	option := fs.String("option", "", "game options, K=V,...")
	db := fs.String("db", "", "solved run folder")
	asJSON := fs.Bool("json", false, "print JSON")
	roll := fs.String("roll", "", "in a game with chance, list every play of this outcome (a roll of dice: 31 or 13)")
	flags, positions := splitPositional(fs, args)
	if err := cli.ParseFlags(fs, flags); err != nil {
		return err
	}
	if *game == "" || *db == "" || len(positions) != 1 {
		return cli.UsageError("need --game, --db and one POSITION")
	}
	g, err := games.New(*game, *option)
	if err != nil {
		return cli.UsageError("%v", err)
	}
	t, p, err := g.Parse(positions[0])
	if err != nil {
		return fmt.Errorf("position %q: %w", positions[0], err)
	}
	o, err := solver.OpenOracle(*db, g)
	if err != nil {
		return err
	}
	defer o.Close()
	if cg, ok := g.(tiergame.Chance); ok {
		return queryChance(e, o, cg, t, p, *roll, *asJSON)
	}
	if *roll != "" {
		return cli.UsageError("--roll: %s has no chance", g.Name())
	}
	rec, err := o.Lookup(t, p)
	if errors.Is(err, solver.ErrUnreachable) {
		return fmt.Errorf("position %q (tier %s, hash %d) is not reachable from the start, so it was not solved", positions[0], g.TierName(t), p)
	}
	if err != nil {
		return err
	}
	moves, err := o.Moves(t, p)
	if err != nil {
		return err
	}
	res := queryResult{Position: g.Format(t, p), Tier: uint64(t), TierName: g.TierName(t), Value: rec.Value().String(), Remoteness: rec.Remoteness(), Moves: []queryMove{}}
	for _, m := range moves {
		res.Moves = append(res.Moves, queryMove{Move: m.Name, Position: g.Format(m.Tier, m.Pos), Value: m.Outcome().String(), Remoteness: m.Child.Remoteness()})
	}
	if *asJSON {
		return json.NewEncoder(e.Stdout).Encode(res)
	}
	fmt.Fprintf(e.Stdout, "%s (tier %s): %s\n", res.Position, res.TierName, describe(rec))
	for _, m := range moves {
		fmt.Fprintf(e.Stdout, "  %-8s %-6s -> %s (%s to move there)\n", m.Name, m.Outcome(), g.Format(m.Tier, m.Pos), describe(m.Child))
	}
	return nil
}

func describe(r valuedb.Record) string {
	if r.Value() == tiergame.Draw {
		return "draw"
	}
	if r.Remoteness() == 0 {
		return r.Value().String() + " (game over)"
	}
	return r.String()
}

func runVerify(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("verify"))
	db := fs.String("db", "", "solved run folder")
	workers := fs.Int("workers", 0, "worker goroutines (default: all cores)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *db == "" || fs.NArg() > 0 {
		return cli.UsageError("need --db DIR")
	}
	m, err := solver.LoadManifest(*db)
	if err != nil {
		return err
	}
	g, err := games.New(m.Game, m.Option)
	if err != nil {
		return err
	}
	r, err := solver.Open(solver.Config{Game: g, Dir: *db, Workers: *workers, Log: e.Log, Terminal: e.Stderr})
	if err != nil {
		return err
	}
	rep, err := r.Verify(context.Background())
	if err != nil {
		return err
	}
	for _, f := range rep.FileErrors {
		fmt.Fprintf(e.Stderr, "tierd verify: %s\n", f)
	}
	for _, x := range rep.Examples {
		fmt.Fprintf(e.Stderr, "tierd verify: %s: %v\n", *db, x)
	}
	if !rep.OK() {
		fmt.Fprintf(e.Stderr, "tierd verify: %s: %d of %d positions do not match\n", *db, rep.Mismatches, rep.Positions)
		return cli.ErrSilent
	}
	fmt.Fprintf(e.Stdout, "%s: ok, %d positions in %d tiers re-derived from their children, all files match the manifest\n", *db, rep.Positions, len(m.Tiers))
	return nil
}
