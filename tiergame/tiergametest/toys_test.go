package tiergametest_test

import (
	"fmt"
	"slices"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Two tiny games that use every optional interface, for the broken
// variants of check_test.go to break one rule each.

// ring is a loopy game on tiers 0 to ringTiers-1 of ringSize positions:
// from position p of tier t a move goes to p-1 or p+1 (around the ring)
// in the same tier, or to p in tier t+1. Position 0 is primitive (lost).
// Its symmetry maps p to -p, which fixes 0; the canonical position is
// the smaller. It starts at position 1 of tier 0, and reaches everything.
// The broken variants of check_test.go replace the symmetry, the
// canonical position or the parents, everywhere.
type ring struct {
	image     func(tiergame.Position) tiergame.Position // nil: mirror
	canonical func(tiergame.Position) tiergame.Position // nil: the smaller image
	// parents, if not nil, replaces Parents, given its parents.
	parents func(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, parents []tiergame.Position) []tiergame.Position
}

const (
	ringTiers = 3
	ringSize  = 8
)

var (
	_ tiergame.CursorGame       = ring{}
	_ tiergame.Unmover          = ring{}
	_ tiergame.CanonicalUnmover = ring{}
	_ tiergame.Symmetric        = ring{}
	_ tiergame.MoveNamer        = ring{}
)

func (ring) Name() string                              { return "ring" }
func (ring) Option() string                            { return "default" }
func (ring) Start() (tiergame.Tier, tiergame.Position) { return 0, 1 }
func (ring) TierName(t tiergame.Tier) string           { return fmt.Sprintf("ring %d", t) }

func (ring) TierSize(t tiergame.Tier) uint64 {
	if t < ringTiers {
		return ringSize
	}
	return 0
}

func (ring) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	if t+1 < ringTiers {
		return []tiergame.Tier{t, t + 1}
	}
	return []tiergame.Tier{t}
}

func (ring) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if p == 0 {
		return tiergame.Lose, dst
	}
	dst = append(dst, tiergame.Child{Tier: t, Pos: (p + ringSize - 1) % ringSize}, tiergame.Child{Tier: t, Pos: (p + 1) % ringSize})
	if t+1 < ringTiers {
		dst = append(dst, tiergame.Child{Tier: t + 1, Pos: p})
	}
	return tiergame.Undecided, dst
}

func (g ring) MoveNames(t tiergame.Tier, p tiergame.Position) []string {
	return []string{"-", "+", "up"}[:len(movesOf(g, t, p))]
}

func (ring) Format(t tiergame.Tier, p tiergame.Position) string { return fmt.Sprintf("r%d.%d", t, p) }

func (ring) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	var t tiergame.Tier
	var p tiergame.Position
	if _, err := fmt.Sscanf(s, "r%d.%d", &t, &p); err != nil || t >= ringTiers || p >= ringSize || fmt.Sprintf("r%d.%d", t, p) != s {
		return 0, 0, fmt.Errorf("ring: bad position %q", s)
	}
	return t, p, nil
}

func (g ring) Parents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	if g.parents != nil {
		return append(dst, g.parents(t, p, pt, ring{}.Parents(t, p, pt, nil))...)
	}
	switch {
	case pt == t:
		for _, q := range []tiergame.Position{(p + 1) % ringSize, (p + ringSize - 1) % ringSize} {
			if q != 0 {
				dst = append(dst, q)
			}
		}
	case pt+1 == t && p != 0:
		dst = append(dst, p)
	}
	return dst
}

func (g ring) CanonicalParents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	n := len(dst)
	dst = g.Parents(t, p, pt, dst)
	for i := n; i < len(dst); i++ {
		dst[i] = g.Canonical(pt, dst[i])
	}
	slices.Sort(dst[n:])
	return append(dst[:n], slices.Compact(dst[n:])...)
}

func mirror(p tiergame.Position) tiergame.Position { return (ringSize - p) % ringSize }

func (g ring) Images(t tiergame.Tier, p tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	if g.image != nil {
		return append(dst, p, g.image(p))
	}
	return append(dst, p, mirror(p))
}

func (g ring) Canonical(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	switch {
	case g.canonical != nil:
		return g.canonical(p)
	case g.image != nil:
		return min(p, g.image(p))
	}
	return min(p, mirror(p))
}

func (g ring) Cursor(t tiergame.Tier) tiergame.Cursor { return &ringCursor{g: g, t: t} }

// ringCursor is a cursor of ring: every kind there is.
type ringCursor struct {
	g ring
	t tiergame.Tier
}

var _ tiergame.CanonicalByTierCursor = (*ringCursor)(nil)

func (c *ringCursor) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	return c.g.Moves(c.t, p, dst)
}

func (c *ringCursor) MovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	return c.byTier(p, dst, false)
}

