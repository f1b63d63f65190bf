package levelfile

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
)

// Type is a level-file encoding, 0 to 3, or TypeAuto when writing.
type Type int

// The four encodings, and TypeAuto: write whichever compresses smallest.
const (
	TypeAuto Type = -1
	Type0    Type = 0 // ASCII decimal positions
	Type1    Type = 1 // reachable offsets, packed
	Type2    Type = 2 // unreachable offsets, packed
	Type3    Type = 3 // one bit per offset
)

// String returns "0".."3" or "auto".
func (t Type) String() string {
	if t == TypeAuto {
		return "auto"
	}
	return strconv.Itoa(int(t))
}

// ParseType parses "auto" or "0".."3".
func ParseType(s string) (Type, error) {
	switch s {
	case "auto":
		return TypeAuto, nil
	case "0", "1", "2", "3":
		return Type(s[0] - '0'), nil
	}
	return 0, fmt.Errorf("level-file type %q: want auto, 0, 1, 2 or 3", s)
}

// Dialect is the separator byte SEP, which tells the two dialects apart.
type Dialect byte

// The two dialects.
const (
	Spec    Dialect = 0x12 // the document's SEP; the default for writing
	Classic Dialect = 0x0C // GamesmanClassic's SEP (form feed)
)

// String returns "spec" or "classic".
func (d Dialect) String() string {
	switch d {
	case Spec:
		return "spec"
	case Classic:
		return "classic"
	}
	return fmt.Sprintf("dialect(%#02x)", byte(d))
}

// ParseDialect parses "spec" or "classic".
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "spec":
		return Spec, nil
	case "classic":
		return Classic, nil
	}
	return 0, fmt.Errorf("level-file dialect %q: want spec or classic", s)
}

// Errors that callers test with errors.Is.
var (
	// ErrFormat marks a file that is not a valid level file: the wrapping
	// error says what is wrong and where.
	ErrFormat = errors.New("invalid level file")
	// ErrTooLarge marks a file that exceeds a limit of Options.
	ErrTooLarge = errors.New("level file exceeds a limit")
)

// formatError returns an error wrapping ErrFormat.
func formatError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// Header is the metadata of a level file, readable without decoding its data.
type Header struct {
	Type     Type
	Dialect  Dialect
	Min, Max uint64 // smallest and largest reachable position
	// LastZero is the third number of a classic type-2 header (the offset
	// of the last unreachable position), or 0 when absent.
	LastZero uint64
	// Comments are the comment lines, without '#'-prefix removal and
	// without their newline.
	Comments []string
	// Empty is set for the empty set: type 0, min = max = 0, no data.
	Empty bool
}

// BitsPerPosition is the width of a packed offset in types 1 and 2: the bit
// length of max−min, at least 1.
func (h Header) BitsPerPosition() int {
	return bitsPerPosition(h.Min, h.Max)
}

func bitsPerPosition(min, max uint64) int {
	return max1(bits.Len64(max - min))
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// Span is the number of positions in [Min, Max] (0 for the empty set, and
// 0 also when the span is 2^64, which no bitarray can hold).
func (h Header) Span() uint64 {
	if h.Empty {
		return 0
	}
	return h.Max - h.Min + 1
}

// classicComments are the two comment lines GamesmanClassic writes; "Bagh
// Chal" is hard-coded there whatever the game.
func classicComments(t Type) []string {
	return []string{
		fmt.Sprintf("### GAMESMAN Bagh Chal Type %d Level Files", t),
		"### Doc on level file formats in doc/LevelFiles.txt " + string(rune(Classic)),
	}
}

// specComments are the comment lines this package writes in the spec
// dialect: like the document's, the last one ends in SEP, so readers that
// skip the header by counting SEP bytes work. game may be empty; a
// symmetric file says so in a line of its own.
func specComments(t Type, game string, symmetric bool) []string {
	if game != "" {
		game += " "
	}
	cs := []string{fmt.Sprintf("### GAMESMAN %sType %d Level File written by tiersolve", game, t)}
	if symmetric {
		cs = append(cs, symmetricComment)
	}
	return append(cs, "### Doc on level file formats, see doc/LevelFiles.txt "+string(rune(Spec)))
}

// symmetricComment is the comment line of a symmetric level file.
const symmetricComment = "### Symmetric: one canonical position per symmetry class of the game"

// Symmetric reports whether the header says the file holds one canonical
// position per symmetry class (WriteOptions.Symmetric).
func (h Header) Symmetric() bool { return slices.Contains(h.Comments, symmetricComment) }

// appendHeader appends the uncompressed header of a file of type t.
func appendHeader(dst []byte, h Header) []byte {
	dst = append(dst, "1\n"...)
	for _, c := range h.Comments {
		dst = append(dst, c...)
		dst = append(dst, '\n')
	}
	dst = strconv.AppendInt(dst, int64(h.Type), 10)
	dst = append(dst, '\n')
	dst = strconv.AppendUint(dst, h.Min, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, h.Max, 10)
	dst = append(dst, ' ')
	if h.Type == Type2 && h.Dialect == Classic {
		dst = strconv.AppendUint(dst, h.LastZero, 10)
		dst = append(dst, ' ')
	}
	return append(dst, byte(h.Dialect), '\n')
}

// trailer returns the end check bit sequence of a file.
func trailer(t Type, d Dialect) []byte {
	if t == Type3 && d == Classic {
		return []byte{byte(d), '1'}
	}
	return []byte{byte(d), '\n', '1'}
}
