package cluster

import (
	"fmt"

	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Games with chance (tiergame.Chance) run through the same units as the
// others: their solve units call solver.SolveChanceRange and write
// probabilities (a version-2 value database, solver.WriteProbDB); their
// children are loaded as solver.ChanceTier. Exhaustive games
// (tiergame.Exhaustive, the bearoff) reach every position: their level
// files are solver.FullTier and nothing is expanded.

// readProbsInto decodes the probabilities of a unit's (or a tier's)
// database into vals from off, checking it is for tier t of g and fits,
// and returns the offset after them.
func readProbsInto(vals []tiergame.Prob, off uint64, path string, g tiergame.Game, t tiergame.Tier, workers int) (uint64, error) {
	db, err := openTierDB(path, g, t)
	if err != nil {
		return off, err
	}
	defer db.Close()
	got, err := db.ReadAllProbs(workers)
	if err != nil {
		return off, err
	}
	if uint64(len(got)) > uint64(len(vals))-off {
		return off, fmt.Errorf("%s: %d values, more than the tier's %d positions", path, len(got), len(vals))
	}
	return off + uint64(copy(vals[off:], got)), nil
}

// openTierDB opens a value or probability database and checks it is for
// tier t of g.
func openTierDB(path string, g tiergame.Game, t tiergame.Tier) (*valuedb.DB, error) {
	db, err := valuedb.Open(path)
	if err != nil {
		return nil, err
	}
	if h := db.Header(); h.Game != g.Name() || h.Option != g.Option() || h.Tier != uint64(t) {
		db.Close()
		return nil, fmt.Errorf("%s: records of %s (%s) tier %d, not tier %d", path, h.Game, h.Option, h.Tier, t)
	}
	return db, nil
}
