package gnubgbd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// header builds a 40-byte header as makebearoff writes it.
func header(s string) []byte {
	h := []byte(s)
	for len(h) < headerLen-1 {
		h = append(h, 'x')
	}
	return append(h, '\n')
}

// twoSided builds a two-sided file of 1 point and 1 checker (N = 2) whose
// values count up from v0, with k values a position.
func twoSided(cubeful bool, v0 uint16) []byte {
	f, k := 0, 1
	if cubeful {
		f, k = 1, 4
	}
	b := header(fmt.Sprintf("gnubg-TS-01-01-%d", f))
	for x := range 4 * k {
		b = binary.LittleEndian.AppendUint16(b, v0+uint16(x))
	}
	return b
}

// oneSided builds a compressed one-sided file of 1 point (15 checkers,
// N = 16): board i bears off in exactly i rolls, and its first checker
// in one roll (none for board 0).
func oneSided() []byte {
	b := header("gnubg-OS-01-15-1-1-0")
	var data []byte
	for i := range 16 {
		off := uint32(len(data) / 2)
		b = binary.LittleEndian.AppendUint32(b, off)
		first := min(i, 1)
		b = append(b, 1, byte(i), 1, byte(first))
		data = binary.LittleEndian.AppendUint16(data, 0xFFFF)
		data = binary.LittleEndian.AppendUint16(data, 0xFFFF)
	}
	return append(b, data...)
}

func TestReadTwoSided(t *testing.T) {
	for _, cubeful := range []bool{false, true} {
		b := twoSided(cubeful, 100)
		d, err := ReadTwoSided(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		step := uint16(1)
		if cubeful {
			step = 4
		}
		if d.N != 2 || d.Cubeful != cubeful || d.Raw(1, 0) != 100+2*step || d.Equity(0, 0) != 100/32767.5-1 {
			t.Errorf("cubeful %v: %+v", cubeful, d)
		}
		want := [4]uint16{100 + 3*step}
		if cubeful {
			want = [4]uint16{112, 113, 114, 115}
		}
		if v := d.Values(1, 1); v != want || EquityOf(v[0]) != d.Equity(1, 1) {
			t.Errorf("cubeful %v: Values(1, 1) = %v, want %v", cubeful, v, want)
		}
		if _, err := ReadTwoSided(bytes.NewReader(b[:len(b)-1]), int64(len(b)-1)); !errors.Is(err, ErrFormat) {
			t.Errorf("a short file: %v", err)
		}
	}
}

func TestReadOneSided(t *testing.T) {
	b := oneSided()
	d, err := ReadOneSided(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.N {
		off, first := d.Dist(i)
		if off[i] != 0xFFFF || first[min(i, 1)] != 0xFFFF {
			t.Fatalf("board %d: %v %v", i, off, first)
		}
	}
	bad := bytes.Clone(b)
	bad[40+8*3+4] = 40 // a run past 32 slots
	if _, err := ReadOneSided(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, ErrFormat) {
		t.Errorf("a run past the end: %v", err)
	}
}

// FuzzRead: any file is read or refused with ErrFormat, never a panic, and
// what is read can be looked up everywhere.
func FuzzRead(f *testing.F) {
	f.Add(twoSided(false, 0))
	f.Add(twoSided(true, 7))
	f.Add(oneSided())
	f.Add(header("gnubg-OS-01-15-0-0-0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		if d, err := ReadTwoSided(r, int64(len(b))); err == nil {
			for i := range d.N {
				for j := range d.N {
					d.Equity(i, j)
				}
			}
		} else if !errors.Is(err, ErrFormat) {
			t.Fatalf("two-sided: %v", err)
		}
		if d, err := ReadOneSided(r, int64(len(b))); err == nil {
			for i := range d.N {
				d.Dist(i)
			}
		} else if !errors.Is(err, ErrFormat) {
			t.Fatalf("one-sided: %v", err)
		}
	})
}
