// Package tiergametest checks that a tier game keeps the rules the solver
// relies on, the way testing/fstest checks a file system: a game author
// calls Check from a test, and every broken rule fails the test with a
// message naming the position, in the game's text form, and its tier.
//
//	func TestConformance(t *testing.T) {
//		tiergametest.Check(t, mygame.New(), tiergametest.Options{})
//	}
//
// Check walks the positions reachable from the start (every one in a
// small game; in a large one the first ones, breadth first, then
// positions of random games), adds hashes drawn at random from the
// tiers, and checks at each:
//   - Parse(Format(p)) gives p back;
//   - Moves: a primitive position has no moves and every other one has
//     some; the value is a Value; a second call gives the same children
//     in the same order, appended to dst; every child is in a tier
//     ChildTiers lists and inside its TierSize;
//   - MoveNamer: one name per move, distinct;
//   - CursorGame: a cursor gives the children of Moves (as multisets, and
//     by tier for a ByTierCursor), on positions in ascending order, as the
//     solver visits them, and in random order;
//   - Unmover: Parents is the exact inverse of Moves in every parent
//     tier (every parent is listed once and has the position among its
//     children; every child has the position among its parents);
//   - Symmetric: Images starts with the position and stays in the tier,
//     Canonical is an image, the same for every image and so idempotent;
//     every image has the same primitive value, and the same children up
//     to symmetry (two images at each position, which two varying);
//     canonical cursors and CanonicalUnmover agree with canonicalizing
//     the plain ones;
//   - Chance: ChanceMoves gives the value of Moves and one non-empty group
//     of its children per outcome (so the outcomes' probabilities at
//     every position sum to one); ChanceMoveNamer names each group's
//     moves; a ChanceKernel gives ChanceValue of the children for runs of
//     positions;
//   - Exhaustive: every hash is a position (its text form parses back).
//
// It also checks the game as a whole: Name and Option are stable and fit
// in file names (no '_' or '/'); the start is inside its tier; ChildTiers,
// TierSize and TierName are stable; the tiers form a DAG apart from
// self-loops (a loopy tier lists itself), and a game with chance has no
// loopy tier.
//
// Check reports with t.Errorf when it returns, at most
// Options.MaxFailures messages per rule and then a count of the rest, so
// one run shows several distinct problems; each message names the line of
// the test that called Check (t.Helper), not a line of the kit. A failure
// stops only the check that failed, at that position. It never calls
// t.Fatal, so it may run in any goroutine. It
// calls the game from several goroutines at once, as the solver does, so
// under the race detector it also finds data races in the game.
//
// CheckPosition checks one position, for a fuzz target of Parse. Reach,
// Walk and Compare help with a game's own tests and benchmarks, and
// BruteForce solves a model of a game's rules to check a solved run
// against.
package tiergametest

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Options say which positions Check visits. The zero Options check up to
// 10,000 positions reachable from the start, 1,000 positions of random
// games if there are more, and 1,000 hashes drawn at random.
type Options struct {
	// MaxPositions caps the breadth-first walk from the start: a game
	// with at most this many reachable positions (in the tiers entered)
	// has every one checked. 0 means 10,000.
	MaxPositions int
	// Samples is how many more positions are picked from random games
	// from the start when the walk stopped at MaxPositions (each game
	// played to its end and one of its positions taken). 0 means 1,000,
	// a negative number none.
	Samples int
	// Hashes is how many hashes are drawn from the tiers entered, in
	// short runs of nearby hashes (see Walk) in tiers chosen at random;
	// every hash of every tier entered when Hashes is at least their
	// number. Those that are positions of the game (see Valid) are
	// checked as the reachable ones are. 0 means 1,000, a negative
	// number none.
	Hashes int
	// Valid reports whether hash p of tier t is a position of the game,
	// which the solver may meet: one that Parse accepts, as a seed of a
	// run or a query. nil means every hash whose text form Parse turns
	// back into it. In an Exhaustive game every hash is a position (the
	// legal ones, if it has tiergame.Legality, whose answers must agree
	// with the text form), and Valid is not consulted.
	Valid func(t tiergame.Tier, p tiergame.Position) bool
	// Tiers, if not nil, limits the tiers entered to those for which it
	// returns true, and the start's: moves into other tiers are checked
	// but not followed, and no hash is drawn from them.
	Tiers func(tiergame.Tier) bool
	// New, if not nil, builds a variant of the game from parsed options,
	// as a registry does for a cluster worker: Check builds one from
	// g's Option and compares it with g (name, option, start, tiers).
	New func(tiergame.Options) (tiergame.Game, error)
	// Seed seeds the random choices: the same seed checks the same
	// positions.
	Seed uint64
	// MaxFailures caps the messages of each rule. 0 means 5.
	MaxFailures int
}

