package plan

import (
	"math/bits"
	"sort"

	"github.com/tiersolve/tiersolve/bitarray"
)

// Range is a worker's share of a tier: the members of the tier's set whose
// position is in [Lo, Hi).
type Range struct{ Lo, Hi uint64 }

// SplitRanges cuts the members of s into n ranges of nearly equal member
// counts, covering [s.Base(), s.End()) without gaps. The cut points depend
// only on s and n.
func SplitRanges(s *bitarray.Ranked, n int) []Range {
	n = max(1, min(n, int(max(s.Total(), 1))))
	weights := make([]uint64, n)
	for i := range weights {
		weights[i] = 1
	}
	return SplitWeighted(s, weights)
}

// SplitWeighted cuts the members of s into ranges whose member counts are
// nearly proportional to weights, in order, covering [s.Base(), s.End())
// without gaps; a range that would hold no member is left out. The cut
// points depend only on s and weights.
func SplitWeighted(s *bitarray.Ranked, weights []uint64) []Range {
	return splitWeighted(s, weights, 1)
}

// splitWeighted is SplitWeighted with every cut at a rank that is a
// multiple of align (the nearest to the exact cut).
func splitWeighted(s *bitarray.Ranked, weights []uint64, align uint64) []Range {
	total, sum := s.Total(), uint64(0)
	for _, w := range weights {
		sum += w
	}
	out := make([]Range, 0, len(weights))
	lo, before := s.Base(), uint64(0)
	for i := 0; i+1 < len(weights) && sum > 0; i++ {
		before += weights[i]
		rank := mulDiv(total, before, sum)
		if align > 1 {
			if rank = (rank + align/2) / align * align; rank == 0 || rank >= total {
				continue // the cut would leave a range without members
			}
		}
		p, _ := s.Select(rank)
		if p > lo {
			out = append(out, Range{lo, p})
			lo = p
		}
	}
	return append(out, Range{lo, s.Base() + s.Len()})
}

// SplitShrinking cuts the members of s into n ranges whose member counts
// shrink linearly, as n, n-1, ..., 1 (guided self-scheduling): ranges are
// taken in order, so the last ones of a tier, which the next step waits
// for, are the small ones, and the workers finish nearly together. With
// two ranges per worker they finish together: with 2 workers, 4, 3, 2, 1
// tenths are taken as 4+1 and 3+2. The cut points depend only on s and n.
func SplitShrinking(s *bitarray.Ranked, n int) []Range {
	return SplitShrinkingAligned(s, n, 1)
}

// SplitShrinkingAligned is SplitShrinking with every cut at a rank that
// is a multiple of align (the nearest one; ranges that would be left
// without members are merged into their neighbours): every range but the
// last holds a multiple of align members. With align the value
// databases' block size, the records of each range are whole blocks of
// the tier's database, which ConcatDB joins without decoding them.
func SplitShrinkingAligned(s *bitarray.Ranked, n int, align uint64) []Range {
	n = max(1, min(n, int(max(s.Total(), 1))))
	weights := make([]uint64, n)
	for i := range weights {
		weights[i] = uint64(n - i)
	}
	return splitWeighted(s, weights, max(align, 1))
}

// mulDiv is a*b/c for b <= c, without overflow in a*b.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi, lo, c) // hi < c, as b <= c
	return q
}

// FirstRank is the rank of the first member of set in r.
func FirstRank(set *bitarray.Ranked, r Range) uint64 {
	if r.Lo <= set.Base() || set.Len() == 0 {
		return 0
	}
	if r.Lo-set.Base() >= set.Len() {
		return set.Total()
	}
	return set.Rank(r.Lo)
}

// Count is the number of members of set in r.
func (r Range) Count(set *bitarray.Ranked) uint64 {
	return FirstRank(set, Range{Lo: r.Hi}) - FirstRank(set, r)
}

// A Cut is where a loopy tier is cut into parts: part k holds the hashes
// [Bounds[k], Bounds[k+1]).
type Cut struct {
	Bounds []uint64
}

