package chance

import (
	"context"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// The units of work of games with chance, the counterparts of SolveTier,
// WriteDB and LoadSolvedTier (SolveRange, the range unit, is in
// go). Seeded runs merge their tiers from the seed level files
// and partials without the start position (reach.MergeOnto), exhaustive runs
// take reach.FullTier (seeds.go).

// chanceRange is about how many positions a range of a chance tier has.
const chanceRange = 1 << 20

// SolveTier computes the values (by rank) of every position of
// tier t of a game with chance, whose reachable positions are set, from
// its solved child tiers kids, in ranges by SolveRange. Work per
// position varies along a tier (in the bearoff, with the mover's
// checkers), so the tier is cut into at least ranges ranges and about one
// per million positions, which the workers take in turn. Values do not
// depend on workers or ranges.
func SolveTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids []*Tier, workers, ranges int, done *atomic.Uint64) ([]tiergame.Prob, error) {
	workers = max(workers, 1)
	if ranges <= 0 {
		ranges = workers
	}
	vals := make([]tiergame.Prob, set.Total())
	rs := plan.SplitRanges(set, max(ranges, int(min(set.Total()/chanceRange, 1<<16))))
	return vals, work.ForEach(ctx, workers, len(rs), func(ctx context.Context, i int) error {
		return SolveRange(ctx, g, t, set, rs[i], kids, vals[plan.FirstRank(set, rs[i]):], done)
	})
}

// WriteDB writes tier t's probability database from its values (by
// rank). The bytes depend only on the values and o's BlockRecords.
func WriteDB(path string, g tiergame.Game, t tiergame.Tier, vals []tiergame.Prob, o *valuedb.WriteOptions) (valuedb.Header, error) {
	return valuedb.WriteProbs(path, valuedb.Header{Game: g.Name(), Option: g.Option(), Tier: uint64(t), TierName: g.TierName(t)}, vals, o)
}

// Load loads a solved tier of a game with chance from its level
// file and probability database, checking that they agree, and indexes it
// for look-ups; for a game with planes, also its planes, from the database
// beside the probabilities (runfolder.PlanesFile).
func Load(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string, workers int) (*Tier, error) {
	planes := ""
	if pg, _ := PlanesOf(g); pg != nil {
		planes = runfolder.PlanesPath(dbPath)
	}
	return LoadFiles(g, t, levelPath, dbPath, planes, workers)
}

// LoadFiles is Load with the planes database named
// (runfolder.PlanesPath), or none ("": the tier is loaded without its planes).
func LoadFiles(g tiergame.Game, t tiergame.Tier, levelPath, dbPath, planesPath string, workers int) (*Tier, error) {
	ranked, db, err := solved.OpenFiles(g, t, levelPath, dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	vals, err := db.ReadAllProbs(workers)
	if err != nil {
		return nil, err
	}
	ct := New(t, ranked, vals, workers)
	if planesPath != "" {
		if err := loadPlanes(g, ct, planesPath, workers); err != nil {
			return nil, err
		}
	}
	return ct, nil
}

// ChanceStartRecord is the manifest's record of the start position of a
// game with chance, from its solved tier: the probability that the side
// to move wins. It is nil if the start is not in that tier (a run from
// seeds that do not hold it).
func NewStartRecord(g tiergame.Game, start *Tier) *runfolder.StartRecord {
	st, p := g.Start()
	if st != start.tier {
		return nil
	}
	v, ok := start.lookup(p)
	if !ok {
		return nil
	}
	win := v.Float()
	return &runfolder.StartRecord{Position: g.Format(st, p), Value: "chance", Win: &win}
}
