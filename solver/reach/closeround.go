package reach

import (
	"context"
	"fmt"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
)

// A loopy tier's closing by ranges: CloseTier cut into ranges of the
// tier's hashes, so that many workers close one tier at once, in rounds.
// Each range keeps the positions of its range found so far; a round
// expands what is new in it (CloseRound) until nothing new is found in
// the range, and what the moves reach in other ranges goes to them as
// notes for the next round. The tier is closed after a round in which no
// range sent a note: the union of the ranges' sets is CloseTier's set,
// and the children's sets, over every round and range, CloseTier's, each
// position expanded exactly once (the first round it is found in its
// range). The ranges are cut by plan.CloseRanges.

// RangeOf returns the positions of full (a set over a tier's whole hash
// space) in range r (aligned at plan.CloseRangeAlign), as a set over r.
func RangeOf(full *bitarray.Set, r plan.Range) (*bitarray.Set, error) {
	if full.Base() != 0 || r.Lo%plan.CloseRangeAlign != 0 || r.Hi > full.Len() || r.Lo > r.Hi {
		return nil, fmt.Errorf("reach: range [%d, %d) of a set over [%d, %d)", r.Lo, r.Hi, full.Base(), full.End())
	}
	s := bitarray.New(r.Lo, r.Hi-r.Lo)
	copy(s.Words(), full.Words()[r.Lo/plan.CloseRangeAlign:])
	if tail := (r.Hi - r.Lo) % 64; tail != 0 {
		w := s.Words()
		w[len(w)-1] &= 1<<tail - 1
	}
	return s, nil
}

// CloseRound is a round of range own.Base() to own.End() of loopy tier
// t's closing by ranges: own holds the range's positions found so far,
// frontier those of them not yet expanded (both over the range). It
// expands the frontier, then whatever that finds new in the range, until
// nothing is; own gains what was found. It returns the positions found in
// other ranges of t (notes, over t's whole hash space; they may be known
// there already) and the children's sets, one slice of targets per
// worker that did work, as CloseTier does.
func CloseRound(ctx context.Context, g tiergame.Game, t tiergame.Tier, own, frontier *bitarray.Set, children []tiergame.Tier, e work.Effort) (notes *bitarray.Set, shares [][]Target, err error) {
	if own.Base() != frontier.Base() || own.Len() != frontier.Len() || own.Base()%plan.CloseRangeAlign != 0 || own.End() > g.TierSize(t) {
		return nil, nil, fmt.Errorf("reach: tier %d: a round over [%d, %d) with a frontier over [%d, %d)", t, own.Base(), own.End(), frontier.Base(), frontier.End())
	}
	workers, ranges, done := max(e.Workers, 1), e.Ranges, e.Done
	size := g.TierSize(t)
	// A worker's targets: its child sets, then its set of positions found
	// in t (over the whole tier: moves land anywhere in it), both kept
	// across the round's steps. Each step moves what the found sets hold
	// of the range into the next frontier, so that only the other ranges'
	// positions stay in them: the notes.
	slots := NewSlots(workers, func() []Target {
		return append(ChildTargets(g, children), Target{Tier: t, Set: bitarray.New(0, size)})
	})
	first, last := own.Base()/64, (own.End()+63)/64 // the range's words in the found sets
	for {
		more, err := expandFrontier(ctx, g, t, frontier, slots, workers, ranges, done)
		if err != nil {
			return nil, nil, err
		}
		if !more {
			break
		}
		var found [][]uint64
		for _, ts := range slots.Used() {
			found = append(found, ts[len(ts)-1].Set.Words()[first:last])
		}
		nw, ow := frontier.Words(), own.Words()
		work.ForChunks(ctx, workers, len(ow), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				var w uint64
				for _, f := range found {
					w |= f[i]
					f[i] = 0
				}
				w &^= ow[i]
				nw[i] = w
				ow[i] |= w
			}
		})
	}
	used := slots.Used()
	if len(used) == 0 { // nothing to expand: no notes, no children
		return bitarray.New(0, size), nil, nil
	}
	notes = used[0][len(used[0])-1].Set
	for _, ts := range used {
		if s := ts[len(ts)-1].Set; s != notes {
			if err := notes.Or(s); err != nil {
				return nil, nil, err
			}
		}
		shares = append(shares, ts[:len(ts)-1])
	}
	return notes, shares, nil
}
