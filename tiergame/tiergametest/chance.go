package tiergametest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/tiersolve/tiersolve/tiergame"
)

// checkChance checks ChanceMoves at p against Moves (value v, children
// cs): the same value; for a position that is not primitive, one group of
// children per outcome, none empty, together the children of Moves; and
// ChanceMoveNames names each group's moves.
func (c *checker) checkChance(t tiergame.Tier, p tiergame.Position, v tiergame.Value, cs []tiergame.Child) {
	dst, ends := childPrefix(len(cs)), []int{-1, -1}
	v2, dst, ends := c.chance.ChanceMoves(t, p, dst, ends)
	if !keptChildren(dst) || len(ends) < 2 || ends[0] != -1 || ends[1] != -1 {
		c.failAt(ruleAppends, t, p, "ChanceMoves with a non-empty dst or ends does not keep their contents")
		return
	}
	ends = ends[2:]
	if v2 != v {
		c.failAt(ruleChance, t, p, "ChanceMoves gives value %v, Moves %v", v2, v)
		return
	}
	if v != tiergame.Undecided {
		if len(dst) > sentinels || len(ends) > 0 {
			c.failAt(ruleChance, t, p, "primitive (%v) but ChanceMoves gives %d moves in %d outcomes", v, len(dst)-sentinels, len(ends))
		}
		return
	}
	if len(ends) != len(c.outcomes) {
		var w uint64
		for k := range min(len(ends), len(c.outcomes)) {
			w += uint64(c.outcomes[k].Weight)
		}
		c.failAt(ruleChance, t, p, "ChanceMoves gives moves for %d outcomes of %d: their probabilities sum to %s, not 1",
			len(ends), len(c.outcomes), strconv.FormatFloat(float64(w)/float64(c.weight), 'g', 6, 64))
		return
	}
	prev := sentinels
	for k, e := range ends {
		if e <= prev || e > len(dst) {
			c.failAt(ruleChance, t, p, "outcome %d (%q) ends at move %d, after %d: every outcome needs a move", k, c.outcomes[k].Name, e-sentinels, prev-sentinels)
			return
		}
		prev = e
	}
	if prev != len(dst) {
		c.failAt(ruleChance, t, p, "the outcomes' moves end at %d of %d", prev-sentinels, len(dst)-sentinels)
		return
	}
	if all := dst[sentinels:]; !sameSet(all, cs) {
		c.failAt(ruleChance, t, p, "the outcomes' moves lead to %s, Moves to %s", c.children(all), c.children(cs))
		return
	}
	if c.chanceName == nil {
		return
	}
	prev = sentinels
	for k, e := range ends {
		names := c.chanceName.ChanceMoveNames(t, p, k)
		if len(names) != e-prev {
			c.failAt(ruleNames, t, p, "outcome %d (%q): %d names %q for %d moves", k, c.outcomes[k].Name, len(names), names, e-prev)
			return
		}
		if err := distinctNames(names); err != nil {
			c.failAt(ruleNames, t, p, "outcome %d (%q): ChanceMoveNames %q: %v", k, c.outcomes[k].Name, names, err)
			return
		}
		prev = e
	}
}

// maxKernelRun is the most positions the kernel is given at once.
const maxKernelRun = 64

