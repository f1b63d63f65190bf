package levelfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"math/bits"
	"os"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/tiersolve/tiersolve/bitarray"
)

// Default limits of Options.
const (
	// DefaultMaxSpan is the largest max−min+1 loaded into memory by
	// ReadSet: 2^36 positions, an 8 GiB bit array.
	DefaultMaxSpan = 1 << 36
	// DefaultMaxDecompressed bounds the decompressed size of one file.
	DefaultMaxDecompressed = 1 << 40
)

// Options bound what reading a file may cost. The zero value means the
// defaults.
type Options struct {
	// MaxSpan is the largest max−min+1 that ReadSet will hold in memory.
	MaxSpan uint64
	// MaxDecompressed is the largest number of decompressed bytes read
	// from one file.
	MaxDecompressed int64
}

func (o *Options) maxSpan() uint64 {
	if o == nil || o.MaxSpan == 0 {
		return DefaultMaxSpan
	}
	return o.MaxSpan
}

func (o *Options) maxDecompressed() int64 {
	if o == nil || o.MaxDecompressed == 0 {
		return DefaultMaxDecompressed
	}
	return o.MaxDecompressed
}

// Reader decodes one level file from a gzip stream. NewReader reads the
// header; then exactly one of All, Runs, ReadInto, ReadSet or Count consumes
// the data and checks the whole file (data, trailer, gzip checksum), or
// ReadWindow consumes it up to the window's end.
type Reader struct {
	Header Header

	opts     *Options
	zr       *gzip.Reader
	count    *countingReader
	br       *bufio.Reader
	consumed bool
	err      error
}

// NewReader reads the gzip and level-file headers from r.
func NewReader(r io.Reader, opts *Options) (*Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, gzipError(err)
	}
	cr := &countingReader{r: zr, limit: opts.maxDecompressed()}
	br := bufio.NewReaderSize(cr, 256<<10)
	h, err := readHeader(br)
	if err != nil {
		zr.Close()
		return nil, gzipError(err)
	}
	return &Reader{Header: h, opts: opts, zr: zr, count: cr, br: br}, nil
}

// Close releases the decompressor; it does not close the underlying reader.
func (r *Reader) Close() error { return r.zr.Close() }

// DecompressedBytes is the number of decompressed bytes read so far.
func (r *Reader) DecompressedBytes() int64 { return r.count.n }

// Err returns the error that stopped All or Runs, if any.
func (r *Reader) Err() error { return r.err }

// All iterates over the members in ascending order. After the loop, Err
// reports whether the file was valid to its end.
func (r *Reader) All() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		r.consume(&funcSink{yield: yield})
	}
}

// Run is a range [Lo, Hi] of consecutive members.
type Run struct{ Lo, Hi uint64 }

// Runs iterates over the members as ascending runs of consecutive positions
// (not necessarily maximal). After the loop, Err reports whether the file was
// valid to its end.
func (r *Reader) Runs() iter.Seq[Run] {
	return func(yield func(Run) bool) {
		r.consume(&runSink{yield: yield})
	}
}

// Count decodes the file and returns its number of members. A valid file
// holding all 2^64 positions has a count a uint64 cannot hold: Count
// returns 0 and ErrCountOverflow for it.
func (r *Reader) Count() (uint64, error) {
	var c countSink
	if err := r.consume(&c); err != nil {
		return 0, err
	}
	if c.overflow {
		return 0, ErrCountOverflow
	}
	return c.n, nil
}

// ErrCountOverflow is returned by Reader.Count for a valid file that holds
// all 2^64 positions (a type-2 file over [0, 2^64−1] listing no
// unreachable position). Validate reports such a file in Info.AllPositions.
var ErrCountOverflow = errors.New("levelfile: the file holds all 2^64 positions, a count beyond uint64")

