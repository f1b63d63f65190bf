// Package unitio is what the workers' units and the leader's merges
// share of their inputs: the games, built once (Games), and the records
// of a tier read back from value databases (TierDB).
//
// Games with chance (tiergame.Chance) run through the same units as the
// others: their solve units call chance.SolveRange and write
// probabilities (a version-2 value database, chance.WriteDB), read
// back by ChanceInto. Exhaustive games (tiergame.Exhaustive, the
// bearoff) reach every position: their level files are reach.FullTier
// and nothing is expanded.
//
// The results of a chance game's solve unit are its probabilities, or
// for a game with planes (tiergame.Planes) both, 1+K values a position
// (the probability first, JoinChance), in one database of planes named
// "win" and the game's planes (WriteChance), which the leader splits
// (SplitChance) into the tier's probability database and its database of
// planes, as tierd solve writes them (chance.WriteDB,
// chance.WritePlanesDB). A merged tier's two databases reach workers
// apart (api.KidInput.DB, api.KidInput.Planes).
package unitio

import (
	"fmt"
	"github.com/tiersolve/tiersolve/solver/chance"
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

// ChanceInto decodes a chance unit's results (WriteChance), or a tier's
// probabilities or planes, from the database at path into dst from off,
// checking it is the tier's and fits, and returns the offset after them.
func (d TierDB) ChanceInto(dst []tiergame.Prob, off uint64, path string) (uint64, error) {
	db, err := d.open(path)
	if err != nil {
		return off, err
	}
	defer db.Close()
	var got []tiergame.Prob
	if db.Header().Kind == valuedb.KindPlanes {
		got, err = db.ReadAllPlanes(d.Workers)
	} else {
		got, err = db.ReadAllProbs(d.Workers)
	}
	if err != nil {
		return off, err
	}
	if uint64(len(got)) > uint64(len(dst))-off {
		return off, fmt.Errorf("%s: %d values, more than the tier's %d", path, len(got), len(dst))
	}
	return off + uint64(copy(dst[off:], got)), nil
}

// WriteChance writes a chance unit's results (JoinChance) of tier t of g
// to path.
func WriteChance(path string, g tiergame.Game, t tiergame.Tier, results []tiergame.Prob, o *valuedb.WriteOptions) error {
	pg, ok := g.(tiergame.Planes)
	if !ok || len(pg.PlaneNames()) == 0 {
		_, err := chance.WriteDB(path, g, t, results, o)
		return err
	}
	names := append([]string{"win"}, pg.PlaneNames()...)
	_, err := valuedb.WritePlanes(path, valuedb.Header{Game: g.Name(), Option: g.Option(), Tier: uint64(t), TierName: g.TierName(t)}, names, results, o)
	return err
}

// JoinChance interleaves probabilities and their planes (K a position)
// into a unit's results; without planes, the probabilities are the
// results.
func JoinChance(vals, planes []tiergame.Prob) []tiergame.Prob {
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

// SplitChance is the inverse of JoinChance: width values a position into
// the probabilities and the planes (nil for a width of 1).
func SplitChance(results []tiergame.Prob, width uint64) (vals, planes []tiergame.Prob) {
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
