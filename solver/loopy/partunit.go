package loopy

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/zstd"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/internal/cells"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// The units of a loopy tier solved in parts, as plain functions and
// methods of (game, tier, cut, part, inputs) → outputs, so that a cluster's
// workers and solveLoopyParts run the same code:
//
//   - NewPart: a part's cells from its own moves (a worker keeps the
//     part in memory from then on, or in a checkpoint: Part.Checkpoint,
//     RestorePart);
//   - ChildNotes: a range of a child tier's records into notes to the
//     parts of their parents, once for every part (a cluster's KidNotes
//     unit runs it over a range of plan.ChildRanges, a chunk at a time);
//   - Part.Apply of every child range's held notes for the part, then of
//     the won ones, then Part.EndFirstPass;
//   - Part.Step, level by level in lockstep with the other parts: the
//     notes the others sent at the level before in, the notes for them
//     out; Part.Next says the part's next level;
//   - Part.StartTies with the child tiers' tied notes, then Part.Step
//     again;
//   - Part.Solved, to write the part's database (solved.WriteTierDB); the
//     parts' databases join into the tier's (ConcatDB) when the cut is
//     aligned to their blocks.

// Part is one part of a loopy tier solved in parts (see plan.Cut).
//
// A part reads its tier's set only over its own hashes, so its set may
// be a window of the tier's (reach.LoadLevelWindow): the notes it sends
// name positions, which their part looks up. Its cells are indexed by
// position or by rank as its set's density says (solved.WorthDense), so a
// part's checkpoints are read back, and its sub-parts' gathered, under a
// set over the same hashes as theirs were written with.
type Part struct{ s *loopySolver }

// Notes are what a part tells another (or a child tier's range tells a
// part): sent as a file (WriteNotes), read back (ReadNotes).
type Notes []note

// NewPart returns part k of loopy tier t as cut, whose reachable
// positions are set, with its cells set from its own moves; maxRem and
// maxTie are the longest win or loss and the longest tie (-1 if none) of
// t's child tiers (their databases' headers say).
//
// held, if not nil, gives the child tiers' held notes for the part (each
// notes file's sections in turn, to apply), which NewPart applies before
// it reads the part's moves: a position with a child elsewhere lost, tied
// or drawn cannot lose, so its moves need no look (Unmover.Parents names
// no primitive position). The part is then the one NewPart without held
// and Apply of the same notes make. The won notes come after (Apply).
func NewPart(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, cut plan.Cut, k, maxRem, maxTie int, e work.Effort, held func(apply func(Notes) error) error) (*Part, error) {
	s, err := newPart(ctx, g, t, set, cut, k, cells.For(maxRem+1, maxTie+1, e.Paths != nil && e.Paths.Narrow), e, held)
	if err != nil {
		return nil, err
	}
	return &Part{s}, nil
}

// ChildNotes turns the records of st, a child tier of loopy tier t (or a
// range of its ranks: solved.LoadRange), into notes to the parts (as cut)
// of their parents in t, by part: held (losses, ties and draws), won
// (wins) and tied (ties, for the ties' phase).
func ChildNotes(ctx context.Context, g tiergame.Game, t tiergame.Tier, cut plan.Cut, st *solved.Tier) (held, won, tied []Notes, err error) {
	h, w, ti, err := childNotes(ctx, g, t, cut, st, 0, st.Len())
	return asNotes(h), asNotes(w), asNotes(ti), err
}

func asNotes(ns [][]note) []Notes {
	out := make([]Notes, len(ns))
	for i, n := range ns {
		out[i] = n
	}
	return out
}

// Apply applies notes about the part's positions: the held notes of every
// child tier before their won notes.
func (p *Part) Apply(ctx context.Context, ns Notes) error { return p.s.applyNotes(ctx, ns) }

// EndFirstPass ends the part's first pass, once every child tier's notes
// are applied.
func (p *Part) EndFirstPass() error { return p.s.endFirstPass() }