// ReadInto adds the file's members to s, whose range must include [Min,
// Max]. Merging partial level files is ReadInto on one set per tier.
func (r *Reader) ReadInto(s *bitarray.Set) error {
	h := r.Header
	if !h.Empty && (h.Min < s.Base() || h.Max-s.Base() >= s.Len()) {
		return fmt.Errorf("levelfile: members [%d, %d] do not fit the set's range [%d, +%d)", h.Min, h.Max, s.Base(), s.Len())
	}
	return r.consume(setSink{s: s})
}

// ReadIntoShared is ReadInto for a set that other goroutines fill at the
// same time (with ReadIntoShared or AddAtomic): it updates words atomically.
func (r *Reader) ReadIntoShared(s *bitarray.Set) error {
	h := r.Header
	if !h.Empty && (h.Min < s.Base() || h.Max-s.Base() >= s.Len()) {
		return fmt.Errorf("levelfile: members [%d, %d] do not fit the set's range [%d, +%d)", h.Min, h.Max, s.Base(), s.Len())
	}
	return r.consume(setSink{s: s, shared: true})
}

// ReadWindow adds to s the file's members that fall in s's range and
// ignores the others: a window of a level file, as a part of a loopy tier
// solved in parts reads its own hashes. It stops decoding at the first
// member past s's range, so it checks the file only that far (a file
// read whole, or whose bytes are verified otherwise, is checked whole).
// A set whose range ends at 2^64 reads nothing.
func (r *Reader) ReadWindow(s *bitarray.Set) error {
	return r.consume(windowSink{s: s, lo: s.Base(), hi: s.End()})
}

// ReadSet decodes the file into a set over [Min, Max] (an empty set of
// length 0 for the empty file). It fails with ErrTooLarge when max−min+1
// exceeds Options.MaxSpan. Memory grows with the data actually decoded, so a
// short file with a huge header cannot force a huge allocation.
func (r *Reader) ReadSet() (*bitarray.Set, error) {
	h := r.Header
	if h.Empty {
		return bitarray.New(0, 0), r.consume(&countSink{})
	}
	span := h.Max - h.Min + 1
	if span == 0 || span > r.opts.maxSpan() {
		return nil, fmt.Errorf("%w: span %d..%d needs %d positions, limit %d (Options.MaxSpan)",
			ErrTooLarge, h.Min, h.Max, h.Max-h.Min+1, r.opts.maxSpan())
	}
	g := &growSink{base: h.Min, span: span}
	if err := r.consume(g); err != nil {
		return nil, err
	}
	return g.final(), nil
}

// consume runs the decoder of the file's type into k, once.
func (r *Reader) consume(k sink) error {
	if r.consumed {
		r.err = errors.New("levelfile: data already read")
		return r.err
	}
	r.consumed = true
	src := &dataSource{r: r.br, sep: byte(r.Header.Dialect), buf: make([]byte, 256<<10)}
	var err error
	switch r.Header.Type {
	case Type0:
		err = decodeType0(r.Header, src, k)
	case Type1, Type2:
		err = decodePacked(r.Header, src, k)
	case Type3:
		err = decodeType3(r.Header, src, k)
	}
	if errors.Is(err, errStop) {
		err = nil
	}
	r.err = gzipError(err)
	return r.err
}

// gzipError marks decompression failures (bad gzip header, corrupt deflate
// data, checksum mismatch, truncation) as ErrFormat, keeping their text.
func gzipError(err error) error {
	var corrupt flate.CorruptInputError
	var internal flate.InternalError // what klauspost reports for some corrupt streams
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader),
		errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &corrupt), errors.As(err, &internal):
		return fmt.Errorf("%w: gzip: %v", ErrFormat, err)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: empty or truncated gzip stream", ErrFormat)
	}
	return err
}

// countingReader counts decompressed bytes and enforces the limit.
type countingReader struct {
	r     io.Reader
	n     int64
	limit int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		return n, fmt.Errorf("%w: more than %d decompressed bytes (Options.MaxDecompressed)", ErrTooLarge, c.limit)
	}
	return n, err
}