// checkKernel checks the game's ChanceKernel on runs of consecutive
// positions among ps (ascending): the values it computes from made-up
// values of the child tiers must be ChanceValue of each position's
// outcomes. The solver gives it only runs of reachable positions; ps
// holds positions of the game.
func (c *checker) checkKernel(t tiergame.Tier, ps []tiergame.Position) {
	vals := map[tiergame.Tier][]tiergame.Prob{}
	for _, u := range c.graph.info[t].children {
		v, ok := c.kvals.get(c, u)
		if !ok {
			return // child tiers too large to make up
		}
		vals[u] = v
	}
	get := func(u tiergame.Tier) []tiergame.Prob { return vals[u] }
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && j-i < maxKernelRun && ps[j] == ps[j-1]+1 {
			j++
		}
		lo, hi := ps[i], ps[j-1]+1
		i = j
		want := make([]tiergame.Prob, hi-lo)
		ok := true
		for k := range want {
			p := lo + tiergame.Position(k)
			var err error
			if !c.guard(t, p, "ChanceMoves", func() { want[k], err = c.chanceValue(t, p, get) }) || err != nil {
				ok = false // checkChance reports what is wrong
				break
			}
		}
		if !ok {
			continue
		}
		out := make([]tiergame.Prob, hi-lo)
		c.guard(t, lo, "SolveChance", func() {
			if err := c.kernel.SolveChance(t, lo, hi, get, out); err != nil {
				c.failAt(ruleKernel, t, lo, "SolveChance of hashes [%d, %d): %v", lo, hi, err)
				return
			}
			for k := range out {
				if out[k] != want[k] {
					c.failAt(ruleKernel, t, lo+tiergame.Position(k), "SolveChance of hashes [%d, %d) gives %v (%d), ChanceValue of its outcomes %v (%d)",
						lo, hi, out[k], out[k], want[k], want[k])
					return
				}
			}
		})
	}
}

// chanceValue is the value of p from the values of its children, as the
// solver computes it.
func (c *checker) chanceValue(t tiergame.Tier, p tiergame.Position, vals func(tiergame.Tier) []tiergame.Prob) (tiergame.Prob, error) {
	v, cs, ends := c.chance.ChanceMoves(t, p, nil, nil)
	if v != tiergame.Undecided {
		return tiergame.ProbOf(v), nil
	}
	if len(ends) != len(c.outcomes) {
		return 0, fmt.Errorf("moves for %d outcomes of %d", len(ends), len(c.outcomes))
	}
	var acc uint64
	prev := 0
	for k, e := range ends {
		if e <= prev || e > len(cs) {
			return 0, fmt.Errorf("outcome %d has no moves", k)
		}
		best := tiergame.ProbOne
		for _, ch := range cs[prev:e] {
			vs := vals(ch.Tier)
			if uint64(ch.Pos) >= uint64(len(vs)) {
				return 0, fmt.Errorf("child %s outside its tier", c.child(ch))
			}
			best = min(best, vs[ch.Pos])
		}
		acc += uint64(c.outcomes[k].Weight) * uint64(best)
		prev = e
	}
	return tiergame.ChanceValue(acc, c.weight), nil
}

// maxKernelValues bounds the made-up values of child tiers, in all.
const maxKernelValues = 1 << 14

// kernelValues makes up the values of whole tiers for the kernel, once
// each: random, but ProbOf the value of a primitive position, as a kernel
// may know those without looking.
type kernelValues struct {
	mu    sync.Mutex
	tiers map[tiergame.Tier][]tiergame.Prob
	total uint64
	full  bool // a tier did not fit
}

// get returns the values of tier t, or false when they would not fit.
func (kv *kernelValues) get(c *checker, t tiergame.Tier) ([]tiergame.Prob, bool) {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	if v, ok := kv.tiers[t]; ok {
		return v, true
	}
	size := c.graph.info[t].size
	if kv.total+size > maxKernelValues {
		kv.full = true
		return nil, false
	}
	if kv.tiers == nil {
		kv.tiers = map[tiergame.Tier][]tiergame.Prob{}
	}
	kv.total += size
	rng := rand.New(rand.NewPCG(c.opts.Seed, uint64(t)))
	vals := make([]tiergame.Prob, size)
	var cs []tiergame.Child
	for p := range vals {
		vals[p] = tiergame.Prob(rng.Uint32N(uint32(tiergame.ProbOne) + 1))
		var v tiergame.Value
		if v, cs, _ = c.moves(t, tiergame.Position(p), cs[:0]); v != tiergame.Undecided && v <= tiergame.Draw {
			vals[p] = tiergame.ProbOf(v)
		}
	}
	kv.tiers[t] = vals
	return vals, true
}