// Next returns the part's first level after r that holds positions, or
// -1. The parts' next level is the least of theirs, or r+1 if a part sent
// notes at level r (they decide positions at r+1 or later); when there is
// none the phase is over.
func (p *Part) Next(r int) int { return p.s.nextLevel(r) }

// Step is the part's level r: it applies the notes the other parts sent
// at the level before, processes its positions of level r, and returns the
// notes for the other parts, by part.
func (p *Part) Step(ctx context.Context, r int, in Notes) ([]Notes, error) {
	if err := p.s.step(ctx, r, in); err != nil {
		return nil, err
	}
	return asNotes(p.s.takeOutbox()), nil
}

// StepTo is Step with the notes for the other parts handed to out as
// they are made, a quarter of a million at a time (each goroutine's, once
// they reach their share of plan.FlushNotes, and at the level's end), rather than
// returned: a level's notes need not fit in memory beside the cells.
// out is called by one goroutine at a time; ns is valid until it returns
// (a NotesWriter's Write sorts it in place).
func (p *Part) StepTo(ctx context.Context, r int, in Notes, out func(k int, ns Notes) error) error {
	p.s.sink = func(k int, ns []note) error { return out(k, ns) }
	defer func() { p.s.sink = nil }()
	return p.s.step(ctx, r, in)
}

// Receive applies notes the other parts sent at level r-1, before
// Step(ctx, r, nil): the same as passing them to Step, but in as many
// calls as the caller likes (a notes file a section at a time,
// EachNotes), in any order, since the updates of a level commute.
func (p *Part) Receive(ctx context.Context, r int, in Notes) error {
	if err := p.s.fit(r + 1); err != nil {
		return err
	}
	return p.s.applyNotes(ctx, in)
}

// StartTies ends the phase of wins and losses and starts that of ties,
// with the tied notes of the child tiers.
func (p *Part) StartTies(ctx context.Context, tied Notes) error {
	if err := p.s.startTies(ctx, false); err != nil {
		return err
	}
	return p.s.applyNotes(ctx, tied)
}

// Solved returns the part's records, once its levels are done, for
// solved.WriteTierDB. It shares the part's cells: freeing either frees both
// (twice is harmless), and neither may be read after.
func (p *Part) Solved() *solved.Tier { return p.s.solved() }

// Range is the part's hashes, [lo, hi), and its records' ranks in its
// set, [rankLo, rankHi): in the tier, if its set is the tier's; from 0,
// if its set is its window.
func (p *Part) Range() (lo, hi, rankLo, rankHi uint64) {
	return p.s.lo, p.s.hi, p.s.loRank, plan.FirstRank(p.s.set, plan.Range{Lo: p.s.hi})
}

// Bytes is the memory the part holds: its cells and what it keeps beside
// them (its tier's set is the caller's).
func (p *Part) Bytes() uint64 {
	p.s.sideMu.Lock()
	defer p.s.sideMu.Unlock()
	return p.s.cells.Bytes() + p.s.counted.bytes() + p.s.maxWin.bytes()
}

// Free returns the part's memory: its cells and the tables beside them.
func (p *Part) Free() { p.s.free() }

// Notes files: "TSNOTES1", then sections of up to plan.NoteSection notes,
// each a zstd frame of the notes sorted, as unsigned varints of the
// differences, preceded by its count (uvarint) and its frame's length
// (uvarint); a count of 0 ends the file. Sorted notes compress well and
// are applied in order, near each other in the cells.
const (
	notesMagic = "TSNOTES1"
	// maxNoteFrame bounds a section's compressed size when reading.
	maxNoteFrame = 64 << 20
)

// ErrNotes marks a notes file that is not valid.
var ErrNotes = errors.New("invalid notes file")

// noteEncoder compresses notes and checkpoints: one encoder for the
// process, a window of a megabyte (a checkpoint's chunk; sorted notes
// repeat little farther back). The default window of 8 MiB kept a 16 MiB
// buffer for the process's life, a quarter of a small worker's budget.
var (
	noteEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	noteDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(10*plan.NoteSection+1<<16))
)

