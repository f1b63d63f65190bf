// Package naive is the baseline that levelfile's writer is measured
// against: the way the "Level Files" document describes choosing a type.
// WriteFile encodes a set in all four types one after the other, each
// plainly and gzipped with the standard library's compress/gzip at level 6,
// each to its own intermediate file; then it keeps the smallest (ties going
// to the lower type), renames it to the final name and removes the others.
//
// The encoders here are written from the format document
// (shared/specs/levelfile.md), not taken from package levelfile, so the
// files are a second opinion on the format as well as a baseline. They
// write the spec dialect (SEP 0x12) with the same comment lines as
// levelfile, so that sizes differ only by the compressor.
package naive

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/levelfile"
)

// Level is the gzip level of every candidate: zlib's default, which
// GamesmanClassic used.
const Level = 6

// sep is the spec dialect's separator byte.
const sep = byte(levelfile.Spec)

// ErrEmptyType is returned by Encode for the empty set in a type other
// than 0: the format writes the empty set only as type 0.
var ErrEmptyType = errors.New("naive: the empty set is written as type 0 only")

// Result describes a file written by WriteFile.
type Result struct {
	Type  levelfile.Type // the type kept
	Bytes int64          // its compressed size
	Count uint64         // members
	// Sizes are the compressed sizes of the four candidates; -1 for a
	// type that was not written (the empty set is written as type 0 only).
	Sizes [4]int64
}

// WriteFile writes s as the level file name the naive way: all four
// candidates to levelfile.IntermediateName(name, t), then the smallest is
// renamed to name and the others are removed. The kept file is synced
// before the rename and the directory after it, so the result is as
// durable as levelfile.WriteFile's and the comparison is fair.
func WriteFile(name string, s *bitarray.Set) (Result, error) {
	res := Result{Sizes: [4]int64{-1, -1, -1, -1}, Count: s.Count()}
	types := []levelfile.Type{levelfile.Type0, levelfile.Type1, levelfile.Type2, levelfile.Type3}
	if res.Count == 0 {
		types = types[:1]
	}
	var written []string
	defer func() {
		// On success only the losers are left; on failure everything goes.
		for _, p := range written {
			os.Remove(p)
		}
	}()
	for _, t := range types {
		path := levelfile.IntermediateName(name, t)
		written = append(written, path)
		n, err := encodeFile(path, s, t)
		if err != nil {
			return res, fmt.Errorf("naive %s: %w", path, err)
		}
		res.Sizes[t] = n
		if n < res.Sizes[res.Type] { // strict: ties keep the lower type
			res.Type = t
		}
	}
	res.Bytes = res.Sizes[res.Type]
	kept := levelfile.IntermediateName(name, res.Type)
	if err := syncFile(kept); err != nil {
		return res, fmt.Errorf("naive %s: %w", kept, err)
	}
	if err := os.Rename(kept, name); err != nil {
		return res, fmt.Errorf("naive %s: %w", name, err)
	}
	if err := syncFile(filepath.Dir(name)); err != nil {
		return res, fmt.Errorf("naive %s: %w", name, err)
	}
	return res, nil
}

// encodeFile writes one candidate and returns its size.
func encodeFile(path string, s *bitarray.Set, t levelfile.Type) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// compress/gzip writes in small pieces; buffer them into large writes.
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := Encode(bw, s, t); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), f.Close()
}

