package levelfile

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tiersolve/tiersolve/bitarray"
)

// The original C API of the "Level Files" document, for parity. A BITARRAY
// is a byte slice with one bit per position, MSB-first in each byte: bit i
// (byte i/8, mask 0x80>>(i%8)) stands for position startIndex+i.

// WriteLevelFile writes the positions marked in array, which covers
// [startIndex, endIndex), as the level file name. With nil options it keeps
// the smallest of the four types, in the spec dialect.
func WriteLevelFile(name string, array []byte, startIndex, endIndex uint64, opts *WriteOptions) error {
	if endIndex < startIndex {
		return fmt.Errorf("levelfile %s: endIndex %d < startIndex %d", name, endIndex, startIndex)
	}
	n := endIndex - startIndex
	if uint64(len(array)) < (n+7)/8 {
		return fmt.Errorf("levelfile %s: BITARRAY of %d bytes is shorter than %d positions", name, len(array), n)
	}
	s, err := bitarray.FromMSB(array, startIndex, n)
	if err != nil {
		return fmt.Errorf("levelfile %s: %w", name, err)
	}
	_, err = WriteFile(name, s, opts)
	return err
}

// ReadLevelFile decodes the level file name into array, a BITARRAY starting
// at the file's min (LevelFileMinHashValue): bit i is position min+i. array
// must hold (max−min)/8+1 bytes; bits past max are cleared.
func ReadLevelFile(name string, array []byte) error {
	f, err := Open(name, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	h := f.Header
	if h.Empty {
		_, err := f.Count()
		return err
	}
	need := (h.Max-h.Min)/8 + 1
	if uint64(len(array)) < need {
		return fmt.Errorf("levelfile %s: BITARRAY of %d bytes, need %d", name, len(array), need)
	}
	clear(array[:need])
	for run := range f.Runs() {
		for p := run.Lo; ; p++ {
			i := p - h.Min
			array[i/8] |= 0x80 >> (i % 8)
			if p == run.Hi {
				break
			}
		}
	}
	if err := f.Err(); err != nil {
		return fmt.Errorf("levelfile %s: %w", name, err)
	}
	return nil
}

// LevelFileType returns the type (0 to 3) of a level file.
func LevelFileType(name string) (Type, error) {
	h, err := ReadHeader(name)
	return h.Type, err
}

// LevelFileMinHashValue returns the smallest position of a level file.
func LevelFileMinHashValue(name string) (uint64, error) {
	h, err := ReadHeader(name)
	return h.Min, err
}

// LevelFileMaxHashValue returns the largest position of a level file.
func LevelFileMaxHashValue(name string) (uint64, error) {
	h, err := ReadHeader(name)
	return h.Max, err
}

// LevelFileBitsPerPosition returns the width of a packed offset: the bit
// length of max−min, at least 1.
func LevelFileBitsPerPosition(name string) (int, error) {
	h, err := ReadHeader(name)
	return h.BitsPerPosition(), err
}

// IsValidLevelFile checks the whole file (see Validate) and returns nil when
// it is a valid level file.
func IsValidLevelFile(name string) error {
	_, err := Validate(name, nil)
	return err
}

// Info is what Validate learns about a valid file.
type Info struct {
	Header
	Count        uint64 // members (0 when AllPositions)
	Compressed   int64  // bytes on disk
	Decompressed int64  // bytes after gunzip
	// AllPositions is set for a file that holds all 2^64 positions, a count
	// Count cannot hold (see ErrCountOverflow).
	AllPositions bool
}

// CountString is the number of members in decimal, 2^64 included.
func (i Info) CountString() string {
	if i.AllPositions {
		return "18446744073709551616"
	}
	return strconv.FormatUint(i.Count, 10)
}

// Validate decodes the whole file and checks everything checkable: the
// gzip stream and its CRC, both check bits, the header, the order and range
// of every position, the padding, and the data length.
func Validate(name string, opts *Options) (Info, error) {
	f, err := Open(name, opts)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	n, err := f.Count()
	all := errors.Is(err, ErrCountOverflow)
	if err != nil && !all {
		return Info{Header: f.Header}, fmt.Errorf("levelfile %s: %w", name, err)
	}
	// The gzip reader checks the CRC when it reaches EOF; make sure it did
	// and that nothing follows the member.
	if _, err := io.Copy(io.Discard, f.br); err != nil {
		return Info{Header: f.Header}, fmt.Errorf("levelfile %s: %w", name, gzipError(err))
	}
	st, err := f.f.Stat()
	if err != nil {
		return Info{}, err
	}
	return Info{Header: f.Header, Count: n, Compressed: st.Size(), Decompressed: f.DecompressedBytes(), AllPositions: all}, nil
}
