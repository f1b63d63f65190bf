package valuedb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// ErrUnaligned is returned by Concat for databases whose blocks do not
// line up into one database's.
var ErrUnaligned = errors.New("the databases do not line up in blocks")

// Concat writes to path, atomically, the database of the records of the
// databases parts, one after the other, without decoding them: it copies
// their blocks and writes a new header and index. The bytes are those
// Write writes for the same records when each part was itself written
// by Write with the same options (the default compression, not Fast) and
// the parts line up: all hold value records in blocks of opts'
// BlockRecords, every part but the last holds whole blocks, and every
// part that holds records has the record width the joined records need
// (RecordBytes follows the largest remoteness). Parts that do not line up
// are ErrUnaligned, and nothing is written. h's Game, Option, Tier and
// TierName are kept; the rest is computed from the parts' headers.
//
// A cluster's solve units write the records of ranges cut at multiples
// of the block size; Concat joins them into the tier's database at the
// cost of reading them twice (the second time from the page cache).
func Concat(path string, h Header, parts []string, opts *WriteOptions) (Header, error) {
	o := opts.normalized()
	frames := make([]*frame, len(parts))
	files := make([]*os.File, len(parts))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	h.Count, h.Win, h.Lose, h.Tie, h.Draw, h.MaxRemoteness, h.Blocks = 0, 0, 0, 0, 0, 0, 0
	for i, p := range parts {
		f, err := os.Open(p)
		if err != nil {
			return h, err
		}
		files[i] = f
		fr, err := readFrame(f)
		if err != nil {
			return h, fmt.Errorf("valuedb %s: %w", p, err)
		}
		frames[i] = fr
		ph := fr.h
		switch {
		case ph.Kind != "":
			return h, fmt.Errorf("valuedb %s: %w: it holds %s records", p, ErrUnaligned, ph.Kind)
		case ph.BlockRecords != o.BlockRecords:
			return h, fmt.Errorf("valuedb %s: %w: blocks of %d records, not %d", p, ErrUnaligned, ph.BlockRecords, o.BlockRecords)
		case i < len(parts)-1 && ph.Count%uint64(o.BlockRecords) != 0:
			return h, fmt.Errorf("valuedb %s: %w: %d records, not whole blocks", p, ErrUnaligned, ph.Count)
		}
		h.Count += ph.Count
		h.Win, h.Lose, h.Tie, h.Draw = h.Win+ph.Win, h.Lose+ph.Lose, h.Tie+ph.Tie, h.Draw+ph.Draw
		h.MaxRemoteness = max(h.MaxRemoteness, ph.MaxRemoteness)
		h.Blocks += ph.Blocks
	}
	h.RecordBytes = 1
	if h.MaxRemoteness >= 64 {
		h.RecordBytes = 2
	}
	h.Kind, h.Mean, h.BlockRecords = "", 0, o.BlockRecords
	// The parts' blocks are read a buffer at a time, where they were held
	// whole: once for the checksum the header holds, then to be copied.
	index := make([]byte, 0, 8*(h.Blocks+1))
	buf := make([]byte, copyBuffer)
	var off uint64
	sum := crc32.New(castagnoli)
	for i, fr := range frames {
		if fr.h.Count > 0 && fr.h.RecordBytes != h.RecordBytes {
			return h, fmt.Errorf("valuedb %s: %w: %d-byte records, the joined records need %d", parts[i], ErrUnaligned, fr.h.RecordBytes, h.RecordBytes)
		}
		for _, x := range fr.index[:fr.h.Blocks] {
			index = binary.LittleEndian.AppendUint64(index, off+x)
		}
		n := int64(fr.index[fr.h.Blocks])
		if err := copyExactly(sum, files[i], fr.dataStart, n, buf); err != nil {
			return h, fmt.Errorf("valuedb %s: %w", parts[i], err)
		}
		off += uint64(n)
	}
	index = binary.LittleEndian.AppendUint64(index, off)
	h.CRC32C = crc32.Update(sum.Sum32(), castagnoli, index)
	copyParts := func(w io.Writer) error {
		for i, fr := range frames {
			if err := copyExactly(w, files[i], fr.dataStart, int64(fr.index[fr.h.Blocks]), buf); err != nil {
				return fmt.Errorf("valuedb %s: %w", parts[i], err)
			}
		}
		return nil
	}
	return h, writeFile(path, magic, &h, off, copyParts, index, o.NoSync)
}

// copyExactly copies the n bytes of f at off to w, through buf: a file
// shorter than that is io.ErrUnexpectedEOF.
func copyExactly(w io.Writer, f *os.File, off, n int64, buf []byte) error {
	m, err := io.CopyBuffer(w, io.NewSectionReader(f, off, n), buf)
	if err == nil && m < n {
		err = io.ErrUnexpectedEOF
	}
	return err
}
