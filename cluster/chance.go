package cluster

import (
	"fmt"

	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Games with chance (tiergame.Chance) run through the same units as the
// others: their solve units call solver.SolveChanceRange and write
// probabilities (a version-2 value database, solver.WriteProbDB); their
// children are loaded as solver.ChanceTier. Exhaustive games
// (tiergame.Exhaustive, the bearoff) reach every position: their level
// files are solver.FullTier and nothing is expanded.

// The results of a chance game's solve unit are its probabilities, or
// for a game with planes (tiergame.Planes) both, 1+K values a position
// (the probability first), in one database of planes named "win" and the
// game's planes (writeChance), which the leader splits into the tier's
// probability database and its database of planes, as tierd solve writes
// them (solver.WriteProbDB, solver.WritePlanesDB). A merged tier's two
// databases reach workers apart (KidInput.DB, KidInput.Planes).

// joinChance interleaves probabilities and their planes (K a position)
// into a unit's results; without planes, the probabilities are the
// results.
func joinChance(vals, planes []tiergame.Prob) []tiergame.Prob {
	if len(planes) == 0 {
		return vals
	}
	k := len(planes) / max(len(vals), 1)
	out := make([]tiergame.Prob, len(vals)+len(planes))
	for i, v := range vals {
		out[(k+1)*i] = v
		copy(out[(k+1)*i+1:(k+1)*(i+1)], planes[k*i:k*(i+1)])
	}
	return out
}

// splitChance is the inverse of joinChance: width values a position into
// the probabilities and the planes (nil for a width of 1).
func splitChance(results []tiergame.Prob, width uint64) (vals, planes []tiergame.Prob) {
	if width == 1 {
		return results, nil
	}
	n := uint64(len(results)) / width
	vals, planes = make([]tiergame.Prob, n), make([]tiergame.Prob, (width-1)*n)
	for i := range n {
		vals[i] = results[width*i]
		copy(planes[(width-1)*i:(width-1)*(i+1)], results[width*i+1:width*(i+1)])
	}
	return vals, planes
}

// writeChance writes a chance unit's results (joinChance) to path.
func writeChance(path string, g tiergame.Game, t tiergame.Tier, results []tiergame.Prob, o *valuedb.WriteOptions) error {
	pg, ok := g.(tiergame.Planes)
	if !ok || len(pg.PlaneNames()) == 0 {
		_, err := solver.WriteProbDB(path, g, t, results, o)
		return err
	}
	names := append([]string{"win"}, pg.PlaneNames()...)
	_, err := valuedb.WritePlanes(path, valuedb.Header{Game: g.Name(), Option: g.Option(), Tier: uint64(t), TierName: g.TierName(t)}, names, results, o)
	return err
}

// readChanceInto decodes a unit's results (writeChance), or a tier's
// probabilities or planes, into dst from off, checking the database is for
// tier t of g and fits, and returns the offset after them.
func readChanceInto(dst []tiergame.Prob, off uint64, path string, g tiergame.Game, t tiergame.Tier, workers int) (uint64, error) {
	db, err := openTierDB(path, g, t)
	if err != nil {
		return off, err
	}
	defer db.Close()
	var got []tiergame.Prob
	if db.Header().Kind == valuedb.KindPlanes {
		got, err = db.ReadAllPlanes(workers)
	} else {
		got, err = db.ReadAllProbs(workers)
	}
	if err != nil {
		return off, err
	}
	if uint64(len(got)) > uint64(len(dst))-off {
		return off, fmt.Errorf("%s: %d values, more than the tier's %d", path, len(got), len(dst))
	}
	return off + uint64(copy(dst[off:], got)), nil
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
