package tiergametest

import (
	"math/rand/v2"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// positionSet is the positions Check visits, by tier.
type positionSet struct {
	byTier map[tiergame.Tier]map[tiergame.Position]struct{}
	n      int
}

func newPositionSet() *positionSet {
	return &positionSet{byTier: map[tiergame.Tier]map[tiergame.Position]struct{}{}}
}

// add adds p of tier t and reports whether it is new.
func (s *positionSet) add(t tiergame.Tier, p tiergame.Position) bool {
	m := s.byTier[t]
	if m == nil {
		m = map[tiergame.Position]struct{}{}
		s.byTier[t] = m
	}
	if _, ok := m[p]; ok {
		return false
	}
	m[p] = struct{}{}
	s.n++
	return true
}

func (s *positionSet) has(t tiergame.Tier, p tiergame.Position) bool {
	_, ok := s.byTier[t][p]
	return ok
}

// tiers returns the tiers with positions, ascending.
func (s *positionSet) tiers() []tiergame.Tier {
	ts := make([]tiergame.Tier, 0, len(s.byTier))
	for t := range s.byTier {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts
}

// sorted returns the positions of tier t, ascending.
func (s *positionSet) sorted(t tiergame.Tier) []tiergame.Position {
	ps := make([]tiergame.Position, 0, len(s.byTier[t]))
	for p := range s.byTier[t] {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// follows reports whether a walk may go on to child ch: a tier entered,
// declared and a hash inside it. What is wrong with the others is
// reported when their parent is checked.
func (c *checker) follows(from tiergame.Tier, ch tiergame.Child) bool {
	ti := c.graph.info[ch.Tier]
	return ti != nil && uint64(ch.Pos) < ti.size && slices.Contains(c.graph.info[from].children, ch.Tier) &&
		(c.opts.Tiers == nil || c.opts.Tiers(ch.Tier))
}

// moves is g.Moves, with ok false when it panicked (reported later, when
// the position is checked).
func (c *checker) moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (v tiergame.Value, cs []tiergame.Child, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	v, cs = c.g.Moves(t, p, dst)
	return v, cs, true
}

// reach adds the positions reachable from the start, breadth first, up to
// MaxPositions of them, to set. It returns how many it added and whether
// it stopped before the end.
func (c *checker) reach(st tiergame.Tier, sp tiergame.Position, set *positionSet) (n int, cut bool) {
	set.add(st, sp)
	queue := []tiergame.Child{{Tier: st, Pos: sp}}
	var cs []tiergame.Child
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		var v tiergame.Value
		var ok bool
		if v, cs, ok = c.moves(q.Tier, q.Pos, cs[:0]); !ok || v != tiergame.Undecided {
			continue
		}
		for _, ch := range cs {
			if !c.follows(q.Tier, ch) || set.has(ch.Tier, ch.Pos) {
				continue
			}
			if set.n >= c.opts.MaxPositions {
				return set.n, true
			}
			set.add(ch.Tier, ch.Pos)
			queue = append(queue, ch)
		}
	}
	return set.n, false
}

// maxPlies ends a random game that goes on this long (a loopy game may
// never end).
const maxPlies = 1000

// sample adds positions of random games from the start to set, one of
// each game, up to Samples new ones, and returns how many it added.
func (c *checker) sample(rng *rand.Rand, st tiergame.Tier, sp tiergame.Position, set *positionSet) int {
	added := 0
	var path, cs []tiergame.Child
	for tries := 0; added < c.opts.Samples && tries < 4*c.opts.Samples+100; tries++ {
		path = append(path[:0], tiergame.Child{Tier: st, Pos: sp})
		for len(path) < maxPlies {
			q := path[len(path)-1]
			v, kids, ok := c.moves(q.Tier, q.Pos, cs[:0])
			cs = kids
			if !ok || v != tiergame.Undecided || len(cs) == 0 {
				break
			}
			ch := cs[rng.IntN(len(cs))]
			if !c.follows(q.Tier, ch) {
				break
			}
			path = append(path, ch)
		}
		q := path[rng.IntN(len(path))]
		if set.add(q.Tier, q.Pos) {
			added++
		}
	}
	return added
}

// drawHashes adds the hashes drawn from the tiers entered that are
// positions of the game to set, and returns how many it drew, and
// whether those were every hash of the tiers.
func (c *checker) drawHashes(rng *rand.Rand, set *positionSet) (drawn int, every bool) {
	var total uint64
	var tiers []tiergame.Tier
	for _, t := range c.entered {
		if size := c.graph.info[t].size; size > 0 {
			tiers = append(tiers, t)
			total = min(total+min(size, 1<<62), 1<<62) // no overflow
		}
	}
	if len(tiers) == 0 {
		return 0, false
	}
	if total <= uint64(c.opts.Hashes) {
		for _, t := range tiers {
			for p := range tiergame.Position(c.graph.info[t].size) {
				drawn++
				if !set.has(t, p) && c.valid(t, p) {
					set.add(t, p)
				}
			}
		}
		return drawn, true
	}
	const run = 16
	for drawn < c.opts.Hashes {
		t := tiers[rng.IntN(len(tiers))]
		for _, p := range Walk(rng, c.graph.info[t].size, min(run, c.opts.Hashes-drawn)) {
			drawn++
			if !set.has(t, p) && c.valid(t, p) {
				set.add(t, p)
			}
		}
	}
	return drawn, false
}

// valid reports whether hash p of tier t is a position of the game.
func (c *checker) valid(t tiergame.Tier, p tiergame.Position) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	switch {
	case c.exhaustive && c.legality != nil:
		return c.legal(t, p)
	case c.exhaustive:
		return true // and Parse(Format(p)) must give it back
	case c.opts.Valid != nil:
		return c.opts.Valid(t, p)
	}
	pt, pp, err := c.g.Parse(c.g.Format(t, p))
	return err == nil && pt == t && pp == p
}

// legal asks the game's LegalWords whether hash p of tier t is legal,
// and checks that the answer is the text form's: a legal hash's text
// parses back to it (checkRoundTrip, as every position's), an illegal
// one's does not.
func (c *checker) legal(t tiergame.Tier, p tiergame.Position) bool {
	var w [1]uint64
	c.legality.LegalWords(t, p&^63, w[:])
	if w[0]>>(p%64)&1 != 0 {
		return true
	}
	s := c.g.Format(t, p)
	if pt, pp, err := c.g.Parse(s); err == nil && pt == t && pp == p {
		c.failAt(ruleLegality, t, p, "LegalWords says hash %d is no position, but its text form %q parses back to it", p, s)
	}
	return false
}
