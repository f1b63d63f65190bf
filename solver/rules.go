package solver

import (
	"fmt"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"github.com/tiersolve/tiersolve/valuedb"
)

// judgeTier applies the game's rules of play (tiergame.Judge) to loopy
// tier t just solved as st: it asks the game for the positions the rules
// decide and returns the tier with their records in place of the draws
// the retrograde analysis left (st itself, untouched, when the game has
// no rules for t; st is freed otherwise). Positions a symmetric run does
// not hold are read through their canonical form, so the rules see the
// whole tier; only the records of held positions are stored.
func judgeTier(g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, st *solved.Tier, kids []*solved.Tier, workers int) (*solved.Tier, error) {
	base := quotient.Base(g) // a symmetric run's game wraps the game's own
	j, ok := base.(tiergame.Judge)
	if !ok || !j.Judges(t) {
		return st, nil
	}
	sym, _ := base.(tiergame.Symmetric)
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
	ds, err := j.Judge(t, value, child)
	if err != nil {
		return nil, fmt.Errorf("%s: tier %s: rules: %w", g.Name(), tierName(g, t), err)
	}
	if len(ds) == 0 {
		return st, nil
	}
	recs := make([]valuedb.Record, st.Len())
	st.Records(recs, 0)
	for _, d := range ds {
		if d.Remoteness < 0 || d.Remoteness > valuedb.MaxRemoteness {
			return nil, fmt.Errorf("%s: tier %s: rules: remoteness %d of %s out of range", g.Name(), tierName(g, t), d.Remoteness, g.Format(t, d.Pos))
		}
		rank, ok := set.Lookup(uint64(d.Pos))
		if !ok {
			continue // a symmetric run holds the canonical form only
		}
		recs[rank] = valuedb.Make(d.Value, d.Remoteness)
	}
	out, err := solved.New(t, set, recs, workers)
	if err != nil {
		return nil, err
	}
	st.Free()
	return out, nil
}

// tierName is the tier's name when the game gives one.
func tierName(g tiergame.Game, t tiergame.Tier) string {
	if n, ok := g.(interface{ TierName(tiergame.Tier) string }); ok {
		return n.TierName(t)
	}
	return fmt.Sprint(t)
}
