package chance

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Planes (tiergame.Planes): further values a position of a chance game
// holds beside its probability, such as the bearoff's cubeful equities.
// They are solved tier by tier after the probabilities, by their own
// units, the counterparts of the probabilities': SolvePlanesRange (a
// range), SolvePlanesTier (a tier in ranges), WritePlanesDB (a tier's
// database of planes, beside its probability database: runfolder.PlanesFile), and
// Load reads them back with the probabilities.

// planesOf returns the game's planes and their names, or nil when the
// game (with its options) has none.
func PlanesOf(g tiergame.Game) (tiergame.Planes, []string) {
	pg, ok := g.(tiergame.Planes)
	if !ok {
		return nil, nil
	}
	names := pg.PlaneNames()
	if len(names) == 0 {
		return nil, nil
	}
	return pg, names
}

// Planes returns the planes of position p (K values, a slice the caller
// must not change), false if p is not in the tier or the tier has no
// planes.
func (c *Tier) Planes(p tiergame.Position) ([]tiergame.Prob, bool) {
	if c.k == 0 {
		return nil, false
	}
	var r uint64
	if c.set.Total() == c.set.Len() {
		if r = uint64(p) - c.set.Base(); r >= c.set.Len() {
			return nil, false
		}
	} else {
		var ok bool
		if r, ok = c.set.Lookup(uint64(p)); !ok {
			return nil, false
		}
	}
	return c.planes[uint64(c.k)*r : uint64(c.k)*(r+1)], true
}

// SetPlanes gives the tier its planes: k values a position, by rank.
func (c *Tier) SetPlanes(k int, planes []tiergame.Prob) error {
	if k <= 0 || uint64(len(planes)) != uint64(k)*c.set.Total() {
		return fmt.Errorf("tier %d: %d plane values for %d positions in %d planes", c.tier, len(planes), c.set.Total(), k)
	}
	c.k, c.planes = k, planes
	return nil
}

// PlaneValues returns the tier's planes, K values a position by rank.
func (c *Tier) PlaneValues() []tiergame.Prob { return c.planes }

// SolvePlanesRange is the unit of solving the planes of a chance game, the
// counterpart of SolveRange: it computes the planes of every member
// of set in r from its children's planes, found in kids, and stores those
// of the i-th member of r at out[K*i:K*(i+1)] (out needs K*r.Count(set)
// values). done, if not nil, counts positions as they are solved.
func SolvePlanesRange(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, r plan.Range, kids []*Tier, out []tiergame.Prob, done *atomic.Uint64) error {
	pg, names := PlanesOf(g)
	if pg == nil {
		return fmt.Errorf("%s (%s): the game has no planes (tiergame.Planes)", g.Name(), g.Option())
	}
	k := len(names)
	if pk, ok := g.(tiergame.PlaneKernel); ok && dense(set, r, kids) {
		return solvePlaneKernel(ctx, g, pk, k, t, r, kids, out, done)
	}
	var last int
	kid := func(c tiergame.Tier, p tiergame.Position) ([]tiergame.Prob, bool) {
		if ct := Kids(kids).Find(c, &last); ct != nil {
			return ct.Planes(p)
		}
		return nil, false
	}
	i := 0
	return work.EachBatch(ctx, set.Set, r, func(ps []uint64) error {
		for _, p := range ps {
			if err := pg.PlaneValues(t, tiergame.Position(p), kid, out[k*i:k*(i+1)]); err != nil {
				return fmt.Errorf("%s: tier %d position %d: %w", g.Name(), t, p, err)
			}
			i++
		}
		if done != nil {
			done.Add(uint64(len(ps)))
		}
		return nil
	})
}

// solvePlaneKernel runs the game's plane kernel over r in chunks.
func solvePlaneKernel(ctx context.Context, g tiergame.Game, pk tiergame.PlaneKernel, k int, t tiergame.Tier, r plan.Range, kids []*Tier, out []tiergame.Prob, done *atomic.Uint64) error {
	last := 0
	vals := func(c tiergame.Tier) []tiergame.Prob {
		if ct := Kids(kids).Find(c, &last); ct != nil && ct.k == k {
			return ct.planes // by position: dense checked that the tier is full
		}
		return nil
	}
	for lo := r.Lo; lo < r.Hi; lo += kernelChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(r.Hi, lo+kernelChunk)
		if err := pk.SolvePlanes(t, tiergame.Position(lo), tiergame.Position(hi), vals, out[uint64(k)*(lo-r.Lo):uint64(k)*(hi-r.Lo)]); err != nil {
			return fmt.Errorf("%s: tier %d: %w", g.Name(), t, err)
		}
		if done != nil {
			done.Add(hi - lo)
		}
	}
	return nil
}

// SolvePlanesTier computes the planes (K values a position, by rank) of
// every position of tier t of a chance game with planes, whose reachable
// positions are set, from its solved child tiers kids (with their
// planes), in ranges by SolvePlanesRange, as SolveTier does. Values
// do not depend on workers or ranges.
func SolvePlanesTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids []*Tier, workers, ranges int, done *atomic.Uint64) ([]tiergame.Prob, error) {
	_, names := PlanesOf(g)
	k := uint64(len(names))
	workers = max(workers, 1)
	if ranges <= 0 {
		ranges = workers
	}
	vals := make([]tiergame.Prob, k*set.Total())
	rs := plan.SplitRanges(set, max(ranges, int(min(set.Total()/chanceRange, 1<<16))))
	return vals, work.ForEach(ctx, workers, len(rs), func(ctx context.Context, i int) error {
		return SolvePlanesRange(ctx, g, t, set, rs[i], kids, vals[k*plan.FirstRank(set, rs[i]):], done)
	})
}

// WritePlanesDB writes tier t's database of planes from its planes (K
// values a position, by rank). The bytes depend only on the values and
// o's BlockRecords.
func WritePlanesDB(path string, g tiergame.Game, t tiergame.Tier, planes []tiergame.Prob, o *valuedb.WriteOptions) (valuedb.Header, error) {
	_, names := PlanesOf(g)
	return valuedb.WritePlanes(path, valuedb.Header{Game: g.Name(), Option: g.Option(), Tier: uint64(t), TierName: g.TierName(t)}, names, planes, o)
}

// openPlanes opens the database of planes at path, checking that it
// holds count positions of g's planes.
func OpenPlanes(g tiergame.Game, path string, count uint64) (*valuedb.DB, error) {
	_, names := PlanesOf(g)
	db, err := valuedb.Open(path)
	if err != nil {
		return nil, err
	}
	if h := db.Header(); h.Kind != valuedb.KindPlanes || h.Planes != strings.Join(names, ",") || h.Count != count {
		db.Close()
		return nil, fmt.Errorf("%s holds %d records of kind %q, planes %q; want %d positions of planes %q",
			filepath.Base(path), h.Count, h.Kind, h.Planes, count, strings.Join(names, ","))
	}
	return db, nil
}

// loadPlanes reads tier ct's planes from the database at path.
func loadPlanes(g tiergame.Game, ct *Tier, path string, workers int) error {
	_, names := PlanesOf(g)
	db, err := OpenPlanes(g, path, ct.set.Total())
	if err != nil {
		return err
	}
	defer db.Close()
	planes, err := db.ReadAllPlanes(workers)
	if err != nil {
		return err
	}
	return ct.SetPlanes(len(names), planes)
}