// WriteNotes writes notes to w, sorting them in place.
func WriteNotes(w io.Writer, ns Notes) error {
	nw, err := NewNotesWriter(w)
	if err == nil {
		err = nw.Write(ns)
	}
	if err == nil {
		err = nw.Close()
	}
	return err
}

// A NotesWriter writes a notes file a few notes at a time: each Write
// adds its notes, sorted, as sections of their own (a file of one Write
// is WriteNotes's).
type NotesWriter struct {
	bw         *bufio.Writer
	raw, frame []byte
}

// NewNotesWriter starts a notes file on w.
func NewNotesWriter(w io.Writer) (*NotesWriter, error) {
	nw := &NotesWriter{bw: bufio.NewWriter(w)}
	_, err := nw.bw.WriteString(notesMagic)
	return nw, err
}

// Write adds notes, sorting them in place.
func (nw *NotesWriter) Write(ns Notes) error {
	slices.Sort(ns)
	for lo := 0; lo < len(ns); lo += plan.NoteSection {
		part := ns[lo:min(lo+plan.NoteSection, len(ns))]
		nw.raw = nw.raw[:0]
		prev := uint64(0)
		for _, n := range part {
			nw.raw = binary.AppendUvarint(nw.raw, uint64(n)-prev)
			prev = uint64(n)
		}
		nw.frame = noteEncoder.EncodeAll(nw.raw, nw.frame[:0])
		var head []byte
		head = binary.AppendUvarint(head, uint64(len(part)))
		head = binary.AppendUvarint(head, uint64(len(nw.frame)))
		if _, err := nw.bw.Write(head); err != nil {
			return err
		}
		if _, err := nw.bw.Write(nw.frame); err != nil {
			return err
		}
	}
	return nil
}

// Close ends the file (it does not close the writer beneath).
func (nw *NotesWriter) Close() error {
	if err := nw.bw.WriteByte(0); err != nil {
		return err
	}
	return nw.bw.Flush()
}

// ReadNotes reads a notes file, appending its notes to ns; a section's
// count and frame are bounded, so a damaged file allocates no more than a
// section's worth before it is refused.
func ReadNotes(r io.Reader, ns Notes) (Notes, error) {
	err := EachNotes(r, func(s Notes) error {
		ns = append(ns, s...)
		return nil
	})
	return ns, err
}

// EachNotes reads a notes file a section at a time (at most a million
// notes), calling f with each section's notes, which are valid until f
// returns: a part applies the notes it receives without holding a whole
// file's. A section's count and frame are bounded, as ReadNotes's.
func EachNotes(r io.Reader, f func(Notes) error) error {
	br := bufio.NewReader(r)
	magic := make([]byte, len(notesMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != notesMagic {
		return fmt.Errorf("%w: bad magic", ErrNotes)
	}
	var frame, raw []byte
	var ns Notes
	for {
		count, err := binary.ReadUvarint(br)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrNotes, err)
		}
		if count == 0 {
			return nil
		}
		size, err := binary.ReadUvarint(br)
		if err != nil || count > plan.NoteSection || size > maxNoteFrame {
			return fmt.Errorf("%w: a section of %d notes in %d bytes", ErrNotes, count, size)
		}
		frame = slices.Grow(frame[:0], int(size))[:size]
		if _, err := io.ReadFull(br, frame); err != nil {
			return fmt.Errorf("%w: %v", ErrNotes, err)
		}
		if raw, err = noteDecoder.DecodeAll(frame, raw[:0]); err != nil {
			return fmt.Errorf("%w: %v", ErrNotes, err)
		}
		ns = ns[:0]
		rest, prev := raw, uint64(0)
		for i := uint64(0); i < count; i++ {
			d, n := binary.Uvarint(rest)
			if n <= 0 {
				return fmt.Errorf("%w: a section ends early", ErrNotes)
			}
			rest = rest[n:]
			prev += d
			ns = append(ns, note(prev))
		}
		if len(rest) != 0 {
			return fmt.Errorf("%w: %d bytes after a section's notes", ErrNotes, len(rest))
		}
		if err := f(ns); err != nil {
			return err
		}
	}
}

