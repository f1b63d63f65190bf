package bitarray

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// word returns the 64 bits of the range starting at bit index i (bit 0 of the
// result is bit i); bits beyond the range read as zero.
func word(ws []uint64, i uint64) uint64 {
	wi, sh := i>>6, i&63
	if wi >= uint64(len(ws)) {
		return 0
	}
	w := ws[wi] >> sh
	if sh != 0 && wi+1 < uint64(len(ws)) {
		w |= ws[wi+1] << (64 - sh)
	}
	return w
}

// Or adds the members of o to s. It fails, changing nothing, if o has a
// member outside s's range.
func (s *Set) Or(o *Set) error {
	lo, ok := o.Min()
	if !ok {
		return nil
	}
	hi, _ := o.Max()
	if lo < s.base || hi-s.base >= s.n {
		return fmt.Errorf("bitarray: members [%d, %d] outside range [%d, %d)", lo, hi, s.base, s.base+s.n)
	}
	dst, src := s.Words(), o.Words()
	for k := (lo - s.base) >> 6; k <= (hi-s.base)>>6; k++ {
		dst[k] |= o.wordFrom(src, s.base+k*64)
	}
	return nil
}

// Sub returns a copy of the members in [lo, hi) as a set over that range.
func (s *Set) Sub(lo, hi uint64) *Set {
	if lo > hi {
		panic("bitarray: Sub with lo > hi")
	}
	r := New(lo, hi-lo)
	ws, src := r.Words(), s.Words()
	for k := range ws {
		ws[k] = s.wordFrom(src, lo+uint64(k)*64)
	}
	r.clearTail()
	return r
}

// clearTail zeroes the bits of the last word beyond Len.
func (s *Set) clearTail() {
	ws := s.Words()
	if r := s.n & 63; r != 0 && len(ws) > 0 {
		ws[len(ws)-1] &= 1<<r - 1
	}
}

