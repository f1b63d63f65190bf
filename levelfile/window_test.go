package levelfile

import (
	"bytes"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
)

// readWindow reads the file b's members in [lo, hi) with ReadWindow.
func readWindow(t testing.TB, b []byte, lo, hi uint64) ([]uint64, error) {
	r, err := NewReader(bytes.NewReader(b), fuzzOptions)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s := bitarray.New(lo, hi-lo)
	if err := r.ReadWindow(s); err != nil {
		return nil, err
	}
	return membersOf(s), nil
}

// within is the members of ps in [lo, hi), the model of a window.
func within(ps []uint64, lo, hi uint64) []uint64 {
	var out []uint64
	for _, p := range ps {
		if p >= lo && p < hi {
			out = append(out, p)
		}
	}
	return out
}

// TestReadWindow: a window of every type and dialect holds the file's
// members in its range, whatever the range: before, across, inside and
// after the file's, at word edges and not, empty.
func TestReadWindow(t *testing.T) {
	r := newRand()
	sets := edgeSets()
	sets["random"] = randomSet(r, 1000, 5000, 0.3)
	sets["sparse"] = randomSet(r, 64, 100000, 0.001)
	sets["runs"] = setOf(0, 4096)
	sets["runs"].AddRange(100, 2000)
	sets["runs"].AddRange(2100, 4000)
	for name, s := range sets {
		want := membersOf(s)
		if len(want) == 0 {
			continue
		}
		first, last := want[0], want[len(want)-1]
		windows := [][2]uint64{{0, first}, {first, first + 1}, {first, last + 1}, {last, last + 1}, {last + 1, last + 100},
			{first + (last-first)/3, first + 2*(last-first)/3}, {first + 63, first + 64}, {first + 1, last}}
		for range 20 {
			lo := first + r.Uint64N(last-first+1)
			windows = append(windows, [2]uint64{lo, lo + r.Uint64N(last-lo+2)})
		}
		for _, d := range []Dialect{Spec, Classic} {
			for typ := Type0; typ <= Type3; typ++ {
				b, _ := writeBytes(t, s, &WriteOptions{Types: Types(typ), Dialect: d})
				for _, w := range windows {
					if w[1] < w[0] || w[1]-w[0] > 1<<20 {
						continue
					}
					got, err := readWindow(t, b, w[0], w[1])
					if err != nil {
						t.Fatalf("%s type %d %v [%d, %d): %v", name, typ, d, w[0], w[1], err)
					}
					if !sameMembers(got, within(want, w[0], w[1])) {
						t.Fatalf("%s type %d %v [%d, %d): read %v, want %v", name, typ, d, w[0], w[1], got, within(want, w[0], w[1]))
					}
				}
			}
		}
	}
}

// FuzzReadWindow reads any file's window: never a panic, and a file
// ReadSet accepts gives the window of its members.
func FuzzReadWindow(f *testing.F) {
	for _, typ := range []Type{Type0, Type1, Type2, Type3} {
		var b bytes.Buffer
		Write(&b, setOf(10, 100, 10, 20, 33, 109), &WriteOptions{Types: Types(typ)})
		f.Add(b.Bytes(), uint64(15), uint64(40))
	}
	f.Fuzz(func(t *testing.T, b []byte, lo, n uint64) {
		n %= 1 << 16
		if lo+n < lo {
			return
		}
		got, err := readWindow(t, b, lo, lo+n)
		if err != nil {
			checkErr(t, err)
			return
		}
		r, err := NewReader(bytes.NewReader(b), fuzzOptions)
		if err != nil {
			t.Fatalf("a window read a file the reader refuses: %v", err)
		}
		s, err := r.ReadSet()
		if err != nil {
			return // the window stopped before the file's fault
		}
		if want := within(membersOf(s), lo, lo+n); !sameMembers(got, want) {
			t.Fatalf("window [%d, %d): read %v, want %v", lo, lo+n, got, want)
		}
	})
}