// errStop is returned by a sink whose consumer stopped early.
var errStop = errors.New("stopped")

// dataSource delivers the data region of a file: everything between the
// header and the trailer. The trailer (SEP "\n" "1", or SEP "1") is found at
// the end of the stream, so the last 3 bytes are always held back until EOF.
type dataSource struct {
	r      io.Reader
	sep    byte
	buf    []byte
	lo, hi int
	eof    bool
	done   bool
}

// chunk returns the next piece of the data region. At its end it checks the
// trailer and returns io.EOF.
func (d *dataSource) chunk() ([]byte, error) {
	const hold = 3
	for !d.done {
		if !d.eof && d.hi-d.lo > hold {
			out := d.buf[d.lo : d.hi-hold]
			d.lo = d.hi - hold
			return out, nil
		}
		if d.eof {
			return d.finish()
		}
		n := copy(d.buf, d.buf[d.lo:d.hi])
		d.lo, d.hi = 0, n
		m, err := io.ReadAtLeast(d.r, d.buf[d.hi:], 1)
		d.hi += m
		if err == io.EOF {
			d.eof = true
		} else if err != nil {
			return nil, err
		}
	}
	return nil, io.EOF
}

// finish splits the bytes left at EOF into data and trailer.
func (d *dataSource) finish() ([]byte, error) {
	d.done = true
	rest := d.buf[d.lo:d.hi]
	n := len(rest)
	var tlen int
	switch {
	case n >= 3 && rest[n-3] == d.sep && rest[n-2] == '\n' && rest[n-1] == '1':
		tlen = 3
	case n >= 2 && rest[n-2] == d.sep && rest[n-1] == '1':
		tlen = 2
	default:
		return nil, formatError("missing end check bit: file does not end in SEP \"\\n1\" (truncated?)")
	}
	if data := rest[:n-tlen]; len(data) > 0 {
		return data, nil
	}
	return nil, io.EOF
}

// sink receives decoded members.
type sink interface {
	points(ps []uint64) error          // ascending members
	run(lo, hi uint64) error           // members lo..hi
	bitmap(pos uint64, b []byte) error // BITARRAY bytes for positions from pos
}

// decodeType0 parses ASCII decimals, each followed by one space.
func decodeType0(h Header, src *dataSource, k sink) error {
	var (
		batch   = make([]uint64, 0, 1024)
		v       uint64
		digits  int
		prev    uint64
		n       uint64
		offset  int64
		started bool
	)
	for {
		b, err := src.chunk()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		for i, c := range b {
			switch {
			case c >= '0' && c <= '9':
				if digits == 1 && v == 0 {
					return formatError("type 0: number with a leading zero at data byte %d", offset+int64(i))
				}
				d := uint64(c - '0')
				if v > (1<<64-1-d)/10 {
					return formatError("type 0: number at data byte %d exceeds 2^64-1", offset+int64(i))
				}
				v = v*10 + d
				digits++
			case c == ' ' && digits > 0:
				if n == 0 && v != h.Min {
					return formatError("type 0: first position %d is not min %d", v, h.Min)
				}
				if started && v <= prev {
					return formatError("type 0: position %d after %d: not ascending", v, prev)
				}
				if v > h.Max {
					return formatError("type 0: position %d above max %d", v, h.Max)
				}
				batch = append(batch, v)
				if len(batch) == cap(batch) {
					if err := k.points(batch); err != nil {
						return err
					}
					batch = batch[:0]
				}
				prev, started = v, true
				n++
				v, digits = 0, 0
			default:
				return formatError("type 0: unexpected byte %#02x at data byte %d", c, offset+int64(i))
			}
		}
		offset += int64(len(b))
	}
	if digits > 0 {
		return formatError("type 0: last number not followed by a space")
	}
	if n == 0 && !h.Empty {
		return formatError("type 0: no positions but min/max %d %d (an empty set is \"0 0\" with no data)", h.Min, h.Max)
	}
	if n > 0 && prev != h.Max {
		return formatError("type 0: last position %d is not max %d", prev, h.Max)
	}
	if len(batch) > 0 {
		return k.points(batch)
	}
	return nil
}

