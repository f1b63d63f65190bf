package bigmem

import (
	"runtime/debug"
	"runtime/metrics"
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

// TestGrow: a grown array keeps its words and its new ones are zero,
// whether it was on the heap or mapped; Mapped counts the grown mapping;
// it never shrinks.
func TestGrow(t *testing.T) {
	before := Mapped()
	for _, n := range []uint64{16, 1 << 17, 3 << 17} { // on the heap, on the heap then mapped, mapped
		a, err := Words(n)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.Words() {
			a.Words()[i] = uint64(i)*2654435761 + 1
		}
		if err := a.Grow(2*n + 5); err != nil {
			t.Fatal(err)
		}
		w := a.Words()
		if uint64(len(w)) != 2*n+5 || a.Len() != 2*n+5 {
			t.Fatalf("%d words grown to %d, want %d", n, len(w), 2*n+5)
		}
		for i := range w {
			want := uint64(0)
			if uint64(i) < n {
				want = uint64(i)*2654435761 + 1
			}
			if w[i] != want {
				t.Fatalf("%d words grown: word %d is %d, want %d", n, i, w[i], want)
			}
		}
		if (2*n+5)*8 >= smallBytes && Mapped()-before != (2*n+5)*8 {
			t.Errorf("%d words grown: %d bytes mapped, want %d", n, Mapped()-before, (2*n+5)*8)
		}
		if err := a.Grow(n); err == nil {
			t.Errorf("%d words shrunk to %d without an error", 2*n+5, n)
		}
		a.Free()
		if Mapped() != before {
			t.Errorf("mapped after Free: %d, want %d", Mapped(), before)
		}
	}
}

// TestShrink checks that a shrunk array keeps its first words and gives
// back the rest: on the heap, and mapped (the count of mapped bytes
// falls with it); shrinking to none frees it, and growing it again
// works.
func TestShrink(t *testing.T) {
	before := Mapped()
	for _, c := range []struct{ n, to uint64 }{{16, 5}, {1 << 18, 1 << 17}, {1 << 18, 100}, {1 << 18, 0}, {5, 5}} {
		a, err := Words(c.n)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.Words() {
			a.Words()[i] = uint64(i) + 7
		}
		if err := a.Shrink(c.to); err != nil {
			t.Fatal(err)
		}
		if a.Len() != c.to {
			t.Fatalf("%d words shrunk to %d: %d", c.n, c.to, a.Len())
		}
		for i, x := range a.Words() {
			if x != uint64(i)+7 {
				t.Fatalf("%d words shrunk to %d: word %d is %d", c.n, c.to, i, x)
			}
		}
		if c.n*8 >= smallBytes && c.to > 0 && Mapped()-before != c.to*8 {
			t.Errorf("%d words shrunk to %d: %d bytes mapped, want %d", c.n, c.to, Mapped()-before, c.to*8)
		}
		if err := a.Shrink(c.to + 1); err == nil {
			t.Errorf("%d words grown by Shrink without an error", c.to)
		}
		if err := a.Grow(c.to + 3); err != nil {
			t.Fatal(err)
		}
		if w := a.Words(); w[c.to] != 0 || w[c.to+2] != 0 {
			t.Errorf("%d words shrunk to %d and grown: new words %d, %d", c.n, c.to, w[c.to], w[c.to+2])
		}
		a.Free()
		if Mapped() != before {
			t.Errorf("mapped after Free: %d, want %d", Mapped(), before)
		}
	}
}

// TestMakeRoom: an array mapped while the runtime holds memory past the
// limit it leaves (a heap's garbage, not yet given back) has that memory
// given back before its pages are written.
func TestMakeRoom(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer LimitGo(0)
	debug.FreeOSMemory()
	const garbage, array = 64 << 20, 48 << 20
	LimitGo(goMemory() + int64(Mapped()) + garbage)
	g := make([]byte, garbage)
	for i := range g {
		g[i] = byte(i)
	}
	sink = g
	sink = nil
	if goMemory() < garbage {
		t.Fatalf("the runtime holds %d bytes, fewer than the garbage", goMemory())
	}
	a, err := Words(array / 8)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	if got, room := goMemory(), debug.SetMemoryLimit(-1); got > room+roomSlack {
		t.Errorf("the runtime holds %d bytes beside the array, past the %d its limit leaves", got, room)
	}
}

// TestMakeRoomLive: memory in use past the limit is collected for once,
// not again at every mapping while the runtime holds no more.
func TestMakeRoomLive(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer LimitGo(0)
	live := make([]byte, 32<<20)
	for i := range live {
		live[i] = byte(i)
	}
	sink = live
	defer func() { sink = nil }()
	debug.FreeOSMemory()
	LimitGo(goMemory() + int64(Mapped()) - 16<<20) // the live slice is past it
	forced := func() uint64 {
		ms := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
		metrics.Read(ms)
		return ms[0].Value.Uint64()
	}
	before := forced()
	for range 5 {
		a, err := Words(2 << 17) // 2 MiB, mapped
		if err != nil {
			t.Fatal(err)
		}
		defer a.Free()
	}
	if n := forced() - before; n > 1 {
		t.Errorf("%d collections for five mappings beside live memory, want at most one", n)
	}
}

// sink keeps the garbage of TestMakeRoom, and TestMakeRoomLive's live
// slice, from being optimized away.
var sink []byte
