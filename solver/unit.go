package solver

import (
	"context"
	"fmt"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Shape says how SolveTier solves a tier.
type Shape struct {
	// Loopy: the tier has moves inside itself (tiergraph.Graph.Loopy), so it is
	// solved by retrograde analysis rather than range by range.
	Loopy bool
	// ReverseIndex solves a loopy tier with a reverse index of its moves
	// even when the game has un-moves (a check of the un-moves).
	ReverseIndex bool
}

// SolveTier solves tier t, whose reachable positions are set, from its
// solved child tiers kids: in ranges by SolveRange for a loop-free tier,
// by retrograde analysis for a loopy one, in which case the records are
// made in their compact form and never held twice. The records depend on
// neither shape.ReverseIndex nor effort. The caller owns the result (see
// SolvedTier.Free).
func SolveTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids []*SolvedTier, shape Shape, e work.Effort) (*SolvedTier, error) {
	workers, done := max(e.Workers, 1), e.Done
	ranges := plan.RangesFor(set.Total(), workers, e.Ranges)
	if shape.Loopy && e.Paths != nil && e.Paths.Parts > 0 {
		return solveLoopyParts(ctx, g, t, set, kids, e.Paths.Parts, e)
	}
	if shape.Loopy {
		return solveLoopy(ctx, g, t, set, kids, shape.ReverseIndex, e)
	}
	recs := make([]valuedb.Record, set.Total())
	rs := plan.SplitShrinking(set, ranges)
	err := work.ForEach(ctx, workers, len(rs), func(ctx context.Context, i int) error {
		return SolveRange(ctx, g, t, set, rs[i], kids, recs[plan.FirstRank(set, rs[i]):], done)
	})
	if err != nil {
		return nil, err
	}
	return NewSolvedTier(t, set, recs, workers)
}

// WriteDB writes tier t's value database from its records (by rank). The
// bytes depend only on the records and o's BlockRecords.
func WriteDB(path string, g tiergame.Game, t tiergame.Tier, recs []valuedb.Record, o *valuedb.WriteOptions) (valuedb.Header, error) {
	return valuedb.Write(path, dbHeader(g, t), recs, o)
}

// WriteSolvedDB writes a solved tier's value database: the bytes WriteDB
// writes for the same records.
func WriteSolvedDB(path string, g tiergame.Game, st *SolvedTier, o *valuedb.WriteOptions) (valuedb.Header, error) {
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

// LoadSolvedTier loads a solved tier from its level file and value
// database, checking that they agree, into its compact form (a block of
// records decoded at a time). The caller owns it (see SolvedTier.Free).
func LoadSolvedTier(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string, workers int) (*SolvedTier, error) {
	ranked, db, err := openSolved(g, t, levelPath, dbPath)
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

// LoadSolvedRange loads the records of ranks [lo, hi) of solved tier t,
// reading only the blocks of its database that hold them, for ChildNotes:
// a range of a child tier rather than the whole. The caller owns it (see
// SolvedTier.Free).
func LoadSolvedRange(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string, lo, hi uint64, workers int) (*SolvedTier, error) {
	r, err := OpenSolved(g, t, levelPath, dbPath)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Range(lo, hi, workers)
}

// A SolvedReader reads ranges of a solved tier's records (plan.Range): its
// level file loaded once, its database open. A part's first pass reads
// each child tier so, a range at a time.
type SolvedReader struct {
	t      tiergame.Tier
	ranked *bitarray.Ranked
	db     *valuedb.DB
	path   string
	// byRank keeps the cells of the ranges read by rank however dense
	// the tier is: the rarer path, for tests.
	byRank bool
}

// OpenSolved opens solved tier t's level file and value database,
// checking that they agree, for plan.Range.
func OpenSolved(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string) (*SolvedReader, error) {
	ranked, db, err := openSolved(g, t, levelPath, dbPath)
	if err != nil {
		return nil, err
	}
	return &SolvedReader{t: t, ranked: ranked, db: db, path: dbPath}, nil
}

// Header is the database's header: its counts, and its longest
// remoteness.
func (r *SolvedReader) Header() valuedb.Header { return r.db.Header() }

// Range loads the records of ranks [lo, hi), reading only the blocks of
// the database that hold them. The caller owns it (see SolvedTier.Free).
func (r *SolvedReader) Range(lo, hi uint64, workers int) (*SolvedTier, error) {
	if lo > hi || hi > r.ranked.Total() {
		return nil, fmt.Errorf("%s: ranks [%d, %d) of %d", r.path, lo, hi, r.ranked.Total())
	}
	h := r.db.Header()
	maxTie := -1
	if h.Tie > 0 {
		maxTie = h.MaxRemoteness
	}
	st, err := newSolvedRange(r.t, r.ranked, lo, hi, h.MaxRemoteness, maxTie, worthDense(r.ranked) && !r.byRank)
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
func (r *SolvedReader) Close() error { return r.db.Close() }

// OpenSolvedSet is OpenSolved of a tier whose level file is loaded
// already, ranked (as a worker keeps the sets of the tiers it works on):
// it opens only the database.
func OpenSolvedSet(t tiergame.Tier, ranked *bitarray.Ranked, dbPath string) (*SolvedReader, error) {
	db, err := openDB(ranked, dbPath)
	if err != nil {
		return nil, err
	}
	return &SolvedReader{t: t, ranked: ranked, db: db, path: dbPath}, nil
}

// openSolved loads tier t's level file with its rank index and opens its
// database, checking that they agree on the number of positions.
func openSolved(g tiergame.Game, t tiergame.Tier, levelPath, dbPath string) (*bitarray.Ranked, *valuedb.DB, error) {
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
func NewStartRecord(g tiergame.Game, start *SolvedTier) (*runfolder.StartRecord, error) {
	t, p := g.Start()
	rec, ok := start.Lookup(p)
	if !ok || start.tier != t {
		return nil, fmt.Errorf("the start position is not in its tier's level file")
	}
	return &runfolder.StartRecord{Position: g.Format(t, p), Value: rec.Value().String(), Remoteness: rec.Remoteness()}, nil
}