// bitReader reads MSB-first bit fields from a dataSource. The unread bits
// are the top nacc bits of acc; below them acc may hold copies of the bits
// that follow (a refill loads whole words), which the next refill ORs in
// again unchanged.
type bitReader struct {
	src  *dataSource
	cur  []byte
	acc  uint64
	nacc uint
	eof  bool
}

// refill loads bytes until more than 56 bits are buffered or the data ends.
func (br *bitReader) refill() error {
	for br.nacc <= 56 {
		if len(br.cur) >= 8 {
			// A whole word at once: as many bytes as fit.
			br.acc |= binary.BigEndian.Uint64(br.cur) >> br.nacc
			n := (64 - br.nacc) >> 3
			br.cur = br.cur[n:]
			br.nacc += n * 8
			return nil
		}
		if len(br.cur) == 0 {
			if br.eof {
				return nil
			}
			b, err := br.src.chunk()
			if err == io.EOF {
				br.eof = true
				return nil
			}
			if err != nil {
				return err
			}
			br.cur = b
			continue
		}
		br.acc = br.acc&^(^uint64(0)>>br.nacc) | uint64(br.cur[0])<<(56-br.nacc)
		br.cur = br.cur[1:]
		br.nacc += 8
	}
	return nil
}

// take returns the next n bits (1 <= n <= 56) and whether they were all
// there.
func (br *bitReader) take(n uint) (uint64, bool, error) {
	if br.nacc < n {
		if err := br.refill(); err != nil {
			return 0, false, err
		}
		if br.nacc < n {
			return 0, false, nil
		}
	}
	v := br.acc >> (64 - n)
	br.acc <<= n
	br.nacc -= n
	return v, true, nil
}

// field reads one width-bit field (width <= 64).
func (br *bitReader) field(width uint) (uint64, bool, error) {
	if width <= 56 {
		return br.take(width)
	}
	hi, ok, err := br.take(width - 32)
	if !ok || err != nil {
		return hi, false, err
	}
	lo, ok, err := br.take(32)
	if !ok && err == nil {
		// At least width-32 > 8 bits were left: more than padding.
		err = formatError("data ends inside a %d-bit field", width)
	}
	return hi<<32 | lo, ok, err
}

// pending returns the buffered unread bits, right-aligned.
func (br *bitReader) pending() uint64 {
	if br.nacc == 0 {
		return 0
	}
	return br.acc >> (64 - br.nacc)
}

// zeroTail reports whether the remaining bits are all zero and at most
// limit in number, reading no further than needed to tell.
func (br *bitReader) zeroTail(limit uint) (bool, error) {
	if br.nacc > limit || br.pending() != 0 {
		return false, nil
	}
	n := br.nacc
	for {
		for _, c := range br.cur {
			if n += 8; c != 0 || n > limit {
				return false, nil
			}
		}
		br.cur = nil
		if br.eof {
			return true, nil
		}
		b, err := br.src.chunk()
		if err == io.EOF {
			br.eof = true
			return true, nil
		}
		if err != nil {
			return false, err
		}
		br.cur = b
	}
}

