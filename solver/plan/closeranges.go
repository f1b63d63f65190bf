package plan

// CloseRangeAlign is the multiple of hashes the ranges of a loopy tier's
// closing by ranges (reach.CloseRound) are cut at: whole words of a set,
// so a range's words are a slice of the tier's.
const CloseRangeAlign = 64

// CloseRanges cuts a tier of size hashes into n ranges of equal size
// (at multiples of CloseRangeAlign), fewer if the tier is too small.
func CloseRanges(size uint64, n int) []Range {
	words := (size + CloseRangeAlign - 1) / CloseRangeAlign
	n = int(max(min(uint64(n), words), 1))
	out := make([]Range, 0, n)
	lo := uint64(0)
	for i := range n {
		hi := min(words*uint64(i+1)/uint64(n)*CloseRangeAlign, size)
		if i == n-1 {
			hi = size
		}
		out = append(out, Range{Lo: lo, Hi: hi})
		lo = hi
	}
	return out
}

// CloseRangeHashes is the hashes of a range of a loopy tier's closing
// by ranges when the run leaves the count to the cluster (CloseRangeCount):
// a few tens of seconds of one core's closing of a dense tier, long
// enough that a round's overhead (its grant and completion, the range's
// set and notes loaded and written) stays small.
const CloseRangeHashes = 1 << 24

// MaxCloseRanges bounds the ranges of a closing by ranges: each range
// reads the notes every other sent it at each round.
const MaxCloseRanges = 64

// CloseRangeCount is how many ranges a loopy tier of size hashes is
// closed in: setting if above 0 (a run's choice; 1 is one unit), else one
// per CloseRangeHashes, one for a tier smaller than two of them, at most
// MaxCloseRanges.
func CloseRangeCount(size uint64, setting int) int {
	if setting > 0 {
		return min(setting, MaxCloseRanges)
	}
	return int(min(max(size/CloseRangeHashes, 1), MaxCloseRanges))
}

// CloseRangeBytes estimates the peak memory of a round of a range of
// hashes hashes of a loopy tier of size hashes closed by ranges, whose
// child tiers have kids hashes, on workers threads: the range's set and
// frontier, a set over the tier per thread (what its moves find there,
// the notes) and one more (an input merged, or the checkpoint written),
// and the children's sets of each thread; and BaseBytes.
func CloseRangeBytes(size, hashes uint64, kids []uint64, workers int) uint64 {
	var children uint64
	for _, k := range kids {
		children += BitsetBytes(k)
	}
	w := uint64(max(workers, 1))
	return BaseBytes + 2*BitsetBytes(hashes) + (w+1)*BitsetBytes(size) + w*children
}
