package solver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"github.com/tiersolve/tiersolve/valuedb"
)

// The units of work, as plain functions of (game, tier, range, inputs).
// The embedded run (Run.Reach, Run.Solve) and a cluster worker call the
// same ones, so both write the same bytes:
//
//   - MergeTier: a tier's set from its parents' partial level files;
//   - ExpandRange: a range of a loop-free tier into sets of its children;
//   - CloseTier: a loopy tier closed under its own moves, as one unit;
//   - SolveRange: a range of a loop-free tier to its records;
//   - SolveTier: a whole tier to its records (loopy tiers: one unit);
//   - WriteLevel: a tier's full level file from its set.

// DefaultPartialLevel is the gzip level of partial level files: they are
// read once, by their merge, so they are compressed fast.
const DefaultPartialLevel = 1

// LoadLevel reads tier t's level file at path into a set over t's hash
// space; a file whose positions fall outside it is an error.
func LoadLevel(path string, g tiergame.Game, t tiergame.Tier) (*bitarray.Set, error) {
	f, err := levelfile.Open(path, &levelfile.Options{MaxSpan: g.TierSize(t) + 1})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	set := bitarray.New(0, g.TierSize(t))
	if err := f.ReadInto(set); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return set, nil
}

// MergeTier is tier t's set before closure: the union of the partial level
// files its parents' units wrote for it, and the start position when t is
// the start tier.
func MergeTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, partials []string, workers int) (*bitarray.Set, error) {
	return mergeOnto(ctx, g, t, bitarray.New(0, g.TierSize(t)), partials, true, workers)
}

// mergeOnto adds to set, over tier t's hash space, the members of files
// and, if start is set and t is the start tier, the start position.
func mergeOnto(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Set, files []string, start bool, workers int) (*bitarray.Set, error) {
	if st, p := g.Start(); start && st == t {
		set.Add(uint64(p))
	}
	// Merge straight into the tier's set: one bit array, not two.
	if err := levelfile.MergeInto(ctx, set, files, &levelfile.MergeOptions{Workers: workers}); err != nil {
		return nil, fmt.Errorf("tier %d: %w", t, err)
	}
	return set, nil
}

// WriteLevel writes tier t's full level file from its set, with o (its
// Game is set to g's name, and Symmetric when g is a quotient). The bytes
// depend only on the set and o's Types, Dialect and Level.
func WriteLevel(path string, g tiergame.Game, set *bitarray.Set, o levelfile.WriteOptions) (levelfile.Result, error) {
	o.Game, o.Symmetric = g.Name(), quotient.Is(g)
	return levelfile.WriteFile(path, set, &o)
}

// ChildTargets returns empty sets over the hash spaces of the tiers cs, for
// ExpandRange.
func ChildTargets(g tiergame.Game, cs []tiergame.Tier) []Target {
	targets := make([]Target, 0, len(cs))
	for _, c := range cs {
		targets = append(targets, Target{Tier: c, Set: bitarray.New(0, g.TierSize(c))})
	}
	return targets
}

// Effort says how a unit function spreads its work, none of which changes
// what it computes.
type Effort struct {
	// Workers is how many goroutines work at once (at least 1).
	Workers int
	// Ranges is how many ranges a tier's positions are cut into; 0 lets
	// the unit choose (rangesFor).
	Ranges int
	// Done, if not nil, counts positions as they are visited: progress.
	Done *atomic.Uint64
	// Levels, if not nil, follows a loopy tier's retrograde analysis
	// level by level once its positions are visited: progress.
	Levels *LevelProgress
	// Lean solves a loopy tier without its positions' longest wins in
	// other tiers kept beside its cells (half a byte a hash less; a
	// position that loses looks them up again instead): for a budget
	// that would not hold them.
	Lean bool
}

// LevelProgress is where a loopy tier's retrograde analysis is: the phase
// (wins and losses, then ties), the level of remoteness it processes, and
// how many positions the levels processed so far decided.
type LevelProgress struct {
	ties    atomic.Bool
	level   atomic.Int64
	decided atomic.Uint64
}

// Load returns the phase ("wins and losses" or "ties"), the level and the
// positions decided so far.
func (p *LevelProgress) Load() (phase string, level int, decided uint64) {
	phase = "wins and losses"
	if p.ties.Load() {
		phase = "ties"
	}
	return phase, int(p.level.Load()), p.decided.Load()
}

