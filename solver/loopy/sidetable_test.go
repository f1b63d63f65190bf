package loopy

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/internal/race"
)

// TestSideTable checks a sideTable against a map, the model it replaces:
// adds that keep the largest value (with merges of every size, from a
// pending list that repeats slots), count-downs, keep, and all in slot
// order. Under the race detector the tables of many slots take a quarter
// of their adds (the merges of every size stay with few slots): the whole
// test took most of a minute with it, and .ci/run runs it whole without.
func TestSideTable(t *testing.T) {
	for _, c := range []struct {
		name         string
		slots, adds  int
		maxV         uint32
		countDowns   int
		keepFraction int // keep slots whose slot%keepFraction != 0
	}{
		{"empty", 10, 0, 5, 0, 2},
		{"one", 1, 1, 5, 3, 3},
		{"few slots, many adds", 50, 300_000, 1000, 5_000, 4},
		{"many slots", 1 << 21, 200_000, sideValueMax, 50_000, 3},
		{"sparse", 1 << 39, 200_000, 8191, 10_000, 5},
	} {
		seed := uint64(c.adds)
		if race.Enabled && c.slots > 1<<20 {
			c.adds, c.countDowns = c.adds/4, c.countDowns/4
		}
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			var tab sideTable
			defer tab.free()
			model := map[uint64]uint32{}
			for range c.adds {
				s, v := rng.Uint64N(uint64(c.slots)), rng.Uint32N(c.maxV+1)
				if err := tab.add(s, v); err != nil {
					t.Fatal(err)
				}
				model[s] = max(model[s], v)
			}
			check := func(when string) {
				t.Helper()
				if tab.len() != len(model) {
					t.Fatalf("%s: %d entries, model %d", when, tab.len(), len(model))
				}
				want := slices.Sorted(maps.Keys(model))
				i := 0
				for s, v := range tab.all() {
					if s != want[i] || v != model[s] {
						t.Fatalf("%s: entry %d is (%d, %d), want (%d, %d)", when, i, s, v, want[i], model[want[i]])
					}
					i++
				}
				for range 1000 {
					s := rng.Uint64N(uint64(c.slots))
					if got := tab.get(s); got != model[s] {
						t.Fatalf("%s: slot %d holds %d, want %d", when, s, got, model[s])
					}
				}
			}
			check("after adds")
			tab.settle()
			if tab.pending.cap() != 0 {
				t.Errorf("settled with %d pending words held", tab.pending.cap())
			}
			keys := slices.Sorted(maps.Keys(model))
			for range c.countDowns {
				s := keys[rng.IntN(len(keys))]
				got := tab.countDown(s)
				want := false
				if model[s] > 0 {
					model[s]--
					want = model[s] == 0
				}
				if got != want {
					t.Fatalf("countDown(%d) says none left %v, want %v", s, got, want)
				}
			}
			if c.countDowns > 0 && tab.countDown(uint64(c.slots)+1) {
				t.Error("countDown of a slot without a value says none left")
			}
			check("after count-downs")
			before := tab.bytes()
			tab.keep(func(s uint64, v uint32) bool {
				if v != model[s] {
					t.Fatalf("keep: slot %d with %d, model %d", s, v, model[s])
				}
				return s%uint64(c.keepFraction) != 0
			})
			maps.DeleteFunc(model, func(s uint64, _ uint32) bool { return s%uint64(c.keepFraction) == 0 })
			check("after keep")
			if len(model) < int(before/8)/2 && tab.bytes() >= before {
				t.Errorf("keep left %d bytes of %d for %d entries", tab.bytes(), before, len(model))
			}
		})
	}
}

// TestSideTableBytes checks that a table's memory is its entries', not a
// map's: 8 bytes an entry, and the pending list (with the words' room
// for it) at most twice half of them (over sidePendingMin). Once large
// it is outside the Go heap, where growing does not copy it (bigmem), and
// free gives it all back.
func TestSideTableBytes(t *testing.T) {
	before := bigmem.Mapped()
	var tab sideTable
	const n = 1 << 20
	for i := range uint64(n) {
		if err := tab.add(i*3, uint32(i&0xff)); err != nil {
			t.Fatal(err)
		}
		if b := tab.bytes(); i > 2*sidePendingMin && b > 8*(i+1)*5/2 {
			t.Fatalf("%d bytes for %d entries", b, i+1)
		}
	}
	if got := bigmem.Mapped() - before; got != tab.bytes() {
		t.Errorf("%d bytes mapped for a table of %d", got, tab.bytes())
	}
	tab.settle()
	if b := tab.bytes(); b != 8*n {
		t.Errorf("settled: %d bytes for %d entries (a map held about 40 an entry)", b, n)
	}
	tab.free()
	if got := bigmem.Mapped(); got != before {
		t.Errorf("%d bytes mapped after free, %d before", got, before)
	}
}
