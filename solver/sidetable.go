package solver

import (
	"iter"
	"slices"
	"sort"
)

// A sideTable keeps a value by slot for the cells of a part that cannot
// hold it (a child count too large for the cell, a longest win in another
// tier): sorted words slot<<sideValueBits | value, 8 bytes an entry. A Go
// map of the same held about 40 (a worker's parts held 20 MiB of maps
// beside 25 MiB of cells), and a part's tables only grow in its first
// pass and are only read and counted down after, so a sorted slice and
// binary search serve them.
//
// What is added goes to a pending list first, merged into the sorted
// words when it grows to half of them (or settle is called): a slot added
// more than once keeps its largest value. The zero sideTable is empty.
// Its callers hold the part's sideMu.
type sideTable struct {
	words   []uint64 // settled: slots ascending, each once
	pending []uint64 // added since: any order, a slot perhaps many times
}

const (
	sideValueBits = 24
	sideValueMax  = 1<<sideValueBits - 1
	// sideSlotLimit bounds the slots a sideTable names: 2^40 cells, far
	// past any part one machine holds.
	sideSlotLimit = 1 << (64 - sideValueBits)
	// sidePendingMin is the pending list merged however few the words.
	sidePendingMin = 1 << 16
)

// add records v for slot; the larger value stays if slot has one.
func (t *sideTable) add(slot uint64, v uint32) {
	t.pending = append(t.pending, slot<<sideValueBits|uint64(v))
	if len(t.pending) >= max(len(t.words)/2, sidePendingMin) {
		t.merge()
	}
}

// settle merges what is pending and lets go of the pending list's memory:
// the table is then read, not grown.
func (t *sideTable) settle() {
	t.merge()
	t.pending = nil
}

// merge sorts the pending list into the words, in place from the top.
func (t *sideTable) merge() {
	if len(t.pending) == 0 {
		return
	}
	p := t.pending
	slices.Sort(p)
	// One entry a slot: the last of its run, the largest value.
	u := 0
	for i, x := range p {
		if i+1 < len(p) && p[i+1]>>sideValueBits == x>>sideValueBits {
			continue
		}
		p[u] = x
		u++
	}
	p = p[:u]
	fresh := 0 // slots not in the words yet
	for i, j := 0, 0; j < len(p); {
		switch a, b := sideSlot(t.words, i), p[j]>>sideValueBits; {
		case i < len(t.words) && a < b:
			i++
		case i < len(t.words) && a == b:
			i, j = i+1, j+1
		default:
			fresh, j = fresh+1, j+1
		}
	}
	i, k := len(t.words)-1, len(t.words)+fresh-1
	t.words = slices.Grow(t.words, fresh)[:k+1]
	for j := len(p) - 1; j >= 0; k-- {
		switch a, b := sideSlot(t.words, i), p[j]>>sideValueBits; {
		case i >= 0 && a > b:
			t.words[k], i = t.words[i], i-1
		case i >= 0 && a == b:
			t.words[k], i, j = max(t.words[i], p[j]), i-1, j-1
		default:
			t.words[k], j = p[j], j-1
		}
	}
	t.pending = t.pending[:0]
}

// sideSlot is the slot of words[i], or 0 outside the words.
func sideSlot(words []uint64, i int) uint64 {
	if i < 0 || i >= len(words) {
		return 0
	}
	return words[i] >> sideValueBits
}

// find returns the index of slot's word, settling the table first.
func (t *sideTable) find(slot uint64) (int, bool) {
	t.merge()
	i := sort.Search(len(t.words), func(i int) bool { return t.words[i]>>sideValueBits >= slot })
	return i, i < len(t.words) && t.words[i]>>sideValueBits == slot
}

// get returns slot's value, 0 if it has none.
func (t *sideTable) get(slot uint64) uint32 {
	if i, ok := t.find(slot); ok {
		return uint32(t.words[i] & sideValueMax)
	}
	return 0
}

// countDown takes one from slot's value and reports whether that left
// none; a slot without a value or at zero stays so.
func (t *sideTable) countDown(slot uint64) bool {
	i, ok := t.find(slot)
	if !ok || t.words[i]&sideValueMax == 0 {
		return false
	}
	t.words[i]--
	return t.words[i]&sideValueMax == 0
}

// keep drops the entries for which f is false, and the memory they held
// when that is most of it.
func (t *sideTable) keep(f func(slot uint64, v uint32) bool) {
	t.merge()
	t.words = slices.DeleteFunc(t.words, func(x uint64) bool { return !f(x>>sideValueBits, uint32(x&sideValueMax)) })
	if len(t.words) < cap(t.words)/2 {
		t.words = slices.Clone(t.words)
	}
}

// all yields the slots and their values, slots ascending.
func (t *sideTable) all() iter.Seq2[uint64, uint32] {
	t.merge()
	return func(yield func(uint64, uint32) bool) {
		for _, x := range t.words {
			if !yield(x>>sideValueBits, uint32(x&sideValueMax)) {
				return
			}
		}
	}
}

// len is the number of slots with a value.
func (t *sideTable) len() int {
	t.merge()
	return len(t.words)
}

// bytes is the memory the table holds.
func (t *sideTable) bytes() uint64 { return 8 * uint64(cap(t.words)+cap(t.pending)) }
