package levelfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Limits on the header, so a hostile file cannot make the parser buffer
// without bound.
const (
	maxLineLen      = 4096
	maxCommentLines = 1024
)

// readLine returns the next line without its '\n', failing on lines longer
// than maxLineLen and on a missing newline.
func readLine(br *bufio.Reader, what string) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || len(line) > maxLineLen+1:
		return nil, formatError("%s: line longer than %d bytes", what, maxLineLen)
	case err == nil:
		return line[:len(line)-1], nil
	case err == io.EOF:
		return nil, formatError("%s: unexpected end of file", what)
	default:
		return nil, err
	}
}

// readHeader parses the header from the decompressed stream, leaving br at
// the first byte of the data region.
func readHeader(br *bufio.Reader) (Header, error) {
	var h Header
	line, err := readLine(br, "start check bit")
	if err != nil {
		return h, err
	}
	if string(line) != "1" {
		return h, formatError("start check bit: got %q, want \"1\"", truncate(line))
	}
	// Comments and blank lines, then the type; more of them, then min/max.
	if line, err = nextLine(br, &h, "type line"); err != nil {
		return h, err
	}
	if len(line) != 1 || line[0] < '0' || line[0] > '3' {
		return h, formatError("type line: got %q, want 0, 1, 2 or 3", truncate(line))
	}
	h.Type = Type(line[0] - '0')
	if line, err = nextLine(br, &h, "min/max line"); err != nil {
		return h, err
	}
	if err := parseRange(&h, line); err != nil {
		return h, err
	}
	if h.Type == Type0 && h.Min == 0 && h.Max == 0 {
		// "0 0" is the empty set when the data region is empty: peek at
		// whether the trailer follows at once.
		next, _ := br.Peek(3)
		sep := byte(h.Dialect)
		h.Empty = bytes.Equal(next, []byte{sep, '\n', '1'}) || bytes.Equal(next, []byte{sep, '1'})
	}
	return h, nil
}

// nextLine returns the next line that is neither blank nor a comment,
// keeping the comments in h.
func nextLine(br *bufio.Reader, h *Header, what string) ([]byte, error) {
	for {
		line, err := readLine(br, what)
		if err != nil {
			return nil, err
		}
		if len(line) > 0 && line[0] != '#' {
			return line, nil
		}
		if len(h.Comments) >= maxCommentLines {
			return nil, formatError("more than %d comment lines", maxCommentLines)
		}
		if len(line) > 0 {
			h.Comments = append(h.Comments, string(line))
		}
	}
}

// parseRange parses "<min> <max> SEP" or "<min> <max> <lastZero> SEP".
func parseRange(h *Header, line []byte) error {
	if len(line) < 2 || line[len(line)-2] != ' ' {
		return formatError("min/max line %q: want \"<min> <max> SEP\"", truncate(line))
	}
	h.Dialect = Dialect(line[len(line)-1])
	if h.Dialect != Spec && h.Dialect != Classic {
		return formatError("min/max line ends in %#02x, not a separator (0x12 or 0x0C)", byte(h.Dialect))
	}
	fields := bytes.Split(line[:len(line)-2], []byte{' '})
	if len(fields) == 3 && h.Type == Type2 {
		lz, err := parseUint(fields[2], "lastZero")
		if err != nil {
			return err
		}
		h.LastZero = lz
		fields = fields[:2]
	}
	if len(fields) != 2 {
		return formatError("min/max line %q: want two numbers", truncate(line))
	}
	var err error
	if h.Min, err = parseUint(fields[0], "min"); err != nil {
		return err
	}
	if h.Max, err = parseUint(fields[1], "max"); err != nil {
		return err
	}
	if h.Min > h.Max {
		return formatError("min %d > max %d", h.Min, h.Max)
	}
	return nil
}

// parseUint parses a canonical decimal uint64 (no sign, no leading zeros).
func parseUint(b []byte, what string) (uint64, error) {
	if len(b) == 0 || len(b) > 1 && b[0] == '0' {
		return 0, formatError("%s %q is not a canonical decimal number", what, truncate(b))
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0, formatError("%s %q is not a decimal number below 2^64", what, truncate(b))
	}
	return n, nil
}

// truncate shortens hostile input for error messages.
func truncate(b []byte) string {
	const n = 40
	if len(b) > n {
		return fmt.Sprintf("%s...", b[:n])
	}
	return string(b)
}
