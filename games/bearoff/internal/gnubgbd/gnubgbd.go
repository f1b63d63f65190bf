// Package gnubgbd reads GNU Backgammon's bearoff databases, the files
// gnubg's makebearoff writes (gnubg_os0.bd ships with gnubg), to check
// this project's bearoff solver against them.
//
// Both kinds start with a 40-byte ASCII header. A two-sided database,
// "gnubg-TS-PP-CC-F...", holds for every position, by gnubg's two-sided
// index i*N+j (i the side on roll, N = C(P+C, C)), one uint16 LE (the
// cubeless equity e stored as floor((e+1)*32767.5)) or, when F is 1, four
// (cubeless, then cubeful equities). A one-sided database,
// "gnubg-OS-PP-15-G-C-D...", holds for every position the distribution of
// the number of rolls it takes to bear off (and, with G, to bear off the
// first checker: gammon), 32 uint16 LE values summing to 65535; compressed
// (C) files keep only each distribution's non-zero run, found through an
// index of 8 bytes a position.
package gnubgbd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrFormat marks a file that is not a gnubg bearoff database this package
// reads.
var ErrFormat = errors.New("not a gnubg bearoff database")

const headerLen = 40

// maxFile bounds the files this package reads into memory: the 6-point
// 15-checker two-sided database with cubeful equities is 24 GB, far above;
// the largest file a test makes is tens of megabytes.
const maxFile = 1 << 31

// TwoSided is a two-sided database in memory.
type TwoSided struct {
	Points, Checkers int
	Cubeful          bool
	N                int // one-sided positions: C(Points+Checkers, Checkers)
	data             []byte
}

// Raw returns the stored cubeless value of mover i against opponent j.
func (d *TwoSided) Raw(i, j int) uint16 {
	k := 1
	if d.Cubeful {
		k = 4
	}
	off := 2 * k * (i*d.N + j)
	return binary.LittleEndian.Uint16(d.data[off:])
}

// Cubeful record indices of a two-sided database with cubeful equities
// (Values): after the cubeless equity, the cubeful money equities of the
// player on roll (cube value 1, rolling without doubling) with the cube
// owned by them, centered, and owned by the opponent.
const (
	Cubeless = iota
	OwnedCube
	CenteredCube
	OpponentOwnsCube
)

// Values returns the stored records of mover i against opponent j, by the
// indices above; only Cubeless is set in a database without cubeful
// equities.
func (d *TwoSided) Values(i, j int) (v [4]uint16) {
	if !d.Cubeful {
		v[Cubeless] = d.Raw(i, j)
		return v
	}
	off := 8 * (i*d.N + j)
	for k := range v {
		v[k] = binary.LittleEndian.Uint16(d.data[off+2*k:])
	}
	return v
}

// EquityOf reads a stored record as gnubg does: v/32767.5 - 1.
func EquityOf(v uint16) float64 { return float64(v)/32767.5 - 1 }

// Equity returns the cubeless equity of mover i against opponent j, as
// gnubg reads it: Raw/32767.5 - 1.
func (d *TwoSided) Equity(i, j int) float64 { return float64(d.Raw(i, j))/32767.5 - 1 }

// ReadTwoSided reads a two-sided database of size bytes.
func ReadTwoSided(r io.ReaderAt, size int64) (*TwoSided, error) {
	h, err := readHeader(r, size, "TS")
	if err != nil {
		return nil, err
	}
	d := &TwoSided{}
	var f fields
	d.Points = f.get(h, 9, 2, 1, 6)
	d.Checkers = f.get(h, 12, 2, 1, 15)
	d.Cubeful = f.get(h, 15, 1, 0, 1) == 1
	if f.err != nil {
		return nil, f.err
	}
	d.N = binom(d.Points+d.Checkers, d.Checkers)
	k := int64(2)
	if d.Cubeful {
		k = 8
	}
	if want := headerLen + k*int64(d.N)*int64(d.N); size != want {
		return nil, fmt.Errorf("%w: %d bytes for %d points and %d checkers, want %d", ErrFormat, size, d.Points, d.Checkers, want)
	}
	d.data = make([]byte, size-headerLen)
	if _, err := r.ReadAt(d.data, headerLen); err != nil {
		return nil, err
	}
	return d, nil
}

