// Package bitarray holds sets of positions as bit arrays.
//
// Set is the in-memory set the rest of the project uses: one bit per
// position of a range [Base, Base+Len), stored in 64-bit words (bit i of the
// range is bit i%64 of word i/64), built on github.com/bits-and-blooms/bitset.
// The package also converts to and from the BITARRAY of the original level-file
// API, which numbers bits MSB-first within each byte, and ranks positions
// (the number of members below a position) in constant time.
package bitarray

import (
	"fmt"
	"iter"
	"math/bits"
	"sync/atomic"

	"github.com/bits-and-blooms/bitset"
)

// Set is a set of positions in [Base, Base+Len). The zero value is an empty
// set of length 0. Methods that take a position require it to be in range,
// as slices require their index to be; Contains is the checked form.
type Set struct {
	base uint64
	n    uint64
	bs   *bitset.BitSet
}

// New returns an empty set of positions in [base, base+n).
func New(base, n uint64) *Set {
	if n > 0 && base+(n-1) < base {
		panic(fmt.Sprintf("bitarray: range [%d, %d+%d) overflows uint64", base, base, n))
	}
	return &Set{base: base, n: n, bs: bitset.New(uint(n))}
}

// FromWords returns a set over [base, base+n) that uses words as its storage
// (not a copy). Bits at or beyond n in the last word must be zero.
func FromWords(base, n uint64, words []uint64) *Set {
	if uint64(len(words)) != (n+63)/64 {
		panic(fmt.Sprintf("bitarray: %d words for %d bits", len(words), n))
	}
	return &Set{base: base, n: n, bs: bitset.FromWithLength(uint(n), words)}
}

// Base is the first position of the set's range.
func (s *Set) Base() uint64 { return s.base }

// Len is the number of positions in the set's range (not the member count).
func (s *Set) Len() uint64 { return s.n }

// End is Base+Len, one past the last position of the range. It is 0 when
// the range ends at 2^64.
func (s *Set) End() uint64 { return s.base + s.n }

// Words exposes the storage: bit i of the range is bit i%64 of word i/64.
func (s *Set) Words() []uint64 {
	if s.bs == nil {
		return nil
	}
	return s.bs.Words()
}

// BitSet exposes the underlying bitset, indexed from Base.
func (s *Set) BitSet() *bitset.BitSet {
	if s.bs == nil {
		s.bs = bitset.New(0)
	}
	return s.bs
}

// Contains reports whether p is in the range and a member.
func (s *Set) Contains(p uint64) bool {
	return p-s.base < s.n && s.Test(p)
}

// Test reports whether position p (in range) is a member.
func (s *Set) Test(p uint64) bool {
	i := p - s.base
	s.check(i)
	return s.bs.Words()[i>>6]&(1<<(i&63)) != 0
}

// Add makes position p (in range) a member.
func (s *Set) Add(p uint64) {
	i := p - s.base
	s.check(i)
	s.bs.Words()[i>>6] |= 1 << (i & 63)
}

// AddSorted adds positions given in ascending order, all in range: the
// bounds are checked once, on the first and the last.
func (s *Set) AddSorted(ps []uint64) {
	if len(ps) == 0 {
		return
	}
	s.check(ps[0] - s.base)
	s.check(ps[len(ps)-1] - s.base)
	ws := s.Words()
	for _, p := range ps {
		i := p - s.base
		ws[i>>6] |= 1 << (i & 63)
	}
}

// AddAtomic is Add for sets that several goroutines fill at once.
func (s *Set) AddAtomic(p uint64) {
	i := p - s.base
	s.check(i)
	w := &s.bs.Words()[i>>6]
	m := uint64(1) << (i & 63)
	if atomic.LoadUint64(w)&m == 0 {
		atomic.OrUint64(w, m)
	}
}

// Remove makes position p (in range) a non-member.
func (s *Set) Remove(p uint64) {
	i := p - s.base
	s.check(i)
	s.bs.Words()[i>>6] &^= 1 << (i & 63)
}

// Count returns the number of members.
func (s *Set) Count() uint64 {
	var n int
	for _, w := range s.Words() {
		n += bits.OnesCount64(w)
	}
	return uint64(n)
}

// CountIn returns the number of members p with lo <= p <= hi (bounds
// outside the set's range are clamped to it).
func (s *Set) CountIn(lo, hi uint64) uint64 {
	if s.n == 0 {
		return 0
	}
	lo, hi = max(lo, s.base), min(hi, s.base+(s.n-1))
	if hi < lo {
		return 0
	}
	ws := s.Words()
	i, j := lo-s.base, hi-s.base
	wi, wj := i>>6, j>>6
	first := ws[wi] >> (i & 63)
	if wi == wj {
		return uint64(bits.OnesCount64(first << (63 - (j - i))))
	}
	n := bits.OnesCount64(first) + bits.OnesCount64(ws[wj]<<(63-j&63))
	for _, w := range ws[wi+1 : wj] {
		n += bits.OnesCount64(w)
	}
	return uint64(n)
}

