package loopy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/internal/cells"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// A loopy tier too large for one machine is solved in parts: ranges of
// its hashes (a plan.Cut), each held by one solver (a worker's, in a cluster)
// with only its range's cells, in lockstep by levels of remoteness. What
// a part cannot look up it learns from notes the others send it:
//
//   - What its positions' children in other tiers are: the children's
//     records, read from the child tiers' databases a block at a time,
//     are turned into notes to the parts of their parents (un-moves and
//     un-captures: Unmover.Parents of the child's tier into the tier),
//     each child position's once for all the parts (plan.ChildRanges).
//     Notes that a child is lost, tied or drawn come first (a parent
//     with one can no longer lose), then those that it is won (a parent
//     that can still lose keeps its longest win elsewhere beside its
//     cell, for the remoteness of its loss); notes of ties again when the
//     ties' phase starts.
//   - At each level, the positions of a part decided at that level are
//     lost, won or tied children of parents in other parts: a note each,
//     applied by their part before it processes the next level.
//
// A note is applied where the whole-tier solver would have updated the
// parent directly, and the updates of a level commute, so the parts'
// records are the whole tier's (TestLoopyParts). A part needs the game's
// Parents (tiergame.Unmover): a reverse index of the tier's moves is not
// a part's to build.

// partState is what a part of a loopy tier keeps beside the core it
// shares with a whole tier's solver: where it is cut, the notes of its
// levels for the other parts, and the tables of what its children in
// other tiers told it.
type partState struct {
	cut  *plan.Cut
	part int
	// outbox holds the notes of a level for the other parts, by part;
	// with sink set (Part.StepTo) they go to sink instead, a goroutine's
	// notes once they reach plan.FlushNotes and at the level's end, under
	// sinkMu.
	outbox [][]note
	sink   func(k int, ns []note) error
	sinkMu sync.Mutex
	// A part learns what its children in other tiers are from notes
	// (push), not by looking them up, so it keeps what the whole-tier
	// solver looks up again: the exact count of children in the tier of
	// a position whose count does not fit its cell (counted), and the
	// longest win elsewhere of a position that can lose (maxWin), by
	// slot, under sideMu.
	push bool
	// early is set while held notes are applied before the first pass
	// (newPart): a position they leave unable to lose is opened first,
	// and the first pass leaves it as it is.
	early   bool
	sideMu  sync.Mutex
	counted sideTable
	maxWin  sideTable
}

// A note tells a part about one of its positions: what kind of child it
// has and the child's remoteness (the level it was decided at, for the
// notes of levels). It packs the position (48 bits), the kind (3) and the
// remoteness (13).
type note uint64

type noteKind uint8

const (
	childLost noteKind = iota // a child in another tier is lost
	childWon                  // ... won
	childHeld                 // ... tied or drawn: the parent cannot lose
	childTied                 // ... tied (read again in the ties' phase)
	lostAt                    // a child in the tier was lost at a level
	wonAt                     // ... won
	tiedAt                    // ... tied
)

func makeNote(p uint64, k noteKind, rem int) note { return note(p<<16 | uint64(k)<<13 | uint64(rem)) }
func (n note) pos() uint64                        { return uint64(n) >> 16 }
func (n note) kind() noteKind                     { return noteKind(n >> 13 & 7) }
func (n note) rem() int                           { return int(n & valuedb.MaxRemoteness) }

// maxNotePos is the largest hash a note holds.
const maxNotePos = 1<<48 - 1

// errNeedsParents refuses a part of a game without Parents.
var errNeedsParents = errors.New("a loopy tier solved in parts needs the game's Parents (tiergame.Unmover)")

// newPart returns the solver of part k of loopy tier t as cut, with its
// cells set from its own moves: primitive positions decided, the others
// able to lose with their children in the tier counted (the notes of the
// children elsewhere come next), but for those that held's notes, applied
// first, leave unable to lose (NewPart). Its first cells are of layout lay.
func newPart(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, cut plan.Cut, k int, lay cells.Layout, e work.Effort, held func(apply func(Notes) error) error) (*loopySolver, error) {
	if end := cut.Bounds[len(cut.Bounds)-1]; end > maxNotePos {
		return nil, fmt.Errorf("%s: tier %d: %d hashes, more than parts can name", g.Name(), t, end)
	}
	s, err := partSolver(g, t, set, cut, k, e)
	if err != nil {
		return nil, err
	}
	if s.slots() > sideSlotLimit {
		return nil, fmt.Errorf("%s: tier %d part %d: %d cells, more than a part's side tables name", g.Name(), t, k, s.slots())
	}
	if s.cells, err = cells.New(s.slots(), lay); err != nil {
		return nil, fmt.Errorf("%s: tier %d: %w", g.Name(), t, err)
	}
	if held != nil {
		s.early = true
		err := held(func(ns Notes) error { return s.applyNotes(ctx, ns) })
		s.early = false
		if err != nil {
			s.free()
			return nil, err
		}
	}
	if err := s.firstPass(ctx); err != nil {
		s.free()
		return nil, err
	}
	return s, nil
}