// OneSided is a one-sided database in memory.
type OneSided struct {
	Points, Checkers int
	Gammon           bool
	N                int
	dists            [][2][32]uint16 // by index: bear-off and gammon distributions
}

// Dist returns the distribution of the number of rolls to bear off every
// checker of one-sided position i (out of 65535), and, if the file has
// them, to bear off the first (gammon).
func (d *OneSided) Dist(i int) (off, gammon [32]uint16) { return d.dists[i][0], d.dists[i][1] }

// ReadOneSided reads a one-sided database of size bytes (compressed or
// not; not the normal-distribution approximation).
func ReadOneSided(r io.ReaderAt, size int64) (*OneSided, error) {
	h, err := readHeader(r, size, "OS")
	if err != nil {
		return nil, err
	}
	d := &OneSided{}
	var f fields
	d.Points = f.get(h, 9, 2, 1, 6)
	d.Checkers = f.get(h, 12, 2, 15, 15)
	gammon := f.get(h, 15, 1, 0, 1)
	compressed := f.get(h, 17, 1, 0, 1)
	f.get(h, 19, 1, 0, 0) // not the normal-distribution approximation
	if f.err != nil {
		return nil, f.err
	}
	d.Gammon = gammon == 1
	d.N = binom(d.Points+d.Checkers, d.Checkers)
	per := 1 // distributions per position
	if d.Gammon {
		per = 2
	}
	if compressed == 0 {
		want := headerLen + int64(d.N)*int64(per)*64
		if size != want {
			return nil, fmt.Errorf("%w: %d bytes, want %d", ErrFormat, size, want)
		}
	} else if size < headerLen+8*int64(d.N) {
		return nil, fmt.Errorf("%w: %d bytes, too short for an index of %d positions", ErrFormat, size, d.N)
	}
	raw := make([]byte, size-headerLen)
	if _, err := r.ReadAt(raw, headerLen); err != nil {
		return nil, err
	}
	d.dists = make([][2][32]uint16, d.N)
	for i := range d.dists {
		if compressed == 0 {
			for k := range per {
				for x := range 32 {
					d.dists[i][k][x] = binary.LittleEndian.Uint16(raw[(i*per+k)*64+2*x:])
				}
			}
			continue
		}
		idx := raw[8*i:]
		off := int64(binary.LittleEndian.Uint32(idx))
		runs := [2][2]int{{int(idx[4]), int(idx[5])}, {int(idx[6]), int(idx[7])}} // (count, first) of each distribution
		if !d.Gammon {
			runs[1] = [2]int{}
		}
		data := 8*int64(d.N) + 2*off
		for k, run := range runs {
			n, first := run[0], run[1]
			if n+first > 32 || data+2*int64(n) > int64(len(raw)) {
				return nil, fmt.Errorf("%w: position %d: a run of %d values from %d at offset %d", ErrFormat, i, n, first, off)
			}
			for x := range n {
				d.dists[i][k][first+x] = binary.LittleEndian.Uint16(raw[data+2*int64(x):])
			}
			data += 2 * int64(n)
		}
	}
	return d, nil
}

// readHeader reads and checks the header's magic and kind.
func readHeader(r io.ReaderAt, size int64, kind string) ([]byte, error) {
	if size < headerLen || size > maxFile {
		return nil, fmt.Errorf("%w: %d bytes", ErrFormat, size)
	}
	h := make([]byte, headerLen)
	if _, err := r.ReadAt(h, 0); err != nil {
		return nil, err
	}
	if string(h[:6]) != "gnubg-" || string(h[6:8]) != kind {
		return nil, fmt.Errorf("%w: header %q is not gnubg-%s", ErrFormat, h[:8], kind)
	}
	return h, nil
}

// fields parses header fields, keeping the first error.
type fields struct{ err error }

// get parses the n-digit decimal at h[at:] and checks its range.
func (f *fields) get(h []byte, at, n, lo, hi int) int {
	if f.err != nil {
		return 0
	}
	v, err := strconv.Atoi(string(h[at : at+n]))
	if err != nil || v < lo || v > hi {
		f.err = fmt.Errorf("%w: header field %q at %d, want %d..%d", ErrFormat, h[at:at+n], at, lo, hi)
		return 0
	}
	return v
}

func binom(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}
