package levelfile

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"

	"github.com/klauspost/compress/flate"
	"github.com/tiersolve/tiersolve/bitarray"
)

// probeRaw is the size of a candidate's first chunk, which the race
// compresses first for every candidate to learn its compression ratio: small,
// so that candidates that will lose cost little to probe.
const probeRaw = chunkRaw / 16

// chunkRaw is the target size of a raw chunk. It sets the granularity of
// parallel compression and of the candidate race, and (slightly) the
// compressed size, so it is a constant of the format writer, not an option.
const chunkRaw = 1 << 20

// deflateMaxRatio bounds deflate's compression: a symbol covers at most 258
// bytes and costs at least 2 bits (length and distance codes) when it is a
// copy, and a literal costs at least 1 bit for 1 byte, so n bytes never
// compress below n/1032 bytes.
const deflateMaxRatio = 1032

// syncFlushBytes is the least a non-final chunk's sync flush adds: an empty
// stored block's LEN and NLEN (00 00 FF FF).
const syncFlushBytes = 4

// plan is one candidate encoding of a set, cut into chunks that can be
// encoded and compressed independently.
type plan struct {
	h       Header
	set     *bitarray.Set
	width   uint // bitsPerPosition
	header  []byte
	trailer []byte
	chunks  []chunk
	raw     int64 // total raw bytes (header, data, trailer)

	// Types 0-2: whether items are non-members, and how many chunk starts
	// are known (see startChunk).
	complement bool
	planned    int

	// storeBitmap keeps type 3's bitmap in stored deflate blocks, as
	// types 1 and 2 (WriteOptions.Stored).
	storeBitmap bool
}

// chunk is a piece of a candidate's data.
type chunk struct {
	from uint64 // types 0-2: position of the chunk's first item; type 3: byte offset
	n    uint64 // types 0-2: items; type 3: bytes
	raw  int64  // raw bytes, header and trailer included
	lb   int64  // lower bound of the chunk's compressed size
}

// stats are what every plan needs to know about the set.
type stats struct {
	set      *bitarray.Set
	count    uint64
	min, max uint64
	empty    bool
	// byDigits[d] counts the members of d decimal digits: type 0's
	// numbers, whose exact length they give.
	byDigits [maxDigits + 1]uint64
}

// maxDigits is the most decimal digits of a uint64.
const maxDigits = 20

// setStats counts the set's members by number of digits, in one pass.
func setStats(s *bitarray.Set) stats {
	st := stats{set: s}
	var ok bool
	if st.min, ok = s.Min(); !ok {
		st.empty = true
		return st
	}
	st.max, _ = s.Max()
	lo, hi := uint64(0), uint64(9)
	for d := 1; d <= maxDigits && lo <= st.max; d++ {
		if d == maxDigits {
			hi = math.MaxUint64
		}
		st.byDigits[d] = s.CountIn(lo, hi)
		st.count += st.byDigits[d]
		lo, hi = hi+1, hi*10+9
	}
	return st
}

// type0Bytes is the length in type 0 of members k to k+n−1 (counting
// from the smallest): their digits and a space each.
func (st *stats) type0Bytes(k, n uint64) int64 {
	var total int64
	for d := 1; d <= maxDigits && n > 0; d++ {
		c := st.byDigits[d]
		if k >= c {
			k -= c
			continue
		}
		take := min(c-k, n)
		total += int64(take) * int64(d+1)
		n -= take
		k = 0
	}
	return total
}

// newPlan plans the encoding of type t in dialect d; game, if set, is
// named in the spec dialect's comment; storeBitmap stores type 3 without
// compression (WriteOptions.Stored).
func newPlan(st stats, t Type, d Dialect, game string, symmetric, storeBitmap bool) *plan {
	h := Header{Type: t, Dialect: d, Min: st.min, Max: st.max, Empty: st.empty}
	if st.empty {
		h.Type = Type0
	}
	if d == Classic {
		h.Comments = classicComments(h.Type)
	} else {
		h.Comments = specComments(h.Type, game, symmetric)
	}
	if h.Type == Type2 && d == Classic {
		h.LastZero = lastZero(st)
	}
	p := &plan{h: h, set: st.set, width: uint(h.BitsPerPosition()), header: appendHeader(nil, h), trailer: trailer(h.Type, d),
		storeBitmap: storeBitmap}
	switch {
	case st.empty:
		p.chunks = []chunk{{}}
		p.planned = 1
	case h.Type == Type0:
		digits := uint64(len(strconv.FormatUint(st.max, 10)))
		p.itemChunks(st.min, st.max, st.count, max(1, chunkRaw/(digits+1)), 1, false)
	case h.Type == Type1:
		p.itemChunks(st.min, st.max, st.count, p.packedItemsPerChunk(), 8, false)
	case h.Type == Type2:
		gaps := st.max - st.min + 1 - st.count // fits: both are at most 2^64-1 apart
		p.itemChunks(st.min, st.max, gaps, p.packedItemsPerChunk(), 8, true)
	case h.Type == Type3:
		nbytes := (st.max-st.min)/8 + 1
		for off, size := uint64(0), uint64(probeRaw); off < nbytes; off, size = off+size, chunkRaw {
			p.chunks = append(p.chunks, chunk{from: off, n: min(size, nbytes-off)})
		}
		p.planned = len(p.chunks)
	}
	p.sizeChunks(st)
	return p
}

