package solver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"

	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
)

// reachBytes estimates the peak memory of reaching and expanding tier t:
// its set (and, when loopy, a frontier and a found set), and per worker a
// set over each child tier.
func (r *Run) reachBytes(t tiergame.Tier) uint64 {
	g := r.Game
	n := plan.BitsetBytes(g.TierSize(t))
	if r.Graph.Loopy[t] {
		n *= 3
	}
	var children uint64
	for _, c := range r.Graph.Children[t] {
		children += plan.BitsetBytes(g.TierSize(c))
	}
	return n + uint64(r.Workers)*children + plan.WriterBytes(g.TierSize(t))
}

// count is the number of positions of tier t a step holds: the reachable
// ones once the manifest knows them; before, the most there can be: the
// tier's hash space, or in a symmetric run the canonical positions among
// its hashes, from a sample (see canonicalBound).
func (r *Run) count(t tiergame.Tier) uint64 {
	if r.Manifest != nil {
		if rec := r.Manifest.Tier(uint64(t)); rec != nil && rec.Reached {
			return rec.Reachable
		}
	}
	size := r.Game.TierSize(t)
	if !r.Symmetry {
		return size
	}
	if n, ok := r.canonical[t]; ok {
		return n
	}
	if r.canonical == nil {
		r.canonical = map[tiergame.Tier]uint64{}
	}
	n := canonicalBound(r.Game.(tiergame.Symmetric), t, size)
	r.canonical[t] = n
	return n
}

// canonicalSamples is how many hashes canonicalBound draws from a tier.
const canonicalSamples = 1024

// canonicalBound returns a bound on the canonical positions among the
// hashes of tier t of size size: all of them counted in a small tier;
// else, from canonicalSamples hashes drawn at random (seeded by the tier,
// so a plan is repeatable), the fraction found canonical plus three
// standard deviations, times size. A symmetric game without symmetric
// positions keeps about 1/k of its hashes under k symmetries.
func canonicalBound(s tiergame.Symmetric, t tiergame.Tier, size uint64) uint64 {
	if size <= canonicalSamples {
		var n uint64
		for p := range size {
			if s.Canonical(t, tiergame.Position(p)) == tiergame.Position(p) {
				n++
			}
		}
		return n
	}
	rng := rand.New(rand.NewPCG(uint64(t), 0x63616e6f6e))
	hits := 0
	for range canonicalSamples {
		p := tiergame.Position(rng.Uint64N(size))
		if s.Canonical(t, p) == p {
			hits++
		}
	}
	f := float64(hits) / canonicalSamples
	f += 3*math.Sqrt(f*(1-f)/canonicalSamples) + 3.0/canonicalSamples
	if f >= 1 {
		return size
	}
	return uint64(math.Ceil(f * float64(size)))
}

// Estimate is the memory a run needs, before anything is computed.
type Estimate struct {
	Tiers     int    // tiers in the game's tier graph
	HashSpace uint64 // sum of the tiers' hash spaces
	Largest   uint64 // the largest tier's hash space
	// Need is the peak memory of the heaviest step, and Tier its tier.
	Need uint64
	Tier tiergame.Tier
	// Budget is the memory available; Fits says whether Need <= Budget.
	Budget uint64
	Fits   bool
	// Lean is the loopy tiers solved without their longest wins
	// elsewhere kept (work.Effort.Lean) so that their steps fit the budget.
	Lean []tiergame.Tier
	// LargestFit is the largest tier hash space that would fit the budget
	// (see plan.LargestTier).
	LargestFit uint64
}

// ErrTooBig marks a run refused because a step would not fit in memory.
var ErrTooBig = fmt.Errorf("run does not fit in memory")

// Estimate computes the memory estimate of a run: counts are the reachable
// ones where the manifest knows them, else whole hash spaces.
func (r *Run) Estimate() Estimate {
	e := Estimate{Tiers: len(r.Graph.Tiers), Budget: r.Memory, LargestFit: plan.LargestTier(r.Memory, r.Workers)}
	solve, lean := r.solveSteps()
	for _, t := range r.Graph.Tiers {
		if lean[t] {
			e.Lean = append(e.Lean, t)
		}
	}
	for _, t := range r.Graph.Tiers {
		size := r.Game.TierSize(t)
		e.HashSpace += size
		e.Largest = max(e.Largest, size)
		for _, n := range []uint64{r.reachBytes(t), solve[t]} {
			if n += plan.BaseBytes; n > e.Need {
				e.Tier, e.Need = t, n
			}
		}
	}
	e.Fits = e.Need <= e.Budget
	return e
}