// CloseTier adds to set everything reachable by moves inside loopy tier t
// (whose child tiers other than t are children), expanding each position
// exactly once: its children in t go to the next round, its children in
// other tiers to child sets that each of the workers keeps across rounds.
// It returns those sets, one slice of targets per worker that did work:
// the partial level files of t's children are their union.
func CloseTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Set, children []tiergame.Tier, e Effort) ([][]Target, error) {
	workers, ranges, done := max(e.Workers, 1), e.Ranges, e.Done
	// A worker's targets: its child sets, kept across rounds, then its
	// set of positions found inside t in the current round (its own, so
	// adding to it needs no atomic operations).
	slots := newSlots(workers, func() []Target {
		return append(ChildTargets(g, children), Target{Tier: t, Set: bitarray.New(0, set.Len())})
	})
	frontier := set.Clone()
	for {
		ranked := bitarray.NewRankedWorkers(frontier, workers)
		if ranked.Total() == 0 {
			break
		}
		err := forRanges(ctx, ranked, workers, ranges, func(ctx context.Context, r plan.Range) error {
			sl := slots.get()
			defer slots.put(sl)
			_, err := ExpandRange(ctx, g, t, frontier, r, sl, done)
			return err
		})
		if err != nil {
			return nil, err
		}
		// The next frontier is what this round found that is new, in
		// place of this round's (expanded, so no longer read): a third
		// set over the tier would cost its bits again. The found sets
		// are emptied for the next round.
		var found [][]uint64
		for _, ts := range slots.used() {
			found = append(found, ts[len(ts)-1].Set.Words())
		}
		nw, sw := frontier.Words(), set.Words()
		forChunks(ctx, workers, len(sw), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				var w uint64
				for _, f := range found {
					w |= f[i]
					f[i] = 0
				}
				w &^= sw[i]
				nw[i] = w
				sw[i] |= w
			}
		})
	}
	var out [][]Target
	for _, ts := range slots.used() {
		ts[len(ts)-1] = Target{} // the found set, garbage from here on
		out = append(out, ts[:len(ts)-1])
	}
	return out, nil
}

// slots hands each range a worker's own targets: as many sets as there
// are workers, each made on first use, so a worker's ranges add to the
// same sets and adding needs no atomic operations.
type slots struct {
	free  chan []Target
	mu    sync.Mutex
	made  [][]Target
	build func() []Target
}

func newSlots(workers int, build func() []Target) *slots {
	s := &slots{free: make(chan []Target, workers), build: build}
	for range workers {
		s.free <- nil
	}
	return s
}

// get takes a free slot's targets, making them on its first use.
func (s *slots) get() []Target {
	ts := <-s.free
	if ts == nil {
		ts = s.build()
		s.mu.Lock()
		s.made = append(s.made, ts)
		s.mu.Unlock()
	}
	return ts
}

// put gives a slot back.
func (s *slots) put(ts []Target) { s.free <- ts }

// used lists the targets of the slots that were used, in the order they
// were first used.
func (s *slots) used() [][]Target {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.made)
}

// chunkWords is the fewest words worth a goroutine of forChunks.
const chunkWords = 1 << 15

// forChunks calls f on consecutive chunks of [0, n) on up to workers
// goroutines.
func forChunks(ctx context.Context, workers, n int, f func(lo, hi int)) {
	parts := max(1, min(workers, n/chunkWords))
	var eg errgroup.Group
	for k := range parts {
		goBusy(ctx, &eg, func() error {
			f(n*k/parts, n*(k+1)/parts)
			return nil
		})
	}
	eg.Wait()
}

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
func SolveTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids []*SolvedTier, shape Shape, e Effort) (*SolvedTier, error) {
	workers, done := max(e.Workers, 1), e.Done
	ranges := rangesFor(set.Total(), workers, e.Ranges)
	if shape.Loopy && loopyTest.parts > 0 {
		return solveLoopyParts(ctx, g, t, set, kids, loopyTest.parts, e)
	}
	if shape.Loopy {
		return solveLoopy(ctx, g, t, set, kids, workers, ranges, shape.ReverseIndex, e.Lean, done, e.Levels)
	}
	recs := make([]valuedb.Record, set.Total())
	rs := plan.SplitShrinking(set, ranges)
	err := forEach(ctx, workers, len(rs), func(ctx context.Context, i int) error {
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
	st, err := newSolvedRange(r.t, r.ranked, lo, hi, h.MaxRemoteness, maxTie)
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
	set, err := LoadLevel(levelPath, g, t)
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

// forRanges cuts the members of a set into shrinking ranges (ranges of
// them, or rangesFor's when ranges is 0; plan.SplitShrinking) and runs f on
// each on workers goroutines, each taking the next range when it is done
// with one.
func forRanges(ctx context.Context, set *bitarray.Ranked, workers, ranges int, f func(context.Context, plan.Range) error) error {
	if set.Total() == 0 {
		return nil
	}
	rs := plan.SplitShrinking(set, rangesFor(set.Total(), workers, ranges))
	return forEach(ctx, workers, len(rs), func(ctx context.Context, i int) error { return f(ctx, rs[i]) })
}

// rangesPerWorker is how many ranges a tier is cut into per worker by
// default: a worker that is done with a range takes the next, so the
// end of a tier waits for one small range, not for a worker's share.
// Measured against 32 (2 workers, 3 rounds interleaved): the same time on
// Connect Four 6x4 and Quixo 4x4, and 8-30% less peak RSS.
const rangesPerWorker = 8

// minRange is the fewest positions worth a range of their own.
const minRange = 1 << 12

// rangesFor is how many ranges a set of n positions is cut into: ranges
// when it is set, else rangesPerWorker per worker but none of fewer than
// minRange positions.
func rangesFor(n uint64, workers, ranges int) int {
	if ranges > 0 {
		return ranges
	}
	return int(max(1, min(uint64(max(workers, 1)*rangesPerWorker), n/minRange)))
}