// Defaults of Options.
const (
	defaultMaxPositions = 10000
	defaultSamples      = 1000
	defaultHashes       = 1000
	defaultMaxFailures  = 5
)

// checker holds what the checks of one game share. After setup it is
// read only, but for the kernel's value cache.
type checker struct {
	g    tiergame.Game
	opts Options
	rep  *reporter

	cursors    tiergame.CursorGame
	namer      tiergame.MoveNamer
	sym        tiergame.Symmetric
	unmover    tiergame.Unmover
	chance     tiergame.Chance
	chanceName tiergame.ChanceMoveNamer
	kernel     tiergame.ChanceKernel
	exhaustive bool
	legality   tiergame.Legality // of an exhaustive game: which hashes are positions

	graph    graph
	entered  []tiergame.Tier // tiers Check draws positions from, ascending
	outcomes []tiergame.Outcome
	weight   uint64 // the sum of the outcomes' weights

	kvals kernelValues
}

// Check checks game g (see the package documentation), reporting every
// failure to t.
func Check(t testing.TB, g tiergame.Game, opts Options) {
	t.Helper()
	c := newChecker(t, g, opts)
	defer c.rep.flush()
	st, sp, ok := c.checkGame()
	if !ok {
		return
	}
	opts = c.opts // with the defaults
	for _, u := range c.graph.tiers {
		if u == st || opts.Tiers == nil || opts.Tiers(u) {
			c.entered = append(c.entered, u)
		}
	}
	slices.Sort(c.entered)

	rng := rand.New(rand.NewPCG(opts.Seed, 0x7469657267616d65))
	set := newPositionSet()
	reached, cut := c.reach(st, sp, set)
	sampled := 0
	if cut && opts.Samples > 0 {
		sampled = c.sample(rng, st, sp, set)
	}
	hashes, every := 0, false
	if opts.Hashes > 0 {
		hashes, every = c.drawHashes(rng, set)
	}
	c.run(rng, set)
	if c.kvals.full {
		t.Logf("%s: the kernel was not checked in every tier: the made-up values of child tiers it needs are capped at %d in all", c.rep.prefix, maxKernelValues)
	}
	t.Logf("%s: %s", c.rep.prefix, checkedWhat(set.n, len(set.byTier), reached, sampled, cut, hashes, every))
}

// checkedWhat says which positions Check checked: n in all, in tiers
// tiers; reached breadth first from the start (all of them unless cut),
// sampled from random games; and the positions that the hashes drawn (at
// random, or every hash) added to those.
func checkedWhat(n, tiers, reached, sampled int, cut bool, hashes int, every bool) string {
	s := fmt.Sprintf("checked %d positions in %d tiers: all %d reachable from the start", n, tiers, reached)
	if cut {
		s = fmt.Sprintf("checked %d positions in %d tiers: the first %d reachable from the start (breadth first, Options.MaxPositions), %d more from random games (Options.Samples)",
			n, tiers, reached, sampled)
	}
	switch extra := n - reached - sampled; {
	case every:
		s += fmt.Sprintf("; then every hash of those tiers (%d, no more than Options.Hashes), which added %d positions not reached", hashes, extra)
	case hashes > 0:
		s += fmt.Sprintf("; then %d hashes drawn at random from those tiers (Options.Hashes), which added %d positions not reached", hashes, extra)
	}
	return s
}

