// Package quotient reduces a symmetric tier game to one position per
// symmetry class: the game a symmetric run solves.
//
// A symmetric run (solver.Config.Symmetry) solves the quotient of its
// game by the game's symmetries (tiergame.Symmetric): one position per
// orbit, the canonical one, whose value and remoteness are those of every
// member of the orbit. The quotient's moves lead to canonical children, its
// un-moves to canonical parents, and its start is canonical; so the units
// of work, given the quotient, expand and solve canonical positions only
// and look every child up by its canonical position: ExpandRange and
// CloseTier add canonical children, SolveRange and SolveTier read them,
// MergeTier adds the canonical start. The embedded run and a cluster
// worker both pass the quotient (Reduce) to the same functions. Level files
// and value databases then hold canonical positions only (marked in the
// level files' header, see levelfile/LAYOUT.md), and an Oracle
// canonicalizes a position before it looks it up.
package quotient

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/tiersolve/tiersolve/tiergame"
)

// ErrNoSymmetry is returned for a symmetric run of a game that declares
// no symmetries.
var ErrNoSymmetry = errors.New("the game declares no symmetries (tiergame.Symmetric)")

// Reduce returns g itself, or with symmetry its quotient by its
// symmetries: a game whose positions are g's canonical positions.
func Reduce(g tiergame.Game, symmetry bool) (tiergame.Game, error) {
	if !symmetry || Is(g) {
		return g, nil
	}
	s, ok := g.(tiergame.Symmetric)
	if !ok {
		return nil, fmt.Errorf("%s: %w", g.Name(), ErrNoSymmetry)
	}
	q := quotient{Game: g, sym: s}
	if _, ok := g.(tiergame.Unmover); ok {
		return &unmovingQuotient{q}, nil
	}
	return &q, nil
}

// Is reports whether g is a quotient made by Reduce.
func Is(g tiergame.Game) bool {
	_, ok := g.(interface{ base() tiergame.Game })
	return ok
}

// Base returns the game a quotient was made of, or g itself.
func Base(g tiergame.Game) tiergame.Game {
	if q, ok := g.(interface{ base() tiergame.Game }); ok {
		return q.base()
	}
	return g
}

// quotient is a symmetric game reduced to its canonical positions.
type quotient struct {
	tiergame.Game
	sym tiergame.Symmetric
}

var (
	_ tiergame.CursorGame = (*quotient)(nil)
	_ tiergame.Symmetric  = (*quotient)(nil)
	_ tiergame.Legality   = (*quotient)(nil)
	_ tiergame.Unmover    = (*unmovingQuotient)(nil)
)

func (q *quotient) base() tiergame.Game { return q.Game }

// Start returns the canonical start position.
func (q *quotient) Start() (tiergame.Tier, tiergame.Position) {
	t, p := q.Game.Start()
	return t, q.sym.Canonical(t, p)
}

// Moves returns the game's moves of p, each child canonical.
func (q *quotient) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	n := len(dst)
	v, dst := q.Game.Moves(t, p, dst)
	for i := n; i < len(dst); i++ {
		dst[i].Pos = q.sym.Canonical(dst[i].Tier, dst[i].Pos)
	}
	return v, dst
}

// Cursor returns a cursor giving canonical children.
func (q *quotient) Cursor(t tiergame.Tier) tiergame.Cursor {
	return tiergame.NewCanonicalCursor(q.Game, t)
}

// Images are the game's.
func (q *quotient) Images(t tiergame.Tier, p tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	return q.sym.Images(t, p, dst)
}

// Canonical is the game's.
func (q *quotient) Canonical(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	return q.sym.Canonical(t, p)
}

// Exhaustive is the game's: the quotient of an exhaustive game has every
// canonical position reachable (LegalWords says which).
func (q *quotient) Exhaustive() bool { return tiergame.IsExhaustive(q.Game) }

// WholeTiers is the game's.
func (q *quotient) WholeTiers() bool { return tiergame.HasWholeTiers(q.Game) }

// NeedsSeeds is the game's.
func (q *quotient) NeedsSeeds() error {
	if so, ok := q.Game.(tiergame.SeedsOnly); ok {
		return so.NeedsSeeds()
	}
	return nil
}

// LegalWords keeps the game's legal positions (every hash if it has no
// tiergame.Legality) that are canonical.
func (q *quotient) LegalWords(t tiergame.Tier, lo tiergame.Position, words []uint64) {
	if lg, ok := q.Game.(tiergame.Legality); ok {
		lg.LegalWords(t, lo, words)
	} else {
		n := q.Game.TierSize(t)
		for i := range words {
			words[i] = ^uint64(0)
			if end := uint64(lo) + 64*uint64(i+1); end > n {
				words[i] = 0
				if start := uint64(lo) + 64*uint64(i); start < n {
					words[i] = 1<<(n-start) - 1
				}
			}
		}
	}
	for i, w := range words {
		for ; w != 0; w &= w - 1 {
			p := lo + tiergame.Position(64*i+bits.TrailingZeros64(w))
			if q.sym.Canonical(t, p) != p {
				words[i] &^= 1 << (p % 64)
			}
		}
	}
}

// unmovingQuotient is the quotient of a game with un-moves.
type unmovingQuotient struct{ quotient }

// Parents returns the canonical parents, once each.
func (q *unmovingQuotient) Parents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	return tiergame.CanonicalParents(q.Game, t, p, pt, dst)
}