// UnionAll ORs the members of every set in srcs into dst, splitting the
// work by word ranges over up to workers goroutines (all cores when
// workers <= 0 is not given: pass runtime.GOMAXPROCS(0)). Every source
// must have the same range as dst.
func UnionAll(ctx context.Context, dst *Set, srcs []*Set, workers int) error {
	for _, o := range srcs {
		if o.base != dst.base || o.n != dst.n {
			return fmt.Errorf("bitarray: union of ranges [%d,+%d) and [%d,+%d)", dst.base, dst.n, o.base, o.n)
		}
	}
	if workers < 1 {
		workers = 1
	}
	const chunk = 1 << 15 // words: 256 KiB per source, cache friendly
	ws := dst.Words()
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for start := 0; start < len(ws); start += chunk {
		end := min(start+chunk, len(ws))
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			d := ws[start:end]
			for _, o := range srcs {
				for i, w := range o.Words()[start:end] {
					d[i] |= w
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// AppendMSB appends the BITARRAY form of the positions [lo, lo+nbits): bit j
// is byte j/8, mask 0x80>>(j%8), set when lo+j is a member; the last byte is
// padded with zero bits. Positions outside s's range read as non-members.
func (s *Set) AppendMSB(dst []byte, lo, nbits uint64) []byte {
	nbytes := (nbits + 7) / 8
	start := len(dst)
	dst = slices.Grow(dst, int(nbytes))[:start+int(nbytes)]
	out := dst[start:]
	src := s.Words()
	var buf [8]byte
	j := uint64(0)
	if lo >= s.base && (lo-s.base)&63 == 0 {
		// Aligned: whole words straight from storage.
		k := (lo - s.base) >> 6
		for ; j+8 <= nbytes && nbits-j*8 >= 64 && k < uint64(len(src)); j, k = j+8, k+1 {
			binary.BigEndian.PutUint64(out[j:], bits.Reverse64(src[k]))
		}
	}
	for ; j < nbytes; j += 8 {
		w := s.wordFrom(src, lo+j*8)
		if rem := nbits - j*8; rem < 64 {
			w &= 1<<rem - 1
		}
		binary.BigEndian.PutUint64(buf[:], bits.Reverse64(w))
		copy(out[j:], buf[:])
	}
	return dst
}

// wordFrom returns the 64 membership bits of positions [p, p+64).
func (s *Set) wordFrom(src []uint64, p uint64) uint64 {
	switch {
	case p >= s.base:
		if p-s.base >= s.n {
			return 0
		}
		return word(src, p-s.base)
	case s.base-p < 64:
		return word(src, 0) << (s.base - p)
	default:
		return 0
	}
}

// OrMSB adds the members given in BITARRAY form: bit j of data (byte j/8,
// mask 0x80>>(j%8)) set means position pos+j is a member. Every set bit must
// fall in s's range; OrMSB reports false, having added only the bits in
// range, if one does not.
func (s *Set) OrMSB(pos uint64, data []byte) bool { return s.orMSB(pos, data, false) }

// OrMSBAtomic is OrMSB for sets that several goroutines fill at once.
func (s *Set) OrMSBAtomic(pos uint64, data []byte) bool { return s.orMSB(pos, data, true) }

func (s *Set) orMSB(pos uint64, data []byte, shared bool) bool {
	full := len(data) &^ 7
	// Fast path: the whole run of 8-byte words lies in range, so no word
	// needs a bounds check; each lands at a fixed shift over two words.
	if full > 0 && pos >= s.base && pos-s.base+uint64(full)*8 <= s.n {
		i := pos - s.base
		ws := s.Words()
		k, sh := i>>6, i&63
		for j := 0; j < full; j, k = j+8, k+1 {
			w := binary.BigEndian.Uint64(data[j:])
			if w == 0 {
				continue
			}
			w = bits.Reverse64(w)
			orInto(ws, k, w<<sh, shared)
			if sh != 0 {
				orInto(ws, k+1, w>>(64-sh), shared)
			}
		}
		if full == len(data) {
			return true
		}
		return s.orMSBSlow(pos+uint64(full)*8, data[full:], shared)
	}
	return s.orMSBSlow(pos, data, shared)
}

// orMSBSlow is orMSB with every word checked against the range.
func (s *Set) orMSBSlow(pos uint64, data []byte, shared bool) bool {
	ok := true
	var buf [8]byte
	for j := 0; j < len(data); j += 8 {
		var w uint64
		if j+8 <= len(data) {
			w = binary.BigEndian.Uint64(data[j:])
		} else {
			buf = [8]byte{}
			copy(buf[:], data[j:])
			w = binary.BigEndian.Uint64(buf[:])
		}
		if w = bits.Reverse64(w); w != 0 {
			ok = s.orWordAt(pos+uint64(j)*8, w, shared) && ok
		}
	}
	return ok
}

// orWordAt ORs w as the membership bits of positions [p, p+64), reporting
// whether all of its set bits were in range.
func (s *Set) orWordAt(p uint64, w uint64, shared bool) bool {
	ok := true
	if p < s.base {
		d := s.base - p
		if d >= 64 {
			return false
		}
		ok = w&(1<<d-1) == 0
		w >>= d
		p = s.base
	}
	i := p - s.base
	if i >= s.n {
		return false
	}
	if rem := s.n - i; rem < 64 {
		ok = ok && w>>rem == 0
		w &= 1<<rem - 1
	}
	ws := s.Words()
	wi, sh := i>>6, i&63
	orInto(ws, wi, w<<sh, shared)
	if sh != 0 && wi+1 < uint64(len(ws)) {
		orInto(ws, wi+1, w>>(64-sh), shared)
	}
	return ok
}

// orInto ORs x into word k, atomically when shared.
func orInto(ws []uint64, k uint64, x uint64, shared bool) {
	switch {
	case x == 0:
	case shared:
		atomic.OrUint64(&ws[k], x)
	default:
		ws[k] |= x
	}
}

// FromMSB returns the set over [base, base+nbits) whose BITARRAY form is data
// (at least (nbits+7)/8 bytes; bits beyond nbits are ignored).
func FromMSB(data []byte, base, nbits uint64) (*Set, error) {
	if uint64(len(data)) < (nbits+7)/8 {
		return nil, fmt.Errorf("bitarray: %d bytes hold fewer than %d bits", len(data), nbits)
	}
	s := New(base, nbits)
	s.OrMSB(base, data[:(nbits+7)/8])
	s.clearTail()
	return s, nil
}
