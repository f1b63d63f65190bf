package levelfile

import (
	"math/bits"
	"strconv"

	"github.com/tiersolve/tiersolve/bitarray"
)

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
}

func setStats(s *bitarray.Set) stats {
	st := stats{set: s, count: s.Count()}
	var ok bool
	if st.min, ok = s.Min(); !ok {
		st.empty = true
		return st
	}
	st.max, _ = s.Max()
	return st
}

// newPlan plans the encoding of type t in dialect d.
func newPlan(st stats, t Type, d Dialect) *plan {
	h := Header{Type: t, Dialect: d, Min: st.min, Max: st.max, Empty: st.empty}
	if st.empty {
		h.Type = Type0
	}
	if d == Classic {
		h.Comments = classicComments(h.Type)
	} else {
		h.Comments = specComments(h.Type)
	}
	if h.Type == Type2 && d == Classic {
		h.LastZero = lastZero(st)
	}
	p := &plan{h: h, set: st.set, width: uint(h.BitsPerPosition()), header: appendHeader(nil, h), trailer: trailer(h.Type, d)}
	switch {
	case st.empty:
		p.chunks = []chunk{{}}
	case h.Type == Type0:
		digits := uint64(len(strconv.FormatUint(st.max, 10)))
		p.itemChunks(st.min, st.max, st.count, max(1, chunkRaw/(digits+1)), false)
	case h.Type == Type1:
		p.itemChunks(st.min, st.max, st.count, p.packedItemsPerChunk(), false)
	case h.Type == Type2:
		gaps := st.max - st.min + 1 - st.count // fits: both are at most 2^64-1 apart
		p.itemChunks(st.min, st.max, gaps, p.packedItemsPerChunk(), true)
	case h.Type == Type3:
		nbytes := (st.max-st.min)/8 + 1
		for off := uint64(0); off < nbytes; off += chunkRaw {
			p.chunks = append(p.chunks, chunk{from: off, n: min(chunkRaw, nbytes-off)})
		}
	}
	p.sizeChunks(st)
	return p
}

// packedItemsPerChunk keeps type-1/2 chunks byte aligned: a multiple of 8
// fields is a whole number of bytes.
func (p *plan) packedItemsPerChunk() uint64 {
	return max(8, uint64(chunkRaw*8)/uint64(p.width)) &^ 7
}

// itemChunks cuts n items (members, or non-members when complement) of
// [lo, hi] into chunks of per items.
func (p *plan) itemChunks(lo, hi, n, per uint64, complement bool) {
	if n == 0 {
		p.chunks = []chunk{{}}
		return
	}
	starts := selectEvery(p.set, lo, hi, per, complement)
	for i, from := range starts {
		p.chunks = append(p.chunks, chunk{from: from, n: min(per, n-uint64(i)*per)})
	}
}

// sizeChunks fills in the raw size and lower bound of every chunk.
func (p *plan) sizeChunks(st stats) {
	last := len(p.chunks) - 1
	for i := range p.chunks {
		c := &p.chunks[i]
		var data int64
		switch p.h.Type {
		case Type0:
			// The exact ASCII length needs the digits of every item;
			// raw is used for estimates only, so the widest is fine.
			data = int64(c.n) * int64(len(strconv.FormatUint(st.max, 10))+1)
			c.lb = type0Bound(c.n)
		case Type1, Type2:
			data = int64((c.n*uint64(p.width) + 7) / 8)
			c.lb = data / deflateMaxRatio
		case Type3:
			data = int64(c.n)
			c.lb = data / deflateMaxRatio
		}
		c.raw = data
		if i == 0 {
			c.raw += int64(len(p.header))
		}
		if i == last {
			c.raw += int64(len(p.trailer))
		} else {
			c.lb += syncFlushBytes
		}
		p.raw += c.raw
	}
	if p.h.Type == Type0 && len(p.chunks) > 0 {
		// Copies may take their source from digits in the header (see
		// type0Bound); each header digit can excuse at most one token.
		p.chunks[0].lb = max(0, p.chunks[0].lb-int64(countDigits(p.header)+7)/8)
	}
}

