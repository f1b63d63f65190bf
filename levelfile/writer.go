package levelfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/internal/atomicfile"
)

// DefaultLevel is the gzip level written unless WriteOptions.Level says
// otherwise: on real level files it gives 7–16% smaller files than level 1
// for under twice the CPU, where level 9 saves 3–4% more for 7–15 times the
// CPU (LAYOUT.md has the measurements).
const DefaultLevel = 6

// TypeSet is a set of encodings for the writer to choose from. The zero
// value means all four.
type TypeSet uint8

// Types returns the set of the given types.
func Types(ts ...Type) TypeSet {
	var s TypeSet
	for _, t := range ts {
		if t == TypeAuto {
			return 0
		}
		s |= 1 << t
	}
	return s
}

// Has reports whether t is in the set (the zero set has all four).
func (s TypeSet) Has(t Type) bool {
	return s == 0 || s&(1<<t) != 0
}

// WriteOptions control writing. The zero value keeps the smallest of the
// four types, in the spec dialect, at DefaultLevel, on all cores.
type WriteOptions struct {
	// Types are the candidate encodings; the smallest compressed one is
	// kept, ties going to the lower type. Zero means all four.
	Types TypeSet
	// Dialect is the separator: Spec (default) or Classic.
	Dialect Dialect
	// Level is the gzip level of type 3 (bitmaps), 1 (fastest) to 9; 0
	// means DefaultLevel. Type 0 is always Huffman-coded only and types 1
	// and 2 stored: see LAYOUT.md for why.
	Level int
	// Workers is the number of compressing goroutines; 0 means GOMAXPROCS.
	Workers int
	// NoSync skips syncing the written file (it is still renamed into
	// place whole). For intermediate files, when the caller syncs the file
	// system once afterwards (atomicfile.SyncFS).
	NoSync bool
	// Game names the game in the spec dialect's header comment (the
	// classic dialect always says "Bagh Chal", as GamesmanClassic did).
	// It must not contain a newline.
	Game string
	// Symmetric says, in a comment line of the spec dialect's header,
	// that the set holds one canonical position per symmetry class of the
	// game (a symmetric run's files; see LAYOUT.md). The classic dialect
	// writes GamesmanClassic's comments only.
	Symmetric bool
	// Stored writes every candidate in stored deflate blocks, without
	// compression: type 3's bitmap as types 1 and 2 always are, and type 0
	// (Huffman-coded) is left out of the race. The file is a valid level
	// file, larger, written and read at the speed of a copy: for
	// intermediate files read back soon (a cluster's partial level files),
	// where the CPU costs more than the bytes. Every size is known before
	// anything is encoded, so only the winner is encoded.
	Stored bool
	// Exhaustive compresses every candidate completely instead of stopping
	// those that cannot win. The choice is the same; WriteFile then also
	// keeps the losing candidates as the document's intermediate files.
	Exhaustive bool
}

func (o *WriteOptions) normalized() (WriteOptions, error) {
	var n WriteOptions
	if o != nil {
		n = *o
	}
	if n.Dialect == 0 {
		n.Dialect = Spec
	}
	if n.Dialect != Spec && n.Dialect != Classic {
		return n, fmt.Errorf("levelfile: unknown dialect %#02x", byte(n.Dialect))
	}
	if n.Types&^0xF != 0 {
		return n, fmt.Errorf("levelfile: type set %#x names types beyond 3", uint8(n.Types))
	}
	if n.Stored {
		if n.Types == Types(Type0) {
			return n, errors.New("levelfile: stored blocks hold types 1 to 3, not type 0 alone")
		}
		if n.Types == 0 {
			n.Types = Types(Type1, Type2, Type3)
		}
		n.Types &^= Types(Type0)
	}
	if n.Level == 0 {
		n.Level = DefaultLevel
	}
	if n.Level < flate.BestSpeed || n.Level > flate.BestCompression {
		return n, fmt.Errorf("levelfile: gzip level %d: want 1 to 9", n.Level)
	}
	if strings.ContainsAny(n.Game, "\n\r") {
		return n, fmt.Errorf("levelfile: game name %q contains a newline", n.Game)
	}
	if n.Workers <= 0 {
		n.Workers = runtime.GOMAXPROCS(0)
	}
	return n, nil
}

