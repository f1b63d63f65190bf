// Package solved holds solved tiers: their records in cells (Tier),
// loop-free tiers solved range by range (SolveRange), and the value
// databases written and read back.
package solved

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/internal/cells"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Tier is a solved tier in memory, for lookups by its parents and
// for writing its database: one cell a position in the solved layout (a
// byte while its remoteness fits one: see layout), outside the Go heap.
// The cells are indexed by position when the tier's hash space is small
// or mostly reachable (worthDense: a lookup is then one array access),
// else by rank. A loopy tier's solving leaves its records in this form,
// so they are never held twice.
//
// Its owner frees it (Free) when no parent needs it any more.
type Tier struct {
	tier   tiergame.Tier
	set    *bitarray.Ranked
	cells  cells.Array
	decode []valuedb.Record // by code; 0 for absent
	dense  bool
	// maxRem is the longest win or loss, maxTie the longest tie (-1
	// without ties).
	maxRem, maxTie int
	// The tier's positions of hashes [lo, hi), whose ranks start at
	// loRank: the whole tier, or a part's (see plan.Cut).
	lo, hi, loRank uint64
	// readers are the goroutines reading the cells apart from lookups
	// (writing the tier's database in the background): Free waits for
	// them.
	readers sync.WaitGroup
	// aside holds the cells while they are set aside (SetAside).
	aside *os.File
}

// decodeTables holds the records of the codes of each solved layout (0
// for absent: no record is 0, whose value is Undecided), made on first
// use.
var decodeTables sync.Map // layout → []valuedb.Record

// decodeTable returns the records of the codes of solved layout l.
func decodeTable(l cells.Layout) []valuedb.Record {
	if t, ok := decodeTables.Load(l); ok {
		return t.([]valuedb.Record)
	}
	t, _ := decodeTables.LoadOrStore(l, makeDecodeTable(l))
	return t.([]valuedb.Record)
}

func makeDecodeTable(l cells.Layout) []valuedb.Record {
	t := make([]valuedb.Record, 1<<l.Bits)
	for c := range t {
		if c < int(l.Tail())+int(l.TieRem) {
			t[c], _ = l.Record(uint32(c))
		}
	}
	return t
}

// FromCells makes a Tier of cells in the solved layout.
func FromCells(t tiergame.Tier, set *bitarray.Ranked, c cells.Array, dense bool, workers int) *Tier {
	st := &Tier{tier: t, set: set, cells: c, dense: dense, decode: decodeTable(c.Lay), lo: set.Base(), hi: set.End()}
	st.maxRem, st.maxTie = st.longest(workers)
	return st
}

// longest returns the longest win or loss and the longest tie (-1 if
// none) of the cells.
func (s *Tier) longest(workers int) (maxRem, maxTie int) {
	var mu sync.Mutex
	maxTie = -1
	n := len(s.cells.Words)
	work.ForChunks(context.Background(), workers, n, func(lo, hi int) {
		var seen [1 << 16]bool
		per := uint64(1) << s.cells.Shift
		for i := uint64(lo) * per; i < uint64(hi)*per; i++ {
			seen[s.cells.Peek(i)] = true
		}
		rem, tie := 0, -1
		for c, ok := range seen[:1<<s.cells.Lay.Bits] {
			if !ok {
				continue
			}
			if r := s.decode[c]; r.Value() == tiergame.Tie {
				tie = max(tie, r.Remoteness())
			} else if r != 0 {
				rem = max(rem, r.Remoteness())
			}
		}
		mu.Lock()
		maxRem, maxTie = max(maxRem, rem), max(maxTie, tie)
		mu.Unlock()
	})
	return maxRem, maxTie
}

