// Package loopy solves loopy tiers by retrograde analysis: a whole tier in
// one process (Solve), or in parts that exchange notes, as a cluster's
// workers solve a tier too large for one (Part), over one core.
package loopy

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/internal/bytier"
	"github.com/tiersolve/tiersolve/solver/internal/cells"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Loopy tiers are solved by retrograde analysis in one cell a position
// (see layout: a byte, or two bytes when remoteness outgrows a byte), the
// way the best tablebase generators hold theirs. A decided position's
// cell holds its value and remoteness, so the positions decided at level
// r (the frontier) are found by scanning the cells for r's codes, not
// kept in queues; an undecided position's cell says whether it can still
// lose and how many of its children in the tier are not yet known to be
// wins.
//
//  1. A first pass (in parallel over ranges) gives primitive positions
//     their value, reads the children in solved tiers, and sets every
//     other cell: a win in 1 + r when a child elsewhere is a loss in r (a
//     tentative win: a loss inside the tier may come sooner); undecided
//     and unable to lose when a child elsewhere is not a win; else able
//     to lose, with its count of distinct children in the tier (a loss in
//     1 + the longest win elsewhere when there are none).
//  2. Levels are processed in increasing remoteness. At level r the
//     cells holding a win or loss in r are the frontier: a loss makes its
//     undecided parents (and those holding a later tentative win) wins in
//     r+1; a win counts down its parents, and a parent whose count reaches
//     zero loses in 1 + the larger of r and its wins elsewhere (a parent
//     whose count did not fit its cell checks its children instead). A
//     cell holds a code of a level later than the one in progress only
//     while it is tentative, so the scan of its level finds it.
//  3. The positions still undecided are ties the same way, from tie
//     children (primitive ties and ties elsewhere); the rest are draws.
//
// What a level assigns is counted by level, so levels without positions
// are skipped and the analysis ends when no later level holds any.
//
// Parents come from the game's Parents when it implements tiergame.Unmover,
// or else from a reverse index of the tier's moves built in the first pass
// (8 bytes a position and 4 a move once built, 16 and 12 while it is
// built; the plan does not count it: a game meant for large loopy tiers
// implements Parents).
//
// Cells are indexed by position when the tier's hash space is not much
// larger than its reachable count (dense: absent positions cost a cell),
// otherwise by rank. The solved cells are the tier's solved.Tier.

// loopySolver solves one loopy tier.
type loopySolver struct {
	g       tiergame.Game
	t       tiergame.Tier
	set     *bitarray.Ranked
	kids    solved.Children
	workers int
	ranges  int
	cells   cells.Array
	dense   bool
	// wins holds the longest win elsewhere of each position while a tier
	// solved whole finds its wins and losses (zero otherwise).
	wins  cells.WinsElsewhere
	um    tiergame.Unmover // nil: parents from idx
	idx   *indexParents
	edges [][]uint64 // per range: child slot << 32 | parent slot (reverse index build)
	done  *atomic.Uint64
	// progress is where the levels are, for a progress display.
	progress *work.LevelProgress
	// verify, when set, counts no children: every position that can lose
	// checks its children when one becomes a win (the alternative the
	// cells' counters replace, for tests and measurements).
	verify bool
	// paths are the rarer paths forced (work.Paths; never nil).
	paths *work.Paths

	// counts[r] is how many cells hold a code of level r of the phase in
	// progress that the levels have not processed yet.
	counts []int64
	phase  phase
	pool   chan *levelWorker // the workers of the levels, made once
	made   []*levelWorker

	// A solver holds the positions of hashes [lo, hi): the whole tier, or
	// one part of it, solved beside the other parts, with which it
	// exchanges notes (see parts.go). loRank is the rank of lo.
	lo, hi, loRank uint64
	// partState is a part's own state; zero for a whole tier.
	partState
}

// phase is what the levels assign: wins and losses, then ties.
type phase int

const (
	winLosePhase phase = iota
	tiePhase
)

// slot returns the index of position p's cell, and whether p is a
// reachable position of the solver's range.
func (s *loopySolver) slot(p uint64) (uint64, bool) {
	if p < s.lo || p >= s.hi {
		return 0, false
	}
	if s.dense {
		i := p - s.lo
		if s.early { // before the first pass every cell is absent
			return i, s.set.Contains(p)
		}
		return i, s.cells.Get(i) != cells.Absent
	}
	r, ok := s.set.Lookup(p)
	return r - s.loRank, ok
}