// Min returns the smallest member, or ok=false for an empty set.
func (s *Set) Min() (p uint64, ok bool) {
	for i, w := range s.Words() {
		if w != 0 {
			return s.base + uint64(i)*64 + uint64(bits.TrailingZeros64(w)), true
		}
	}
	return 0, false
}

// Max returns the largest member, or ok=false for an empty set.
func (s *Set) Max() (p uint64, ok bool) {
	ws := s.Words()
	for i := len(ws) - 1; i >= 0; i-- {
		if w := ws[i]; w != 0 {
			return s.base + uint64(i)*64 + 63 - uint64(bits.LeadingZeros64(w)), true
		}
	}
	return 0, false
}

// NextMany appends to buf[:0] the members whose index (position − Base) is
// at least cursor, ascending, until buf is full, and returns them with the
// cursor to continue from. The slice is empty when there are no more
// members. Cursors are indexes rather than positions so that a range ending
// at 2^64 needs no special case:
//
//	buf := make([]uint64, 4096)
//	for c, ps := s.NextMany(0, buf); len(ps) > 0; c, ps = s.NextMany(c, buf) {
//		for _, p := range ps { ... }
//	}
func (s *Set) NextMany(cursor uint64, buf []uint64) (next uint64, ps []uint64) {
	ps = buf[:0]
	if cursor >= s.n || cap(buf) == 0 {
		return cursor, ps
	}
	ws := s.Words()
	wi := cursor >> 6
	w := ws[wi] &^ (1<<(cursor&63) - 1)
	for {
		for w != 0 {
			i := wi*64 + uint64(bits.TrailingZeros64(w))
			if len(ps) == cap(ps) {
				return i, ps
			}
			ps = append(ps, s.base+i)
			w &= w - 1
		}
		wi++
		if wi >= uint64(len(ws)) {
			return s.n, ps
		}
		w = ws[wi]
	}
}

// All iterates over the members in ascending order.
func (s *Set) All() iter.Seq[uint64] {
	return s.indexRange(0, s.n)
}

// Range iterates over the members in [lo, hi), ascending.
func (s *Set) Range(lo, hi uint64) iter.Seq[uint64] {
	i := uint64(0)
	if lo > s.base {
		i = lo - s.base
	}
	end := uint64(0)
	if hi > s.base {
		end = min(hi-s.base, s.n)
	}
	return s.indexRange(i, end)
}

// indexRange iterates over the members whose index (position − Base) is in
// [i, end); working with indexes keeps ranges that end at 2^64 exact.
func (s *Set) indexRange(i, end uint64) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		if i >= end {
			return
		}
		ws := s.Words()
		for wi := i >> 6; wi <= (end-1)>>6; wi++ {
			w := ws[wi]
			if wi == i>>6 {
				w &^= 1<<(i&63) - 1
			}
			if wi == (end-1)>>6 && end&63 != 0 {
				w &= 1<<(end&63) - 1
			}
			for w != 0 {
				if !yield(s.base + wi*64 + uint64(bits.TrailingZeros64(w))) {
					return
				}
				w &= w - 1
			}
		}
	}
}

// Clone returns a copy of s.
func (s *Set) Clone() *Set {
	c := New(s.base, s.n)
	copy(c.Words(), s.Words())
	return c
}

// Equal reports whether s and o have the same range and members.
func (s *Set) Equal(o *Set) bool {
	if s.base != o.base || s.n != o.n {
		return false
	}
	a, b := s.Words(), o.Words()
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// SameMembers reports whether s and o have the same members, whatever their
// ranges.
func (s *Set) SameMembers(o *Set) bool {
	if s.Count() != o.Count() {
		return false
	}
	for p := range o.All() {
		if !s.Contains(p) {
			return false
		}
	}
	return true
}

// AddRange makes every position in [lo, hi] (inclusive, in range) a member.
func (s *Set) AddRange(lo, hi uint64) { s.addRange(lo, hi, false) }

// AddRangeAtomic is AddRange for sets that several goroutines fill at once.
func (s *Set) AddRangeAtomic(lo, hi uint64) { s.addRange(lo, hi, true) }

func (s *Set) addRange(lo, hi uint64, shared bool) {
	if lo > hi {
		return
	}
	i, j := lo-s.base, hi-s.base
	s.check(j)
	s.check(i)
	ws := s.Words()
	wi, wj := i>>6, j>>6
	first := ^uint64(0) << (i & 63)
	last := ^uint64(0) >> (63 - j&63)
	if wi == wj {
		orInto(ws, wi, first&last, shared)
		return
	}
	orInto(ws, wi, first, shared)
	for k := wi + 1; k < wj; k++ {
		if shared {
			atomic.StoreUint64(&ws[k], ^uint64(0))
		} else {
			ws[k] = ^uint64(0)
		}
	}
	orInto(ws, wj, last, shared)
}

// check panics when index i is outside the range, as a slice index would.
// It is small enough to inline into Add and Test; the panic is not.
func (s *Set) check(i uint64) {
	if i >= s.n {
		s.outOfRange(i)
	}
}

//go:noinline
func (s *Set) outOfRange(i uint64) {
	panic(fmt.Sprintf("bitarray: position %d outside [%d, %d+%d)", s.base+i, s.base, s.base, s.n))
}
