package gnubgid

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxListLine bounds a line of a Position ID list.
const MaxListLine = 4096

// ErrList marks a malformed Position ID list.
var ErrList = errors.New("invalid position ID list")

// ListEntry is a Position ID read from a list, with its line number (from
// 1). The ID is as written, not decoded: DecodePosition checks it.
type ListEntry struct {
	Line int
	ID   string
}

// ReadList reads a text list of gnubg Position IDs: one a line, alone or
// in gnubg's combined form POSID:MATCHID (the match part is dropped).
// Blank lines and lines starting with '#' are skipped; spaces around an
// entry are not part of it. A line with spaces inside its entry, or longer
// than MaxListLine, is an error wrapping ErrList.
func ReadList(r io.Reader) ([]ListEntry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), MaxListLine)
	var out []ListEntry
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		if strings.ContainsAny(s, " \t\v\f\r") {
			return nil, fmt.Errorf("line %d: %w: one position ID a line, got %q", line, ErrList, s)
		}
		id, _, _ := strings.Cut(s, ":")
		if id == "" {
			return nil, fmt.Errorf("line %d: %w: no position ID before ':'", line, ErrList)
		}
		out = append(out, ListEntry{Line: line, ID: id})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: a line longer than %d bytes", ErrList, MaxListLine)
		}
		return nil, err
	}
	return out, nil
}
