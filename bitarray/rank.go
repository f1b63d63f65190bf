package bitarray

import "math/bits"

// blockWords is the number of words per rank block: 8 words = 512 bits =
// one 64-byte cache line, so a rank query reads one counter and one line.
const blockWords = 8

// Ranked answers rank queries on a set that no longer changes: the rank of a
// member is its index in the ascending list of members, which is how value
// databases index the positions of a level file.
type Ranked struct {
	*Set
	before []uint64 // before[b] = members in blocks 0..b-1
}

// NewRanked indexes s for rank queries. s must not change afterwards.
func NewRanked(s *Set) *Ranked {
	ws := s.Words()
	nb := (len(ws) + blockWords - 1) / blockWords
	before := make([]uint64, nb+1)
	var total uint64
	for b := 0; b < nb; b++ {
		before[b] = total
		end := min((b+1)*blockWords, len(ws))
		for _, w := range ws[b*blockWords : end] {
			total += uint64(bits.OnesCount64(w))
		}
	}
	before[nb] = total
	return &Ranked{Set: s, before: before}
}

// Total is the number of members.
func (r *Ranked) Total() uint64 { return r.before[len(r.before)-1] }

// Rank returns the number of members less than p, for p in the range. For a
// member p it is p's index in ascending order.
func (r *Ranked) Rank(p uint64) uint64 {
	i := p - r.base
	ws := r.Words()
	wi := i >> 6
	b := wi / blockWords
	n := r.before[b]
	for k := b * blockWords; k < wi; k++ {
		n += uint64(bits.OnesCount64(ws[k]))
	}
	return n + uint64(bits.OnesCount64(ws[wi]&(1<<(i&63)-1)))
}

// Lookup returns the rank of p and whether p is a member; p may be out of
// range (then it is not a member).
func (r *Ranked) Lookup(p uint64) (rank uint64, ok bool) {
	if p-r.base >= r.n {
		return 0, false
	}
	if !r.Test(p) {
		return 0, false
	}
	return r.Rank(p), true
}

// Select returns the member with the given rank (0-based); ok is false when
// rank >= Total.
func (r *Ranked) Select(rank uint64) (p uint64, ok bool) {
	if rank >= r.Total() {
		return 0, false
	}
	// Binary search the last block whose count before is <= rank.
	lo, hi := 0, len(r.before)-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if r.before[mid] <= rank {
			lo = mid
		} else {
			hi = mid
		}
	}
	left := rank - r.before[lo]
	ws := r.Words()
	for k := lo * blockWords; ; k++ {
		c := uint64(bits.OnesCount64(ws[k]))
		if left < c {
			w := ws[k]
			for ; left > 0; left-- {
				w &= w - 1
			}
			return r.base + uint64(k)*64 + uint64(bits.TrailingZeros64(w)), true
		}
		left -= c
	}
}