// type0Bound is a lower bound, in bytes, on the deflate size of n type-0
// tokens "t1 t2 ... tn " of strictly ascending canonical decimals. For each
// token t_i but the first, the span " t_i" (its leading space and digits)
// cannot lie inside one deflate symbol: a literal is one byte, and a copy of
// " t_i" would need an earlier occurrence of " t_i", that is, an earlier
// token with t_i's digits as a prefix, which is either t_i itself or a
// longer, hence larger, number, contradicting the ascending order. (Digits
// in the header are the only other source; newPlan subtracts them.) So
// every such span has a symbol starting strictly inside it; the spans are
// disjoint, each symbol costs at least one bit (and a stored byte eight),
// so the chunk costs at least n−1 bits.
func type0Bound(n uint64) int64 {
	if n == 0 {
		return 0
	}
	return int64(n-1) / 8
}

func countDigits(b []byte) int {
	n := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
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

// selectEvery returns the positions of the items of rank 0, per, 2·per, ...
// among the members of s in [lo, hi] (the non-members when complement).
func selectEvery(s *bitarray.Set, lo, hi, per uint64, complement bool) []uint64 {
	var out []uint64
	ws := s.Words()
	base := s.Base()
	i, j := lo-base, hi-base
	var seen, target uint64
	for wi := i >> 6; wi <= j>>6; wi++ {
		w := ws[wi]
		if complement {
			w = ^w
		}
		if wi == i>>6 {
			w &^= 1<<(i&63) - 1
		}
		if wi == j>>6 {
			w &= ^uint64(0) >> (63 - j&63)
		}
		c := uint64(bits.OnesCount64(w))
		for seen+c > target {
			k := target - seen // the k-th set bit of w
			x := w
			for ; k > 0; k-- {
				x &= x - 1
			}
			out = append(out, base+wi*64+uint64(bits.TrailingZeros64(x)))
			target += per
		}
		seen += c
	}
	return out
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
		case Type1:
			dst = p.encodePacked(dst, c, false)
		case Type2:
			dst = p.encodePacked(dst, c, true)
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

// items calls f with batches of the chunk's items: members from c.from, or
// non-members of [Min, Max] when complement.
func (p *plan) items(c chunk, complement bool, f func([]uint64)) {
	var buf [1024]uint64
	ws := p.set.Words()
	base := p.set.Base()
	left := c.n
	i := c.from - base
	end := p.h.Max - base // inclusive
	n := 0
	for wi := i >> 6; left > 0; wi++ {
		w := ws[wi]
		if complement {
			w = ^w
		}
		if wi == i>>6 {
			w &^= 1<<(i&63) - 1
		}
		if wi == end>>6 {
			w &= ^uint64(0) >> (63 - end&63)
		}
		for w != 0 && left > 0 {
			buf[n] = base + wi*64 + uint64(bits.TrailingZeros64(w))
			w &= w - 1
			left--
			if n++; n == len(buf) {
				f(buf[:])
				n = 0
			}
		}
	}
	if n > 0 {
		f(buf[:n])
	}
}

func (p *plan) encodeType0(dst []byte, c chunk) []byte {
	p.items(c, false, func(ps []uint64) {
		for _, v := range ps {
			dst = strconv.AppendUint(dst, v, 10)
			dst = append(dst, ' ')
		}
	})
	return dst
}

// encodePacked writes width-bit offsets MSB-first; chunks other than the
// last hold a multiple of 8 fields, so only the last one pads.
func (p *plan) encodePacked(dst []byte, c chunk, complement bool) []byte {
	var acc uint64 // the low n bits are pending, oldest first
	var n uint
	width := p.width
	put := func(v uint64, w uint) {
		acc = acc<<w | v
		n += w
		for n >= 8 {
			n -= 8
			dst = append(dst, byte(acc>>n))
		}
	}
	p.items(c, complement, func(ps []uint64) {
		for _, pos := range ps {
			v := pos - p.h.Min
			if width > 56 {
				put(v>>32, width-32)
				put(v&0xFFFFFFFF, 32)
			} else {
				put(v, width)
			}
		}
	})
	if n > 0 {
		dst = append(dst, byte(acc<<(8-n)))
	}
	return dst
}
