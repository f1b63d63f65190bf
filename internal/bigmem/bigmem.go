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
	holdLimit()
	m := &mapping{b: b}
	return &Array{words: unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n), mem: m}, nil
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
