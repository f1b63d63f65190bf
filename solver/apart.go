package solver

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// A worker's state that it writes for every position (its move lists'
// headers, scratch slices, queues by level) is kept on cache lines of its
// own. Small objects that different workers allocate often sit side by
// side in memory, and a line that two cores write bounces between their
// caches (false sharing): with two workers, the reachability of Connect
// Four 6x4 used 18% more CPU than with one while two workers' 24-byte
// arrays of list headers could share a line; with them apart, 8%.

// apart holds a value on cache lines of its own.
type apart[T any] struct {
	_ cpu.CacheLinePad
	v T
	_ cpu.CacheLinePad
}

// newApart returns a zero T on cache lines of its own.
func newApart[T any]() *T { return &new(apart[T]).v }

// makeApart returns n zero Ts on cache lines of their own. The slice's
// capacity is n: an append moves it out of its padding.
func makeApart[T any](n int) []T {
	size := max(unsafe.Sizeof(*new(T)), 1)
	pad := int((unsafe.Sizeof(cpu.CacheLinePad{}) + size - 1) / size)
	s := make([]T, n+2*pad)
	return s[pad : pad+n : pad+n]
}