// position returns the position of the cell in slot i.
func (s *loopySolver) position(i uint64) uint64 {
	if s.dense {
		return s.lo + i
	}
	p, _ := s.set.Select(s.loRank + i)
	return p
}

// holdRange sets the range of hashes the solver holds, [lo, hi), and how
// its cells are indexed.
func (s *loopySolver) holdRange(lo, hi uint64) {
	s.lo, s.hi = lo, hi
	s.dense = solved.WorthDense(s.set) && !s.paths.Ranked
	s.loRank = plan.FirstRank(s.set, plan.Range{Lo: lo})
}

// ranges cuts the solver's positions into ranges for the first passes.
func (s *loopySolver) rangesOf() []plan.Range {
	sub := plan.SplitShrinking(s.set, s.ranges)
	var rs []plan.Range
	for _, r := range sub {
		r.Lo, r.Hi = max(r.Lo, s.lo), min(r.Hi, s.hi)
		if r.Lo < r.Hi {
			rs = append(rs, r)
		}
	}
	return rs
}

// Solve solves loopy tier t, whose reachable positions are set, from
// its solved child tiers kids.
func Solve(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids solved.Children, forceIndex bool, e work.Effort) (*solved.Tier, error) {
	kidRem, kidTie := longestOfKids(kids)
	s, err := newLoopySolver(g, t, set, kids, e, cells.For(kidRem+1, kidTie+1, e.Paths != nil && e.Paths.Narrow))
	if err != nil {
		return nil, err
	}
	s.holdRange(set.Base(), set.End())
	if s.cells.Lay.Bits == 16 && s.dense && !plan.DenseWide(set.Len(), set.Total()) {
		s.dense = false // see plan.DenseWide
	}
	ok := false
	defer func() {
		if !ok {
			s.cells.Free()
		}
	}()
	if s.cells, err = cells.New(s.slots(), s.cells.Lay); err != nil {
		return nil, fmt.Errorf("%s: tier %d: %w", g.Name(), t, err)
	}
	defer s.wins.Free()
	if !e.Lean && (e.Paths == nil || !e.Paths.Lean) {
		if s.wins, err = cells.NewWinsElsewhere(s.slots()); err != nil {
			return nil, fmt.Errorf("%s: tier %d: %w", g.Name(), t, err)
		}
	}
	if forceIndex || s.um == nil {
		if s.slots() >= 1<<32 {
			return nil, fmt.Errorf("%s: tier %d has %d positions, too many for a reverse index (the game needs Parents)", g.Name(), t, s.slots())
		}
		s.um = nil
	}
	if err := s.firstPass(ctx); err != nil {
		return nil, err
	}
	if s.um == nil {
		s.idx = s.buildIndex()
	}
	s.edges = nil
	if err := s.levels(ctx); err != nil {
		return nil, err
	}
	s.wins.Free() // ties do not need them
	if err := s.startTies(ctx, kidTie >= 0); err != nil {
		return nil, err
	}
	if err := s.levels(ctx); err != nil {
		return nil, err
	}
	ok = true
	return solved.FromCells(t, set, s.cells, s.dense, s.workers), nil
}

// newLoopySolver returns a solver of loopy tier t (its range and cells
// still to set) whose first cells will be of layout lay.
func newLoopySolver(g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids solved.Children, e work.Effort, lay cells.Layout) (*loopySolver, error) {
	workers, progress := max(e.Workers, 1), e.Levels
	s := &loopySolver{g: g, t: t, set: set, kids: kids, workers: workers, ranges: plan.RangesFor(set.Total(), workers, e.Ranges), done: e.Done, progress: progress,
		paths: e.Paths, counts: make([]int64, 1)}
	if s.paths == nil {
		s.paths = new(work.Paths)
	}
	s.verify = s.paths.Verify
	s.cells.Lay = lay
	if progress == nil {
		s.progress = new(work.LevelProgress) // nobody reads it
	}
	s.um, _ = g.(tiergame.Unmover)
	return s, nil
}

// longestOfKids returns the longest win or loss and the longest tie (-1
// if none) of solved child tiers.
func longestOfKids(kids solved.Children) (maxRem, maxTie int) {
	maxTie = -1
	for _, k := range kids {
		kr, kt := k.Longest()
		maxRem, maxTie = max(maxRem, kr), max(maxTie, kt)
	}
	return maxRem, maxTie
}

