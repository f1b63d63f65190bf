package bigmem

import (
	"runtime/debug"
	"testing"
)

// TestLimitGo: the Go runtime's memory limit is LimitGo's total less the
// arrays mapped, as they are made and freed, and never below an eighth of
// the total; Mapped counts the mappings, not the small arrays on the heap.
func TestLimitGo(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer LimitGo(0)
	const total = 64 << 20
	before := Mapped()
	LimitGo(total)
	if got := debug.SetMemoryLimit(-1); got != total-int64(before) {
		t.Fatalf("limit %d, want %d", got, total-int64(before))
	}
	a, err := Words(2 << 20) // 16 MiB, mapped
	if err != nil {
		t.Fatal(err)
	}
	small, err := Words(16) // on the heap
	if err != nil {
		t.Fatal(err)
	}
	if got := Mapped() - before; got != 16<<20 {
		t.Errorf("mapped %d, want %d", got, 16<<20)
	}
	if got := debug.SetMemoryLimit(-1); got != total-int64(before)-16<<20 {
		t.Errorf("limit with an array mapped: %d, want %d", got, total-int64(before)-16<<20)
	}
	b, err := Words(7 << 20) // 56 MiB: the limit would go below an eighth
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != total/8 {
		t.Errorf("limit past the total: %d, want %d", got, total/8)
	}
	b.Free()
	a.Free()
	a.Free() // twice: counted once
	small.Free()
	if got := Mapped(); got != before {
		t.Errorf("mapped after Free: %d, want %d", got, before)
	}
	if got := debug.SetMemoryLimit(-1); got != total-int64(before) {
		t.Errorf("limit after Free: %d, want %d", got, total-int64(before))
	}
}