// free returns a part's memory: its cells and the tables beside them.
func (s *loopySolver) free() {
	s.cells.Free()
	s.sideMu.Lock()
	s.counted.free()
	s.maxWin.free()
	s.sideMu.Unlock()
}

// childNotes lists what the positions of child tier c with ranks [lo, hi)
// (st holds them) are, as notes to their parents in tier t, by part as
// cut: lost, tied or drawn children in held, won ones in won, tied ones
// again in tied.
func childNotes(ctx context.Context, g tiergame.Game, t tiergame.Tier, cut plan.Cut, st *solved.Tier, lo, hi uint64) (held, won, tied [][]note, err error) {
	um, ok := g.(tiergame.Unmover)
	if !ok {
		return nil, nil, nil, errNeedsParents
	}
	n := cut.Parts()
	held, won, tied = make([][]note, n), make([][]note, n), make([][]note, n)
	recs := make([]valuedb.Record, min(hi-lo, 1<<15))
	var ps []tiergame.Position
	for b := lo; b < hi; b += uint64(len(recs)) {
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		recs = recs[:min(uint64(len(recs)), hi-b)]
		st.Records(recs, b)
		i := 0
		_, stHi, _ := st.Span()
		for q := range st.Set().Range(st.Position(b), stHi) {
			rec := recs[i]
			ps = um.Parents(st.Tier(), tiergame.Position(q), t, ps[:0])
			for _, p := range ps {
				k := cut.Of(uint64(p))
				switch rec.Value() {
				case tiergame.Lose:
					held[k] = append(held[k], makeNote(uint64(p), childLost, rec.Remoteness()))
				case tiergame.Win:
					won[k] = append(won[k], makeNote(uint64(p), childWon, rec.Remoteness()))
				case tiergame.Tie:
					held[k] = append(held[k], makeNote(uint64(p), childHeld, 0))
					tied[k] = append(tied[k], makeNote(uint64(p), childTied, rec.Remoteness()))
				default:
					held[k] = append(held[k], makeNote(uint64(p), childHeld, 0))
				}
			}
			if i++; i == len(recs) {
				break
			}
		}
	}
	return held, won, tied, nil
}

// applyNotes applies notes about the part's positions, on its workers:
// those of children elsewhere in the order childNotes gives them (held,
// then won, then in the ties' phase tied), those of a level before the
// next level is processed (step).
func (s *loopySolver) applyNotes(ctx context.Context, ns []note) error {
	if len(ns) == 0 {
		return nil
	}
	parts := max(1, min(s.workers, len(ns)/4096))
	var mu sync.Mutex
	return work.ForEach(ctx, parts, parts, func(ctx context.Context, k int) error {
		w := &levelWorker{s: s}
		for _, n := range ns[len(ns)*k/parts : len(ns)*(k+1)/parts] {
			i, ok := s.slot(n.pos())
			if !ok {
				continue // not a reachable position
			}
			if s.early {
				if k := n.kind(); k != childLost && k != childHeld {
					return fmt.Errorf("%s: tier %d: a note of kind %d before the part's first pass", s.g.Name(), s.t, k)
				}
				s.cells.Update(i, func(old uint32) (uint32, bool) { return cells.Open, old == cells.Absent })
			}
			if err := w.note(parentRef{i, n.pos()}, n); err != nil {
				return err
			}
		}
		mu.Lock()
		s.addCounts(w.counts)
		mu.Unlock()
		return nil
	})
}

// note applies one note about the position u.
func (w *levelWorker) note(u parentRef, n note) error {
	s, lay := w.s, w.s.cells.Lay
	switch n.kind() {
	case childLost:
		w.raise(u.slot, lay.Win(n.rem()+1), n.rem()+1)
	case childHeld:
		s.cells.Update(u.slot, func(old uint32) (uint32, bool) {
			_, _, can := lay.CanLose(old)
			return cells.Open, can
		})
	case childWon:
		_, ok := s.cells.Update(u.slot, func(old uint32) (uint32, bool) {
			k, _, can := lay.CanLose(old)
			if !can {
				return 0, false
			}
			if k == 0 {
				return lay.Uncounted(1), true
			}
			return lay.Counter(k, 1), true
		})
		if ok {
			s.sideMu.Lock()
			err := s.maxWin.add(u.slot, uint32(n.rem()))
			s.sideMu.Unlock()
			if err != nil {
				return fmt.Errorf("%s: tier %d: %w", s.g.Name(), s.t, err)
			}
		}
	case childTied:
		w.raise(u.slot, lay.Tie(n.rem()+1), n.rem()+1)
	default:
		return w.apply(u, n.kind(), n.rem())
	}
	return nil
}