// firstPass sets every cell of the solver's range (initRange), in
// parallel over ranges.
func (s *loopySolver) firstPass(ctx context.Context) error {
	rs := s.rangesOf() // shrinking: the last ranges, small, end the pass together
	s.edges = make([][]uint64, len(rs))
	var mu sync.Mutex
	return work.ForEach(ctx, s.workers, len(rs), func(ctx context.Context, i int) error {
		counts, err := s.initRange(ctx, rs[i], i)
		mu.Lock()
		s.addCounts(counts)
		mu.Unlock()
		return err
	})
}

// addCounts adds a worker's counts by level to s.counts.
func (s *loopySolver) addCounts(counts []int64) {
	if len(counts) > len(s.counts) {
		s.counts = append(s.counts, make([]int64, len(counts)-len(s.counts))...)
	}
	for r, c := range counts {
		s.counts[r] += c
	}
}

// addLevel adds d cells at level r to a worker's counts.
func addLevel(counts *[]int64, r int, d int64) {
	if r >= len(*counts) {
		*counts = append(*counts, make([]int64, r+1-len(*counts))...)
	}
	(*counts)[r] += d
}

// initRange is the first pass over the members in r; it returns the
// cells it assigned by level.
func (s *loopySolver) initRange(ctx context.Context, r plan.Range, idx int) ([]int64, error) {
	g, t, set := s.g, s.t, s.set
	var counts []int64
	var edges []uint64
	tm := bytier.New(g, t)
	kids := s.kids.Of(tm.Tiers)
	var seen bytier.DedupTable
	rank := plan.FirstRank(set, r) - s.loRank
	err := work.EachBatch(ctx, set.Set, r, func(ps []uint64) error {
		for _, p := range ps {
			i := rank
			if s.dense {
				i = p - s.lo
			}
			rank++
			if s.push {
				if s.cells.Get(i) != cells.Absent {
					continue // a held note came first: it cannot lose
				}
				// What the children elsewhere are comes in notes: count
				// the children in the tier, as if it could lose.
				v, err := tm.Value(p)
				switch {
				case err != nil:
					return err
				case v != tiergame.Undecided:
					s.initPrimitive(i, v, &counts)
					continue
				}
				code, err := s.counter(i, uint32(tm.CountWithin(p, &seen)), 0)
				if err != nil {
					return err
				}
				s.cells.Set(i, code)
				continue
			}
			v, lists, err := tm.Elsewhere(p)
			if err != nil {
				return err
			}
			if v != tiergame.Undecided {
				s.initPrimitive(i, v, &counts)
				continue
			}
			byKids := solved.NewCombiner() // what the children in other tiers say
			for k, l := range lists {
				if len(l) == 0 {
					continue
				}
				st := kids[k]
				if st == nil {
					return fmt.Errorf("%s: move from tier %d to tier %d, which is not solved", g.Name(), t, tm.Tiers[k])
				}
				if q, ok := st.Fold(l, &byKids); !ok {
					return fmt.Errorf("%s: child %d of tier %d position %d is not in tier %d's level file", g.Name(), q, t, p, tm.Tiers[k])
				}
			}
			canLose := !byKids.NotAllWin
			// A move elsewhere that does not lose decides that the
			// position cannot lose: the moves inside the tier need no
			// counting, and without a reverse index to build, no listing.
			var inTier []tiergame.Position
			n := 0
			switch {
			case s.um == nil:
				inTier = bytier.Dedup(tm.Within(p), &seen)
				n = len(inTier)
			case canLose:
				n = tm.CountWithin(p, &seen)
			}
			if (canLose || s.um == nil) && n == 0 && bytier.Count(lists) == 0 {
				return fmt.Errorf("%s: tier %d position %d is not primitive but has no moves", g.Name(), t, p)
			}
			for _, c := range inTier {
				ci, ok := s.slotOf(uint64(c))
				if !ok {
					return fmt.Errorf("%s: child %d of tier %d position %d is not in the tier's level file", g.Name(), c, t, p)
				}
				edges = append(edges, ci<<32|i)
			}
			s.cells.Set(i, s.firstCode(i, byKids, n, &counts))
		}
		if s.done != nil {
			s.done.Add(uint64(len(ps)))
		}
		return nil
	})
	s.edges[idx] = edges
	return counts, err
}

