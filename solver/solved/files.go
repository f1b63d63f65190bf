package solved

import (
	"fmt"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// WriteDB writes tier t's value database from its records (by rank). The
// bytes depend only on the records and o's BlockRecords.
func WriteDB(path string, g tiergame.Game, t tiergame.Tier, recs []valuedb.Record, o *valuedb.WriteOptions) (valuedb.Header, error) {
	return valuedb.Write(path, dbHeader(g, t), recs, o)
}

// WriteTierDB writes a solved tier's value database: the bytes WriteDB
// writes for the same records.
func WriteTierDB(path string, g tiergame.Game, st *Tier, o *valuedb.WriteOptions) (valuedb.Header, error) {
	return valuedb.WriteFrom(path, dbHeader(g, st.tier), st, o)
}

// dbHeader is what a value database's header says of its tier.
func dbHeader(g tiergame.Game, t tiergame.Tier) valuedb.Header {
	return valuedb.Header{Game: g.Name(), Option: g.Option(), Tier: uint64(t), TierName: g.TierName(t)}
}

// ConcatDB writes tier t's value database from the databases of its
// ranges, in rank order, by copying their blocks (valuedb.Concat): the
// bytes WriteDB writes for the same records when each range's database
// was written by WriteDB with o and holds whole blocks (but the last:
// plan.SplitShrinkingAligned); otherwise valuedb.ErrUnaligned.
func ConcatDB(path string, g tiergame.Game, t tiergame.Tier, parts []string, o *valuedb.WriteOptions) (valuedb.Header, error) {
	return valuedb.Concat(path, dbHeader(g, t), parts, o)
}

// Load loads a solved tier from its level file and value
// database, checking that they agree, into its compact form (a block of
// records decoded at a time). The caller owns it (see Tier.Free).
func Load(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string, workers int) (*Tier, error) {
	ranked, db, err := OpenFiles(g, t, levelPath, dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	h := db.Header()
	maxTie := -1
	if h.Tie > 0 {
		maxTie = h.MaxRemoteness
	}
	st, err := newSolvedTier(t, ranked, h.MaxRemoteness, maxTie)
	if err != nil {
		return nil, err
	}
	if err := db.EachBlock(workers, st.fill); err != nil {
		st.Free()
		return nil, err
	}
	st.maxRem, st.maxTie = st.longest(workers)
	return st, nil
}

// LoadRange loads the records of ranks [lo, hi) of solved tier t,
// reading only the blocks of its database that hold them, for ChildNotes:
// a range of a child tier rather than the whole. The caller owns it (see
// Tier.Free).
func LoadRange(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string, lo, hi uint64, workers int) (*Tier, error) {
	r, err := Open(g, t, levelPath, dbPath)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Range(lo, hi, workers)
}

// A Reader reads ranges of a solved tier's records (plan.Range): its
// level file loaded once, its database open. A part's first pass reads
// each child tier so, a range at a time.
type Reader struct {
	t      tiergame.Tier
	ranked *bitarray.Ranked
	db     *valuedb.DB
	path   string
	// ByRank keeps the cells of the ranges read by rank however dense
	// the tier is: the rarer path, which tests force (the records are
	// the same).
	ByRank bool
}

// Open opens solved tier t's level file and value database,
// checking that they agree, for plan.Range.
func Open(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string) (*Reader, error) {
	ranked, db, err := OpenFiles(g, t, levelPath, dbPath)
	if err != nil {
		return nil, err
	}
	return &Reader{t: t, ranked: ranked, db: db, path: dbPath}, nil
}

// Header is the database's header: its counts, and its longest
// remoteness.
func (r *Reader) Header() valuedb.Header { return r.db.Header() }

// Range loads the records of ranks [lo, hi), reading only the blocks of
// the database that hold them. The caller owns it (see Tier.Free).
func (r *Reader) Range(lo, hi uint64, workers int) (*Tier, error) {
	if lo > hi || hi > r.ranked.Total() {
		return nil, fmt.Errorf("%s: ranks [%d, %d) of %d", r.path, lo, hi, r.ranked.Total())
	}
	h := r.db.Header()
	maxTie := -1
	if h.Tie > 0 {
		maxTie = h.MaxRemoteness
	}
	st, err := newSolvedRange(r.t, r.ranked, lo, hi, h.MaxRemoteness, maxTie, WorthDense(r.ranked) && !r.ByRank)
	if err != nil {
		return nil, err
	}
	if err := r.db.EachBlockIn(workers, lo, hi, st.fill); err != nil {
		st.Free()
		return nil, err
	}
	st.maxRem, st.maxTie = st.longest(workers)
	return st, nil
}

// Close closes the database.
func (r *Reader) Close() error { return r.db.Close() }

// OpenSet is Open of a tier whose level file is loaded
// already, ranked (as a worker keeps the sets of the tiers it works on):
// it opens only the database.
func OpenSet(t tiergame.Tier, ranked *bitarray.Ranked, dbPath string) (*Reader, error) {
	db, err := openDB(ranked, dbPath)
	if err != nil {
		return nil, err
	}
	return &Reader{t: t, ranked: ranked, db: db, path: dbPath}, nil
}

// openSolved loads tier t's level file with its rank index and opens its
// database, checking that they agree on the number of positions.
func OpenFiles(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string) (*bitarray.Ranked, *valuedb.DB, error) {
	set, err := reach.LoadLevel(levelPath, g, t)
	if err != nil {
		return nil, nil, err
	}
	ranked := bitarray.NewRanked(set)
	db, err := openDB(ranked, dbPath)
	if err != nil {
		return nil, nil, err
	}
	return ranked, db, nil
}

// openDB opens the value database of the positions ranked, checking that
// it has a record for each.
func openDB(ranked *bitarray.Ranked, dbPath string) (*valuedb.DB, error) {
	db, err := valuedb.Open(dbPath)
	if err != nil {
		return nil, err
	}
	if db.Header().Count != ranked.Total() {
		db.Close()
		return nil, fmt.Errorf("%s has %d records for %d positions", dbPath, db.Header().Count, ranked.Total())
	}
	return db, nil
}

// NewStartRecord is the manifest's record of the start position of g,
// from its solved tier.
func NewStartRecord(g tiergame.Game, start *Tier) (*runfolder.StartRecord, error) {
	t, p := g.Start()
	rec, ok := start.Lookup(p)
	if !ok || start.tier != t {
		return nil, fmt.Errorf("the start position is not in its tier's level file")
	}
	return &runfolder.StartRecord{Position: g.Format(t, p), Value: rec.Value().String(), Remoteness: rec.Remoteness()}, nil
}
