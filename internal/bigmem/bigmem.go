// Package bigmem holds large arrays outside the Go heap, in anonymous
// memory mappings.
//
// A solver step allocates a few arrays of hundreds of megabytes or more,
// keeps them for the step, and drops them. On the Go heap such an array
// counts toward the collector's goal (the heap may grow to twice what is
// live before a collection) and its pages go back to the system only when
// the collector and the scavenger get to them, so a step that follows
// another briefly holds both. A mapping is zero when made, takes memory
// only for the pages written, and returns it when freed: the peak is what
// is live.
//
// An Array's owner frees it (Free) when done: the collector does not see
// the mapping, so an Array dropped without Free stays mapped (a leak, not
// a crash: a cleanup that unmapped it could run while a slice of it is in
// use, which the collector cannot see either). An Array must not be used
// after Free.
package bigmem

import (
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Array is a zeroed array of uint64 words outside the Go heap.
type Array struct {
	words []uint64
	mem   *mapping
}

// mapping is the memory behind an Array, unmapped once.
type mapping struct {
	once sync.Once
	b    []byte
}

func (m *mapping) unmap() {
	m.once.Do(func() {
		if m.b != nil {
			unix.Munmap(m.b)
			mapped.Add(-int64(len(m.b)))
			m.b = nil
			holdLimit()
		}
	})
}

// mapped counts the bytes of the mappings not yet unmapped.
var mapped atomic.Int64

// Mapped is the memory of the Arrays made and not yet freed outside the
// Go heap: the runtime does not count it (runtime/metrics, the memory
// limit), a process's resident set does, once written.
func Mapped() uint64 { return uint64(max(mapped.Load(), 0)) }

// limit is LimitGo's total (0: none), under limitMu, which also orders
// the updates of the Go runtime's limit.
var (
	limitMu sync.Mutex
	limit   int64
)

// LimitGo holds the Go runtime's memory and the Arrays together within
// total bytes: from now on the runtime's memory limit
// (debug.SetMemoryLimit) is total less the Arrays mapped, updated as they
// are made (before they are written) and freed. The runtime's limit alone
// would let the heap grow to it beside the arrays, which it does not see.
// The limit stays at least an eighth of total: below the live heap it
// would only keep the collector running. total <= 0 stops holding it
// (the limit stays as it is).
func LimitGo(total int64) {
	limitMu.Lock()
	limit = max(total, 0)
	limitMu.Unlock()
	holdLimit()
}

// holdLimit sets the runtime's memory limit to LimitGo's total less the
// mappings.
func holdLimit() {
	limitMu.Lock()
	defer limitMu.Unlock()
	if limit > 0 {
		debug.SetMemoryLimit(max(limit-mapped.Load(), limit/8))
	}
}

// makeRoom is holdLimit before a mapping grows, which then returns the
// memory the runtime holds past its new limit at once (a collection, and
// what it freed given back): the runtime gives it back on its own only
// as it allocates again or its scavenger gets to it, and the mapping's
// pages were written meanwhile. A worker that had just dropped a unit's
// sets from its memory (the Go heap's) mapped the next unit's cells
// beside their pages, 1% past its budget. What a collection leaves is
// in use: makeRoom collects again only once the runtime holds roomSlack
// more, so a table growing beside a heap full of live data does not
// collect at every step for nothing.
func makeRoom() {
	holdLimit()
	limitMu.Lock()
	held := goMemory()
	over := limit > 0 && held > max(limit-mapped.Load(), limit/8)+roomSlack && held > leftByRoom+roomSlack
	limitMu.Unlock()
	if !over {
		return
	}
	debug.FreeOSMemory()
	limitMu.Lock()
	leftByRoom = goMemory()
	limitMu.Unlock()
}

// leftByRoom is the runtime's memory after makeRoom's last collection,
// under limitMu.
var leftByRoom int64

// roomSlack is how far past its limit the runtime's memory may be when a
// mapping grows before makeRoom collects, and how much more than its last
// collection left: less is not worth a collection.
const roomSlack = 4 << 20

// GoMemory is the memory the Go runtime holds from the system (heap,
// stacks, its own structures), less what it has given back: what its
// memory limit (debug.SetMemoryLimit) counts.
func GoMemory() uint64 {
	ms := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(ms)
	total, released := ms[0].Value.Uint64(), ms[1].Value.Uint64()
	return total - min(total, released)
}

// goMemory is GoMemory as a signed count, for makeRoom's comparisons.
func goMemory() int64 { return int64(GoMemory()) }

// smallBytes is the size below which an array is an ordinary Go slice: a
// mapping costs a system call and whole pages.
const smallBytes = 1 << 20

// Words returns an array of n zero words.
func Words(n uint64) (*Array, error) {
	if n == 0 {
		return &Array{}, nil
	}
	size := n * 8
	if size/8 != n || size > uint64(^uint(0)>>1) {
		return nil, fmt.Errorf("bigmem: %d words do not fit in memory", n)
	}
	if size < smallBytes {
		return &Array{words: make([]uint64, n)}, nil
	}
	b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("bigmem: mapping %d bytes: %w", size, err)
	}
	mapped.Add(int64(size))
	makeRoom() // before the pages are written
	m := &mapping{b: b}
	return &Array{words: unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n), mem: m}, nil
}