func (c *ringCursor) CanonicalMoves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	n := len(dst)
	v, dst := c.g.Moves(c.t, p, dst)
	for i := n; i < len(dst); i++ {
		dst[i].Pos = c.g.Canonical(dst[i].Tier, dst[i].Pos)
	}
	return v, dst
}

func (c *ringCursor) CanonicalMovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	return c.byTier(p, dst, true)
}

// byTier lists the moves of p by tier, from Moves.
func (c *ringCursor) byTier(p tiergame.Position, dst [][]tiergame.Position, canonical bool) tiergame.Value {
	v, cs := c.g.Moves(c.t, p, nil)
	tiers := c.g.ChildTiers(c.t)
	for _, ch := range cs {
		i := slices.Index(tiers, ch.Tier)
		if canonical {
			ch.Pos = c.g.Canonical(ch.Tier, ch.Pos)
		}
		if dst[i] != nil {
			dst[i] = append(dst[i], ch.Pos)
		}
	}
	return v
}

func movesOf(g tiergame.Game, t tiergame.Tier, p tiergame.Position) []tiergame.Child {
	_, cs := g.Moves(t, p, nil)
	return cs
}

// dice is a race with a die of diceSides faces: from distance n (the
// tier; one position each) the player to move rolls k and moves k or 1
// step closer (not past 0); whoever reaches 0 wins, so distance 0 is lost
// for the player to move. Every hash is a position (Exhaustive).
type dice struct {
	sides int
}

const diceStart = 7

var (
	_ tiergame.Chance          = dice{}
	_ tiergame.ChanceMoveNamer = dice{}
	_ tiergame.ChanceKernel    = dice{}
	_ tiergame.Exhaustive      = dice{}
)

func (dice) Name() string                              { return "dice" }
func (g dice) Option() string                          { return fmt.Sprintf("sides=%d", g.sides) }
func (dice) Start() (tiergame.Tier, tiergame.Position) { return diceStart, 0 }
func (dice) TierName(t tiergame.Tier) string           { return fmt.Sprintf("%d to go", t) }
func (dice) Exhaustive() bool                          { return true }

func (dice) TierSize(t tiergame.Tier) uint64 {
	if t <= diceStart {
		return 1
	}
	return 0
}

func (g dice) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	var out []tiergame.Tier
	for k := 1; k <= g.sides && int(t)-k >= 0; k++ {
		out = append(out, t-tiergame.Tier(k))
	}
	return out
}

func (g dice) Outcomes() []tiergame.Outcome {
	out := make([]tiergame.Outcome, g.sides)
	for k := range out {
		out[k] = tiergame.Outcome{Name: fmt.Sprint(k + 1), Weight: 1}
	}
	return out
}

// plays returns the distances roll k+1 leaves from n: n-(k+1) or n-1.
func plays(n tiergame.Tier, k int) []tiergame.Tier {
	far := tiergame.Tier(max(int(n)-(k+1), 0))
	if far == n-1 {
		return []tiergame.Tier{far}
	}
	return []tiergame.Tier{far, n - 1}
}

func (g dice) ChanceMoves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child, ends []int) (tiergame.Value, []tiergame.Child, []int) {
	if t == 0 {
		return tiergame.Lose, dst, ends
	}
	for k := range g.sides {
		for _, u := range plays(t, k) {
			dst = append(dst, tiergame.Child{Tier: u})
		}
		ends = append(ends, len(dst))
	}
	return tiergame.Undecided, dst, ends
}

func (g dice) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	v, dst, _ := g.ChanceMoves(t, p, dst, nil)
	return v, dst
}

func (g dice) ChanceMoveNames(t tiergame.Tier, p tiergame.Position, k int) []string {
	if t == 0 {
		return nil
	}
	var names []string
	for _, u := range plays(t, k) {
		names = append(names, fmt.Sprintf("to %d", u))
	}
	return names
}

func (g dice) SolveChance(t tiergame.Tier, lo, hi tiergame.Position, vals func(tiergame.Tier) []tiergame.Prob, out []tiergame.Prob) error {
	for p := lo; p < hi; p++ {
		if t == 0 {
			out[p-lo] = 0
			continue
		}
		var acc uint64
		for k := range g.sides {
			best := tiergame.ProbOne
			for _, u := range plays(t, k) {
				best = min(best, vals(u)[0])
			}
			acc += uint64(best)
		}
		out[p-lo] = tiergame.ChanceValue(acc, uint64(g.sides))
	}
	return nil
}

func (dice) Format(t tiergame.Tier, p tiergame.Position) string { return fmt.Sprintf("d%d", t) }

func (dice) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	var t tiergame.Tier
	if _, err := fmt.Sscanf(s, "d%d", &t); err != nil || t > diceStart || fmt.Sprintf("d%d", t) != s {
		return 0, 0, fmt.Errorf("dice: bad position %q", s)
	}
	return t, 0, nil
}