// syncFile flushes a file, or a directory's entries, to stable storage.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Encode writes s as one gzip stream holding a level file of type t in the
// spec dialect, compressed with compress/gzip at Level.
func Encode(w io.Writer, s *bitarray.Set, t levelfile.Type) error {
	if t < levelfile.Type0 || t > levelfile.Type3 {
		return fmt.Errorf("naive: type %v: want 0 to 3", t)
	}
	lo, nonEmpty := s.Min()
	hi, _ := s.Max()
	if !nonEmpty && t != levelfile.Type0 {
		return ErrEmptyType
	}
	zw, err := gzip.NewWriterLevel(w, Level)
	if err != nil {
		return err
	}
	zw.OS = 3 // Unix, as zlib on GamesmanClassic's machines wrote
	// Encoders append to a buffer that is handed to gzip in large pieces.
	bw := bufio.NewWriterSize(zw, 1<<16)
	if err := writeHeader(bw, t, lo, hi); err != nil {
		return err
	}
	if nonEmpty {
		switch t {
		case levelfile.Type0:
			err = writeType0(bw, s)
		case levelfile.Type1:
			err = writeType1(bw, s, lo, hi)
		case levelfile.Type2:
			err = writeType2(bw, s, lo, hi)
		case levelfile.Type3:
			err = writeType3(bw, s, lo, hi)
		}
		if err != nil {
			return err
		}
	}
	if _, err := bw.Write([]byte{sep, '\n', '1'}); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// writeHeader writes the start check bit, the comments, the type and the
// min/max line. The empty set's line is "0 0".
func writeHeader(w *bufio.Writer, t levelfile.Type, lo, hi uint64) error {
	// The same comment lines as levelfile writes without a game name; the
	// last ends in SEP, as the document's example does.
	fmt.Fprintf(w, "1\n### GAMESMAN Type %d Level File written by tiersolve\n", t)
	fmt.Fprintf(w, "### Doc on level file formats, see doc/LevelFiles.txt %c\n", sep)
	_, err := fmt.Fprintf(w, "%d\n%d %d %c\n", t, lo, hi, sep)
	return err
}

// members calls f with the members of s in ascending batches.
func members(s *bitarray.Set, f func(ps []uint64) error) error {
	buf := make([]uint64, 4096)
	for c, ps := s.NextMany(0, buf); len(ps) > 0; c, ps = s.NextMany(c, buf) {
		if err := f(ps); err != nil {
			return err
		}
	}
	return nil
}

// writeType0 writes every member as a decimal followed by a space.
func writeType0(w *bufio.Writer, s *bitarray.Set) error {
	var line []byte
	return members(s, func(ps []uint64) error {
		line = line[:0]
		for _, p := range ps {
			line = strconv.AppendUint(line, p, 10)
			line = append(line, ' ')
		}
		_, err := w.Write(line)
		return err
	})
}

// writeType1 packs every member's offset p−lo in width(lo, hi) bits.
func writeType1(w *bufio.Writer, s *bitarray.Set, lo, hi uint64) error {
	pk := packer{w: w, width: width(lo, hi)}
	err := members(s, func(ps []uint64) error {
		for _, p := range ps {
			pk.put(p - lo)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return pk.flush()
}

// writeType2 packs the offset of every non-member of [lo, hi]: the gaps
// between consecutive members.
func writeType2(w *bufio.Writer, s *bitarray.Set, lo, hi uint64) error {
	pk := packer{w: w, width: width(lo, hi)}
	next := lo // the first position not yet accounted for
	err := members(s, func(ps []uint64) error {
		for _, p := range ps {
			for q := next; q < p; q++ {
				pk.put(q - lo)
			}
			next = p + 1 // hi is a member, so p+1 overflows only at the end
		}
		return nil
	})
	if err != nil {
		return err
	}
	return pk.flush()
}

// writeType3 writes one bit per position of [lo, hi], MSB-first, through
// a window of bytes that is cleared and refilled as the members advance.
func writeType3(w *bufio.Writer, s *bitarray.Set, lo, hi uint64) error {
	const window = 1 << 16
	buf := make([]byte, window)
	var start uint64 // byte offset of buf[0]
	err := members(s, func(ps []uint64) error {
		for _, p := range ps {
			i := p - lo
			for i/8 >= start+window {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				clear(buf)
				start += window
			}
			buf[i/8-start] |= 0x80 >> (i % 8)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// hi is a member, so its byte is the last one and lies in this window.
	_, err = w.Write(buf[:(hi-lo)/8+1-start])
	return err
}

// width is bitsPerPosition: the bit length of hi−lo, at least 1.
func width(lo, hi uint64) uint {
	n := uint(0)
	for d := hi - lo; d != 0; d >>= 1 {
		n++
	}
	return max(n, 1)
}

// packer writes fields of a fixed width as one big-endian bit stream,
// MSB-first, padding the last byte with zero bits. Whole 64-bit words
// collect in buf, which goes to w in large writes.
type packer struct {
	w     io.Writer
	width uint
	acc   uint64 // pending bits, right-aligned
	n     uint   // number of pending bits, < 64
	buf   []byte
	err   error
}

// put appends the low width bits of v.
func (k *packer) put(v uint64) {
	for left := k.width; left > 0; {
		take := min(left, 64-k.n)
		bits := v >> (left - take) & (^uint64(0) >> (64 - take))
		k.acc = k.acc<<take | bits // a shift by 64 gives 0 in Go
		k.n += take
		left -= take
		if k.n == 64 {
			k.buf = binary.BigEndian.AppendUint64(k.buf, k.acc)
			k.acc, k.n = 0, 0
			if len(k.buf) >= 1<<16 {
				k.write()
			}
		}
	}
}

// flush writes the pending bits, zero-padded to a whole byte.
func (k *packer) flush() error {
	if k.n > 0 {
		last := binary.BigEndian.AppendUint64(nil, k.acc<<(64-k.n))
		k.buf = append(k.buf, last[:(k.n+7)/8]...)
		k.acc, k.n = 0, 0
	}
	k.write()
	return k.err
}

func (k *packer) write() {
	if _, err := k.w.Write(k.buf); err != nil && k.err == nil {
		k.err = err
	}
	k.buf = k.buf[:0]
}