// stored reports whether the chunks go into stored deflate blocks, not
// compressed (types 1 and 2, see storeChunk), so that every chunk's lb is
// its exact size, known before encoding anything.
func (p *plan) stored() bool {
	return p.h.Type == Type1 || p.h.Type == Type2 || p.h.Type == Type3 && p.storeBitmap
}

// level is the deflate level of the plan's chunks, given the bitmap level
// (stored plans do not call it). ASCII (type 0) is Huffman-coded only: it is
// almost never the smallest type (LAYOUT.md), and that makes it about five
// times cheaper to rule out than with match searching.
func (p *plan) level(bitmap int) int {
	if p.h.Type == Type0 {
		return flate.HuffmanOnly
	}
	return bitmap
}

// packedItemsPerChunk keeps type-1/2 chunks byte aligned: a multiple of 8
// fields is a whole number of bytes.
func (p *plan) packedItemsPerChunk() uint64 {
	return max(8, uint64(chunkRaw*8)/uint64(p.width)) &^ 7
}

// itemChunks cuts n items (members, or non-members of [lo, hi] when
// complement) into chunks of per items, the first a probe of per/16 (all
// multiples of align). Only the first chunk's start is found now;
// startChunk finds the others as the race reaches them, so a candidate cut
// off early never scans the whole set.
func (p *plan) itemChunks(lo, hi, n, per, align uint64, complement bool) {
	if n == 0 {
		p.chunks = []chunk{{}}
		p.planned = 1
		return
	}
	p.complement = complement
	probe := max(align, per*probeRaw/chunkRaw/align*align)
	for k, size := uint64(0), probe; k < n; k, size = k+size, per {
		p.chunks = append(p.chunks, chunk{n: min(size, n-k)})
	}
	p.chunks[0].from = p.nextItem(lo, 0)
	p.planned = 1
}

// startChunk makes sure chunk i's start is known; chunks are started in
// order, so it only ever scans from the previous chunk's start.
func (p *plan) startChunk(i int) {
	for ; p.planned <= i; p.planned++ {
		prev := p.chunks[p.planned-1]
		p.chunks[p.planned].from = p.nextItem(prev.from, prev.n)
	}
}

// nextItem returns the position of the item k items after the one at or
// after from (k = 0: the first item at or after from).
func (p *plan) nextItem(from, k uint64) uint64 {
	ws := p.set.Words()
	base := p.set.Base()
	i := from - base
	for wi := i >> 6; ; wi++ {
		w := ws[wi]
		if p.complement {
			w = ^w
		}
		if wi == i>>6 {
			w &^= 1<<(i&63) - 1
		}
		c := uint64(bits.OnesCount64(w))
		if c > k {
			for ; k > 0; k-- {
				w &= w - 1
			}
			return base + wi*64 + uint64(bits.TrailingZeros64(w))
		}
		k -= c
	}
}

// sizeChunks fills in the raw size and lower bound of every chunk.
func (p *plan) sizeChunks(st stats) {
	last := len(p.chunks) - 1
	var items uint64 // before chunk i
	for i := range p.chunks {
		c := &p.chunks[i]
		switch p.h.Type {
		case Type0:
			c.raw = st.type0Bytes(items, c.n)
		case Type1, Type2:
			c.raw = int64((c.n*uint64(p.width) + 7) / 8)
		case Type3:
			c.raw = int64(c.n)
		}
		items += c.n
		if i == 0 {
			c.raw += int64(len(p.header))
		}
		if i == last {
			c.raw += int64(len(p.trailer))
		}
		switch {
		case p.stored():
			c.lb = storedSize(c.raw)
		case p.h.Type == Type0:
			// Huffman-only deflate spends at least a bit on every byte.
			c.lb = c.raw / 8
		default: // a compressed bitmap
			c.lb = c.raw / deflateMaxRatio
		}
		if i != last && !p.stored() {
			c.lb += syncFlushBytes
		}
		p.raw += c.raw
	}
}