// New makes a solved tier of records held by rank, on workers
// goroutines. It refuses records without a value (win, lose, tie or
// draw), as valuedb.Write does: a range a solve left unfilled must not
// pass as draws.
func New(t tiergame.Tier, set *bitarray.Ranked, recs []valuedb.Record, workers int) (*Tier, error) {
	maxRem, maxTie, err := longestOf(recs)
	if err != nil {
		return nil, fmt.Errorf("tier %d: %w", t, err)
	}
	st, err := newSolvedTier(t, set, maxRem, maxTie)
	if err != nil {
		return nil, err
	}
	rs := plan.SplitRanges(set, max(workers, 1))
	work.ForEach(context.Background(), workers, len(rs), func(_ context.Context, k int) error {
		rank := plan.FirstRank(set, rs[k])
		st.fill(rank, recs[rank:rank+rs[k].Count(set)])
		return nil
	})
	return st, nil
}

// newSolvedTier makes an empty solved tier whose cells hold remoteness up
// to maxRem (wins and losses) and maxTie (ties).
func newSolvedTier(t tiergame.Tier, set *bitarray.Ranked, maxRem, maxTie int) (*Tier, error) {
	return newSolvedRange(t, set, 0, set.Total(), maxRem, maxTie, WorthDense(set))
}

// newSolvedRange makes an empty solved tier of the positions of ranks
// [rankLo, rankHi) of a tier, whose cells hold remoteness up to maxRem
// (wins and losses) and maxTie (ties).
func newSolvedRange(t tiergame.Tier, set *bitarray.Ranked, rankLo, rankHi uint64, maxRem, maxTie int, dense bool) (*Tier, error) {
	lay := cells.For(maxRem, maxTie, false)
	st := &Tier{tier: t, set: set, dense: dense, decode: decodeTable(lay), maxRem: maxRem, maxTie: maxTie,
		lo: set.Base(), hi: set.End(), loRank: rankLo}
	switch {
	case rankLo >= set.Total():
		st.lo = st.hi // an empty range at the end: no cells
	case rankLo > 0:
		st.lo, _ = set.Select(rankLo)
	}
	if rankHi < set.Total() {
		st.hi, _ = set.Select(rankHi)
	}
	n := rankHi - rankLo
	if st.dense {
		n = st.hi - st.lo
	}
	var err error
	st.cells, err = cells.New(n, lay)
	return st, err
}

// ErrNoValue marks a record without a value (neither win, lose, tie nor
// draw) given as a solved one.
var ErrNoValue = errors.New("a solved record has no value")

// ErrNotHeld is Put's error for a position the tier does not hold.
var ErrNotHeld = errors.New("not a position the tier holds")

// longestOf returns the longest win or loss and the longest tie (-1 if
// none) of recs, or ErrNoValue.
func longestOf(recs []valuedb.Record) (maxRem, maxTie int, err error) {
	maxTie = -1
	for i, r := range recs {
		var ok bool
		if maxRem, maxTie, ok = longer(r, maxRem, maxTie); !ok {
			return 0, 0, fmt.Errorf("%w: rank %d", ErrNoValue, i)
		}
	}
	return maxRem, maxTie, nil
}

// fill stores the records of tier ranks [lo, lo+len(recs)), which the
// tier (or its range) holds.
func (s *Tier) fill(lo uint64, recs []valuedb.Record) {
	lay := s.cells.Lay
	if !s.dense {
		for i, r := range recs {
			s.cells.Set(lo-s.loRank+uint64(i), lay.Code(r))
		}
		return
	}
	if len(recs) == 0 {
		return
	}
	i := 0
	for q := range s.set.Range(s.Position(lo-s.loRank), s.hi) {
		s.cells.Set(q-s.lo, lay.Code(recs[i]))
		if i++; i == len(recs) {
			return
		}
	}
}

// Lookup returns the record of position p of the tier, and whether p is
// one of its reachable positions.
func (s *Tier) Lookup(p tiergame.Position) (valuedb.Record, bool) {
	if s.dense {
		i := uint64(p) - s.lo
		if i >= s.hi-s.lo {
			return 0, false
		}
		r := s.decode[s.cells.Peek(i)]
		return r, r != 0
	}
	if uint64(p) < s.lo || uint64(p) >= s.hi {
		return 0, false
	}
	rank, ok := s.set.Lookup(uint64(p))
	if !ok {
		return 0, false
	}
	return s.decode[s.cells.Peek(rank-s.loRank)], true
}