// endFirstPass decides, once every note of the children elsewhere is
// applied, the positions that can lose and have no child in the tier:
// lost in 1 + their longest win elsewhere. The part's side tables keep
// only the positions that can still lose.
func (s *loopySolver) endFirstPass() error {
	lay := s.cells.Lay
	s.sideMu.Lock()
	defer s.sideMu.Unlock()
	var counts []int64
	s.counted.keep(func(i uint64, n uint32) bool {
		if _, _, can := lay.CanLose(s.cells.Get(i)); !can {
			return false
		}
		if n == 0 {
			lv := int(s.maxWin.get(i)) + 1
			s.cells.Update(i, func(uint32) (uint32, bool) { return lay.Lose(lv), true })
			addLevel(&counts, lv, 1)
			return false
		}
		return true
	})
	s.maxWin.keep(func(i uint64, _ uint32) bool {
		_, _, can := lay.CanLose(s.cells.Get(i))
		return can
	})
	s.counted.settle()
	s.maxWin.settle()
	s.addCounts(counts)
	return nil
}

// countDownSide counts down the child count kept beside the cell of slot
// i, and reports whether that left none.
func (s *loopySolver) countDownSide(i uint64) bool {
	s.sideMu.Lock()
	defer s.sideMu.Unlock()
	return s.counted.countDown(i)
}

// longestWinSide returns the longest win elsewhere of the position in
// slot i, kept beside its cell.
func (s *loopySolver) longestWinSide(i uint64) int {
	s.sideMu.Lock()
	defer s.sideMu.Unlock()
	return int(s.maxWin.get(i))
}

// step is a part's level r: it applies the notes the other parts sent at
// the level before (in), then processes its cells of level r, leaving in
// its outbox the notes for the other parts.
func (s *loopySolver) step(ctx context.Context, r int, in []note) error {
	if err := s.fit(r + 1); err != nil {
		return err
	}
	if err := s.applyNotes(ctx, in); err != nil {
		return err
	}
	if r >= len(s.counts) || s.counts[r] == 0 {
		return nil
	}
	s.progress.Level(r, uint64(s.counts[r]))
	s.counts[r] = 0
	return s.level(ctx, r)
}

// nextLevel returns the first level after r holding cells of the part, or
// -1.
func (s *loopySolver) nextLevel(r int) int {
	for l := r + 1; l < len(s.counts); l++ {
		if s.counts[l] > 0 {
			return l
		}
	}
	return -1
}

// takeOutbox returns the notes for the other parts, by part, and empties
// the outbox.
func (s *loopySolver) takeOutbox() [][]note {
	out := s.outbox
	s.outbox = make([][]note, len(out))
	return out
}

// solved returns the part's solved tier: its range's records.
func (s *loopySolver) solved() *solved.Tier {
	st := solved.FromCells(s.t, s.set, s.cells, s.dense, s.workers)
	st.SetSpan(s.lo, s.hi, s.loRank)
	return st
}

// solveLoopyParts solves loopy tier t in parts, in this process, through
// the units a cluster's workers run (ChildNotes over ranges of the child
// tiers, NewPart, Part), every note written and read back as a file's
// bytes a section at a time, each part over its window of set: the check
// that parts give the whole tier's records (tests), not a way to save
// memory.
func SolveInParts(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids solved.Children, parts int, e work.Effort) (*solved.Tier, error) {
	cut := plan.NewCut(set, parts, 1)
	kidRem, kidTie := longestOfKids(kids)
	n := cut.Parts()
	// As KidNotes units: each range of each child tier into a notes file
	// a role and part (none if empty). Ranges of a record or more, for
	// the tests' small tiers.
	held, won, tied := make([][]*bytes.Buffer, n), make([][]*bytes.Buffer, n), make([][]*bytes.Buffer, n)
	for _, kid := range kids {
		for _, rg := range plan.ChildRanges(kid.Len(), n, 1, 1) {
			h, w, ti, err := childNotes(ctx, g, t, cut, kid, rg.Lo, rg.Hi)
			if err != nil {
				return nil, err
			}
			for k := range n {
				held[k], won[k], tied[k] = addFile(held[k], h[k]), addFile(won[k], w[k]), addFile(tied[k], ti[k])
			}
		}
	}
	ps := make([]*Part, n)
	defer func() {
		for _, p := range ps {
			if p != nil {
				p.Free()
			}
		}
	}()
	for k := range ps {
		// Each part reads its own window of the set, as a worker does.
		win := bitarray.NewRanked(set.Sub(cut.Bounds[k], cut.Bounds[k+1]))
		var err error
		// Every held file, before the part's moves are read, then every
		// won one.
		early := func(apply func(Notes) error) error { return eachFile(held[k], apply) }
		if ps[k], err = NewPart(ctx, g, t, win, cut, k, kidRem, kidTie, e, early); err != nil {
			return nil, err
		}
		if err := applyFiles(ctx, ps[k], won[k]); err != nil {
			return nil, err
		}
		if err := ps[k].EndFirstPass(); err != nil {
			return nil, err
		}
	}
	if err := lockstep(ctx, ps, e.Paths); err != nil {
		return nil, err
	}
	for k, p := range ps {
		if err := p.StartTies(ctx, nil); err != nil {
			return nil, err
		}
		if err := applyFiles(ctx, p, tied[k]); err != nil {
			return nil, err
		}
	}
	if err := lockstep(ctx, ps, e.Paths); err != nil {
		return nil, err
	}
	recs := make([]valuedb.Record, set.Total())
	for k, p := range ps {
		st := p.Solved()
		loRank := plan.FirstRank(set, plan.Range{Lo: cut.Bounds[k]})
		st.Records(recs[loRank:loRank+st.Len()], 0)
	}
	return solved.New(t, set, recs, e.Workers)
}