// decodePacked decodes types 1 and 2: bitsPerPosition-bit offsets, strictly
// ascending, ended by the first field that is not (which must be zero
// padding) or by running out of bits.
func decodePacked(h Header, src *dataSource, k sink) error {
	width := uint(h.BitsPerPosition())
	last := h.Max - h.Min // largest offset
	br := &bitReader{src: src}
	batch := make([]uint64, 0, 1024)
	var n uint64
	var prev uint64   // type 1: previous field; type 2: previous unreachable offset
	next := uint64(0) // type 2: first offset not yet emitted
	// Type 1's first field must be 0 (min is reachable); every other
	// field of both types must exceed the one before.
	strict := h.Type == Type2
	for {
		var v uint64
		if br.nacc < width && len(br.cur) >= 8 { // refill by a word, inline
			br.acc |= binary.BigEndian.Uint64(br.cur) >> br.nacc
			k := (64 - br.nacc) >> 3
			br.cur = br.cur[k:]
			br.nacc += k * 8
		}
		if br.nacc >= width { // the common case, inline
			v = br.acc >> (64 - width)
			br.acc <<= width
			br.nacc -= width
		} else {
			var ok bool
			var err error
			if v, ok, err = br.field(width); err != nil {
				return err
			}
			if !ok {
				// Fewer than width bits left: they are padding.
				if br.nacc >= 8 || br.pending() != 0 {
					return formatError("type %d: padding after field %d is not zero or longer than a byte", h.Type, n)
				}
				break
			}
		}
		if strict && v <= prev || !strict && v != 0 {
			// The end of the list: this field and all that follows must be
			// zero, and together shorter than a byte.
			if v != 0 {
				return formatError("type %d: field %d (%d) is not ascending and not zero padding", h.Type, n, v)
			}
			// Padding is shorter than a byte: at most 7−width more bits.
			ok, err := br.zeroTail(7 - min(width, 7))
			if err != nil {
				return err
			}
			if !ok || width >= 8 {
				return formatError("type %d: after field %d: non-zero bits or more than byte padding", h.Type, n)
			}
			break
		}
		strict = true
		if v > last {
			return formatError("type %d: offset %d above max−min %d", h.Type, v, last)
		}
		if h.Type == Type1 {
			batch = append(batch, h.Min+v)
			if len(batch) == cap(batch) {
				if err := k.points(batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		} else {
			if v == last {
				return formatError("type 2: max %d listed as unreachable", h.Max)
			}
			if err := k.run(h.Min+next, h.Min+v-1); err != nil {
				return err
			}
			next = v + 1
		}
		prev = v
		n++
	}
	if h.Type == Type1 {
		if n == 0 {
			return formatError("type 1: no positions")
		}
		if prev != last {
			return formatError("type 1: last offset %d is not max−min %d", prev, last)
		}
		if len(batch) > 0 {
			return k.points(batch)
		}
		return nil
	}
	return k.run(h.Min+next, h.Max)
}

// decodeType3 decodes one bit per offset.
func decodeType3(h Header, src *dataSource, k sink) error {
	want := (h.Max-h.Min)/8 + 1 // bytes, without overflow at span 2^64
	var got uint64
	var lastByte byte
	for {
		b, err := src.chunk()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if got == 0 && len(b) > 0 && b[0]&0x80 == 0 {
			return formatError("type 3: min %d is not marked reachable", h.Min)
		}
		if uint64(len(b)) > want-got {
			return formatError("type 3: data longer than the %d bytes of %d..%d", want, h.Min, h.Max)
		}
		lastByte = b[len(b)-1]
		// The final byte's padding is checked below; it never carries
		// members beyond max, so mask it before handing it on.
		if got+uint64(len(b)) == want {
			pad := padMask(h)
			if lastByte&pad != 0 {
				return formatError("type 3: padding bits after max are not zero")
			}
		}
		if err := k.bitmap(h.Min+got*8, b); err != nil {
			return err
		}
		got += uint64(len(b))
	}
	if got != want {
		return formatError("type 3: %d data bytes, want %d for %d..%d", got, want, h.Min, h.Max)
	}
	if lastByte&(0x80>>((h.Max-h.Min)%8)) == 0 {
		return formatError("type 3: max %d is not marked reachable", h.Max)
	}
	return nil
}

// padMask is the mask of the padding bits in the last type-3 byte.
func padMask(h Header) byte {
	used := (h.Max-h.Min)%8 + 1
	return byte(0xFF >> used)
}

// setSink adds members to a set (ReadInto, ReadIntoShared).
type setSink struct {
	s      *bitarray.Set
	shared bool // other goroutines write the set too: use atomic updates
}

func (k setSink) points(ps []uint64) error {
	if k.shared {
		for _, p := range ps {
			k.s.AddAtomic(p)
		}
		return nil
	}
	k.s.AddSorted(ps)
	return nil
}

func (k setSink) run(lo, hi uint64) error {
	if k.shared {
		k.s.AddRangeAtomic(lo, hi)
	} else {
		k.s.AddRange(lo, hi)
	}
	return nil
}

func (k setSink) bitmap(pos uint64, b []byte) error {
	if k.shared {
		k.s.OrMSBAtomic(pos, b)
	} else {
		k.s.OrMSB(pos, b)
	}
	return nil
}

// windowSink adds the members in [lo, hi) to a set over that range
// (ReadWindow), and stops the decoding past hi.
type windowSink struct {
	s      *bitarray.Set
	lo, hi uint64
}

func (k windowSink) points(ps []uint64) error {
	for _, p := range ps {
		switch {
		case p >= k.hi:
			return errStop
		case p >= k.lo:
			k.s.Add(p)
		}
	}
	return nil
}

func (k windowSink) run(lo, hi uint64) error {
	if lo >= k.hi {
		return errStop
	}
	if hi >= k.lo {
		k.s.AddRange(max(lo, k.lo), min(hi, k.hi-1))
	}
	return nil
}

func (k windowSink) bitmap(pos uint64, b []byte) error {
	if pos >= k.hi {
		return errStop
	}
	if end := pos + uint64(len(b))*8; end > k.lo || end < pos {
		k.s.OrMSB(pos, b) // adds the bits in range only
	}
	return nil
}

// growSink builds a set over [base, base+span) whose storage grows with the
// highest member seen (ReadSet): a file with a huge header and little data
// allocates little. Storage doubles while it is small, then goes to the
// whole span at once: doubling a large array would leave its predecessors
// as garbage that the next allocation may reuse, and reused memory is
// zeroed, touching every page. A fresh allocation's pages are only touched
// where members are written (zero words are never written or copied), so
// a sparse file's resident memory follows its members, not its span.
type growSink struct {
	base, span uint64
	words      []uint64
	view       *bitarray.Set
}

// growDoublingWords is the storage (8 MiB) up to which a growSink doubles.
const growDoublingWords = 1 << 20

// ensure makes positions up to p addressable.
func (g *growSink) ensure(p uint64) {
	need := (p-g.base)/64 + 1
	if need <= uint64(len(g.words)) {
		return
	}
	full := (g.span + 63) / 64
	n := max(need, 2*uint64(len(g.words)), 1024)
	if n > growDoublingWords {
		n = full
	}
	g.grow(min(n, full))
	g.view = bitarray.FromWords(g.base, min(uint64(len(g.words))*64, g.span), g.words)
}

// grow moves the words to new storage of n words, copying only the words
// that are not zero.
func (g *growSink) grow(n uint64) {
	w := make([]uint64, n)
	for i, x := range g.words {
		if x != 0 {
			w[i] = x
		}
	}
	g.words = w
}

func (g *growSink) points(ps []uint64) error {
	g.ensure(ps[len(ps)-1])
	for _, p := range ps {
		g.view.Add(p)
	}
	return nil
}

func (g *growSink) run(lo, hi uint64) error {
	if lo > hi {
		return nil
	}
	g.ensure(hi)
	g.view.AddRange(lo, hi)
	return nil
}

func (g *growSink) bitmap(pos uint64, b []byte) error {
	g.ensure(min(pos+uint64(len(b))*8-1, g.base+g.span-1))
	g.view.OrMSB(pos, b)
	return nil
}

func (g *growSink) final() *bitarray.Set {
	if full := (g.span + 63) / 64; uint64(len(g.words)) < full {
		g.grow(full)
	}
	return bitarray.FromWords(g.base, g.span, g.words)
}

// countSink counts members. The count overflows only for all 2^64
// positions, one run [0, 2^64−1]: every other count fits.
type countSink struct {
	n        uint64
	overflow bool
}

func (c *countSink) points(ps []uint64) error { c.n += uint64(len(ps)); return nil }
func (c *countSink) run(lo, hi uint64) error {
	if lo > hi {
		return nil
	}
	if lo == 0 && hi == math.MaxUint64 {
		c.overflow = true
		return nil
	}
	c.n += hi - lo + 1
	return nil
}
func (c *countSink) bitmap(_ uint64, b []byte) error {
	for len(b) >= 8 {
		c.n += uint64(bits.OnesCount64(leUint64(b)))
		b = b[8:]
	}
	for _, x := range b {
		c.n += uint64(bits.OnesCount8(x))
	}
	return nil
}

func leUint64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// funcSink feeds All.
type funcSink struct{ yield func(uint64) bool }

func (f *funcSink) points(ps []uint64) error {
	for _, p := range ps {
		if !f.yield(p) {
			return errStop
		}
	}
	return nil
}

func (f *funcSink) run(lo, hi uint64) error {
	for p := lo; p <= hi && lo <= hi; p++ {
		if !f.yield(p) {
			return errStop
		}
		if p == hi {
			break
		}
	}
	return nil
}

func (f *funcSink) bitmap(pos uint64, b []byte) error {
	return eachBit(pos, b, func(p uint64) bool { return f.yield(p) })
}

// runSink feeds Runs.
type runSink struct{ yield func(Run) bool }

func (f *runSink) points(ps []uint64) error {
	for _, p := range ps {
		if !f.yield(Run{p, p}) {
			return errStop
		}
	}
	return nil
}

func (f *runSink) run(lo, hi uint64) error {
	if lo <= hi && !f.yield(Run{lo, hi}) {
		return errStop
	}
	return nil
}

func (f *runSink) bitmap(pos uint64, b []byte) error {
	return eachBit(pos, b, func(p uint64) bool { return f.yield(Run{p, p}) })
}

// eachBit calls f for each set bit of a BITARRAY chunk starting at pos.
func eachBit(pos uint64, b []byte, f func(uint64) bool) error {
	for i, x := range b {
		for x != 0 {
			j := bits.LeadingZeros8(x)
			if !f(pos + uint64(i)*8 + uint64(j)) {
				return errStop
			}
			x &^= 0x80 >> j
		}
	}
	return nil
}

// Open opens a level file and reads its header.
func Open(name string, opts *Options) (*File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(bufio.NewReaderSize(f, 256<<10), opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("levelfile %s: %w", name, err)
	}
	return &File{Reader: r, f: f, name: name}, nil
}

// File is a Reader over a file on disk.
type File struct {
	*Reader
	f    *os.File
	name string
}

// Close closes the file.
func (f *File) Close() error {
	f.Reader.Close()
	return f.f.Close()
}

// Name is the file's path.
func (f *File) Name() string { return f.name }

// ReadFile reads a whole level file into a set over [Min, Max].
func ReadFile(name string, opts *Options) (Header, *bitarray.Set, error) {
	f, err := Open(name, opts)
	if err != nil {
		return Header{}, nil, err
	}
	defer f.Close()
	s, err := f.ReadSet()
	if err != nil {
		return f.Header, nil, fmt.Errorf("levelfile %s: %w", name, err)
	}
	return f.Header, s, nil
}

// ReadHeader reads only the header of a level file: type, dialect, min,
// max, comments.
func ReadHeader(name string) (Header, error) {
	f, err := Open(name, nil)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	return f.Header, nil
}
