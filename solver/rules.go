package solver

import (
	"errors"
	"fmt"

	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"github.com/tiersolve/tiersolve/valuedb"
)

// judgeTier applies the game's rules of play (tiergame.Judge) to loopy
// tier t just solved as st: it asks the game for the positions the rules
// decide and returns the tier with their records in place of the draws
// the retrograde analysis left: st itself, untouched when the game has
// no rules for t, its records replaced in place otherwise. Positions a
// symmetric run does not hold are read through their canonical form, so
// the rules see the whole tier; only the records of held positions are
// stored.
//
// kidsDone, if not nil, is called once the pass reads kids no more.
func judgeTier(g tiergame.Game, t tiergame.Tier, st *solved.Tier, kids []*solved.Tier, workers int, levels *work.LevelProgress, kidsDone func()) (*solved.Tier, error) {
	base := quotient.Base(g) // a symmetric run's game wraps the game's own
	j, ok := base.(tiergame.Judge)
	if !ok || !j.Judges(t) {
		return st, nil
	}
	// Only a symmetric run (a quotient of the game) leaves positions
	// out; in any other a hash the tier lacks is no position, and its
	// canonical form (most of the tier's hashes are no legal position)
	// would cost the pass's first look at every hash for nothing.
	var sym tiergame.Symmetric
	if base != g {
		sym, _ = base.(tiergame.Symmetric)
	}
	lookup := func(s *solved.Tier, tt tiergame.Tier, p tiergame.Position) tiergame.Value {
		if s == nil {
			return tiergame.Undecided
		}
		rec, ok := s.Lookup(p)
		if !ok && sym != nil {
			rec, ok = s.Lookup(sym.Canonical(tt, p))
		}
		if !ok {
			return tiergame.Undecided
		}
		return rec.Value()
	}
	child := func(c tiergame.Child) tiergame.Value { // called from the game's goroutines
		last := 0
		return lookup(solved.Children(kids).Find(c.Tier, &last), c.Tier, c.Pos)
	}
	value := func(p tiergame.Position) tiergame.Value { return lookup(st, t, p) }
	// Each decision's record replaces its draw in st's cells as the game
	// gives it (the cells widen in place at the first): neither a list of
	// the decisions nor a second tier is ever held beside st.
	var progress func(string)
	if levels != nil {
		progress = levels.Rules
	}
	err := j.Judge(t, tiergame.Judging{Value: value, Child: child, Progress: progress, ChildrenDone: kidsDone, Yield: func(d tiergame.Judged) error {
		if d.Remoteness < 0 || d.Remoteness > valuedb.MaxRemoteness {
			return fmt.Errorf("remoteness %d of %s out of range", d.Remoteness, g.Format(t, d.Pos))
		}
		err := st.Put(d.Pos, valuedb.Make(d.Value, d.Remoteness), workers)
		if errors.Is(err, solved.ErrNotHeld) {
			return nil // a symmetric run holds the canonical form only
		}
		return err
	}})
	if err != nil {
		return nil, fmt.Errorf("%s: tier %s: rules: %w", g.Name(), tierName(g, t), err)
	}
	return st, nil
}

// tierName is the tier's name when the game gives one.
func tierName(g tiergame.Game, t tiergame.Tier) string {
	if n, ok := g.(interface{ TierName(tiergame.Tier) string }); ok {
		return n.TierName(t)
	}
	return fmt.Sprint(t)
}
