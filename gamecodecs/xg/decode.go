package xg

import (
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// decoder reads the fields of a Delphi record in declaration order. Delphi
// aligns each field to min(its size, 8) relative to the record start, while
// bytes, booleans and ShortStrings are not aligned; the helpers below apply
// that rule so the decode functions read like the Pascal declarations.
//
// Every layout is fixed and fits the slice it reads (the tests check each
// decoder's final offset), so no method needs a bounds check of its own.
type decoder struct {
	b   []byte
	off int
}

func (d *decoder) align(n int) { d.off = (d.off + n - 1) &^ (n - 1) }

// sub returns a decoder over the next size bytes, aligned to align, for a
// nested record, and skips them.
func (d *decoder) sub(align, size int) *decoder {
	d.align(align)
	s := &decoder{b: d.b[d.off : d.off+size]}
	d.off += size
	return s
}

func (d *decoder) u8() byte {
	v := d.b[d.off]
	d.off++
	return v
}

func (d *decoder) i8() int8 { return int8(d.u8()) }

func (d *decoder) boolean() bool { return d.u8() != 0 }

func (d *decoder) i16() int16 {
	d.align(2)
	v := int16(binary.LittleEndian.Uint16(d.b[d.off:]))
	d.off += 2
	return v
}

func (d *decoder) u16() uint16 { return uint16(d.i16()) }

func (d *decoder) u32() uint32 {
	d.align(4)
	v := binary.LittleEndian.Uint32(d.b[d.off:])
	d.off += 4
	return v
}

// integer reads a Delphi Integer (int32) as a Go int.
func (d *decoder) integer() int { return int(int32(d.u32())) }

func (d *decoder) single() float32 { return math.Float32frombits(d.u32()) }

func (d *decoder) double() float64 {
	d.align(8)
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
	d.off += 8
	return v
}

func (d *decoder) position() Position {
	var p Position
	for i := range p {
		p[i] = d.i8()
	}
	return p
}

// shortString reads a Delphi string[n]: a length byte and n bytes of
// Windows-1252 text. A length beyond n is clamped rather than trusted.
func (d *decoder) shortString(n int) string {
	l := int(d.u8())
	s := d.b[d.off : d.off+n]
	d.off += n
	return decodeANSI(s[:min(l, n)])
}

// wideString reads n UTF-16LE code units, NUL-terminated (array of WideChar
// or TShortUnicodeString).
func (d *decoder) wideString(n int) string {
	d.align(2)
	s := decodeUTF16(d.b[d.off : d.off+2*n])
	d.off += 2 * n
	return s
}

// decodeUTF16 decodes little-endian UTF-16 up to the first NUL.
func decodeUTF16(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

// cp1252 maps the bytes 0x80..0x9F of Windows-1252 to Unicode; the other
// bytes are Latin-1. XG's ANSI strings use this code page (its RTF comments
// say \ansicpg1252).
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

// decodeANSI converts Windows-1252 bytes to UTF-8.
func decodeANSI(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		switch {
		case c >= 0x80 && c < 0xA0:
			r[i] = cp1252[c-0x80]
		default:
			r[i] = rune(c)
		}
	}
	return string(r)
}