// Result describes a written file and how its type was chosen.
type Result struct {
	Header     Header
	Count      uint64 // members
	Bytes      int64  // compressed size of the file written
	Candidates [4]Candidate
}

// Candidate is the fate of one type when writing.
type Candidate struct {
	// Tried is false for types outside WriteOptions.Types.
	Tried bool
	// Complete means the candidate was compressed to its end: Size is its
	// exact compressed size. Otherwise Size is the lower bound that proved
	// it could not be the smallest.
	Complete bool
	Size     int64
	// RawDone is how many uncompressed bytes of it were compressed.
	RawDone int64
}

// Write encodes s as a level file to w, choosing the type as WriteOptions
// says. The candidates are kept in memory while they race (each up to about
// the winner's size, since a candidate stops once proven larger), and the
// winner is then written to w.
func Write(w io.Writer, s *bitarray.Set, opts *WriteOptions) (Result, error) {
	o, err := opts.normalized()
	if err != nil {
		return Result{}, err
	}
	res, sinks, err := runRace(context.Background(), s, o, func(Type) (candidateSink, error) {
		return &memorySink{}, nil
	})
	if err != nil {
		return res, err
	}
	for _, b := range sinks[res.Header.Type].(*memorySink).parts {
		if _, err := w.Write(b); err != nil {
			return res, err
		}
	}
	return res, nil
}

// WriteFile writes s as the level file name, atomically: the winner is
// written to a temporary file in the same directory, synced and renamed to
// name, so a failure or crash never leaves a partial file under name.
// Candidates are kept in memory while they race, and spill to temporary
// files beyond spillBytes each; losers never reach the disk otherwise,
// which matters because syncing one file can flush the others' data too.
func WriteFile(name string, s *bitarray.Set, opts *WriteOptions) (Result, error) {
	return WriteFileNamed(func(Type) string { return name }, s, opts)
}

// WriteFileNamed is WriteFile for names that depend on the type written,
// like partial level files: the winner is committed as nameFor(its type).
func WriteFileNamed(nameFor func(Type) string, s *bitarray.Set, opts *WriteOptions) (Result, error) {
	o, err := opts.normalized()
	if err != nil {
		return Result{}, err
	}
	var sinks []*spillSink
	defer func() {
		for _, sk := range sinks {
			sk.discard()
		}
	}()
	res, byType, err := runRace(context.Background(), s, o, func(t Type) (candidateSink, error) {
		target := nameFor(t)
		if o.Exhaustive {
			target = IntermediateName(target, t)
		}
		sk := &spillSink{path: target, noSync: o.NoSync}
		sinks = append(sinks, sk)
		return sk, nil
	})
	if err != nil {
		return res, writeError(nameFor, err)
	}
	var committed []string // intermediate files, removed again on failure
	fail := func(err error) (Result, error) {
		for _, path := range committed {
			os.Remove(path)
		}
		return res, writeError(nameFor, err)
	}
	for t, sk := range byType {
		if t != res.Header.Type && !o.Exhaustive {
			continue
		}
		if err := sk.(*spillSink).commit(); err != nil {
			return fail(err)
		}
		if o.Exhaustive {
			committed = append(committed, sk.(*spillSink).path)
		}
	}
	if o.Exhaustive {
		// The winner also goes under the full name, as in the document.
		full := nameFor(res.Header.Type)
		if err := copyFile(IntermediateName(full, res.Header.Type), full); err != nil {
			return fail(err)
		}
	}
	return res, nil
}

// writeError names the file that could not be written. Errors of the files
// themselves (from atomicfile) name the file already, the candidate's own
// name; others get the file's name, or its folder when the name depends
// on the type written.
func writeError(nameFor func(Type) string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	name := nameFor(Type0)
	if name != nameFor(Type3) {
		name = filepath.Dir(name)
	}
	return fmt.Errorf("levelfile %s: %w", name, err)
}

// spillBytes is how much of a candidate WriteFile keeps in memory (a
// variable for tests).
var spillBytes int64 = 64 << 20

