package oracle

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"os"
	"runtime/debug"
	"sync"

	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// chunkSet is a tier's level set for an Oracle with a shared cache
// (Options.Cache), which must not hold a tier's set whole: the
// largest tier of Connect Four 6x5 spans 1.3 billion positions, a 205 MB
// ranked bitmap, near a server's whole cache. A level file is one gzip
// stream, without random access, so on the tier's first query it is
// decoded once into a scratch file of fixed chunks of csBits positions
// (a 4 KiB bitmap each; a chunk without members is a hole, never read).
// A lookup reads the one piece of a chunk it needs (csPieceBytes, a
// quarter) through the cache, which adds the piece's counts of members
// before each 8 words. Only the counts of members before each chunk, and
// within it before each piece, stay in memory: 16 bytes a 32768
// positions, counted against the cache (Reserve).
//
// Pieces, not whole chunks, because a server's lookups are scattered one
// to a piece: a miss then reads and counts a quarter of the bytes, and
// the cache holds four times the pieces (so more of them hit).
type chunkSet struct {
	f      *os.File
	n      uint64   // positions of the tier, from 0
	before []uint64 // members before chunk i, for i = 0 .. chunks
	// sub holds the members of chunk i before its piece j, for j >= 1,
	// at (csPieces-1)*i + j-1 (piece 0 has none before it).
	sub   []uint16
	cache *valuedb.BlockCache
	owner uint64
}

const (
	csBits  = 1 << 15
	csWords = csBits / 64
	csBytes = csBits / 8
	// A chunk is read in csPieces pieces of csPieceWords words.
	csPieces     = 4
	csPieceWords = csWords / csPieces
	csPieceBits  = csBits / csPieces
	csPieceBytes = csBytes / csPieces
	// A cached piece is its words, then a uint16 count of the members of
	// the piece before each 8 words.
	csSubs   = csPieceWords / 8
	csCached = csPieceBytes + 2*csSubs
)

// convertMu lets one level file at a time be converted to chunks: the
// fast way holds the tier's set whole for a moment, counted against the
// cache, and two at once could take more than it has.
var convertMu sync.Mutex