// Checkpoints: "TSPART01", a uvarint length and a JSON header (partHeader),
// the cells' words in chunks of partChunk, each a uvarint length and a
// zstd frame of little-endian uint64s (the uint64s themselves in a part
// spilled to a worker's disk: the header's raw), then what
// the part keeps beside them: two tables (counts, longest wins), each a
// uvarint count and that many pairs of uvarints (slot, value), slots
// ascending. A worker that takes over a part restores it from its last
// checkpoint and applies the levels' notes since.
const (
	partMagic = "TSPART01"
	partChunk = 1 << 17 // words: a megabyte
)

// ErrCheckpoint marks a checkpoint that is not valid, or not the part's.
var ErrCheckpoint = errors.New("invalid part checkpoint")

// readTable reads a table kept beside the cells into t, each slot moved
// up by off; slots must be below n and ascending, values at most limit.
// A table read in pieces (GatherPart) stays ascending when each piece's
// slots come after the last's.
func readTable(r io.ByteReader, t *sideTable, n, off uint64, limit uint64) error {
	count, err := binary.ReadUvarint(r)
	if err != nil || count > n {
		return fmt.Errorf("%d entries for %d slots (%v)", count, n, err)
	}
	last := uint64(0)
	for i := uint64(0); i < count; i++ {
		slot, err := binary.ReadUvarint(r)
		if err != nil {
			return err
		}
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return err
		}
		if slot >= n || slot+off >= sideSlotLimit || i > 0 && slot <= last || v > limit {
			return fmt.Errorf("entry %d: slot %d, value %d", i, slot, v)
		}
		// Ascending slots: the words are sorted as they come.
		if err := t.words.push((slot+off)<<sideValueBits | v); err != nil {
			return err
		}
		last = slot
	}
	t.words.clip() // read from now on, not grown
	return nil
}

// partHeader is a checkpoint's header.
type partHeader struct {
	Game   string  `json:"game"`
	Option string  `json:"option"`
	Tier   uint64  `json:"tier"`
	Part   int     `json:"part"`
	Lo     uint64  `json:"lo"`
	Hi     uint64  `json:"hi"`
	Bits   uint    `json:"bits"`
	Rem    uint32  `json:"rem"`
	TieRem uint32  `json:"tie_rem"`
	Ctr    uint32  `json:"ctr"`
	Ties   bool    `json:"ties"`
	Dense  bool    `json:"dense"` // cells by position, not by rank
	Counts []int64 `json:"counts"`
	Words  int     `json:"words"`
	// Raw says the cells' frames are their words as they are, not zstd
	// frames (Part.Spill).
	Raw bool `json:"raw,omitempty"`
}

// Checkpoint writes the part's state to w.
func (p *Part) Checkpoint(w io.Writer) error { return p.write(w, false) }

// Spill writes the part's state to w as Checkpoint does, its cells
// uncompressed: for the worker's own disk, where a part it keeps no room
// for waits for its next round, and where compressing the cells and
// decompressing them again would cost more than their bytes (a part of
// 115 MB: about 1.2 CPU-s to checkpoint, 3 to restore). RestorePart reads
// either.
func (p *Part) Spill(w io.Writer) error { return p.write(w, true) }