// initPrimitive sets the cell of primitive position i, of value v, and
// counts it at level 0 if the levels process it (ties are counted by the
// ties' phase, startTies).
func (s *loopySolver) initPrimitive(i uint64, v tiergame.Value, counts *[]int64) {
	lay := s.cells.Lay
	switch v {
	case tiergame.Win:
		s.cells.Set(i, lay.Win(0))
	case tiergame.Lose:
		s.cells.Set(i, lay.Lose(0))
	case tiergame.Tie:
		s.cells.Set(i, lay.Tie0())
		return
	default:
		s.cells.Set(i, cells.Open)
		return
	}
	addLevel(counts, 0, 1)
}

// firstCode is the first pass's code of position i, not primitive, from
// what its children in other tiers say (byKids) and its n children in the
// tier, and counts it at its level if it has one.
func (s *loopySolver) firstCode(i uint64, byKids solved.Combiner, n int, counts *[]int64) uint32 {
	lay := s.cells.Lay
	minLose, maxWin, canLose, anyWin := byKids.MinLose, max(byKids.MaxWin, 0), !byKids.NotAllWin, byKids.MaxWin >= 0
	switch {
	case minLose < 1<<30:
		addLevel(counts, minLose+1, 1)
		return lay.Win(minLose + 1) // tentative
	case !canLose:
		return cells.Open
	case n == 0: // every move leads to a win elsewhere
		addLevel(counts, maxWin+1, 1)
		return lay.Lose(maxWin + 1)
	}
	f := uint32(0)
	if anyWin {
		f = 1
		if s.wins.Words != nil {
			s.wins.Set(i, maxWin)
		}
	}
	if n <= int(lay.Ctr) && !s.verify {
		return lay.Counter(uint32(n), f)
	}
	return lay.Uncounted(f)
}

// counter returns the code of a position in slot i that can lose, with
// n children in the tier and flag f, in a part: a count that does not fit
// the cell is kept beside it.
func (s *loopySolver) counter(i uint64, n, f uint32) (uint32, error) {
	lay := s.cells.Lay
	if n >= 1 && n <= lay.Ctr {
		return lay.Counter(n, f), nil
	}
	if n > sideValueMax {
		return 0, fmt.Errorf("%s: tier %d slot %d: %d moves within the tier, more than a part counts", s.g.Name(), s.t, i, n)
	}
	s.sideMu.Lock()
	err := s.counted.add(i, n)
	s.sideMu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("%s: tier %d: %w", s.g.Name(), s.t, err)
	}
	return lay.Uncounted(f), nil
}

// slotOf is slot for the first pass of the whole tier, when dense cells of
// positions not yet visited are still absent: membership comes from the
// set.
func (s *loopySolver) slotOf(p uint64) (uint64, bool) {
	if s.dense {
		return p - s.lo, s.set.Contains(p)
	}
	return s.set.Lookup(p)
}

// slots is the number of cells.
func (s *loopySolver) slots() uint64 {
	if s.dense {
		return s.hi - s.lo
	}
	return plan.FirstRank(s.set, plan.Range{Lo: s.hi}) - s.loRank
}

// indexParents is a reverse index of the tier's moves: the parents of the
// position in slot q are in the slots list[offsets[q]:offsets[q+1]].
type indexParents struct {
	offsets []uint64
	list    []uint32
}

// buildIndex sorts the recorded edges into a reverse index.
func (s *loopySolver) buildIndex() *indexParents {
	n := s.slots()
	x := &indexParents{offsets: make([]uint64, n+1)}
	var total uint64
	for _, es := range s.edges {
		for _, e := range es {
			x.offsets[e>>32+1]++
		}
		total += uint64(len(es))
	}
	for i := uint64(1); i <= n; i++ {
		x.offsets[i] += x.offsets[i-1]
	}
	x.list = make([]uint32, total)
	fill := slices.Clone(x.offsets[:n])
	for _, es := range s.edges {
		for _, e := range es {
			c := e >> 32
			x.list[fill[c]] = uint32(e)
			fill[c]++
		}
	}
	return x
}

