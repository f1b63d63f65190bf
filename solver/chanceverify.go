package solver

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/solver/chance"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// checkFiles checks every tier's files against the manifest, recording
// what does not match.
func (r *Run) checkFiles(rep *VerifyReport) error {
	for _, rec := range r.Manifest.Tiers {
		if !rec.Solved {
			return fmt.Errorf("tier %s is not solved", rec.Name)
		}
		files := []*runfolder.FileInfo{rec.Level, rec.DB}
		if pg, _ := chance.PlanesOf(r.Game); pg != nil {
			files = append(files, rec.Planes)
		}
		for _, fi := range files {
			rep.Files++
			if err := fi.Check(r.Dir, true); err != nil {
				rep.FileErrors = append(rep.FileErrors, err.Error())
			}
		}
	}
	return nil
}

// verifyChance is Verify for games with chance: every stored probability
// must be the one its children's stored probabilities give, position by
// position (so it also checks a game's kernel against the rule).
func (r *Run) verifyChance(ctx context.Context) (*VerifyReport, error) {
	rep := &VerifyReport{}
	if err := r.checkFiles(rep); err != nil || len(rep.FileErrors) > 0 {
		return rep, err
	}
	cg := r.Game.(tiergame.Chance)
	cache := map[tiergame.Tier]*chance.Tier{}
	var mu sync.Mutex
	err := eachChildrenFirst(r, "verify", cache, nil, func(_ int, t tiergame.Tier, _ func()) error {
		ct, err := r.loadChance(t, cache)
		if err != nil {
			return rep.stop(err)
		}
		if err := r.checkDB(rep, t, true); err != nil {
			return err
		}
		kids, err := r.chanceChildren(t, nil, cache)
		if err != nil {
			return err
		}
		eg, ectx := errgroup.WithContext(ctx)
		eg.SetLimit(r.Workers)
		var n atomic.Uint64
		mismatch := func(m Mismatch) {
			mu.Lock()
			rep.Mismatches++
			if len(rep.Examples) < 10 {
				rep.Examples = append(rep.Examples, m)
			}
			mu.Unlock()
		}
		for _, rg := range plan.SplitRanges(ct.Set(), plan.RangesFor(ct.Set().Total(), r.Workers, r.Ranges)) {
			eg.Go(func() error {
				d := chance.NewDeriver(r.Game, cg, t, kids)
				pd := newPlanesDeriver(r.Game, kids)
				rank := plan.FirstRank(ct.Set(), rg)
				for p := range ct.Set().Range(rg.Lo, rg.Hi) {
					if n.Add(1)&4095 == 0 && ectx.Err() != nil {
						return ectx.Err()
					}
					stored := ct.Values()[rank]
					derived, err := d.Value(tiergame.Position(p))
					if err != nil || derived != stored {
						mismatch(Mismatch{Tier: t, Position: tiergame.Position(p), Chance: true, StoredWin: stored, DerivedWin: derived, Err: err})
					}
					if pd != nil {
						pd.check(t, tiergame.Position(p), ct.PlaneValues()[uint64(pd.k)*rank:uint64(pd.k)*(rank+1)], mismatch)
					}
					rank++
				}
				return nil
			})
		}
		if err := eg.Wait(); err != nil {
			return err
		}
		rep.Positions += n.Load()
		rep.Tiers++
		return nil
	})
	if err == errStop {
		err = nil
	}
	return rep, err
}

// planesDeriver re-derives the planes of positions from their children's,
// for verify.
type planesDeriver struct {
	pg      tiergame.Planes
	names   []string
	k       int
	kid     func(tiergame.Tier, tiergame.Position) ([]tiergame.Prob, bool)
	derived []tiergame.Prob
}

// newPlanesDeriver returns a deriver over the planes of kids, or nil for a
// game without planes.
func newPlanesDeriver(g tiergame.Game, kids []*chance.Tier) *planesDeriver {
	pg, names := chance.PlanesOf(g)
	if pg == nil {
		return nil
	}
	last := 0
	kid := func(c tiergame.Tier, p tiergame.Position) ([]tiergame.Prob, bool) {
		if ct := chance.Kids(kids).Find(c, &last); ct != nil {
			return ct.Planes(p)
		}
		return nil, false
	}
	return &planesDeriver{pg: pg, names: names, k: len(names), kid: kid, derived: make([]tiergame.Prob, len(names))}
}

// check re-derives the planes of position p of tier t and reports each
// that differs from stored.
func (d *planesDeriver) check(t tiergame.Tier, p tiergame.Position, stored []tiergame.Prob, mismatch func(Mismatch)) {
	if err := d.pg.PlaneValues(t, p, d.kid, d.derived); err != nil {
		mismatch(Mismatch{Tier: t, Position: p, Chance: true, Plane: d.names[0], Err: err})
		return
	}
	for n, v := range d.derived {
		if v != stored[n] {
			mismatch(Mismatch{Tier: t, Position: p, Chance: true, Plane: d.names[n], StoredWin: stored[n], DerivedWin: v})
		}
	}
}