// solveSteps estimates the peak memory of each tier's solving step as
// Run.Solve takes them, children first: the step's own (solveBytes), the
// solved tiers it keeps for parents still to solve, and the next tier's
// level file, which loads meanwhile. What of it lives on the Go heap (the
// tiers' sets; cells are outside it) counts twice: the collector lets the
// heap grow to twice what is live before it collects (GOGC=100). A loopy
// tier whose step would not fit the budget with its longest wins
// elsewhere kept is solved lean (without them), and is in lean.
func (r *Run) solveSteps() (steps map[tiergame.Tier]uint64, lean map[tiergame.Tier]bool) {
	order := r.Graph.SolveOrder()
	steps = make(map[tiergame.Tier]uint64, len(order))
	lean = map[tiergame.Tier]bool{}
	held := map[tiergame.Tier]uint64{} // solved tiers kept for their parents
	left := map[tiergame.Tier]int{}
	var heldSum, heldSets uint64
	for _, t := range order {
		left[t] = len(r.Graph.Parents[t])
	}
	set := func(t tiergame.Tier) uint64 { return plan.BitsetBytes(r.Game.TierSize(t)) }
	for i, t := range order {
		others, sets := heldSum, heldSets+set(t)
		for _, c := range r.Graph.Children[t] {
			others -= held[c] // in solveBytes
		}
		var next uint64
		if i+1 < len(order) {
			next = set(order[i+1])
		}
		steps[t] = r.solveBytes(t, false) + others + 2*next + sets
		if r.Graph.Loopy[t] && plan.BaseBytes+steps[t] > r.Memory {
			steps[t] = r.solveBytes(t, true) + others + 2*next + sets
			lean[t] = true
		}
		held[t] = r.solvedBytes(t)
		heldSum += held[t]
		heldSets += set(t)
		for _, c := range r.Graph.Children[t] {
			if left[c]--; left[c] == 0 {
				heldSum -= held[c]
				heldSets -= set(c)
				delete(held, c)
			}
		}
	}
	return steps, lean
}

// Plan builds the tier graph of cfg's game and estimates its memory,
// without touching the disk.
func Plan(cfg Config) (*Run, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Memory == 0 {
		cfg.Memory = plan.DefaultMemory()
	}
	if cfg.Symmetry && cfg.Seeds != "" {
		// Seeds are full level files; canonicalizing them is not built.
		return nil, errors.New("a symmetric run cannot start from seeds")
	}
	g, err := quotient.Reduce(cfg.Game, cfg.Symmetry)
	if err != nil {
		return nil, err
	}
	cfg.Game = g
	var roots []tiergame.Tier
	seeds := cfg.Seeds
	if _, err := os.Stat(filepath.Join(cfg.Dir, runfolder.SeedsDir)); seeds == "" && cfg.Dir != "" && err == nil {
		seeds = filepath.Join(cfg.Dir, runfolder.SeedsDir) // a run from seeds, resumed
	}
	if seeds != "" {
		if roots, err = seedTiers(g, seeds); err != nil {
			return nil, err
		}
	} else if so, ok := g.(tiergame.SeedsOnly); ok {
		if err := so.NeedsSeeds(); err != nil {
			return nil, err
		}
	}
	gr, err := tiergraph.New(cfg.Game, roots...)
	if err != nil {
		return nil, err
	}
	return &Run{Config: cfg, Graph: gr}, nil
}

// checkMemory refuses a run whose heaviest step does not fit in the
// budget, and notes the loopy tiers to solve lean.
func (r *Run) checkMemory() error {
	e := r.Estimate()
	r.lean = map[tiergame.Tier]bool{}
	for _, t := range e.Lean {
		r.lean[t] = true
	}
	if e.Fits {
		return nil
	}
	return fmt.Errorf("%w: tier %s (hash space %d) needs about %s, more than the budget of %s; "+
		"with this budget and %d workers the largest tier hash space that fits is about %d positions "+
		"(use fewer workers, or a larger --memory if the machine has it)",
		ErrTooBig, r.Game.TierName(e.Tier), r.Game.TierSize(e.Tier), plan.BytesString(e.Need), plan.BytesString(r.Memory),
		r.Workers, e.LargestFit)
}
