package tiergametest

import (
	"fmt"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Sentinels fill the start of the dst given to the game's methods, which
// must keep them and append after them.
var (
	sentinelChild = tiergame.Child{Tier: ^tiergame.Tier(0), Pos: ^tiergame.Position(0)}
	sentinelPos   = ^tiergame.Position(0)
)

const sentinels = 2

func childPrefix(extra int) []tiergame.Child {
	dst := make([]tiergame.Child, sentinels, sentinels+extra)
	for i := range dst {
		dst[i] = sentinelChild
	}
	return dst
}

func posPrefix(extra int) []tiergame.Position {
	dst := make([]tiergame.Position, sentinels, sentinels+extra)
	for i := range dst {
		dst[i] = sentinelPos
	}
	return dst
}

// keptChildren reports whether dst still starts with the sentinels.
func keptChildren(dst []tiergame.Child) bool {
	return len(dst) >= sentinels && dst[0] == sentinelChild && dst[1] == sentinelChild
}

func keptPositions(dst []tiergame.Position) bool {
	return len(dst) >= sentinels && dst[0] == sentinelPos && dst[1] == sentinelPos
}

// checkPosition runs the checks of one position of the game.
func (c *checker) checkPosition(t tiergame.Tier, p tiergame.Position) {
	c.guard(t, p, "Format or Parse", func() { c.checkRoundTrip(t, p) })
	var v tiergame.Value
	var cs []tiergame.Child
	if !c.guard(t, p, "Moves", func() { v, cs = c.checkMoves(t, p) }) {
		return
	}
	if c.namer != nil {
		c.guard(t, p, "MoveNames", func() { c.checkMoveNames(t, p, cs) })
	}
	if c.sym != nil {
		c.guard(t, p, "a method of Symmetric", func() { c.checkSymmetry(t, p, v, cs) })
	}
	if c.unmover != nil {
		c.guard(t, p, "Parents", func() { c.checkParents(t, p, v, cs) })
	}
	if c.chance != nil {
		c.guard(t, p, "a method of Chance", func() { c.checkChance(t, p, v, cs) })
	}
}

// checkRoundTrip checks that p's text form parses back to p.
func (c *checker) checkRoundTrip(t tiergame.Tier, p tiergame.Position) {
	s := c.g.Format(t, p)
	pt, pp, err := c.g.Parse(s)
	rule := ruleRoundTrip
	if c.exhaustive {
		rule = ruleExhaustive // every hash must be a position
	}
	switch {
	case err != nil:
		c.failAt(rule, t, p, "Parse(%q): %v", s, err)
	case pt != t || pp != p:
		c.failAt(rule, t, p, "Parse(%q) gives hash %d of tier %d, %s", s, pp, pt, c.text(pt, pp))
	}
}

// checkMoves checks Moves at p and returns its value and children.
func (c *checker) checkMoves(t tiergame.Tier, p tiergame.Position) (tiergame.Value, []tiergame.Child) {
	v, cs := c.g.Moves(t, p, nil)
	cs = slices.Clip(cs)
	switch {
	case v > tiergame.Draw:
		c.failAt(ruleValue, t, p, "Moves returns value %d, which is no tiergame.Value", v)
	case v != tiergame.Undecided && len(cs) > 0:
		c.failAt(rulePrimitive, t, p, "primitive (%v) but with moves, to %s", v, c.children(cs))
	case v == tiergame.Undecided && len(cs) == 0:
		c.failAt(ruleNoMoves, t, p, "not primitive but no moves")
	}
	v2, cs2 := c.g.Moves(t, p, childPrefix(len(cs)+4))
	switch {
	case !keptChildren(cs2):
		c.failAt(ruleAppends, t, p, "Moves with a non-empty dst does not keep its contents")
	case v2 != v || !slices.Equal(cs2[sentinels:], cs):
		c.failAt(ruleDeterminism, t, p, "Moves returns %v %s, then %v %s", v, c.children(cs), v2, c.children(cs2[sentinels:]))
	}
	ti := c.graph.info[t]
	for i, ch := range cs {
		if !slices.Contains(ti.children, ch.Tier) {
			c.failAt(ruleChildTier, t, p, "move %d leads to tier %d, which ChildTiers(%d) = %v does not list", i, ch.Tier, t, ti.children)
			break
		}
		if size := c.graph.info[ch.Tier].size; uint64(ch.Pos) >= size {
			c.failAt(ruleHashRange, t, p, "move %d leads to hash %d of tier %d, whose TierSize is %d", i, ch.Pos, ch.Tier, size)
			break
		}
	}
	return v, cs
}

// validChild reports whether ch is a child Check can look at further: in a
// declared tier and inside it.
func (c *checker) validChild(t tiergame.Tier, ch tiergame.Child) bool {
	ti := c.graph.info[ch.Tier]
	return ti != nil && uint64(ch.Pos) < ti.size && slices.Contains(c.graph.info[t].children, ch.Tier)
}

// checkMoveNames checks MoveNames: one distinct, non-empty name per move.
func (c *checker) checkMoveNames(t tiergame.Tier, p tiergame.Position, cs []tiergame.Child) {
	names := c.namer.MoveNames(t, p)
	if len(names) != len(cs) {
		c.failAt(ruleNames, t, p, "%d names %q for %d moves", len(names), names, len(cs))
		return
	}
	if err := distinctNames(names); err != nil {
		c.failAt(ruleNames, t, p, "MoveNames %q: %v", names, err)
	}
}

// distinctNames explains why names are not distinct and non-empty.
func distinctNames(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" || seen[n] {
			return fmt.Errorf("name %q is empty or repeats", n)
		}
		seen[n] = true
	}
	return nil
}

