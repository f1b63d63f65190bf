package bitarray

import (
	"math/bits"
	"sync"
)

// Ranked answers rank queries on a set that no longer changes: the rank of a
// member is its index in the ascending list of members, which is how value
// databases index the positions of a level file.
//
// The index is Vigna's rank9: for every 512-bit block (8 words), one 64-bit
// count of the members before the block, and one 64-bit word packing seven
// 9-bit counts of the members before each of the block's words 1..7. A rank
// query reads that pair and the word itself: one popcount, no loop, and
// a quarter more memory than the set's words (RankedBytes).
type Ranked struct {
	*Set
	counts []uint64 // pairs per block: members before the block, packed sub-counts
	total  uint64
}

// RankedBytes is the memory of a set over n positions with its rank index:
// the set's words and two words of counts per 8 of them. Memory estimates
// (the solver's plans, a worker's cache) count sets by it.
func RankedBytes(n uint64) uint64 {
	words := (n + 63) / 64
	return 8 * (words + 2*((words+7)/8) + 2)
}

// NewRanked indexes s for rank queries. s must not change afterwards.
func NewRanked(s *Set) *Ranked { return NewRankedWorkers(s, 1) }

// rankChunk is the fewest blocks worth a goroutine of NewRankedWorkers.
const rankChunk = 1 << 14

// NewRankedWorkers is NewRanked on up to workers goroutines: each counts
// a share of the blocks, then adds the members before its share.
func NewRankedWorkers(s *Set, workers int) *Ranked {
	ws := s.Words()
	nb := (len(ws) + 7) / 8
	counts := make([]uint64, 2*nb+2)
	parts := max(1, min(workers, nb/rankChunk))
	totals := make([]uint64, parts+1)
	var wg sync.WaitGroup
	for k := range parts {
		lo, hi := nb*k/parts, nb*(k+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			totals[k+1] = countBlocks(ws, counts, lo, hi)
		}()
	}
	wg.Wait()
	for k := 1; k <= parts; k++ {
		totals[k] += totals[k-1]
	}
	for k := 1; k < parts; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := nb * k / parts; b < nb*(k+1)/parts; b++ {
				counts[2*b] += totals[k]
			}
		}()
	}
	wg.Wait()
	counts[2*nb] = totals[parts] // a sentinel block, for Select
	return &Ranked{Set: s, counts: counts, total: totals[parts]}
}

// countBlocks fills the counts of blocks [lo, hi), the members before
// each counted from block lo, and returns the members of the blocks.
func countBlocks(ws, counts []uint64, lo, hi int) uint64 {
	var total uint64
	for b := lo; b < hi; b++ {
		counts[2*b] = total
		var sub, packed uint64
		for k := 0; k < 8; k++ {
			if k > 0 {
				packed |= sub << (9 * (k - 1))
			}
			if i := b*8 + k; i < len(ws) {
				sub += uint64(bits.OnesCount64(ws[i]))
			}
		}
		counts[2*b+1] = packed
		total += sub
	}
	return total
}

// Total is the number of members.
func (r *Ranked) Total() uint64 { return r.total }

// Rank returns the number of members less than p, for p in the range. For a
// member p it is p's index in ascending order.
func (r *Ranked) Rank(p uint64) uint64 {
	i := p - r.base
	wi := i >> 6
	b := wi >> 3
	k := wi & 7
	n := r.counts[2*b]
	if k > 0 {
		n += r.counts[2*b+1] >> (9 * (k - 1)) & 0x1FF
	}
	return n + uint64(bits.OnesCount64(r.Words()[wi]&(1<<(i&63)-1)))
}

// Lookup returns the rank of p and whether p is a member; p may be out of
// range (then it is not a member).
func (r *Ranked) Lookup(p uint64) (rank uint64, ok bool) {
	i := p - r.base
	if i >= r.n {
		return 0, false
	}
	wi := i >> 6
	w := r.Words()[wi]
	if w&(1<<(i&63)) == 0 {
		return 0, false
	}
	b := wi >> 3
	k := wi & 7
	n := r.counts[2*b]
	if k > 0 {
		n += r.counts[2*b+1] >> (9 * (k - 1)) & 0x1FF
	}
	return n + uint64(bits.OnesCount64(w&(1<<(i&63)-1))), true
}

// Select returns the member with the given rank (0-based); ok is false when
// rank >= Total.
func (r *Ranked) Select(rank uint64) (p uint64, ok bool) {
	if rank >= r.total {
		return 0, false
	}
	// The last block whose count before it is <= rank.
	lo, hi := 0, len(r.counts)/2-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if r.counts[2*mid] <= rank {
			lo = mid
		} else {
			hi = mid
		}
	}
	left := rank - r.counts[2*lo]
	ws := r.Words()
	for k := lo * 8; ; k++ {
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