// CheckPosition runs the checks of Check at position p of the given tier
// alone, which the caller knows to be a position of g: in a fuzz target of
// Parse, for example, or for a position a bug report names. It checks
// the game as a whole too.
func CheckPosition(t testing.TB, g tiergame.Game, tier tiergame.Tier, p tiergame.Position) {
	t.Helper()
	c := newChecker(t, g, Options{})
	defer c.rep.flush()
	if _, _, ok := c.checkGame(); !ok {
		return
	}
	ti := c.graph.info[tier]
	switch {
	case ti == nil:
		c.rep.failf(ruleTierGraph, "%s: tier %d is not among those ChildTiers reach from the start's", c.text(tier, p), tier)
	case uint64(p) >= ti.size:
		c.rep.failf(ruleHashRange, "%s: hash %d outside tier %d of size %d", c.text(tier, p), p, tier, ti.size)
	default:
		c.checkChunk(tier, []tiergame.Position{p}, rand.New(rand.NewPCG(0, 1)))
	}
}

// newChecker returns a checker of g reporting to t.
func newChecker(t testing.TB, g tiergame.Game, opts Options) *checker {
	if opts.MaxPositions == 0 {
		opts.MaxPositions = defaultMaxPositions
	}
	if opts.Samples == 0 {
		opts.Samples = defaultSamples
	}
	if opts.Hashes == 0 {
		opts.Hashes = defaultHashes
	}
	if opts.MaxFailures <= 0 {
		opts.MaxFailures = defaultMaxFailures
	}
	c := &checker{g: g, opts: opts}
	c.rep = &reporter{t: t, max: opts.MaxFailures, counts: map[string]int{}}
	c.cursors, _ = g.(tiergame.CursorGame)
	c.namer, _ = g.(tiergame.MoveNamer)
	c.sym, _ = g.(tiergame.Symmetric)
	c.unmover, _ = g.(tiergame.Unmover)
	c.chance, _ = g.(tiergame.Chance)
	c.chanceName, _ = g.(tiergame.ChanceMoveNamer)
	c.kernel, _ = g.(tiergame.ChanceKernel)
	c.legality, _ = g.(tiergame.Legality)
	return c
}

// checkGame checks the game as a whole and finds its tiers. It returns
// the start, and false when no position can be checked.
func (c *checker) checkGame() (st tiergame.Tier, sp tiergame.Position, ok bool) {
	c.checkGameNames()
	if e, ok := c.g.(tiergame.Exhaustive); ok {
		c.guardGame("Exhaustive", func() {
			c.exhaustive = e.Exhaustive()
			if e.Exhaustive() != c.exhaustive {
				c.rep.failf(ruleExhaustive, "Exhaustive changes from one call to the next")
			}
		})
	}
	if c.chance != nil && !c.checkOutcomes() {
		c.chance = nil // the positions' chance checks would only repeat it
	}
	if st, sp, ok = c.checkStart(); !ok || !c.buildGraph(st) {
		return st, sp, false
	}
	if c.opts.New != nil {
		c.checkRebuild()
	}
	return st, sp, true
}

// checkGameNames checks Name and Option, which name the game in the
// messages.
func (c *checker) checkGameNames() {
	name, option := "?", "?"
	c.rep.prefix = "game"
	c.guardGame("Name or Option", func() {
		name = c.g.Name()
		option = c.g.Option()
		c.rep.prefix = name + " " + option
		if n := c.g.Name(); n != name {
			c.rep.failf(ruleName, "Name returns %q, then %q", name, n)
		}
		if o := c.g.Option(); o != option {
			c.rep.failf(ruleName, "Option returns %q, then %q", option, o)
		}
		if err := fileNamePart(name); err != nil {
			c.rep.failf(ruleName, "Name %q: %v", name, err)
		}
		if err := fileNamePart(option); err != nil {
			c.rep.failf(ruleName, "Option %q: %v", option, err)
		} else if _, err := tiergame.ParseOptions(option); err != nil {
			c.rep.failf(ruleName, "Option %q is not key=value,... or \"default\": %v", option, err)
		}
	})
}

// fileNamePart explains why s cannot be a part of a level file's name
// (m<game>_<option>_<tier>.dat.gz) or a run folder's, or returns nil.
func fileNamePart(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty")
	case strings.ContainsAny(s, "_/\\"):
		return fmt.Errorf("contains '_', '/' or '\\'")
	case s == "." || s == "..":
		return fmt.Errorf("not a file name")
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return fmt.Errorf("contains a space or control character")
		}
	}
	return nil
}

