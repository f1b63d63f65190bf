// Package grid reads and writes the text form of the square-celled boards
// of tictactoe and quixo: the rows from the top, separated by '/', with
// cells 'x', 'o' and a game's mark for an empty cell. Cell (r, c) is bit
// r*width + c of the x and o masks.
package grid

import (
	"fmt"
	"strings"
)

// Format appends the rows of a width x (cells/width) board to b.
func Format(b *strings.Builder, x, o uint64, width, cells int, empty byte) {
	b.Grow(cells + cells/width)
	for i := 0; i < cells; i++ {
		if i > 0 && i%width == 0 {
			b.WriteByte('/')
		}
		switch {
		case x>>i&1 != 0:
			b.WriteByte('x')
		case o>>i&1 != 0:
			b.WriteByte('o')
		default:
			b.WriteByte(empty)
		}
	}
}

// Parse reads rows rows of width cells. Its errors quote s; callers add
// the game's name.
func Parse(s string, rows, width int, empty byte) (x, o uint64, err error) {
	rs := strings.Split(s, "/")
	if len(rs) != rows {
		return 0, 0, fmt.Errorf("%q: %d rows, want %d separated by '/'", s, len(rs), rows)
	}
	for r, row := range rs {
		if len(row) != width {
			return 0, 0, fmt.Errorf("%q: row %d has %d cells, want %d", s, r+1, len(row), width)
		}
		for c := 0; c < width; c++ {
			bit := uint64(1) << (r*width + c)
			switch row[c] {
			case 'x':
				x |= bit
			case 'o':
				o |= bit
			case empty:
			default:
				return 0, 0, fmt.Errorf("%q: bad cell %q (want x, o or %c)", s, row[c], empty)
			}
		}
	}
	return x, o, nil
}