// write writes the part's state to w, its cells in zstd frames unless
// uncompressed.
func (p *Part) write(w io.Writer, uncompressed bool) error {
	s := p.s
	h := partHeader{Game: s.g.Name(), Option: s.g.Option(), Tier: uint64(s.t), Part: s.part, Lo: s.lo, Hi: s.hi,
		Bits: s.cells.Lay.Bits, Rem: s.cells.Lay.Rem, TieRem: s.cells.Lay.TieRem, Ctr: s.cells.Lay.Ctr,
		Ties: s.phase == tiePhase, Dense: s.dense, Counts: s.counts, Words: len(s.cells.Words), Raw: uncompressed}
	hj, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(partMagic)
	bw.Write(binary.AppendUvarint(nil, uint64(len(hj))))
	bw.Write(hj)
	var raw, frame []byte
	for lo := 0; lo < len(s.cells.Words); lo += partChunk {
		raw = raw[:0]
		for _, x := range s.cells.Words[lo:min(lo+partChunk, len(s.cells.Words))] {
			raw = binary.LittleEndian.AppendUint64(raw, x)
		}
		out := raw
		if !h.Raw {
			frame = noteEncoder.EncodeAll(raw, frame[:0])
			out = frame
		}
		bw.Write(binary.AppendUvarint(nil, uint64(len(out))))
		if _, err := bw.Write(out); err != nil {
			return err
		}
	}
	s.sideMu.Lock()
	writeTable(bw, &s.counted)
	writeTable(bw, &s.maxWin)
	s.sideMu.Unlock()
	return bw.Flush()
}

// writeTable writes a table kept beside the cells, slots ascending.
func writeTable(w *bufio.Writer, t *sideTable) {
	w.Write(binary.AppendUvarint(nil, uint64(t.len())))
	var b []byte
	for i, v := range t.all() {
		b = binary.AppendUvarint(b[:0], i)
		b = binary.AppendUvarint(b, uint64(v))
		w.Write(b)
	}
}

// RestorePart reads part k of loopy tier t as cut (whose reachable
// positions are set) from a checkpoint Part.Checkpoint wrote.
func RestorePart(ctx context.Context, r io.Reader, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, cut plan.Cut, k int, e work.Effort) (*Part, error) {
	fail := func(format string, args ...any) (*Part, error) {
		return nil, fmt.Errorf("%s: tier %d part %d: %w: %s", g.Name(), t, k, ErrCheckpoint, fmt.Sprintf(format, args...))
	}
	br := bufio.NewReaderSize(r, 1<<20)
	h, err := readPartHeader(br)
	if err != nil {
		return fail("%v", err)
	}
	s, err := partSolver(g, t, set, cut, k, e)
	if err != nil {
		return nil, err
	}
	lay, err := h.check(s, k)
	if err != nil {
		return fail("%v", err)
	}
	if s.cells, err = cells.New(s.slots(), lay); err != nil {
		return nil, err
	}
	if len(s.cells.Words) != h.Words {
		s.free()
		return fail("%d words of cells, want %d", h.Words, len(s.cells.Words))
	}
	s.counts = h.Counts
	if h.Ties {
		s.phase = tiePhase
	}
	if err := readCells(br, len(s.cells.Words), h.Raw, func(lo int, words []uint64) { copy(s.cells.Words[lo:], words) }); err != nil {
		s.free()
		return fail("cells: %v", err)
	}
	if err := readTables(br, s, s.slots(), 0); err != nil {
		s.free()
		return fail("%v", err)
	}
	return &Part{s}, ctx.Err()
}

// partSolver returns the solver of part k of loopy tier t as cut, with
// no cells yet.
func partSolver(g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, cut plan.Cut, k int, e work.Effort) (*loopySolver, error) {
	if k < 0 || k >= cut.Parts() || cut.Bounds[k] < set.Base() || cut.Bounds[k+1] > set.End() {
		return nil, fmt.Errorf("%s: tier %d: part %d of the cut %v is not in the set's hashes [%d, %d)", g.Name(), t, k, cut.Bounds, set.Base(), set.End())
	}
	s, err := newLoopySolver(g, t, set, nil, e, cells.Layout{})
	if err != nil {
		return nil, err
	}
	if s.um == nil {
		return nil, fmt.Errorf("%s: tier %d: %w", g.Name(), t, errNeedsParents)
	}
	s.cut, s.part, s.push = &cut, k, true
	s.outbox = make([][]note, cut.Parts())
	s.holdRange(cut.Bounds[k], cut.Bounds[k+1])
	return s, nil
}