// checkStart checks the start position: stable and inside its tier. It
// returns false when the start is not in its tier.
func (c *checker) checkStart() (st tiergame.Tier, sp tiergame.Position, ok bool) {
	inside := false
	c.guardGame("Start or TierSize", func() {
		st, sp = c.g.Start()
		if t2, p2 := c.g.Start(); t2 != st || p2 != sp {
			c.rep.failf(ruleStart, "Start returns (%d, %d), then (%d, %d)", st, sp, t2, p2)
		}
		size := c.g.TierSize(st)
		if inside = uint64(sp) < size; !inside {
			c.rep.failf(ruleStart, "start hash %d outside tier %d of size %d", sp, st, size)
		}
	})
	return st, sp, inside
}

// checkRebuild builds the game again from its options and compares.
func (c *checker) checkRebuild() {
	c.guardGame("Options.New", func() {
		o, err := tiergame.ParseOptions(c.g.Option())
		if err != nil {
			return // reported by checkGameNames
		}
		g2, err := c.opts.New(o)
		if err != nil {
			c.rep.failf(ruleRebuild, "building the game from its Option %q: %v", c.g.Option(), err)
			return
		}
		if g2.Name() != c.g.Name() || g2.Option() != c.g.Option() {
			c.rep.failf(ruleRebuild, "the game built from Option %q is %s %s", c.g.Option(), g2.Name(), g2.Option())
			return
		}
		t1, p1 := c.g.Start()
		if t2, p2 := g2.Start(); t1 != t2 || p1 != p2 {
			c.rep.failf(ruleRebuild, "the game built from Option %q starts at (%d, %d), not (%d, %d)", c.g.Option(), t2, p2, t1, p1)
		}
		for _, t := range c.graph.tiers {
			if s := g2.TierSize(t); s != c.graph.info[t].size {
				c.rep.failf(ruleRebuild, "the game built from Option %q has tier %d of size %d, not %d", c.g.Option(), t, s, c.graph.info[t].size)
				return
			}
		}
	})
}

// checkOutcomes checks the outcomes of a chance game and records them.
func (c *checker) checkOutcomes() bool {
	ok := c.guardGame("Outcomes", func() {
		c.outcomes = c.chance.Outcomes()
		if again := c.chance.Outcomes(); !slices.Equal(again, c.outcomes) {
			c.rep.failf(ruleChance, "Outcomes returns %v, then %v", c.outcomes, again)
		}
	})
	if !ok {
		return false
	}
	if len(c.outcomes) == 0 {
		c.rep.failf(ruleChance, "no outcomes")
		return false
	}
	names := map[string]bool{}
	for k, o := range c.outcomes {
		if o.Weight == 0 {
			c.rep.failf(ruleChance, "outcome %d (%q) has weight 0: it never happens", k, o.Name)
		}
		if o.Name == "" || names[o.Name] {
			c.rep.failf(ruleChance, "outcome %d: name %q is empty or taken", k, o.Name)
		}
		names[o.Name] = true
		c.weight += uint64(o.Weight)
	}
	// ChanceValue sums weight times a probability below 2^31+1 in 64 bits.
	if c.weight >= 1<<32 {
		c.rep.failf(ruleChance, "the outcomes' weights sum to %d, at least 2^32", c.weight)
	}
	return !c.rep.failed(ruleChance)
}

// run checks the positions of set, in chunks of up to 1024 positions of
// one tier, on as many goroutines as the machine runs.
func (c *checker) run(rng *rand.Rand, set *positionSet) {
	const chunk = 1024
	type job struct {
		t    tiergame.Tier
		ps   []tiergame.Position
		seed uint64
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				c.checkChunk(j.t, j.ps, rand.New(rand.NewPCG(j.seed, 1)))
			}
		})
	}
	for _, t := range set.tiers() {
		ps := set.sorted(t)
		for lo := 0; lo < len(ps); lo += chunk {
			jobs <- job{t, ps[lo:min(lo+chunk, len(ps))], rng.Uint64()}
		}
	}
	close(jobs)
	wg.Wait()
}

// checkChunk checks positions ps of tier t, ascending.
func (c *checker) checkChunk(t tiergame.Tier, ps []tiergame.Position, rng *rand.Rand) {
	for _, p := range ps {
		c.checkPosition(t, p)
	}
	c.checkCursors(t, ps, rng)
	if c.kernel != nil && c.chance != nil {
		c.checkKernel(t, ps)
	}
}
