package solver

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"

	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"github.com/tiersolve/tiersolve/valuedb"
)

// judgeTier applies the game's rules of play (tiergame.Judge) to loopy
// tier t just solved as st: it asks the game for the positions the rules
// decide and returns the tier with their records in place of the draws
// the retrograde analysis left: st itself, untouched when the game has
// no rules for t, its records replaced in place otherwise. Positions a
// symmetric run does not hold are read through their canonical form, so
// the rules see the whole tier; only the records of held positions are
// stored.
//
// kidsDone, if not nil, is called once the pass reads kids no more. Once
// the pass has read st's values, st is set aside in folder scratch (the
// system's temporary folder if empty) until the pass is done, and the
// decisions wait in a file there: st is not held beside the pass's own
// memory. Where it cannot be set aside, it stays (a warning is logged).
func judgeTier(g tiergame.Game, t tiergame.Tier, st *solved.Tier, kids []*solved.Tier, workers int, levels *work.LevelProgress, kidsDone func(), scratch string) (*solved.Tier, error) {
	base := quotient.Base(g) // a symmetric run's game wraps the game's own
	j, ok := base.(tiergame.Judge)
	if !ok || !j.Judges(t) {
		return st, nil
	}
	// Only a symmetric run (a quotient of the game) leaves positions
	// out; in any other a hash the tier lacks is no position, and its
	// canonical form (most of the tier's hashes are no legal position)
	// would cost the pass's first look at every hash for nothing.
	var sym tiergame.Symmetric
	if base != g {
		sym, _ = base.(tiergame.Symmetric)
	}
	lookup := func(s *solved.Tier, tt tiergame.Tier, p tiergame.Position) tiergame.Value {
		if s == nil {
			return tiergame.Undecided
		}
		rec, ok := s.Lookup(p)
		if !ok && sym != nil {
			rec, ok = s.Lookup(sym.Canonical(tt, p))
		}
		if !ok {
			return tiergame.Undecided
		}
		return rec.Value()
	}
	child := func(c tiergame.Child) tiergame.Value { // called from the game's goroutines
		last := 0
		return lookup(solved.Children(kids).Find(c.Tier, &last), c.Tier, c.Pos)
	}
	value := func(p tiergame.Position) tiergame.Value { return lookup(st, t, p) }
	// Each decision's record replaces its draw in st's cells once the
	// pass is done (or as the game gives it, if st could not be set
	// aside; the cells widen in place at the first): neither a list of
	// the decisions nor a second tier is ever held beside st.
	var progress func(string)
	if levels != nil {
		progress = levels.Rules
	}
	if scratch == "" {
		scratch = os.TempDir()
	}
	var later *judgedFile // the decisions while st is set aside
	defer func() {
		if later != nil {
			later.close()
		}
	}()
	valuesDone := func() {
		f, err := newJudgedFile(scratch, t)
		if err == nil {
			if err = st.SetAside(scratch); err != nil {
				f.close()
			}
		}
		if err != nil {
			slog.Warn("the tier stays in memory through its rule pass", "tier", tierName(g, t), "err", err)
			return
		}
		later = f
	}
	put := func(d tiergame.Judged) error {
		err := st.Put(d.Pos, valuedb.Make(d.Value, d.Remoteness), workers)
		if errors.Is(err, solved.ErrNotHeld) {
			return nil // a symmetric run holds the canonical form only
		}
		return err
	}
	err := j.Judge(t, tiergame.Judging{Value: value, Child: child, Progress: progress, ChildrenDone: kidsDone, ValuesDone: valuesDone, Yield: func(d tiergame.Judged) error {
		if d.Remoteness < 0 || d.Remoteness > valuedb.MaxRemoteness {
			return fmt.Errorf("remoteness %d of %s out of range", d.Remoteness, g.Format(t, d.Pos))
		}
		if later != nil {
			return later.add(d)
		}
		return put(d)
	}})
	if err == nil && later != nil {
		err = st.Restore()
		if err == nil {
			err = later.each(put)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: tier %s: rules: %w", g.Name(), tierName(g, t), err)
	}
	return st, nil
}

// judgedFile holds a rule pass's decisions on disk, in the order given,
// while the tier is set aside: 10 bytes each (the position, the record).
type judgedFile struct {
	f *os.File
	w *bufio.Writer
}

// newJudgedFile makes an empty judgedFile in folder dir for tier t's
// decisions, removed at once as SetAside's file is.
func newJudgedFile(dir string, t tiergame.Tier) (*judgedFile, error) {
	f, err := os.CreateTemp(dir, fmt.Sprintf(".tier%d-*.judged", t))
	if err != nil {
		return nil, fmt.Errorf("setting the decisions aside: %w", err)
	}
	os.Remove(f.Name())
	return &judgedFile{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// add appends decision d.
func (j *judgedFile) add(d tiergame.Judged) error {
	var b [10]byte
	binary.LittleEndian.PutUint64(b[:], uint64(d.Pos))
	binary.LittleEndian.PutUint16(b[8:], uint16(valuedb.Make(d.Value, d.Remoteness)))
	_, err := j.w.Write(b[:])
	return err
}

// each calls f for every decision added, in order.
func (j *judgedFile) each(f func(tiergame.Judged) error) error {
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("setting the decisions aside: %w", err)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(j.f, 0, math.MaxInt64), 1<<20)
	var b [10]byte
	for {
		if _, err := io.ReadFull(r, b[:]); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading the decisions back: %w", err)
		}
		rec := valuedb.Record(binary.LittleEndian.Uint16(b[8:]))
		d := tiergame.Judged{Pos: tiergame.Position(binary.LittleEndian.Uint64(b[:])), Value: rec.Value(), Remoteness: rec.Remoteness()}
		if err := f(d); err != nil {
			return err
		}
	}
}

// close removes the file.
func (j *judgedFile) close() { j.f.Close() }

// tierName is the tier's name when the game gives one.
func tierName(g tiergame.Game, t tiergame.Tier) string {
	if n, ok := g.(interface{ TierName(tiergame.Tier) string }); ok {
		return n.TierName(t)
	}
	return fmt.Sprint(t)
}