// readPartHeader reads a checkpoint's magic and header.
func readPartHeader(br *bufio.Reader) (partHeader, error) {
	var h partHeader
	magic := make([]byte, len(partMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != partMagic {
		return h, errors.New("bad magic")
	}
	n, err := binary.ReadUvarint(br)
	if err != nil || n > 1<<24 {
		return h, errors.New("header length")
	}
	hj := make([]byte, n)
	if _, err := io.ReadFull(br, hj); err != nil {
		return h, fmt.Errorf("header: %v", err)
	}
	if err := json.Unmarshal(hj, &h); err != nil {
		return h, fmt.Errorf("header: %v", err)
	}
	return h, nil
}

// check reports whether h is the checkpoint of part k, whose solver is
// s, and returns its cells' layout.
func (h partHeader) check(s *loopySolver, k int) (cells.Layout, error) {
	lay := cells.Layout{Bits: h.Bits, Rem: h.Rem, TieRem: h.TieRem, Ctr: h.Ctr}
	switch {
	case h.Game != s.g.Name() || h.Option != s.g.Option() || h.Tier != uint64(s.t) || h.Part != k || h.Lo != s.lo || h.Hi != s.hi:
		return lay, fmt.Errorf("it is %s %s tier %d part %d [%d, %d)", h.Game, h.Option, h.Tier, h.Part, h.Lo, h.Hi)
	case h.Bits != 8 && h.Bits != 16 || 2+2*uint64(h.Rem)+uint64(max(h.TieRem, 3+2*h.Ctr)) > 1<<h.Bits || len(h.Counts) > valuedb.MaxRemoteness+2:
		return lay, fmt.Errorf("layout %+v", lay)
	case h.Dense != s.dense:
		// The window's density chooses; a run upgraded midway could
		// otherwise read slots by rank as slots by position.
		return lay, fmt.Errorf("cells by %s, the part's are by %s", byWhat(h.Dense), byWhat(s.dense))
	}
	return lay, nil
}

// byWhat names how cells are indexed.
func byWhat(dense bool) string {
	if dense {
		return "position"
	}
	return "rank"
}

// readCells reads a checkpoint's n words of cells, handing them to put a
// frame at a time (words lo on; valid until put returns); its frames are
// the words themselves if uncompressed (Part.Spill).
func readCells(br *bufio.Reader, n int, uncompressed bool, put func(lo int, words []uint64)) error {
	var frame, raw []byte
	words := make([]uint64, 0, min(n, partChunk))
	for lo := 0; lo < n; lo += partChunk {
		want := min(partChunk, n-lo)
		size, err := binary.ReadUvarint(br)
		if err == nil && size > maxNoteFrame {
			err = fmt.Errorf("a frame of %d bytes", size)
		}
		if err == nil {
			frame = slices.Grow(frame[:0], int(size))[:size]
			_, err = io.ReadFull(br, frame)
		}
		switch {
		case err == nil && uncompressed:
			raw = frame
		case err == nil:
			raw, err = noteDecoder.DecodeAll(frame, raw[:0])
		}
		if err == nil && len(raw) != 8*want {
			err = fmt.Errorf("%d bytes for %d words", len(raw), want)
		}
		if err != nil {
			return err
		}
		words = words[:want]
		for j := range words {
			words[j] = binary.LittleEndian.Uint64(raw[8*j:])
		}
		put(lo, words)
	}
	return nil
}

// readTables reads a checkpoint's two tables (counts, longest wins) of n
// slots into s's, their slots moved up by off.
func readTables(br *bufio.Reader, s *loopySolver, n, off uint64) error {
	if err := readTable(br, &s.counted, n, off, sideValueMax); err != nil {
		return fmt.Errorf("counts: %v", err)
	}
	if err := readTable(br, &s.maxWin, n, off, valuedb.MaxRemoteness); err != nil {
		return fmt.Errorf("longest wins: %v", err)
	}
	return nil
}

// A part's first pass can also be made in pieces, on as many workers: the
// sub-parts of a finer cut (one that cuts where cut does, and between),
// each NewPart under the finer cut with the child tiers' notes applied
// (those of the part: a sub-part skips what is not its own) and
// EndFirstPass, then checkpointed. A first pass's updates are each a
// position's own, so the pieces gathered are the part's first pass.

// GatherPart returns part k of loopy tier t as cut, after its first pass,
// from the checkpoints subs of its sub-parts under fine (in order), each
// written after the sub-part's first pass. Its checkpoint is the one the
// part's own first pass gives. If grew is not nil, it is called with the
// part after each sub-part is read (its Bytes grow with the tables beside
// its cells, as a first pass's grow with the notes it applies).
func GatherPart(ctx context.Context, subs []io.Reader, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, cut, fine plan.Cut, k int, e work.Effort, grew func(*Part)) (*Part, error) {
	s, err := partSolver(g, t, set, cut, k, e)
	if err != nil {
		return nil, err
	}
	first := slices.Index(fine.Bounds, s.lo)
	if first < 0 || first+len(subs) >= len(fine.Bounds) || fine.Bounds[first+len(subs)] != s.hi {
		return nil, fmt.Errorf("%s: tier %d part %d [%d, %d): %d sub-parts of the cut %v are not the part", g.Name(), t, k, s.lo, s.hi, len(subs), fine.Bounds)
	}
	ok := false
	defer func() {
		if !ok {
			s.free()
		}
	}()
	for i, r := range subs {
		j := first + i
		if err := s.gather(r, fine, j, e); err != nil {
			return nil, fmt.Errorf("%s: tier %d part %d: sub-part %d: %w: %v", g.Name(), t, k, j, ErrCheckpoint, err)
		}
		if grew != nil {
			grew(&Part{s})
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	ok = true
	return &Part{s}, nil
}

// gather reads the checkpoint of sub-part j of the finer cut fine into
// the part's cells, tables and counts; the first sub-part read lays the
// part's cells out.
func (s *loopySolver) gather(r io.Reader, fine plan.Cut, j int, e work.Effort) error {
	br := bufio.NewReaderSize(r, 1<<20)
	h, err := readPartHeader(br)
	if err != nil {
		return err
	}
	sub, err := partSolver(s.g, s.t, s.set, fine, j, e)
	if err != nil {
		return err
	}
	lay, err := h.check(sub, j)
	if err != nil {
		return err
	}
	if h.Ties {
		return errors.New("a checkpoint after its first pass")
	}
	if s.cells.Words == nil {
		if s.cells, err = cells.New(s.slots(), lay); err != nil {
			return err
		}
	} else if lay != s.cells.Lay {
		return fmt.Errorf("layout %+v, the part's %+v", lay, s.cells.Lay)
	}
	// Its slots and where they start among the part's.
	n, off := sub.hi-sub.lo, sub.lo-s.lo
	if !s.dense {
		n, off = plan.FirstRank(s.set, plan.Range{Lo: sub.hi})-sub.loRank, sub.loRank-s.loRank
	}
	per := uint64(64 / lay.Bits)
	if uint64(h.Words) != (n+per-1)/per {
		return fmt.Errorf("%d words of cells for %d slots", h.Words, n)
	}
	err = readCells(br, h.Words, h.Raw, func(lo int, words []uint64) {
		first := uint64(lo) * per
		if off%per == 0 {
			// Whole words; the last one's lanes past the sub-part are the
			// next sub-part's, read after it.
			copy(s.cells.Words[(off+first)/per:], words)
			return
		}
		mask := uint64(1)<<lay.Bits - 1
		for w, x := range words {
			for l := range per {
				i := first + uint64(w)*per + l
				if i >= n {
					return
				}
				s.cells.Set(off+i, uint32(x>>(l*uint64(lay.Bits))&mask))
			}
		}
	})
	if err != nil {
		return fmt.Errorf("cells: %v", err)
	}
	if len(h.Counts) > len(s.counts) {
		s.counts = append(s.counts, make([]int64, len(h.Counts)-len(s.counts))...)
	}
	for r, c := range h.Counts {
		s.counts[r] += c
	}
	return readTables(br, s, n, off)
}