// fold adds the records of the positions l of the tier to c; it returns
// false and the first of them that is not a reachable position of the
// tier when one is not. It is Lookup in the loop over a position's
// children, where a call for each child cost a tenth of a loopy tier's
// first pass.
func (s *Tier) Fold(l []tiergame.Position, c *Combiner) (tiergame.Position, bool) {
	for _, q := range l {
		var rec valuedb.Record
		if i := uint64(q) - s.lo; s.dense && i < s.hi-s.lo {
			rec = s.decode[s.cells.Peek(i)]
		} else if !s.dense {
			rec, _ = s.Lookup(q)
		}
		if rec.Value() == tiergame.Undecided { // absent: a solved tier's records all have values
			return q, false
		}
		c.Add(rec)
	}
	return 0, true
}

// Len is the number of records: the reachable positions the tier (or
// its part) holds.
func (s *Tier) Len() uint64 { return plan.FirstRank(s.set, plan.Range{Lo: s.hi}) - s.loRank }

// position returns the position of the i-th record.
func (s *Tier) Position(i uint64) uint64 {
	p, _ := s.set.Select(s.loRank + i)
	return p
}

// Records stores the records [lo, lo+len(dst)) (counted from the first
// the tier or part holds) in dst.
func (s *Tier) Records(dst []valuedb.Record, lo uint64) {
	if !s.dense {
		for i := range dst {
			dst[i] = s.decode[s.cells.Peek(lo+uint64(i))]
		}
		return
	}
	if len(dst) == 0 {
		return
	}
	i := 0
	for q := range s.set.Range(s.Position(lo), s.hi) {
		dst[i] = s.decode[s.cells.Peek(q-s.lo)]
		if i++; i == len(dst) {
			return
		}
	}
}

// Bytes is the memory the solved tier holds: its cells and its set.
func (s *Tier) Bytes() uint64 { return s.cells.Bytes() + plan.BitsetBytes(s.set.Len()) }

// hold keeps the cells from Free until release is called: a goroutine
// that reads them (writing the tier's database) holds them from before it
// starts.
func (s *Tier) Hold() (release func()) {
	s.readers.Add(1)
	return s.readers.Done
}

// Free returns the cells' memory, once those who hold them are done; the tier must not be used afterwards.
// A second Free does nothing.
func (s *Tier) Free() {
	if s != nil {
		s.readers.Wait()
		s.cells.Free()
		if s.aside != nil {
			s.aside.Close()
			s.aside = nil
		}
	}
}

// SetAside writes the tier's cells to a file in folder dir and returns
// their memory until Restore reads them back; nothing may read or change
// the tier meanwhile. A step that holds much memory for long beside a
// tier it does not read (the rule pass of a loopy tier) sets it aside
// rather than hold both. The file is removed as soon as it is made (it
// lives while it is open), so nothing is left in dir, even if the
// process is killed; where the system cannot remove an open file, its
// name, a dot first, is one runfolder.RemoveTemporaries removes.
func (s *Tier) SetAside(dir string) error {
	f, err := os.CreateTemp(dir, fmt.Sprintf(".tier%d-*.aside", s.tier))
	if err != nil {
		return fmt.Errorf("tier %d: setting aside: %w", s.tier, err)
	}
	os.Remove(f.Name())
	if err := s.cells.Spill(f); err != nil {
		f.Close()
		return fmt.Errorf("tier %d: %w", s.tier, err)
	}
	s.aside = f
	return nil
}

// Restore reads back the cells SetAside set aside (nothing if none).
func (s *Tier) Restore() error {
	if s.aside == nil {
		return nil
	}
	err := s.cells.Unspill(s.aside)
	if err != nil {
		return fmt.Errorf("tier %d: %w", s.tier, err)
	}
	s.aside.Close()
	s.aside = nil
	return nil
}

// Tier is the tier whose records s holds.
func (s *Tier) Tier() tiergame.Tier { return s.tier }

// Set is the tier's reachable positions, ranked.
func (s *Tier) Set() *bitarray.Ranked { return s.set }

