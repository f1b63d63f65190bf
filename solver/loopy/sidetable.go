package loopy

import (
	"iter"
	"slices"
	"sort"

	"github.com/tiersolve/tiersolve/internal/bigmem"
)

// A sideTable keeps a value by slot for the cells of a part that cannot
// hold it (a child count too large for the cell, a longest win in another
// tier): sorted words slot<<sideValueBits | value, 8 bytes an entry. A Go
// map of the same held about 40 (a worker's parts held 20 MiB of maps
// beside 25 MiB of cells), and a part's tables only grow in its first
// pass and are only read and counted down after, so a sorted array and
// binary search serve them.
//
// What is added goes to a pending list first, merged into the sorted
// words when it grows to half of them (or settle is called): a slot added
// more than once keeps its largest value. The words always have room for
// the pending ones, so a merge never allocates, and both lists are
// wordLists, outside the Go heap once large: a Go slice grown by append
// holds its old array and the new one at once, and a part's tables of
// tens of MiB took a worker that much past its budget (K+R+N v K+R+A at
// a third: 6.6%). The zero sideTable is empty; its owner frees it. Its
// callers hold the part's sideMu.
type sideTable struct {
	words   wordList // settled: slots ascending, each once
	pending wordList // added since: any order, a slot perhaps many times
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

// add records v for slot; the larger value stays if slot has one. It
// fails only if the memory for the entry cannot be mapped.
func (t *sideTable) add(slot uint64, v uint32) error {
	if err := t.words.reserve(t.words.n + t.pending.n + 1); err != nil {
		return err
	}
	if err := t.pending.push(slot<<sideValueBits | uint64(v)); err != nil {
		return err
	}
	if t.pending.n >= max(t.words.n/2, sidePendingMin) {
		t.merge()
	}
	return nil
}

// settle merges what is pending and lets go of the pending list's memory
// and the words' room for it: the table is then read, not grown.
func (t *sideTable) settle() {
	t.merge()
	t.pending.free()
	t.words.clip()
}

// free returns the table's memory; the table is empty afterwards.
func (t *sideTable) free() {
	t.words.free()
	t.pending.free()
}

// merge sorts the pending list into the words, in place from the top,
// in the room the words keep for it.
func (t *sideTable) merge() {
	if t.pending.n == 0 {
		return
	}
	p := t.pending.all()
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
	words := t.words.all()
	fresh := 0 // slots not in the words yet
	for i, j := 0, 0; j < len(p); {
		switch a, b := sideSlot(words, i), p[j]>>sideValueBits; {
		case i < len(words) && a < b:
			i++
		case i < len(words) && a == b:
			i, j = i+1, j+1
		default:
			fresh, j = fresh+1, j+1
		}
	}
	i, k := len(words)-1, len(words)+fresh-1
	t.words.n += fresh // within the room add reserved
	words = t.words.all()
	for j := len(p) - 1; j >= 0; k-- {
		switch a, b := sideSlot(words, i), p[j]>>sideValueBits; {
		case i >= 0 && a > b:
			words[k], i = words[i], i-1
		case i >= 0 && a == b:
			words[k], i, j = max(words[i], p[j]), i-1, j-1
		default:
			words[k], j = p[j], j-1
		}
	}
	t.pending.n = 0
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
	words := t.words.all()
	i := sort.Search(len(words), func(i int) bool { return words[i]>>sideValueBits >= slot })
	return i, i < len(words) && words[i]>>sideValueBits == slot
}

// get returns slot's value, 0 if it has none.
func (t *sideTable) get(slot uint64) uint32 {
	if i, ok := t.find(slot); ok {
		return uint32(t.words.all()[i] & sideValueMax)
	}
	return 0
}

// countDown takes one from slot's value and reports whether that left
// none; a slot without a value or at zero stays so.
func (t *sideTable) countDown(slot uint64) bool {
	i, ok := t.find(slot)
	words := t.words.all()
	if !ok || words[i]&sideValueMax == 0 {
		return false
	}
	words[i]--
	return words[i]&sideValueMax == 0
}

// keep drops the entries for which f is false, and the memory they held
// when that is most of it.
func (t *sideTable) keep(f func(slot uint64, v uint32) bool) {
	t.merge()
	t.words.n = len(slices.DeleteFunc(t.words.all(), func(x uint64) bool { return !f(x>>sideValueBits, uint32(x&sideValueMax)) }))
	if t.words.n < t.words.cap()/2 {
		t.words.clip()
	}
}

// all yields the slots and their values, slots ascending.
func (t *sideTable) all() iter.Seq2[uint64, uint32] {
	t.merge()
	return func(yield func(uint64, uint32) bool) {
		for _, x := range t.words.all() {
			if !yield(x>>sideValueBits, uint32(x&sideValueMax)) {
				return
			}
		}
	}
}

// len is the number of slots with a value.
func (t *sideTable) len() int {
	t.merge()
	return t.words.n
}

// bytes is the memory the table holds.
func (t *sideTable) bytes() uint64 { return 8 * uint64(t.words.cap()+t.pending.cap()) }

// A wordList is a list of words in a bigmem.Array: on the Go heap while
// small, in a mapping of its own once large, where growing and shrinking
// remap its pages rather than copy them. The zero wordList is empty; its
// owner frees it.
type wordList struct {
	mem *bigmem.Array // nil: no memory
	n   int           // the words in use, the first n of mem's
}

// all is the words in use, valid until the list grows or shrinks.
func (l *wordList) all() []uint64 {
	if l.mem == nil {
		return nil
	}
	return l.mem.Words()[:l.n]
}

// cap is the words the list has memory for.
func (l *wordList) cap() int {
	if l.mem == nil {
		return 0
	}
	return int(l.mem.Len())
}

// reserve makes room for n words in all, a quarter more than the list
// has at least, as append does for large slices.
func (l *wordList) reserve(n int) error {
	if n <= l.cap() {
		return nil
	}
	n = max(n, l.cap()+l.cap()/4, 16)
	if l.mem == nil {
		a, err := bigmem.Words(uint64(n))
		if err != nil {
			return err
		}
		l.mem = a
		return nil
	}
	return l.mem.Grow(uint64(n))
}

// push adds x at the end.
func (l *wordList) push(x uint64) error {
	if err := l.reserve(l.n + 1); err != nil {
		return err
	}
	l.mem.Words()[l.n] = x
	l.n++
	return nil
}

// clip gives back the memory past the words in use. A remap that fails
// keeps it: the list stays as it was.
func (l *wordList) clip() {
	if l.mem != nil && l.cap() > l.n {
		_ = l.mem.Shrink(uint64(l.n))
	}
}

// free gives back the list's memory; the list is empty afterwards.
func (l *wordList) free() {
	l.mem.Free()
	*l = wordList{}
}
