// Package tiergraph is a game's tier graph: the tiers reachable from its
// start or seeds, which are loopy, and the orders to reach and solve them.
package tiergraph

import (
	"fmt"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Graph is the tier graph of a game: the tiers reachable from its roots
// (the start tier, or the tiers of a run's seeds) through ChildTiers.
type Graph struct {
	Start    tiergame.Tier   // the game's start tier, which need not be in Tiers
	Tiers    []tiergame.Tier // parents before children (reachability order)
	Children map[tiergame.Tier][]tiergame.Tier
	Parents  map[tiergame.Tier][]tiergame.Tier
	Loopy    map[tiergame.Tier]bool
}

// maxTiers bounds the tier graph, so a buggy game cannot run away.
const maxTiers = 1 << 20

// New discovers the tiers of g below roots (by default, the start
// tier) and orders them.
func New(g tiergame.Game, roots ...tiergame.Tier) (*Graph, error) {
	start, _ := g.Start()
	if len(roots) == 0 {
		roots = []tiergame.Tier{start}
	}
	gr := &Graph{Start: start, Children: map[tiergame.Tier][]tiergame.Tier{},
		Parents: map[tiergame.Tier][]tiergame.Tier{}, Loopy: map[tiergame.Tier]bool{}}
	stack := slices.Clone(roots)
	seen := map[tiergame.Tier]bool{}
	for _, t := range roots {
		seen[t] = true
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range g.ChildTiers(t) {
			if c == t {
				gr.Loopy[t] = true
				continue
			}
			if slices.Contains(gr.Children[t], c) {
				continue
			}
			gr.Children[t] = append(gr.Children[t], c)
			gr.Parents[c] = append(gr.Parents[c], t)
			if !seen[c] {
				if len(seen) >= maxTiers {
					return nil, fmt.Errorf("%s: more than %d tiers", g.Name(), maxTiers)
				}
				seen[c] = true
				stack = append(stack, c)
			}
		}
	}
	// Kahn's algorithm, smallest tier number first among the ready ones,
	// so the order is deterministic.
	indeg := map[tiergame.Tier]int{}
	var ready []tiergame.Tier
	for t := range seen {
		indeg[t] = len(gr.Parents[t])
		if indeg[t] == 0 {
			ready = append(ready, t)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		t := ready[0]
		ready = ready[1:]
		gr.Tiers = append(gr.Tiers, t)
		for _, c := range gr.Children[t] {
			if indeg[c]--; indeg[c] == 0 {
				ready = append(ready, c)
			}
		}
	}
	if len(gr.Tiers) != len(seen) {
		return nil, fmt.Errorf("%s: the tier graph has a cycle through different tiers", g.Name())
	}
	for t := range seen {
		slices.Sort(gr.Children[t])
		slices.Sort(gr.Parents[t])
	}
	return gr, nil
}

// Has reports whether t is one of the graph's tiers.
func (gr *Graph) Has(t tiergame.Tier) bool {
	_, ok := gr.Parents[t]
	return ok || slices.Contains(gr.Tiers, t)
}

// SolveOrder returns the tiers children first.
func (gr *Graph) SolveOrder() []tiergame.Tier {
	out := slices.Clone(gr.Tiers)
	slices.Reverse(out)
	return out
}
