package tiergametest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// maxTiers bounds the tier graph, as the solver does.
const maxTiers = 1 << 20

// graph is the tier graph: the tiers reachable from the start's through
// ChildTiers.
type graph struct {
	tiers []tiergame.Tier // in the order found
	info  map[tiergame.Tier]*tierInfo
}

// tierInfo is what the checks need of one tier.
type tierInfo struct {
	size     uint64
	name     string
	children []tiergame.Tier // ChildTiers, as the game lists them
	// parents lists the tiers that list this one among their children,
	// itself included when it is loopy, ascending.
	parents []tiergame.Tier
	loopy   bool
}

// buildGraph finds the tiers from the start's, checks that ChildTiers,
// TierSize and TierName are stable and that the tiers form a DAG apart
// from self-loops, and records them. It returns false when the checks of
// positions cannot go on.
func (c *checker) buildGraph(start tiergame.Tier) bool {
	g := &c.graph
	g.info = map[tiergame.Tier]*tierInfo{}
	stack := []tiergame.Tier{start}
	g.info[start] = &tierInfo{}
	g.tiers = append(g.tiers, start)
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ti := g.info[t]
		ok := c.guardGame(fmt.Sprintf("ChildTiers, TierSize or TierName of tier %d", t), func() {
			ti.children = c.g.ChildTiers(t)
			ti.size = c.g.TierSize(t)
			ti.name = c.g.TierName(t)
			if again := c.g.ChildTiers(t); !slices.Equal(again, ti.children) {
				c.rep.failf(ruleTierGraph, "tier %d %q: ChildTiers returns %v, then %v", t, ti.name, ti.children, again)
			}
			if again := c.g.TierSize(t); again != ti.size {
				c.rep.failf(ruleTierGraph, "tier %d %q: TierSize returns %d, then %d", t, ti.name, ti.size, again)
			}
			if again := c.g.TierName(t); again != ti.name || ti.name == "" {
				c.rep.failf(ruleTierGraph, "tier %d: TierName returns %q, then %q: want the same non-empty name", t, ti.name, again)
			}
		})
		if !ok {
			return false
		}
		for _, u := range ti.children {
			if u == t {
				ti.loopy = true
			}
			if g.info[u] == nil {
				if len(g.tiers) == maxTiers {
					c.rep.failf(ruleTierGraph, "more than %d tiers", maxTiers)
					return false
				}
				g.info[u] = &tierInfo{}
				g.tiers = append(g.tiers, u)
				stack = append(stack, u)
			}
		}
	}
	for _, t := range g.tiers {
		for _, u := range g.info[t].children {
			if pu := g.info[u]; !slices.Contains(pu.parents, t) {
				pu.parents = append(pu.parents, t)
			}
		}
	}
	for _, t := range g.tiers {
		slices.Sort(g.info[t].parents)
	}
	if cycle := g.cycle(); cycle != nil {
		names := make([]string, len(cycle))
		for i, t := range cycle {
			names[i] = fmt.Sprintf("%d %q", t, g.info[t].name)
		}
		c.rep.failf(ruleTierGraph, "ChildTiers make a cycle through distinct tiers, %s: the tiers must form a DAG apart from self-loops",
			strings.Join(names, " -> "))
	}
	if c.chance != nil {
		for _, t := range g.tiers {
			if g.info[t].loopy {
				c.rep.failf(ruleChance, "tier %d %q is loopy, which a game with chance cannot be", t, g.info[t].name)
				break
			}
		}
	}
	return true
}

// cycle returns a cycle through distinct tiers, its first tier repeated at
// its end, or nil when there is none.
func (g *graph) cycle() []tiergame.Tier {
	// Kahn's algorithm; what it cannot order holds a cycle.
	indeg := map[tiergame.Tier]int{}
	for _, t := range g.tiers {
		for _, u := range distinctChildren(g.info[t].children, t) {
			indeg[u]++
		}
	}
	var ready []tiergame.Tier
	for _, t := range g.tiers {
		if indeg[t] == 0 {
			ready = append(ready, t)
		}
	}
	for len(ready) > 0 {
		t := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		for _, u := range distinctChildren(g.info[t].children, t) {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	// Every tier left has a parent left: walk up parents until one
	// repeats.
	var t tiergame.Tier
	found := false
	for _, u := range g.tiers {
		if indeg[u] > 0 {
			t, found = u, true
			break
		}
	}
	if !found {
		return nil
	}
	pos := map[tiergame.Tier]int{}
	var path []tiergame.Tier
	for {
		if i, ok := pos[t]; ok {
			cycle := slices.Clone(path[i:])
			slices.Reverse(cycle) // parents were followed: children order
			return append(cycle, cycle[0])
		}
		pos[t] = len(path)
		path = append(path, t)
		for _, p := range g.info[t].parents {
			if p != t && indeg[p] > 0 {
				t = p
				break
			}
		}
	}
}

// distinctChildren returns the children of t but t, once each.
func distinctChildren(children []tiergame.Tier, t tiergame.Tier) []tiergame.Tier {
	var out []tiergame.Tier
	for _, u := range children {
		if u != t && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}