// addFile adds notes, if any, to files as a notes file of their own.
func addFile(files []*bytes.Buffer, ns []note) []*bytes.Buffer {
	if len(ns) == 0 {
		return files
	}
	var b bytes.Buffer
	if err := WriteNotes(&b, ns); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return append(files, &b)
}

// applyFiles applies notes files to part p a section at a time, in
// order, as a worker reads the files it receives (EachNotes).
func applyFiles(ctx context.Context, p *Part, files []*bytes.Buffer) error {
	return eachFile(files, func(ns Notes) error { return p.Apply(ctx, ns) })
}

// eachFile calls f with each section of notes of files, in order.
func eachFile(files []*bytes.Buffer, f func(Notes) error) error {
	for _, b := range files {
		if err := EachNotes(bytes.NewReader(b.Bytes()), f); err != nil {
			return err
		}
	}
	return nil
}

// reload returns part p checkpointed and restored, and frees p.
func reload(ctx context.Context, p *Part) (*Part, error) {
	defer p.Free()
	var b bytes.Buffer
	if err := p.Checkpoint(&b); err != nil {
		return nil, err
	}
	s := p.s
	return RestorePart(ctx, &b, s.g, s.t, s.set, *s.cut, s.part, work.Effort{Workers: s.workers, Ranges: s.ranges, Done: s.done, Levels: s.progress, Paths: s.paths})
}

// lockstep runs the parts' levels of the phase in progress, each level
// on every part before the next, passing the notes of each level to
// their parts, until no part holds a later level and no note is left.
// As between workers, each part writes a notes file to each other part
// as it makes the notes (StepTo, NotesWriter), and reads the files it
// receives a section at a time (EachNotes, Receive).
func lockstep(ctx context.Context, ps []*Part, paths *work.Paths) error {
	inbox := make([][]*bytes.Buffer, len(ps)) // by receiver: a file from each sender
	for r := -1; ; {
		next := -1
		for _, p := range ps {
			if l := p.Next(r); l >= 0 && (next < 0 || l < next) {
				next = l
			}
		}
		for _, files := range inbox {
			if len(files) > 0 {
				next = r + 1 // the notes give codes of that level or later
			}
		}
		if next < 0 {
			return nil
		}
		outs := make([][]*bytes.Buffer, len(ps)) // by sender, then receiver
		for k, p := range ps {
			for _, f := range inbox[k] {
				if err := EachNotes(f, func(ns Notes) error { return p.Receive(ctx, next, ns) }); err != nil {
					return err
				}
			}
			files, writers := make([]*bytes.Buffer, len(ps)), make([]*NotesWriter, len(ps))
			err := p.StepTo(ctx, next, nil, func(j int, ns Notes) error {
				if writers[j] == nil {
					files[j] = new(bytes.Buffer)
					writers[j], _ = NewNotesWriter(files[j]) // a bytes.Buffer does not fail
				}
				if paths.Notes != nil {
					paths.Notes.Add(int64(len(ns)))
				}
				return writers[j].Write(ns)
			})
			if err != nil {
				return err
			}
			for _, nw := range writers {
				if nw != nil {
					if err := nw.Close(); err != nil {
						return err
					}
				}
			}
			outs[k] = files
			if paths.Checkpoints {
				if ps[k], err = reload(ctx, p); err != nil {
					return err
				}
			}
		}
		for j := range ps {
			inbox[j] = nil
			for _, files := range outs {
				if files[j] != nil {
					inbox[j] = append(inbox[j], files[j])
				}
			}
		}
		r = next
	}
}