// Grow makes the array n words long (n at least its length), keeping its
// words; the new ones are zero. An array outside the Go heap is remapped
// (mremap), its pages moved rather than copied, so that growing it never
// holds the old array and the new one at once: a step that widens its
// cells in place needs the wide array's memory, not both. Slices of the
// array taken before are invalid after.
func (a *Array) Grow(n uint64) error {
	old := uint64(len(a.words))
	switch {
	case n < old:
		return fmt.Errorf("bigmem: cannot grow %d words to %d", old, n)
	case n == old:
		return nil
	case a.mem == nil:
		// On the Go heap (or empty): a new array, the words copied; a
		// small one stays on the heap.
		b, err := Words(n)
		if err != nil {
			return err
		}
		copy(b.words, a.words)
		*a = *b
		return nil
	}
	size := n * 8
	if size/8 != n || size > uint64(^uint(0)>>1) {
		return fmt.Errorf("bigmem: %d words do not fit in memory", n)
	}
	m := a.mem
	mapped.Add(int64(size) - int64(len(m.b)))
	makeRoom() // before the pages are written
	b, err := unix.Mremap(m.b, int(size), unix.MREMAP_MAYMOVE)
	if err != nil {
		mapped.Add(int64(len(m.b)) - int64(size))
		holdLimit()
		return fmt.Errorf("bigmem: remapping %d bytes to %d: %w", len(m.b), size, err)
	}
	m.b = b
	a.words = unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
	return nil
}

// Shrink makes the array n words long (n at most its length), keeping
// its first n words, and returns the memory of the rest at once: an
// array outside the Go heap is remapped smaller in place, its last pages
// given back (the Go runtime's limit rises after). Slices of the array
// taken before are invalid after.
func (a *Array) Shrink(n uint64) error {
	old := uint64(len(a.words))
	switch {
	case n > old:
		return fmt.Errorf("bigmem: cannot shrink %d words to %d", old, n)
	case n == old:
		return nil
	case n == 0:
		a.Free()
		*a = Array{}
		return nil
	case a.mem == nil:
		// On the Go heap: a small array, copied.
		a.words = append([]uint64(nil), a.words[:n]...)
		return nil
	}
	// The words past n on n's last page stay mapped: zero them, as Grow
	// promises new words are.
	page := uint64(unix.Getpagesize()) / 8
	clear(a.words[n:min(old, (n+page-1)/page*page)])
	m := a.mem
	b, err := unix.Mremap(m.b, int(n*8), 0)
	if err != nil {
		return fmt.Errorf("bigmem: remapping %d bytes to %d: %w", len(m.b), n*8, err)
	}
	mapped.Add(int64(len(b)) - int64(len(m.b)))
	m.b = b
	a.words = unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
	holdLimit() // after the pages are gone
	return nil
}

// Words is the array's words; they are valid until Free.
func (a *Array) Words() []uint64 { return a.words }

// Bytes is the array's memory as bytes, valid until Free.
func (a *Array) Bytes() []byte {
	if len(a.words) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&a.words[0])), 8*len(a.words))
}

// Len is the number of words.
func (a *Array) Len() uint64 { return uint64(len(a.words)) }

// Free returns the array's memory; a second Free does nothing. The array
// is empty afterwards; any slice of it the caller still holds must not be
// used.
func (a *Array) Free() {
	if a == nil {
		return
	}
	a.words = nil
	if a.mem != nil {
		a.mem.unmap()
	}
}