// spillSink holds a candidate in memory, then in a pending atomic file once
// it grows past spillBytes. When the candidate finishes as the best so far,
// it is written and synced to its pending file in the background while the
// race goes on proving the others larger: the sync, often the slowest part
// of writing a file, overlaps that work.
type spillSink struct {
	path   string
	noSync bool
	mem    memorySink
	f      *atomicfile.File
	synced chan error // set by finished; receives the background write's result
}

// finished starts writing and syncing the complete candidate.
func (s *spillSink) finished() {
	if s.noSync || s.synced != nil {
		return
	}
	s.synced = make(chan error, 1)
	go func() {
		err := s.open()
		if err == nil {
			err = s.f.Sync()
		}
		s.synced <- err
	}()
}

func (s *spillSink) add(b []byte) error {
	if s.f == nil && s.mem.n+int64(len(b)) > spillBytes {
		if err := s.open(); err != nil {
			return err
		}
	}
	if s.f != nil {
		_, err := s.f.Write(b)
		return err
	}
	return s.mem.add(b)
}

// open moves the candidate from memory to a pending file, if it is not
// there yet.
func (s *spillSink) open() error {
	if s.f != nil {
		return nil
	}
	f, err := atomicfile.Create(s.path)
	if err != nil {
		return err
	}
	s.f = f
	for _, b := range s.mem.parts {
		if _, err := f.Write(b); err != nil {
			return err
		}
	}
	s.mem = memorySink{}
	return nil
}

// commit writes the candidate under its path: sync, rename, sync directory.
func (s *spillSink) commit() error {
	if s.synced != nil {
		err := <-s.synced
		s.synced = nil // consumed: discard must not wait for it again
		if err != nil {
			return err
		}
	} else if err := s.open(); err != nil {
		return err
	}
	if s.noSync {
		return s.f.CommitNoSync()
	}
	return s.f.Commit()
}

// discard removes the temporary file of a candidate that was not committed.
func (s *spillSink) discard() {
	if s.synced != nil {
		<-s.synced
		s.synced = nil
	}
	if s.f != nil {
		s.f.Close()
	}
	s.mem = memorySink{}
}

// IntermediateName returns the document's name for the type-t candidate of
// a full level file: "x.dat.gz" becomes "x_<t>.dat.gz".
func IntermediateName(full string, t Type) string {
	base, ok := strings.CutSuffix(full, ".dat.gz")
	if !ok {
		return fmt.Sprintf("%s_%d", full, t)
	}
	return fmt.Sprintf("%s_%d.dat.gz", base, t)
}

func copyFile(from, to string) error { return atomicfile.CopyFile(from, to) }

// candidateSink receives a candidate's compressed pieces in order, taking
// ownership of each slice.
type candidateSink interface {
	add(b []byte) error
}

// memorySink keeps the pieces as they come: no copying, no regrowing.
type memorySink struct {
	parts [][]byte
	n     int64
}

func (m *memorySink) add(b []byte) error {
	m.parts = append(m.parts, b)
	m.n += int64(len(b))
	return nil
}

// race compresses the candidates chunk by chunk on several goroutines.
// Every candidate has a lower bound on its final size (bytes compressed so
// far plus provable bounds for the rest, see plan.go); a candidate is
// dropped as soon as its bound exceeds the size of a finished candidate
// (ties going to the lower type), so the winner is exactly the one that
// compressing all of them would keep. Work goes first to the candidate
// expected to be smallest, so the likely winner finishes early.
type race struct {
	mu     sync.Mutex
	wake   *sync.Cond
	cands  []*cand
	best   *cand
	level  int
	exh    bool
	err    error
	active int // goroutines compressing a chunk
	bufCap int // the largest raw chunk of any candidate
}

type cand struct {
	plan      *plan
	sink      candidateSink
	next      int      // next chunk to hand out
	done      int      // chunks compressed
	doneSize  int64    // their compressed size
	doneRaw   int64    // their raw size
	lbLeft    int64    // lower bound of the chunks not compressed
	ubLeft    int64    // upper bound of the chunks not compressed
	pending   [][]byte // compressed chunks waiting for their predecessors
	crcs      []uint32
	lens      []int64
	written   int // chunks written to sink
	dead      bool
	stop      atomic.Bool // set with dead: chunks in flight stop early
	complete  bool
	finalSize int64
}