// levels processes the levels of the phase in progress in increasing
// order, until no later level holds a cell.
func (s *loopySolver) levels(ctx context.Context) error {
	for r := 0; r < len(s.counts); r++ {
		if s.counts[r] == 0 {
			continue
		}
		if err := s.fit(r + 1); err != nil {
			return err
		}
		s.progress.Level(r, uint64(s.counts[r]))
		s.counts[r] = 0
		if err := s.level(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// fit makes sure the cells' layout holds remoteness r in the phase in
// progress, widening the cells to 16 bits if needed.
func (s *loopySolver) fit(r int) error {
	if err := cells.CheckLevel(s.g, s.t, r); err != nil {
		return err
	}
	lay := s.cells.Lay
	if s.phase == winLosePhase && r < int(lay.Rem) || s.phase == tiePhase && r < int(lay.TieRem) || lay == cells.Layout16 {
		return nil
	}
	from, ph := s.cells.Lay, s.phase
	if err := s.cells.Widen(s.workers, s.slots(), cells.Layout16, func(c uint32) uint32 { return translate(c, from, cells.Layout16, ph) }); err != nil {
		return fmt.Errorf("%s: tier %d: %w", s.g.Name(), s.t, err)
	}
	return nil
}

// translate returns the code in layout to of code c of layout from, in
// phase ph.
func translate(c uint32, from, to cells.Layout, ph phase) uint32 {
	if c == cells.Absent || c == cells.Open {
		return c
	}
	if r, ok := from.IsWin(c); ok {
		return to.Win(r)
	}
	if r, ok := from.IsLose(c); ok {
		return to.Lose(r)
	}
	if ph == tiePhase {
		return to.Tie(int(c - from.Tail()))
	}
	if c == from.Tie0() {
		return to.Tie0()
	}
	k, f, _ := from.CanLose(c)
	if k == 0 {
		return to.Uncounted(f)
	}
	return to.Counter(k, f)
}

// levelChunk is the words of cells a worker scans at a time.
const levelChunk = 1 << 12

// level processes level r: it scans the cells for r's codes (the
// frontier) and updates their parents.
func (s *loopySolver) level(ctx context.Context, r int) error {
	lay := s.cells.Lay
	a, b := lay.Win(r), lay.Lose(r)
	if s.phase == tiePhase {
		a, b = lay.Tie(r), lay.Tie(r)
	}
	words := s.cells.Words
	chunks := (len(words) + levelChunk - 1) / levelChunk
	if s.pool == nil {
		s.pool = make(chan *levelWorker, s.workers)
		for range s.workers {
			w := work.NewApart[levelWorker]()
			w.s = s
			if s.cut != nil {
				w.out = make([][]note, s.cut.Parts())
			}
			s.pool <- w
			s.made = append(s.made, w)
		}
	}
	err := work.ForEach(ctx, s.workers, chunks, func(ctx context.Context, k int) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		w := <-s.pool
		defer func() { s.pool <- w }()
		if err := w.scan(k*levelChunk, min((k+1)*levelChunk, len(words)), a, b, r); err != nil {
			return err
		}
		if s.sink != nil && w.pending() >= max(plan.FlushNotes/s.workers, 1<<16) {
			return w.flush(true)
		}
		return nil
	})
	for _, w := range s.made {
		s.addCounts(w.counts)
		clear(w.counts)
		if s.sink != nil {
			// The buffers are dropped: a part kept between rounds would
			// hold them.
			if ferr := w.flush(false); err == nil {
				err = ferr
			}
			continue
		}
		// The notes move to the outbox rather than being copied: a
		// worker's buffers would keep the largest level's notes for the
		// part's life.
		for k, ns := range w.out {
			if s.outbox[k] == nil {
				s.outbox[k] = ns
			} else {
				s.outbox[k] = append(s.outbox[k], ns...)
			}
			w.out[k] = nil
		}
	}
	return err
}

// pending is how many notes for other parts w holds.
func (w *levelWorker) pending() int {
	n := 0
	for _, ns := range w.out {
		n += len(ns)
	}
	return n
}

// flush hands w's notes for other parts to the sink, keeping its buffers
// for more if keep.
func (w *levelWorker) flush(keep bool) error {
	s := w.s
	s.sinkMu.Lock()
	defer s.sinkMu.Unlock()
	var err error
	for k, ns := range w.out {
		if len(ns) > 0 && err == nil {
			err = s.sink(k, ns)
		}
		w.out[k] = nil
		if keep {
			w.out[k] = ns[:0]
		}
	}
	return err
}

// levelWorker is one goroutine's state while it processes a level.
type levelWorker struct {
	s      *loopySolver
	counts []int64 // cells assigned, by level
	cur    slotCursor
	ps     []tiergame.Position
	tm     *bytier.Moves // for the positions whose children are looked at
	kids   []*solved.Tier
	// out holds the notes for the other parts' parents, by part.
	out [][]note
}

// parentRef is a parent inside the tier: its slot, and its position when
// known (noPos otherwise).
type parentRef struct{ slot, pos uint64 }

const noPos = ^uint64(0)

// scan processes the frontier cells (codes a and b of level r) of words
// [lo, hi).
func (w *levelWorker) scan(lo, hi int, a, b uint32, r int) error {
	c := &w.s.cells
	ones, high := c.Lanes()
	pa, pb := uint64(a)*ones, uint64(b)*ones
	w.cur = slotCursor{set: w.s.set}
	for wi := lo; wi < hi; wi++ {
		x := atomic.LoadUint64(&c.Words[wi])
		m := cells.MatchMask(x, pa, pb, high)
		for m != 0 {
			lane := uint(bits.TrailingZeros64(m)) >> c.LaneShift
			m &= m - 1
			slot := uint64(wi)<<c.Shift + uint64(lane)
			if err := w.process(slot, uint32(x>>(lane<<c.LaneShift)&c.Mask), r); err != nil {
				return err
			}
		}
	}
	return nil
}

// process updates the parents of the position in slot, decided at level
// r with code: those in the solver's range at once, the others by a note
// to their part.
func (w *levelWorker) process(slot uint64, code uint32, r int) error {
	s := w.s
	p := s.lo + slot
	if !s.dense {
		p = w.cur.seek(s.loRank + slot)
	}
	kind := wonAt
	switch lay := s.cells.Lay; {
	case s.phase == tiePhase:
		kind = tiedAt
	case code == lay.Lose(r):
		kind = lostAt
	}
	// The parents are taken in place rather than gathered first (parents):
	// this is the levels' inner loop.
	if s.um == nil {
		for _, u := range s.idx.list[s.idx.offsets[slot]:s.idx.offsets[slot+1]] {
			if err := w.apply(parentRef{uint64(u), noPos}, kind, r); err != nil {
				return err
			}
		}
		return nil
	}
	w.ps = s.um.Parents(s.t, tiergame.Position(p), s.t, w.ps[:0])
	for _, q := range w.ps {
		i, ok := s.slot(uint64(q))
		if !ok {
			if s.cut != nil && (uint64(q) < s.lo || uint64(q) >= s.hi) {
				k := s.cut.Of(uint64(q))
				w.out[k] = append(w.out[k], makeNote(uint64(q), kind, r))
			}
			continue
		}
		if err := w.apply(parentRef{i, uint64(q)}, kind, r); err != nil {
			return err
		}
	}
	return nil
}

// apply updates the parent u of a position decided at level r (what kind
// says: lost, won, tied).
func (w *levelWorker) apply(u parentRef, kind noteKind, r int) error {
	lay := w.s.cells.Lay
	switch kind {
	case tiedAt:
		w.raise(u.slot, lay.Tie(r+1), r+1)
	case lostAt:
		w.raise(u.slot, lay.Win(r+1), r+1)
	default:
		return w.countDown(u, r)
	}
	return nil
}

// raise gives the parent in slot u the code v of level lv if it is
// undecided, or holds a tentative code of a later level: a win in the
// win and lose phase, a tie in the ties' phase.
func (w *levelWorker) raise(u uint64, v uint32, lv int) {
	c := &w.s.cells
	lay, wins := c.Lay, w.s.phase == winLosePhase
	at, sh := c.At(u)
	for {
		x := atomic.LoadUint64(at)
		old := uint32(x >> sh & c.Mask)
		was, ok := -1, false
		switch r, tie := lay.IsTie(old); {
		case old == cells.Open:
			ok = true
		case wins && tie: // in the tail: a position that can lose, or a tie in 0
			ok = old != lay.Tie0()
		case wins:
			if r, win := lay.IsWin(old); win && r > lv {
				was, ok = r, true
			}
		case tie && r > lv:
			was, ok = r, true
		}
		if !ok {
			return
		}
		if atomic.CompareAndSwapUint64(at, x, x&^(c.Mask<<sh)|uint64(v)<<sh) {
			addLevel(&w.counts, lv, 1)
			if was >= 0 {
				addLevel(&w.counts, was, -1)
			}
			return
		}
	}
}

// countDown records that a child of the parent u became a win at level
// r: a parent that can lose counts it down, or checks its children when
// it keeps no count, and loses when none is left.
func (w *levelWorker) countDown(u parentRef, r int) error {
	c, lay := &w.s.cells, w.s.cells.Lay
	at, sh := c.At(u.slot)
	for {
		x := atomic.LoadUint64(at)
		old := uint32(x >> sh & c.Mask)
		k, f, can := lay.CanLose(old)
		if !can {
			return nil
		}
		if k > 1 {
			// counter(k-1, f) is counter(k, f) - 2: no borrow leaves the cell.
			if atomic.CompareAndSwapUint64(at, x, x-2<<sh) {
				return nil
			}
			continue
		}
		lv := r + 1
		switch {
		case w.s.push && k == 0: // its count is kept beside the cell
			if !w.s.countDownSide(u.slot) {
				return nil
			}
			if f == 1 {
				lv = max(r, w.s.longestWinSide(u.slot)) + 1
			}
		case w.s.push && f == 1:
			lv = max(r, w.s.longestWinSide(u.slot)) + 1
		case k == 0: // not counted: are all its children wins by now?
			known, ok := w.s.knownWin(u.slot, f)
			if ok {
				f = 0 // no need to look at the children elsewhere
			}
			m, lost, err := w.allWins(u, r, f)
			if err != nil || !lost {
				return err
			}
			lv = max(r, m, known) + 1
		case f == 1:
			m, ok := w.s.knownWin(u.slot, f)
			if !ok {
				var err error
				if m, err = w.winsElsewhere(u); err != nil {
					return err
				}
			}
			lv = max(r, m) + 1
		}
		// Only a loss of a child (making it a win) changes such a cell
		// meanwhile.
		if c.Swap(u.slot, old, lay.Lose(lv)) {
			addLevel(&w.counts, lv, 1)
			return nil
		}
	}
}

// knownWin returns the longest win elsewhere of the position in slot, flag
// f set (else 0), when the solver keeps it: false when it must be looked
// up in the children's records.
func (s *loopySolver) knownWin(slot uint64, f uint32) (int, bool) {
	if f == 0 {
		return 0, true
	}
	if s.wins.Words == nil {
		return 0, false
	}
	return s.wins.Get(slot)
}

// moves readies the worker's move lists and child lookups.
func (w *levelWorker) moves() *bytier.Moves {
	if w.tm == nil {
		w.tm = bytier.New(w.s.g, w.s.t)
		w.kids = w.s.kids.Of(w.tm.Tiers)
	}
	return w.tm
}

// pos returns a parent's position.
func (w *levelWorker) pos(u parentRef) uint64 {
	if u.pos != noPos {
		return u.pos
	}
	return w.s.position(u.slot)
}

// allWins reports whether every child of the parent u is a win at level
// r or before (its children in the tier) or elsewhere, and the longest
// win elsewhere when f says there is one.
func (w *levelWorker) allWins(u parentRef, r int, f uint32) (int, bool, error) {
	tm := w.moves()
	p := w.pos(u)
	_, lists, err := tm.Of(p)
	if err != nil {
		return 0, false, err
	}
	lay := w.s.cells.Lay
	maxWin := 0
	for k, l := range lists {
		if k == tm.Self {
			for _, q := range l {
				qs, ok := w.s.slot(uint64(q))
				if !ok {
					return 0, false, fmt.Errorf("%s: child %d of tier %d position %d is not in the tier's level file", w.s.g.Name(), q, w.s.t, p)
				}
				if wr, ok := lay.IsWin(w.s.cells.Get(qs)); !ok || wr > r {
					return 0, false, nil
				}
			}
			continue
		}
		if f == 0 {
			continue
		}
		m, err := w.longestWin(k, l, p)
		if err != nil {
			return 0, false, err
		}
		maxWin = max(maxWin, m)
	}
	return maxWin, true, nil
}

// winsElsewhere returns the longest win among the children of the parent
// u in other tiers.
func (w *levelWorker) winsElsewhere(u parentRef) (int, error) {
	tm := w.moves()
	p := w.pos(u)
	_, lists, err := tm.Elsewhere(p)
	if err != nil {
		return 0, err
	}
	maxWin := 0
	for k, l := range lists {
		m, err := w.longestWin(k, l, p)
		if err != nil {
			return 0, err
		}
		maxWin = max(maxWin, m)
	}
	return maxWin, nil
}

// longestWin returns the longest win among children l in child tier k of
// position p.
func (w *levelWorker) longestWin(k int, l []tiergame.Position, p uint64) (int, error) {
	c := solved.NewCombiner()
	if q, ok := w.kids[k].Fold(l, &c); !ok {
		return 0, fmt.Errorf("%s: child %d of tier %d position %d is not in tier %d's level file", w.s.g.Name(), q, w.s.t, p, w.tm.Tiers[k])
	}
	return max(c.MaxWin, 0), nil
}

// slotCursor finds the positions of increasing ranks of a set: from one
// to the next by counting members, not by a search from the start.
type slotCursor struct {
	set       *bitarray.Ranked
	slot, pos uint64
	ok        bool
}

// seek returns the member of rank slot.
func (c *slotCursor) seek(slot uint64) uint64 {
	if c.ok && slot == c.slot {
		return c.pos
	}
	if !c.ok || slot < c.slot || slot-c.slot > 1<<12 {
		c.pos, _ = c.set.Select(slot)
		c.slot, c.ok = slot, true
		return c.pos
	}
	k := slot - c.slot // members to pass after c.pos
	ws := c.set.Words()
	i := c.pos - c.set.Base()
	wi := i >> 6
	w := ws[wi] &^ (1<<(i&63+1) - 1)
	for k > 0 {
		n := uint64(bits.OnesCount64(w))
		if k <= n {
			for ; k > 1; k-- {
				w &= w - 1
			}
			break
		}
		k -= n
		wi++
		w = ws[wi]
	}
	c.pos = c.set.Base() + wi<<6 + uint64(bits.TrailingZeros64(w))
	c.slot = slot
	return c.pos
}

// startTies ends the win and loss phase: the cells of undecided positions
// become undecided whether or not they can lose, primitive ties ties in
// 0, and positions with a tie elsewhere (when a child tier has ties,
// kidTies) tentative ties.
func (s *loopySolver) startTies(ctx context.Context, kidTies bool) error {
	s.phase = tiePhase
	s.progress.Ties()
	s.counts = make([]int64, 1)
	lay := s.cells.Lay
	var ties atomic.Int64
	slots := s.slots()
	work.ForChunks(ctx, s.workers, len(s.cells.Words), func(lo, hi int) {
		var n int64
		for wi := lo; wi < hi; wi++ {
			for j := uint64(0); j < 1<<s.cells.Shift; j++ {
				i := uint64(wi)<<s.cells.Shift + j
				if i >= slots {
					break
				}
				c := s.cells.Peek(i)
				if c < lay.Tail() {
					continue
				}
				v := uint32(cells.Open)
				if c == lay.Tie0() {
					v = lay.Tie(0)
					n++
				}
				s.cells.Swap(i, c, v)
			}
		}
		ties.Add(n)
	})
	s.counts[0] = ties.Load()
	if !kidTies || s.push {
		return ctx.Err() // a part's tie children come in notes
	}
	rs := s.rangesOf()
	var mu sync.Mutex
	return work.ForEach(ctx, s.workers, len(rs), func(ctx context.Context, k int) error {
		counts, err := s.tieRange(ctx, rs[k])
		mu.Lock()
		s.addCounts(counts)
		mu.Unlock()
		return err
	})
}

// tieRange finds, for each position of range r still undecided, its tie
// children in other tiers, and makes it a tentative tie.
func (s *loopySolver) tieRange(ctx context.Context, r plan.Range) ([]int64, error) {
	var counts []int64
	tm := bytier.New(s.g, s.t)
	kids := s.kids.Of(tm.Tiers)
	lay := s.cells.Lay
	rank := plan.FirstRank(s.set, r) - s.loRank
	for p := range s.set.Range(r.Lo, r.Hi) {
		i := rank
		if s.dense {
			i = p - s.lo
		}
		rank++
		if s.cells.Get(i) != cells.Open {
			continue
		}
		if i&1023 == 0 && ctx.Err() != nil {
			return counts, ctx.Err()
		}
		v, lists, err := tm.Elsewhere(p)
		if err != nil {
			return counts, err
		}
		if v != tiergame.Undecided {
			continue
		}
		minTie := 1 << 30
		for k, l := range lists {
			if kids[k] == nil {
				continue
			}
			for _, q := range l {
				if rec, ok := kids[k].Lookup(q); ok && rec.Value() == tiergame.Tie {
					minTie = min(minTie, rec.Remoteness())
				}
			}
		}
		if minTie < 1<<30 {
			s.cells.Swap(i, cells.Open, lay.Tie(minTie+1))
			addLevel(&counts, minTie+1, 1)
		}
	}
	return counts, nil
}
