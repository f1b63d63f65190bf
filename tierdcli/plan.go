package tierdcli

import (
	"encoding/json"
	"fmt"

	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/solver"
)

func (p *Program) registerPlan() {
	p.cli.Register(&cli.Command{Name: "plan", Run: p.runPlan,
		Usage:   "plan --game NAME [--option K=V,...] [--symmetry] [--workers N] [--memory SIZE] [--json]",
		Summary: "estimate a run's memory before running it, and the largest tier that fits"})
}

type planJSON struct {
	Game       string `json:"game"`
	Option     string `json:"option"`
	Symmetry   bool   `json:"symmetry,omitempty"`
	Tiers      int    `json:"tiers"`
	HashSpace  uint64 `json:"hash_space"`
	Largest    uint64 `json:"largest_tier_hash_space"`
	NeedBytes  uint64 `json:"need_bytes"`
	NeedTier   uint64 `json:"need_tier"`
	Budget     uint64 `json:"budget_bytes"`
	Fits       bool   `json:"fits"`
	LargestFit uint64 `json:"largest_tier_that_fits"`
}

func (p *Program) runPlan(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "plan")
	game := fs.String("game", "", "game (see "+p.Name()+" games)")
	option := fs.String("option", "", "game options, K=V,...")
	symmetry := fs.Bool("symmetry", false, "a run that keeps one position per symmetry class (as solve --symmetry)")
	workers := fs.Int("workers", 0, "worker goroutines (default: all cores)")
	memory := fs.String("memory", "", "memory budget, e.g. 16GiB (default: 80% of the machine)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *game == "" || fs.NArg() > 0 {
		return cli.UsageError("need --game and no arguments")
	}
	g, err := p.games.New(*game, *option)
	if err != nil {
		return cli.UsageError("%v", err)
	}
	mem, err := parseBytes(*memory)
	if err != nil {
		return cli.UsageError("--memory %q: %v", *memory, err)
	}
	r, err := solver.Plan(solver.Config{Game: g, Workers: *workers, Memory: mem, Symmetry: *symmetry})
	if err != nil {
		return err
	}
	est := r.Estimate()
	// A run that does not fit exits 1, so scripts can test the plan.
	fits := func() error {
		if est.Fits {
			return nil
		}
		return cli.ErrSilent
	}
	if *asJSON {
		if err := json.NewEncoder(e.Stdout).Encode(planJSON{Game: g.Name(), Option: g.Option(), Symmetry: *symmetry, Tiers: est.Tiers,
			HashSpace: est.HashSpace, Largest: est.Largest, NeedBytes: est.Need, NeedTier: uint64(est.Tier),
			Budget: est.Budget, Fits: est.Fits, LargestFit: est.LargestFit}); err != nil {
			return err
		}
		return fits()
	}
	verdict := "fits"
	if !est.Fits {
		verdict = "does NOT fit"
	}
	kind := ""
	if *symmetry {
		kind = ", one position per symmetry class"
	}
	fmt.Fprintf(e.Stdout, "%s (%s%s): %d tiers, hash space %d positions (largest tier %d)\n",
		g.Name(), g.Option(), kind, est.Tiers, est.HashSpace, est.Largest)
	fmt.Fprintf(e.Stdout, "heaviest step: tier %s, about %s (%s of it what every run holds: the program and the Go runtime); budget %s with %d workers: %s\n",
		g.TierName(est.Tier), solver.BytesString(est.Need), solver.BytesString(solver.BaseBytes), solver.BytesString(est.Budget), r.Workers, verdict)
	fmt.Fprintf(e.Stdout, "largest tier hash space that fits this budget: about %d positions\n", est.LargestFit)
	return fits()
}