// bound is a lower bound of the candidate's final size.
func (c *cand) bound() int64 {
	if c.complete {
		return c.finalSize
	}
	return gzipFraming + c.doneSize + c.lbLeft
}

// upper is an upper bound of the candidate's final size: no chunk ends up
// larger than its stored form (see compressChunk).
func (c *cand) upper() int64 {
	if c.complete {
		return c.finalSize
	}
	return gzipFraming + c.doneSize + c.ubLeft
}

// estimate guesses the candidate's final size to order the work: the raw
// size before anything is known, then the compression ratio so far. A
// stored candidate's size is known exactly.
func (c *cand) estimate() float64 {
	if c.plan.stored() {
		return float64(c.bound())
	}
	if c.doneRaw == 0 {
		return float64(c.plan.raw)
	}
	return float64(c.doneSize) + float64(c.plan.raw-c.doneRaw)*float64(c.doneSize)/float64(c.doneRaw)
}

// beats reports whether a final size (size, t) wins over (size2, t2).
func beats(size int64, t Type, size2 int64, t2 Type) bool {
	return size < size2 || size == size2 && t < t2
}

func runRace(ctx context.Context, s *bitarray.Set, o WriteOptions, newSink func(Type) (candidateSink, error)) (Result, map[Type]candidateSink, error) {
	st := setStats(s)
	r := &race{level: o.Level, exh: o.Exhaustive}
	r.wake = sync.NewCond(&r.mu)
	var res Result
	res.Count = st.count
	sinks := map[Type]candidateSink{}
	for t := Type0; t <= Type3; t++ {
		if !o.Types.Has(t) || st.empty && t != Type0 {
			continue
		}
		p := newPlan(st, t, o.Dialect, o.Game, o.Symmetric, o.Stored)
		sink, err := newSink(t)
		if err != nil {
			return res, nil, err
		}
		sinks[t] = sink
		c := &cand{plan: p, sink: sink, crcs: make([]uint32, len(p.chunks)), lens: make([]int64, len(p.chunks)), pending: make([][]byte, len(p.chunks))}
		for _, ch := range p.chunks {
			c.lbLeft += ch.lb
			c.ubLeft += storedSize(ch.raw)
		}
		r.cands = append(r.cands, c)
	}
	if len(r.cands) == 0 {
		// The empty set is always type 0.
		p := newPlan(st, Type0, o.Dialect, o.Game, o.Symmetric, false)
		sink, err := newSink(Type0)
		if err != nil {
			return res, nil, err
		}
		sinks[Type0] = sink
		r.cands = []*cand{{plan: p, sink: sink, crcs: make([]uint32, 1), lens: make([]int64, 1), pending: make([][]byte, 1)}}
	}
	for _, c := range r.cands {
		for _, ch := range c.plan.chunks {
			r.bufCap = max(r.bufCap, int(min(ch.raw, chunkRaw+64<<10)))
		}
	}
	r.cull() // sizes known up front (stored types) may decide some already
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx)
		}()
	}
	wg.Wait()
	if r.err != nil {
		return res, nil, r.err
	}
	for _, c := range r.cands {
		t := c.plan.h.Type
		res.Candidates[t] = Candidate{Tried: true, Complete: c.complete, Size: c.bound(), RawDone: c.doneRaw}
	}
	res.Header = r.best.plan.h
	res.Bytes = r.best.finalSize
	return res, sinks, nil
}