// Span is the hashes [lo, hi) whose records s holds, and the rank of the
// first: the whole tier's, or a part's.
func (s *Tier) Span() (lo, hi, loRank uint64) { return s.lo, s.hi, s.loRank }

// SetSpan narrows s to the records of hashes [lo, hi), the first of rank
// loRank: a part's, whose cells hold only those.
func (s *Tier) SetSpan(lo, hi, loRank uint64) { s.lo, s.hi, s.loRank = lo, hi, loRank }

// Longest is the longest win or loss and the longest tie (-1 without
// ties) of the records.
func (s *Tier) Longest() (maxRem, maxTie int) { return s.maxRem, s.maxTie }

// Put stores rec as the record of position p, one the tier holds, in
// place of its own: a game's rules of play deciding one of a solved
// loopy tier's draws (tiergame.Judge), which gives them one at a time so
// that none is held beside the tier. When rec's remoteness outgrows the
// cells they widen in place, so the tier is never held twice; its
// records are then those New would make of the same records by rank. It
// refuses a record without a value (ErrNoValue) or a position the tier
// does not hold (ErrNotHeld: a symmetric run holds canonical positions
// only), and then changes nothing.
func (s *Tier) Put(p tiergame.Position, rec valuedb.Record, workers int) error {
	i, ok := s.cellOf(p)
	if !ok {
		return fmt.Errorf("tier %d: position %d: %w", s.tier, p, ErrNotHeld)
	}
	maxRem, maxTie, ok := longer(rec, s.maxRem, s.maxTie)
	if !ok {
		return fmt.Errorf("tier %d: position %d: %w", s.tier, p, ErrNoValue)
	}
	if err := s.widenFor(maxRem, maxTie, workers); err != nil {
		return err
	}
	s.cells.Swap(i, s.cells.Peek(i), s.cells.Lay.Code(rec))
	s.maxRem, s.maxTie = maxRem, maxTie
	return nil
}

// longer returns the longest win or loss and the longest tie, maxRem
// and maxTie with r among them; false for a record without a value.
func longer(r valuedb.Record, maxRem, maxTie int) (int, int, bool) {
	switch r.Value() {
	case tiergame.Tie:
		return maxRem, max(maxTie, r.Remoteness()), true
	case tiergame.Win, tiergame.Lose, tiergame.Draw:
		return max(maxRem, r.Remoteness()), maxTie, true
	}
	return maxRem, maxTie, false
}

// widenFor widens the cells in place to 16 bits if their codes do not
// hold remoteness up to maxRem and ties up to maxTie (only byte cells can
// fail to: Layout16 holds every remoteness).
func (s *Tier) widenFor(maxRem, maxTie int, workers int) error {
	if holds(s.cells.Lay, maxRem, maxTie) {
		return nil
	}
	n := s.hi - s.lo
	if !s.dense {
		n = s.Len()
	}
	err := s.cells.Widen(workers, n, cells.Layout16, func(c uint32) uint32 {
		if r := s.decode[c]; r != 0 {
			return cells.Layout16.Code(r)
		}
		return cells.Absent
	})
	if err != nil {
		return fmt.Errorf("tier %d: %w", s.tier, err)
	}
	s.decode = decodeTable(cells.Layout16)
	return nil
}

// holds reports whether layout l's codes hold remoteness up to maxRem
// for wins and losses and maxTie for ties.
func holds(l cells.Layout, maxRem, maxTie int) bool {
	return maxRem < int(l.Rem) && maxTie < int(l.TieRem)
}

// cellOf returns the index of position p's cell, and whether p is one of
// the reachable positions the tier holds.
func (s *Tier) cellOf(p tiergame.Position) (uint64, bool) {
	if uint64(p) < s.lo || uint64(p) >= s.hi {
		return 0, false
	}
	rank, ok := s.set.Lookup(uint64(p))
	if !ok {
		return 0, false
	}
	if s.dense {
		return uint64(p) - s.lo, true
	}
	return rank - s.loRank, true
}