// NewCut cuts the tier whose reachable positions are set into parts of
// about as many positions each, at ranks that are multiples of align
// (but the last part): the parts' databases join into the tier's without
// decoding (ConcatDB) when align is their block size.
func NewCut(set *bitarray.Ranked, parts int, align uint64) Cut {
	weights := make([]uint64, max(1, min(parts, int(max(set.Total(), 1)))))
	for i := range weights {
		weights[i] = 1
	}
	rs := splitWeighted(set, weights, max(align, 1))
	c := Cut{Bounds: []uint64{set.Base()}}
	for _, r := range rs[:len(rs)-1] {
		c.Bounds = append(c.Bounds, r.Hi)
	}
	return Cut{Bounds: append(c.Bounds, set.End())}
}

// Parts is the number of parts.
func (c Cut) Parts() int { return len(c.Bounds) - 1 }

// Of returns the part that holds hash p.
func (c Cut) Of(p uint64) int {
	return sort.Search(len(c.Bounds)-2, func(k int) bool { return c.Bounds[k+1] > p })
}

// Widest is the most hashes a part of c spans: the cut balances
// positions, while a part's cells, by position in a dense tier, take its
// window's hashes.
func (c Cut) Widest() uint64 {
	var w uint64
	for k := range c.Parts() {
		w = max(w, c.Bounds[k+1]-c.Bounds[k])
	}
	return w
}

// Refine cuts each part of c, a cut of the tier whose reachable positions
// are set, into up to m sub-parts of about as many positions, at ranks
// that are multiples of align (sub-parts that would be left without
// members are merged into their neighbours): a finer cut that cuts
// wherever c does, whose sub-parts of a part are made on as many workers
// (loopy.GatherPart).
func (c Cut) Refine(set *bitarray.Ranked, m int, align uint64) Cut {
	align = max(align, 1)
	f := Cut{Bounds: []uint64{c.Bounds[0]}}
	for k := range c.Parts() {
		lo, hi := c.Bounds[k], c.Bounds[k+1]
		rlo, rhi := FirstRank(set, Range{Lo: lo}), FirstRank(set, Range{Lo: hi})
		for i := 1; i < m; i++ {
			rank := rlo + mulDiv(rhi-rlo, uint64(i), uint64(m))
			rank = (rank + align/2) / align * align
			if rank <= rlo || rank >= rhi {
				continue
			}
			if p, ok := set.Select(rank); ok && p > f.Bounds[len(f.Bounds)-1] && p < hi {
				f.Bounds = append(f.Bounds, p)
			}
		}
		f.Bounds = append(f.Bounds, hi)
	}
	return f
}

// ChildRanges cuts the records of a child tier of a loopy tier solved
// in parts, count of them in rank order, into the ranges that a
// cluster's KidNotes units turn into notes (ChildNotes), each once for
// every part: as many as the parts, so that the children's un-moves
// spread over the parts' workers, but none of fewer than least records
// (a unit's fixed cost: its grant, the child's level file loaded, its
// notes files), cut at multiples of align (the chunks a unit reads,
// ChildChunk) but the last. None if count is 0.
func ChildRanges(count uint64, parts int, least, align uint64) []Range {
	align = max(align, 1)
	chunks := (count + align - 1) / align
	n := min(uint64(max(parts, 1)), max(count/max(least, 1), 1), chunks)
	var rs []Range
	lo := uint64(0)
	for i := uint64(1); i <= n; i++ {
		hi := min(count, chunks*i/n*align)
		if hi > lo {
			rs = append(rs, Range{Lo: lo, Hi: hi})
		}
		lo = hi
	}
	return rs
}

// rangesPerWorker is how many ranges a tier is cut into per worker by
// default: a worker that is done with a range takes the next, so the
// end of a tier waits for one small range, not for a worker's share.
// Measured against 32 (2 workers, 3 rounds interleaved): the same time on
// Connect Four 6x4 and Quixo 4x4, and 8-30% less peak RSS.
const rangesPerWorker = 8

// minRange is the fewest positions worth a range of their own.
const minRange = 1 << 12

// RangesFor is how many ranges a set of n positions is cut into: ranges
// when it is set, else rangesPerWorker per worker but none of fewer than
// minRange positions.
func RangesFor(n uint64, workers, ranges int) int {
	if ranges > 0 {
		return ranges
	}
	return int(max(1, min(uint64(max(workers, 1)*rangesPerWorker), n/minRange)))
}
