// Package unitio is what the workers' units and the leader's merges
// share of their inputs: the games, built once (Games), and the records
// of a tier read back from value databases (TierDB).
//
// Games with chance (tiergame.Chance) run through the same units as the
// others: their solve units call solver.SolveChanceRange and write
// probabilities (a version-2 value database, solver.WriteProbDB), read
// back by ProbsInto. Exhaustive games (tiergame.Exhaustive, the bearoff)
// reach every position: their level files are solver.FullTier and
// nothing is expanded.
package unitio

import (
	"fmt"

	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// TierDB reads the value (or probability) databases of tier Tier of
// Game, those of its units or its own, with Workers goroutines.
type TierDB struct {
	Game    tiergame.Game
	Tier    tiergame.Tier
	Workers int
}

// RecordsInto decodes the records of the database at path into recs from
// off, checking it is the tier's and fits, and returns the offset after
// them.
func (d TierDB) RecordsInto(recs []valuedb.Record, off uint64, path string) (uint64, error) {
	db, err := d.open(path)
	if err != nil {
		return off, err
	}
	defer db.Close()
	n := db.Header().Count
	if n > uint64(len(recs))-off {
		return off, fmt.Errorf("%s: %d records, more than the tier's %d positions", path, n, len(recs))
	}
	return off + n, db.ReadAllInto(recs[off:off+n], d.Workers)
}

// ProbsInto decodes the probabilities of the database at path into vals
// from off, checking it is the tier's and fits, and returns the offset
// after them.
func (d TierDB) ProbsInto(vals []tiergame.Prob, off uint64, path string) (uint64, error) {
	db, err := d.open(path)
	if err != nil {
		return off, err
	}
	defer db.Close()
	got, err := db.ReadAllProbs(d.Workers)
	if err != nil {
		return off, err
	}
	if uint64(len(got)) > uint64(len(vals))-off {
		return off, fmt.Errorf("%s: %d values, more than the tier's %d positions", path, len(got), len(vals))
	}
	return off + uint64(copy(vals[off:], got)), nil
}

// open opens a value or probability database and checks it is the
// tier's.
func (d TierDB) open(path string) (*valuedb.DB, error) {
	db, err := valuedb.Open(path)
	if err != nil {
		return nil, err
	}
	if h := db.Header(); h.Game != d.Game.Name() || h.Option != d.Game.Option() || h.Tier != uint64(d.Tier) {
		db.Close()
		return nil, fmt.Errorf("%s: records of %s (%s) tier %d, not tier %d", path, h.Game, h.Option, h.Tier, d.Tier)
	}
	return db, nil
}
