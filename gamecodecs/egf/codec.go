package egf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// Layout sizes.
const (
	boardArray   = 208 // the 16-wide board array after the lead byte
	moveSize     = 20
	numShortTags = 8 // tags 1..8: u8 length
)

// isPoint reports whether index i of the board array is a board point
// (it equals the point's location id).
func isPoint(i int) bool { return Square(i).Valid() }

// Parse decodes an EGF file held in data.
func Parse(data []byte) (*Game, error) {
	p := parser{data: data}
	g, err := p.game()
	if err != nil {
		return nil, fmt.Errorf("egf: offset %d: %w", p.off, err)
	}
	return g, nil
}

// UnmarshalBinary decodes an EGF file into g.
func (g *Game) UnmarshalBinary(data []byte) error {
	h, err := Parse(data)
	if err != nil {
		return err
	}
	*g = *h
	return nil
}

// parser walks data; off is where the next read starts (and where an
// error is reported).
type parser struct {
	data []byte
	off  int
}

// take returns the next n bytes.
func (p *parser) take(n int, what string) ([]byte, error) {
	if n < 0 || n > len(p.data)-p.off {
		return nil, fmt.Errorf("%s: need %d bytes, %d left: %w", what, n, len(p.data)-p.off, ErrTruncated)
	}
	b := p.data[p.off : p.off+n]
	p.off += n
	return b, nil
}

func (p *parser) u8(what string) (int, error) {
	b, err := p.take(1, what)
	if err != nil {
		return 0, err
	}
	return int(b[0]), nil
}

func (p *parser) u16(what string) (int, error) {
	b, err := p.take(2, what)
	if err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint16(b)), nil
}

// i32 reads a little-endian int32 and checks it is in [lo, hi].
func (p *parser) i32(what string, lo, hi int64) (int, error) {
	b, err := p.take(4, what)
	if err != nil {
		return 0, err
	}
	v := int64(int32(binary.LittleEndian.Uint32(b)))
	if v < lo || v > hi {
		p.off -= 4
		return 0, fmt.Errorf("%s %d out of range %d..%d: %w", what, v, lo, hi, ErrCorrupt)
	}
	return int(v), nil
}