// openChunkSet writes the chunk file of level file path (tier t of g) in
// scratch, and returns its set.
//
// The level file is read whole into a bitmap (the fast way: the reader
// copies a type-3 file's words) when the bitmap takes at most three
// quarters of the cache's budget (Connect Four 6x5's largest tier, 156
// MiB, within the default 256 MiB); the cache gives up that room while
// the chunks are written. Otherwise its members are streamed run by run
// into one chunk at a time, in constant memory and some five times
// slower (50 ns a member).
func openChunkSet(g tiergame.Game, t tiergame.Tier, path, scratch string, c *valuedb.BlockCache, stream bool) (*chunkSet, error) {
	n := g.TierSize(t)
	f, err := os.CreateTemp(scratch, fmt.Sprintf("tier%d-*.chunks", t))
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // the file lives as long as it is open
	chunks := (n + csBits - 1) / csBits
	s := &chunkSet{f: f, n: n, before: make([]uint64, chunks+1), sub: make([]uint16, (csPieces-1)*chunks), cache: c, owner: c.NewDenseOwner(chunks * csPieces)}
	w := chunkWriter{s: s, buf: make([]byte, csBytes)}
	if bytes := 8 * ((n + 63) / 64); bytes <= c.Budget()/4*3 && !stream {
		err = w.fromSet(g, t, path, bytes)
	} else {
		err = w.fromRuns(g, t, path)
	}
	if err == nil {
		err = f.Truncate(int64(chunks) * csBytes)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	c.Reserve(s.memBytes())
	return s, nil
}

// chunkWriter writes a chunkSet's chunks in ascending order.
type chunkWriter struct {
	s     *chunkSet
	buf   []byte
	next  uint64 // the first chunk not written
	total uint64 // members so far
}

// emit writes chunk ch (after every chunk before it) from its words, at
// most csWords; chunks skipped have no member.
func (w *chunkWriter) emit(ch uint64, words []uint64) error {
	for ; w.next <= ch; w.next++ {
		w.s.before[w.next] = w.total
	}
	var count uint64
	sub := w.s.sub[(csPieces-1)*ch:]
	for i, x := range words {
		if i%csPieceWords == 0 && i > 0 {
			sub[i/csPieceWords-1] = uint16(count)
		}
		count += uint64(bits.OnesCount64(x))
	}
	for j := (len(words) + csPieceWords - 1) / csPieceWords; j < csPieces; j++ {
		if j > 0 {
			sub[j-1] = uint16(count) // pieces past a short last chunk's words
		}
	}
	if count == 0 {
		return nil // a hole, never read
	}
	clear(w.buf)
	for i, x := range words {
		binary.LittleEndian.PutUint64(w.buf[8*i:], x)
	}
	w.total += count
	_, err := w.s.f.WriteAt(w.buf, int64(ch)*csBytes)
	return err
}

// finish records the counts of the chunks after the last.
func (w *chunkWriter) finish() {
	for ; w.next < uint64(len(w.s.before)); w.next++ {
		w.s.before[w.next] = w.total
	}
}

// fromSet loads the level file whole (bytes of bitmap, given up by the
// cache meanwhile) and writes its chunks.
func (w *chunkWriter) fromSet(g tiergame.Game, t tiergame.Tier, path string, bytes uint64) error {
	convertMu.Lock()
	defer convertMu.Unlock()
	c := w.s.cache
	c.Reserve(int64(bytes))
	defer c.Reserve(-int64(bytes))
	if bytes >= 16<<20 {
		// Give a large set's memory back to the system at once, rather
		// than at the collector's pace: a server's memory is its cache's
		// budget, and the next tier's set comes right after.
		defer debug.FreeOSMemory()
	}
	set, err := reach.LoadLevel(path, g, t)
	if err != nil {
		return err
	}
	ws := set.Words()
	for ch := uint64(0); ch*csWords < uint64(len(ws)); ch++ {
		if err := w.emit(ch, ws[ch*csWords:min(uint64(len(ws)), (ch+1)*csWords)]); err != nil {
			return err
		}
	}
	w.finish()
	return nil
}

// fromRuns streams the level file's members into one chunk at a time.
func (w *chunkWriter) fromRuns(g tiergame.Game, t tiergame.Tier, path string) error {
	n := w.s.n
	lf, err := levelfile.Open(path, &levelfile.Options{MaxSpan: n + 1})
	if err != nil {
		return err
	}
	defer lf.Close()
	words := make([]uint64, csWords)
	cur, dirty := uint64(0), false
	for r := range lf.Runs() {
		if r.Hi >= n || r.Lo > r.Hi {
			return fmt.Errorf("%s: positions [%d, %d] outside tier %s", path, r.Lo, r.Hi, g.TierName(t))
		}
		for lo := r.Lo; lo <= r.Hi; {
			ch := lo / csBits
			hi := min(r.Hi, (ch+1)*csBits-1)
			if ch != cur && dirty {
				if err := w.emit(cur, words); err != nil {
					return err
				}
				clear(words)
				dirty = false
			}
			cur = ch
			setBits(words, lo-ch*csBits, hi-ch*csBits)
			dirty = true
			lo = hi + 1
		}
	}
	if err := lf.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if dirty {
		if err := w.emit(cur, words); err != nil {
			return err
		}
	}
	w.finish()
	return nil
}

// setBits sets bits [lo, hi] of words.
func setBits(words []uint64, lo, hi uint64) {
	for lo <= hi {
		w := lo / 64
		end := min(hi, w*64+63)
		width := end - lo + 1
		var mask uint64 = ^uint64(0)
		if width < 64 {
			mask = (1<<width - 1) << (lo % 64)
		}
		words[w] |= mask
		lo = end + 1
	}
}

func (s *chunkSet) memBytes() int64 { return 8*int64(len(s.before)) + 2*int64(len(s.sub)) }

// pieceSpan returns the members of chunk ch before its piece pc, and in it.
func (s *chunkSet) pieceSpan(ch uint64, pc int) (before, in uint64) {
	sub := s.sub[(csPieces-1)*ch : (csPieces-1)*(ch+1)]
	lo, hi := uint64(0), s.before[ch+1]-s.before[ch]
	if pc > 0 {
		lo = uint64(sub[pc-1])
	}
	if pc < csPieces-1 {
		hi = uint64(sub[pc])
	}
	return lo, hi - lo
}

// Total is the number of members.
func (s *chunkSet) Total() uint64 { return s.before[len(s.before)-1] }

// Lookup returns the rank of p and whether p is a member.
func (s *chunkSet) Lookup(p uint64) (uint64, bool, error) {
	if p >= s.n {
		return 0, false, nil
	}
	ch := p / csBits
	if s.before[ch+1] == s.before[ch] {
		return 0, false, nil // no member in the chunk: never read
	}
	pc := int(p % csBits / csPieceBits)
	lo, in := s.pieceSpan(ch, pc)
	if in == 0 {
		return 0, false, nil // no member in the piece: never read
	}
	i := p % csPieceBits
	var r uint64
	var ok bool
	k := valuedb.BlockKey{Owner: s.owner, Block: ch*csPieces + uint64(pc)}
	if !s.cache.Read(k, func(b []byte) { r, ok = rankInPiece(b, i) }) {
		// A miss reads into a pooled buffer, which the cache copies into
		// one of its own (reused once evicted): no garbage.
		buf := pieceBufs.Get().(*[csCached]byte)
		defer pieceBufs.Put(buf)
		if err := s.readPiece(buf, ch, pc); err != nil {
			return 0, false, err
		}
		s.cache.AddCopy(k, buf[:])
		r, ok = rankInPiece(buf[:], i)
	}
	if !ok {
		return 0, false, nil
	}
	return s.before[ch] + lo + r, true, nil
}

// rankInPiece returns the members of cached piece b before its position
// i, and whether i is one.
func rankInPiece(b []byte, i uint64) (uint64, bool) {
	w := int(i / 64)
	word := binary.LittleEndian.Uint64(b[8*w:])
	if word&(1<<(i%64)) == 0 {
		return 0, false
	}
	r := uint64(binary.LittleEndian.Uint16(b[csPieceBytes+2*(w/8):]))
	for k := w &^ 7; k < w; k++ {
		r += uint64(bits.OnesCount64(binary.LittleEndian.Uint64(b[8*k:])))
	}
	return r + uint64(bits.OnesCount64(word&(1<<(i%64)-1))), true
}

// pieceBufs are the buffers a miss reads a piece into.
var pieceBufs = sync.Pool{New: func() any { return new([csCached]byte) }}

// readPiece reads piece pc of chunk ch into b and adds its counts.
func (s *chunkSet) readPiece(b *[csCached]byte, ch uint64, pc int) error {
	if _, err := s.f.ReadAt(b[:csPieceBytes], int64(ch)*csBytes+int64(pc)*csPieceBytes); err != nil {
		return fmt.Errorf("tier set chunk %d piece %d: %w", ch, pc, err)
	}
	s.cache.CountRead(csPieceBytes)
	var sum uint16
	for g := range csSubs {
		binary.LittleEndian.PutUint16(b[csPieceBytes+2*g:], sum)
		for k := 8 * g; k < 8*g+8; k++ {
			sum += uint16(bits.OnesCount64(binary.LittleEndian.Uint64(b[8*k:])))
		}
	}
	return nil
}

// Close drops the set's chunks and closes (so removes) its file.
func (s *chunkSet) Close() error {
	s.cache.Drop(s.owner)
	s.cache.Reserve(-s.memBytes())
	return s.f.Close()
}

// Prefetch reads the set's pieces that have members into the cache, in
// order, while more() says so.
func (s *chunkSet) Prefetch(more func() bool) error {
	buf := new([csCached]byte)
	for ch := uint64(0); ch+1 < uint64(len(s.before)) && more(); ch++ {
		if s.before[ch+1] == s.before[ch] {
			continue
		}
		for pc := range csPieces {
			if _, in := s.pieceSpan(ch, pc); in == 0 {
				continue
			}
			k := valuedb.BlockKey{Owner: s.owner, Block: ch*csPieces + uint64(pc)}
			if s.cache.Read(k, func([]byte) {}) {
				continue
			}
			if err := s.readPiece(buf, ch, pc); err != nil {
				return err
			}
			s.cache.AddCopy(k, buf[:])
		}
	}
	return nil
}