// work hands out chunks until the race is decided.
func (r *race) work(ctx context.Context) {
	// Sized by the largest chunk, not the most a chunk can be: a small
	// file (a partial of a small tier, every tier of a small game) need not
	// clear a megabyte for each goroutine (encode appends if a chunk is
	// larger after all).
	buf := make([]byte, 0, r.bufCap)
	out := new(bytes.Buffer)
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if r.err == nil && ctx.Err() != nil {
			r.err = ctx.Err()
		}
		if r.err != nil {
			r.wake.Broadcast()
			return
		}
		c := r.pick()
		if c == nil {
			if r.active == 0 {
				r.wake.Broadcast()
				return
			}
			r.wake.Wait()
			continue
		}
		i := c.next
		c.next++
		c.plan.startChunk(i)
		r.active++
		r.mu.Unlock()

		buf = c.plan.encode(buf[:0], i)
		crc := chunkCRC(buf)
		out.Reset()
		last := i == len(c.plan.chunks)-1
		var err error
		if c.plan.stored() {
			storeChunk(out, buf, last)
		} else {
			err = compressChunk(out, buf, c.plan.level(r.level), last, &c.stop)
		}
		// Hand over the buffer itself when it is mostly full (data that
		// hardly compresses), or a right-sized copy.
		var comp []byte
		if out.Len() > out.Cap()/2 {
			comp = out.Bytes()
			out = bytes.NewBuffer(make([]byte, 0, out.Cap()))
		} else {
			comp = bytes.Clone(out.Bytes())
		}

		r.mu.Lock()
		r.active--
		if err == errAborted {
			continue // the candidate was dropped meanwhile
		}
		if err != nil {
			r.err = err
			continue
		}
		r.finishChunk(c, i, crc, int64(len(buf)), comp)
		r.wake.Broadcast()
	}
}

// pick returns the live candidate with chunks left that goes next, or nil
// when none has work. First every compressed candidate compresses one chunk
// (a probe of its compression ratio), then the one expected to be smallest
// goes first, so the likely winner finishes early and the others are cut
// off by its size. A stored candidate needs no probe: its size is known.
func (r *race) pick() *cand {
	var best *cand
	for _, c := range r.cands {
		if c.dead || c.next >= len(c.plan.chunks) {
			continue
		}
		if best == nil || c.before(best) {
			best = c
		}
	}
	return best
}

// before orders the work of two candidates.
func (c *cand) before(o *cand) bool {
	if cp, op := c.probing(), o.probing(); cp != op {
		return cp
	}
	ce, oe := c.estimate(), o.estimate()
	return ce < oe || ce == oe && c.plan.h.Type < o.plan.h.Type
}

// probing reports whether c still has to compress its probe chunk.
func (c *cand) probing() bool { return c.next == 0 && !c.plan.stored() }

// finishChunk records a compressed chunk, writes what is in order, and
// drops the candidates that can no longer win.
func (r *race) finishChunk(c *cand, i int, crc uint32, rawLen int64, comp []byte) {
	chunk := c.plan.chunks[i]
	c.done++
	c.doneSize += int64(len(comp))
	c.doneRaw += chunk.raw
	c.lbLeft -= chunk.lb
	c.ubLeft -= storedSize(chunk.raw)
	c.crcs[i], c.lens[i] = crc, rawLen
	if c.dead {
		return
	}
	c.pending[i] = comp
	for c.written < len(c.pending) && c.pending[c.written] != nil {
		if c.written == 0 {
			r.write(c, gzipHeader)
		}
		r.write(c, c.pending[c.written])
		c.pending[c.written] = nil
		c.written++
	}
	if c.done == len(c.plan.chunks) {
		var crcAll uint32
		var total int64
		for k := range c.crcs {
			crcAll = crc32Combine(crcAll, c.crcs[k], uint64(c.lens[k]))
			total += c.lens[k]
		}
		r.write(c, gzipTrailer(crcAll, uint64(total)))
		c.complete = true
		c.finalSize = gzipFraming + c.doneSize
		if r.best == nil || beats(c.finalSize, c.plan.h.Type, r.best.finalSize, r.best.plan.h.Type) {
			r.best = c
			if f, ok := c.sink.(interface{ finished() }); ok && !r.exh {
				f.finished()
			}
		}
	}
	r.cull()
}

// cull drops every candidate that can no longer win: one whose lower bound
// exceeds another's upper bound, or equals it with a higher type. The
// smallest candidate is never dropped (its bound is at most its size, which
// is at most any other's size, hence upper bound), so the race ends with
// it complete and everything else dropped.
func (r *race) cull() {
	if r.exh {
		return
	}
	for _, c := range r.cands {
		if c.dead {
			continue
		}
		for _, o := range r.cands {
			if o != c && !beats(c.bound(), c.plan.h.Type, o.upper(), o.plan.h.Type) {
				c.dead = true
				c.stop.Store(true)
				c.pending = nil
				break
			}
		}
	}
}

func (r *race) write(c *cand, b []byte) {
	if err := c.sink.add(b); err != nil && r.err == nil {
		r.err = err
	}
}