// game parses a whole file in order: magic, header, board block, piece
// list, counts, moves, comments; then it replays the moves.
func (p *parser) game() (*Game, error) {
	g := new(Game)
	m, err := p.take(2, "magic")
	if err != nil || m[0] != magic[0] || m[1] != magic[1] {
		p.off = 0
		return nil, ErrMagic
	}
	if err := p.header(g); err != nil {
		return nil, err
	}

	// Board block.
	if g.Unknown.BoardLead, err = p.readByte("board block"); err != nil {
		return nil, err
	}
	arr, err := p.take(boardArray, "board")
	if err != nil {
		return nil, err
	}
	pad := 0
	for i, c := range arr {
		if !isPoint(i) {
			g.Unknown.BoardPad[pad] = c
			pad++
			continue
		}
		if c > NumPieces {
			p.off -= boardArray - i
			return nil, fmt.Errorf("piece code %d on %s: %w", c, Square(i), ErrCorrupt)
		}
		g.Start.Set(Square(i), Piece(c))
	}
	if err := checkBoard(&g.Start); err != nil {
		return nil, err
	}
	tail, err := p.take(4, "board tail")
	if err != nil {
		return nil, err
	}
	copy(g.Unknown.BoardTail[:], tail)

	// Piece list: must agree with the board.
	want := g.Start.Locations()
	for i := range want {
		loc, err := p.i32("piece location", 0, 255)
		if err != nil {
			return nil, err
		}
		if sq := Square(loc); sq != 0 && !sq.Valid() {
			p.off -= 4
			return nil, fmt.Errorf("piece %d: impossible location %d: %w", i+1, loc, ErrCorrupt)
		}
		if Square(loc) != want[i] {
			p.off -= 4
			return nil, fmt.Errorf("piece list puts piece %d on %s, board on %s: %w", i+1, Square(loc), want[i], ErrCorrupt)
		}
	}

	side, err := p.i32("side to move", 0, 1)
	if err != nil {
		return nil, err
	}
	g.StartSide = Side(side)
	done, err := p.i32("moves done", 0, 1<<31-1)
	if err != nil {
		return nil, err
	}
	// Bound the move count by the bytes left (after it, and before the
	// 3-byte comment count) before allocating.
	total, err := p.i32("moves total", 0, int64(max(0, len(p.data)-p.off-4-3)/moveSize))
	if err != nil {
		return nil, fmt.Errorf("%w (move count exceeds the data)", err)
	}
	if done > total {
		return nil, fmt.Errorf("moves done %d > moves total %d: %w", done, total, ErrCorrupt)
	}
	g.MovesDone = done
	g.Moves = make([]Move, total)
	for i := range g.Moves {
		if err := p.move(&g.Moves[i]); err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	if err := p.comments(g); err != nil {
		return nil, err
	}
	if p.off < len(p.data) {
		g.Unknown.Trailing = bytes.Clone(p.data[p.off:])
		p.off = len(p.data)
	}
	// Replay: every move must be possible and its capture must match.
	if err := g.replay(func(*Position) {}); err != nil {
		return nil, err
	}
	return g, nil
}

func (p *parser) readByte(what string) (byte, error) {
	v, err := p.u8(what)
	return byte(v), err
}

// stringTags lists the header fields by tag number (index tag-1); tags 9
// and 10 are not strings.
func (g *Game) stringTags() []*string {
	h := &g.Header
	return []*string{&h.Event, &h.Site, &h.Date, &h.Round, &h.RedName, &h.RedElo,
		&h.BlackName, &h.BlackElo, nil, nil, &h.Description, &h.Author, &h.TimeControl}
}

func (p *parser) header(g *Game) error {
	for i, dst := range g.stringTags() {
		tag := i + 1
		got, err := p.u8("header tag")
		if err != nil {
			return err
		}
		if got != tag {
			p.off--
			return fmt.Errorf("header tag %d where tag %d belongs: %w", got, tag, ErrCorrupt)
		}
		switch tag {
		case 9:
			b, err := p.take(4, "tag 9")
			if err != nil {
				return err
			}
			copy(g.Unknown.Tag9[:], b)
			continue
		case 10:
			r, err := p.u8("result")
			if err != nil {
				return err
			}
			g.Header.Result = Result(r)
			continue
		}
		var n int
		if tag <= numShortTags {
			n, err = p.u8(fmt.Sprintf("tag %d length", tag))
		} else {
			n, err = p.u16(fmt.Sprintf("tag %d length", tag))
		}
		if err != nil {
			return err
		}
		b, err := p.take(n, fmt.Sprintf("tag %d", tag))
		if err != nil {
			return err
		}
		*dst = string(b)
	}
	return nil
}

func (p *parser) move(m *Move) error {
	b, err := p.take(moveSize, "move record")
	if err != nil {
		return err
	}
	from, to := binary.LittleEndian.Uint16(b[0:]), binary.LittleEndian.Uint16(b[2:])
	if from > 255 || to > 255 || !Square(from).Valid() || !Square(to).Valid() {
		p.off -= moveSize
		return fmt.Errorf("impossible location %d-%d: %w", from, to, ErrCorrupt)
	}
	m.From, m.To = Square(from), Square(to)
	if b[4] > NumPieces {
		p.off -= moveSize
		return fmt.Errorf("captured piece code %d: %w", b[4], ErrCorrupt)
	}
	m.Captured = Piece(b[4])
	copy(m.Unknown[:], b[5:])
	return nil
}

func (p *parser) comments(g *Game) error {
	n, err := p.u8("comment count")
	if err != nil {
		return err
	}
	pad, err := p.take(2, "comment count")
	if err != nil {
		return err
	}
	copy(g.Unknown.CommentPad[:], pad)
	// At most 255 comments of at least 2 bytes each: no unbounded allocation.
	g.Comments = make([]string, 0, n)
	for i := 0; i < n; i++ {
		size, err := p.u16("comment length")
		if err != nil {
			return fmt.Errorf("comment %d: %w", i+1, err)
		}
		b, err := p.take(size, "comment text")
		if err != nil {
			return fmt.Errorf("comment %d: %w", i+1, err)
		}
		g.Comments = append(g.Comments, string(b))
		if i < n-1 {
			sep, err := p.u8("comment separator")
			if err != nil {
				return fmt.Errorf("comment %d: %w", i+1, err)
			}
			if sep != 0 {
				p.off--
				return fmt.Errorf("comment %d: separator byte %d, want 0: %w", i+1, sep, ErrCorrupt)
			}
		}
	}
	return nil
}

// MarshalBinary encodes g as an EGF file.
func (g *Game) MarshalBinary() ([]byte, error) {
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("egf: %w", err)
	}
	b := append([]byte(nil), magic[:]...)
	for i, s := range g.stringTags() {
		tag := i + 1
		b = append(b, byte(tag))
		switch {
		case tag == 9:
			b = append(b, g.Unknown.Tag9[:]...)
		case tag == 10:
			b = append(b, byte(g.Header.Result))
		case tag <= numShortTags:
			b = append(b, byte(len(*s)))
			b = append(b, *s...)
		default:
			b = binary.LittleEndian.AppendUint16(b, uint16(len(*s)))
			b = append(b, *s...)
		}
	}
	b = append(b, g.Unknown.BoardLead)
	pad := 0
	for i := 0; i < boardArray; i++ {
		if isPoint(i) {
			b = append(b, byte(g.Start.At(Square(i))))
		} else {
			b = append(b, g.Unknown.BoardPad[pad])
			pad++
		}
	}
	b = append(b, g.Unknown.BoardTail[:]...)
	for _, sq := range g.Start.Locations() {
		b = binary.LittleEndian.AppendUint32(b, uint32(sq))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(g.StartSide))
	b = binary.LittleEndian.AppendUint32(b, uint32(g.MovesDone))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(g.Moves)))
	for _, m := range g.Moves {
		b = binary.LittleEndian.AppendUint16(b, uint16(m.From))
		b = binary.LittleEndian.AppendUint16(b, uint16(m.To))
		b = append(b, byte(m.Captured))
		b = append(b, m.Unknown[:]...)
	}
	b = append(b, byte(len(g.Comments)))
	b = append(b, g.Unknown.CommentPad[:]...)
	for i, c := range g.Comments {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(c)))
		b = append(b, c...)
		if i < len(g.Comments)-1 {
			b = append(b, 0)
		}
	}
	return append(b, g.Unknown.Trailing...), nil
}