// sortChildren sorts cs by tier, then position.
func sortChildren(cs []tiergame.Child) []tiergame.Child {
	slices.SortFunc(cs, func(a, b tiergame.Child) int {
		if a.Tier != b.Tier {
			if a.Tier < b.Tier {
				return -1
			}
			return 1
		}
		if a.Pos != b.Pos {
			if a.Pos < b.Pos {
				return -1
			}
			return 1
		}
		return 0
	})
	return cs
}

// sameChildren reports whether a and b hold the same children as
// multisets.
func sameChildren(a, b []tiergame.Child) bool {
	return len(a) == len(b) && slices.Equal(sortChildren(slices.Clone(a)), sortChildren(slices.Clone(b)))
}

// sameSet reports whether a and b hold the same children, repeats aside.
func sameSet(a, b []tiergame.Child) bool {
	return slices.Equal(slices.Compact(sortChildren(slices.Clone(a))), slices.Compact(sortChildren(slices.Clone(b))))
}

// checkParents checks Parents against Moves at p: in each parent tier of
// p's, the parents are listed once each, and each is not primitive and
// has p among its children; each child of p has p among its parents.
func (c *checker) checkParents(t tiergame.Tier, p tiergame.Position, v tiergame.Value, cs []tiergame.Child) {
	me := tiergame.Child{Tier: t, Pos: p}
	var kids []tiergame.Child
	for _, pt := range c.graph.info[t].parents {
		got := c.unmover.Parents(t, p, pt, posPrefix(16))
		if !keptPositions(got) {
			c.failAt(ruleAppends, t, p, "Parents in tier %d with a non-empty dst does not keep its contents", pt)
			return
		}
		ps := got[sentinels:]
		size := c.graph.info[pt].size
		for i, q := range ps {
			if slices.Contains(ps[:i], q) {
				c.failAt(ruleParents, t, p, "Parents in tier %d lists %s twice", pt, c.child(tiergame.Child{Tier: pt, Pos: q}))
				return
			}
			if uint64(q) >= size {
				c.failAt(ruleParents, t, p, "Parents in tier %d lists hash %d, outside the tier's %d", pt, q, size)
				return
			}
			var qv tiergame.Value
			qv, kids = c.g.Moves(pt, q, kids[:0])
			if qv != tiergame.Undecided || !slices.Contains(kids, me) {
				c.failAt(ruleParents, t, p, "Parents in tier %d lists %s, which has no move to it (value %v, moves %s)",
					pt, c.child(tiergame.Child{Tier: pt, Pos: q}), qv, c.children(kids))
				return
			}
		}
		if _, ok := c.g.(tiergame.CanonicalUnmover); ok && c.sym != nil && !c.checkCanonicalParents(t, p, pt, ps) {
			return
		}
	}
	if v != tiergame.Undecided {
		return
	}
	var ps []tiergame.Position
	for i, ch := range cs {
		if !c.validChild(t, ch) || slices.Contains(cs[:i], ch) {
			continue
		}
		if ps = c.unmover.Parents(ch.Tier, ch.Pos, t, ps[:0]); !slices.Contains(ps, p) {
			c.failAt(ruleParents, t, p, "it moves to %s, whose Parents in tier %d do not list it: %s",
				c.child(ch), t, c.positions(t, ps))
			return
		}
	}
}

// checkCanonicalParents checks tiergame.CanonicalParents at p against ps,
// its parents in tier pt: the same set canonicalized, once each.
func (c *checker) checkCanonicalParents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, ps []tiergame.Position) bool {
	want := make([]tiergame.Position, len(ps))
	for i, q := range ps {
		want[i] = c.sym.Canonical(pt, q)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	got := tiergame.CanonicalParents(c.g, t, p, pt, posPrefix(len(want)))
	if !keptPositions(got) {
		c.failAt(ruleAppends, t, p, "CanonicalParents in tier %d with a non-empty dst does not keep its contents", pt)
		return false
	}
	got = slices.Clone(got[sentinels:])
	slices.Sort(got)
	if !slices.Equal(got, want) {
		c.failAt(ruleCanonParent, t, p, "CanonicalParents in tier %d gives %s, want the canonical parents once each, %s",
			pt, c.positions(pt, got), c.positions(pt, want))
		return false
	}
	return true
}
