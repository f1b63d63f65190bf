package tierdcli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/plan"
)

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
	// LeanTiers is how many loopy tiers are solved lean to fit.
	LeanTiers int `json:"lean_tiers,omitempty"`
}

func (p *Program) runPlan(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "plan")
	game := fs.String("game", "", "game (see "+p.Name()+" games)")
	option := fs.String("option", "", "game options, K=V,...")
	symmetry := fs.Bool("symmetry", false, "a run that keeps one position per symmetry class (as solve --symmetry)")
	workers := fs.Int("workers", 0, "worker goroutines (default: all cores)")
	memory := fs.String("memory", "", "memory budget, e.g. 16GiB (default: 80% of the machine)")
	asJSON := fs.Bool("json", false, "print JSON")
	cluster := fs.Bool("cluster", false, "plan a cluster run: --workers worker machines of --memory each (loopy tiers too large for one are solved in parts)")
	threads := fs.Int("threads", 1, "with --cluster: threads of each worker")
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
	if *cluster {
		if *workers <= 0 || *memory == "" {
			return cli.UsageError("--cluster needs --workers N and --memory SIZE (of each worker)")
		}
		return printClusterPlan(e, g.Name(), g.Option(), r, *workers, *threads, mem, *asJSON)
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
			Budget: est.Budget, Fits: est.Fits, LargestFit: est.LargestFit, LeanTiers: len(est.Lean)}); err != nil {
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
		g.TierName(est.Tier), plan.BytesString(est.Need), plan.BytesString(plan.BaseBytes), plan.BytesString(est.Budget), r.Workers, verdict)
	if len(est.Lean) > 0 {
		names := make([]string, 0, 3)
		for _, t := range est.Lean[:min(3, len(est.Lean))] {
			names = append(names, g.TierName(t))
		}
		more := ""
		if len(est.Lean) > len(names) {
			more = fmt.Sprintf(" and %d more", len(est.Lean)-len(names))
		}
		fmt.Fprintf(e.Stdout, "solved lean to fit (the longest wins elsewhere looked up again, not kept: half a byte a hash less, slower): %s%s\n",
			strings.Join(names, ", "), more)
	}
	fmt.Fprintf(e.Stdout, "largest tier hash space that fits this budget: about %d positions\n", est.LargestFit)
	return fits()
}

// clusterPlanJSON is tierd plan --cluster --json.
type clusterPlanJSON struct {
	Game    string               `json:"game"`
	Option  string               `json:"option"`
	Workers int                  `json:"workers"`
	Threads int                  `json:"threads"`
	Memory  uint64               `json:"memory_bytes"`
	Fits    bool                 `json:"fits"`
	Seconds float64              `json:"seconds"`
	Tiers   []solver.ClusterTier `json:"tiers"`
}

// printClusterPlan prints the plan of r on workers of threads threads and
// mem bytes each: per tier its parts, the memory of its largest unit,
// the notes its parts exchange and its time; it exits 1 (ErrSilent) if a
// tier does not fit.
func printClusterPlan(e *cli.Env, game, option string, r *solver.Run, workers, threads int, mem uint64, asJSON bool) error {
	tiers := r.ClusterPlan(workers, threads, mem)
	fits, secs, closing := true, 0.0, 0.0
	for _, t := range tiers {
		fits = fits && t.Fits
		secs += t.Seconds
		closing += t.CloseSeconds
	}
	result := error(nil)
	if !fits {
		result = cli.ErrSilent
	}
	if asJSON {
		if err := json.NewEncoder(e.Stdout).Encode(clusterPlanJSON{Game: game, Option: option, Workers: workers, Threads: threads,
			Memory: mem, Fits: fits, Seconds: secs, Tiers: tiers}); err != nil {
			return err
		}
		return result
	}
	fmt.Fprintf(e.Stdout, "%s (%s) on %d workers of %d threads and %s each, tiers in solving order:\n", game, option, workers, threads, plan.BytesString(mem))
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIER\tHASHES\tLOOPY\tPARTS\tMEMORY A WORKER\tNOTES\tNOTES A LEVEL\tTIME\tCLOSING")
	for _, t := range tiers {
		parts, notes, perLevel := "whole", "-", "-"
		if !t.Loopy {
			parts = "ranges"
		}
		if t.Parts > 0 {
			parts = fmt.Sprint(t.Parts)
			notes, perLevel = plan.BytesString(t.NotesBytes), plan.BytesString(t.NotesPerLevel)
		}
		memory := plan.BytesString(t.Bytes)
		if !t.Fits {
			memory += " (does NOT fit)"
		}
		closes := "-"
		if t.Loopy && t.CloseRanges > 0 {
			closes = fmt.Sprintf("%.1fs", t.CloseSeconds)
			if t.CloseRanges > 1 {
				closes += fmt.Sprintf(" in %d ranges", t.CloseRanges)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%v\t%s\t%s\t%s\t%s\t%.1fs\t%s\n", t.Name, t.Hashes, t.Loopy, parts, memory, notes, perLevel, t.Seconds, closes)
	}
	tw.Flush()
	verdict := "every tier fits"
	if !fits {
		verdict = "some tier does NOT fit: more memory a worker"
	}
	closes := "no closing of loopy tiers before it (none, or the game's tiers are every legal position)"
	if closing > 0 {
		closes = fmt.Sprintf("before it %.0fs of closing loopy tiers (CLOSING: in reachability, one unit on one worker, or by ranges on the workers for tiers of %d hashes or more)", closing, 2*plan.CloseRangeHashes)
	}
	fmt.Fprintf(e.Stdout, "about %.0fs of solving in all (tiers one after another; estimates from measured rates, see cluster/README.md), and %s; %s\n", secs, closes, verdict)
	return result
}