// Encode writes g to w as an EGF file.
func (g *Game) Encode(w io.Writer) error {
	b, err := g.MarshalBinary()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// check rejects games the format cannot hold or Parse would refuse.
func (g *Game) check() error {
	for i, s := range g.stringTags() {
		limit := 0xFFFF
		if i < numShortTags {
			limit = 0xFF
		}
		if s != nil && len(*s) > limit {
			return fmt.Errorf("header tag %d: %d bytes, limit %d: %w", i+1, len(*s), limit, ErrInvalid)
		}
	}
	if len(g.Comments) > 0xFF {
		return fmt.Errorf("%d comments, limit 255: %w", len(g.Comments), ErrInvalid)
	}
	for i, c := range g.Comments {
		if len(c) > 0xFFFF {
			return fmt.Errorf("comment %d: %d bytes, limit 65535: %w", i+1, len(c), ErrInvalid)
		}
	}
	if g.MovesDone < 0 || g.MovesDone > len(g.Moves) {
		return fmt.Errorf("moves done %d not in 0..%d: %w", g.MovesDone, len(g.Moves), ErrInvalid)
	}
	if len(g.Moves) > MaxFileSize/moveSize {
		return fmt.Errorf("%d moves: %w", len(g.Moves), ErrInvalid)
	}
	if err := g.replay(func(*Position) {}); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}