// lastZero is the offset from min of the last unreachable position in
// [min, max] (the classic type-2 header's third number), or 0 if none.
func lastZero(st stats) uint64 {
	for p := st.max; p > st.min; p-- {
		if !st.set.Test(p) {
			return p - st.min
		}
	}
	return 0
}

// encode appends the raw bytes of chunk i to dst.
func (p *plan) encode(dst []byte, i int) []byte {
	if i == 0 {
		dst = append(dst, p.header...)
	}
	c := p.chunks[i]
	if c.n > 0 {
		switch p.h.Type {
		case Type0:
			dst = p.encodeType0(dst, c)
		case Type1, Type2:
			dst = p.encodePacked(dst, c)
		case Type3:
			// A set in memory spans fewer than 2^64 positions, so
			// max−min+1 does not overflow.
			nbits := min(c.n*8, p.h.Max-p.h.Min+1-c.from*8)
			dst = p.set.AppendMSB(dst, p.h.Min+c.from*8, nbits)
		}
	}
	if i == len(p.chunks)-1 {
		dst = append(dst, p.trailer...)
	}
	return dst
}

// itemWord returns word wi of the set's items: the members (or the
// non-members, for type 2) of [Min, Max] at or after index from.
func (p *plan) itemWord(wi, from uint64) uint64 {
	w := p.set.Words()[wi]
	if p.complement {
		w = ^w
	}
	if wi == from>>6 {
		w &^= 1<<(from&63) - 1
	}
	if end := p.h.Max - p.set.Base(); wi == end>>6 {
		w &= ^uint64(0) >> (63 - end&63)
	}
	return w
}

// eachItem calls f for each item of chunk c in order: members from c.from,
// or non-members of [Min, Max] when complement.
func (p *plan) eachItem(c chunk, f func(uint64)) {
	base := p.set.Base()
	left := c.n
	i := c.from - base
	for wi := i >> 6; left > 0; wi++ {
		w := p.itemWord(wi, i)
		for ; w != 0 && left > 0; left-- {
			f(base + wi*64 + uint64(bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
}

func (p *plan) encodeType0(dst []byte, c chunk) []byte {
	p.eachItem(c, func(v uint64) {
		dst = strconv.AppendUint(dst, v, 10)
		dst = append(dst, ' ')
	})
	return dst
}

// encodePacked writes width-bit offsets MSB-first; chunks other than the
// last hold a multiple of 8 fields, so only the last one pads. The loop is
// written out (no per-item call) because it is the writer's hot path.
func (p *plan) encodePacked(dst []byte, c chunk) []byte {
	if p.width > 32 {
		return p.encodeWide(dst, c)
	}
	base := p.set.Base()
	width := p.width
	shift := 64 - width
	minIdx := p.h.Min - base
	var acc uint64 // pending bits, MSB-aligned
	var n uint     // how many
	left := c.n
	i := c.from - base
	for wi := i >> 6; left > 0; wi++ {
		w := p.itemWord(wi, i)
		for ; w != 0 && left > 0; left-- {
			v := wi*64 + uint64(bits.TrailingZeros64(w)) - minIdx
			w &= w - 1
			acc |= v << shift >> n
			n += width
			if n >= 32 {
				dst = binary.BigEndian.AppendUint32(dst, uint32(acc>>32))
				acc <<= 32
				n -= 32
			}
		}
	}
	for ; n > 0; n -= min(n, 8) {
		dst = append(dst, byte(acc>>56))
		acc <<= 8
	}
	return dst
}

// encodeWide is encodePacked for fields wider than 32 bits.
func (p *plan) encodeWide(dst []byte, c chunk) []byte {
	var acc uint64
	var n uint
	put := func(v uint64, w uint) {
		acc |= v << (64 - w) >> n
		n += w
		if n >= 32 {
			dst = binary.BigEndian.AppendUint32(dst, uint32(acc>>32))
			acc <<= 32
			n -= 32
		}
	}
	p.eachItem(c, func(pos uint64) {
		v := pos - p.h.Min
		put(v>>32, p.width-32)
		put(v&0xFFFFFFFF, 32)
	})
	for ; n > 0; n -= min(n, 8) {
		dst = append(dst, byte(acc>>56))
		acc <<= 8
	}
	return dst
}
