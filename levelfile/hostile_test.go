package levelfile

import (
	"bytes"
	"errors"
	racedetector "github.com/tiersolve/tiersolve/internal/race"
	"runtime"
	"strings"
	"testing"
)

// spec builds uncompressed file bytes from parts, with SEP written as '|'
// in the text parts (0x12), which keeps the table readable.
func spec(parts ...string) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, strings.ReplaceAll(p, "|", "\x12")...)
	}
	return b
}

func TestHostileInput(t *testing.T) {
	hdr := func(typ, minmax string) string { return "1\n# c\n" + typ + "\n" + minmax + " |\n" }
	tests := []struct {
		name string
		raw  []byte
		want string // substring of the error
	}{
		{"no check bit", spec("0\n0\n1 2 |\n1 2 |\n1"), "start check bit"},
		{"bad type", spec(hdr("4", "1 2"), "1 2 |\n1"), "type line"},
		{"no separator", spec("1\n0\n1 2\n1 2 |\n1"), "min/max line"},
		{"wrong separator", spec("1\n0\n1 2 \x0b\n1 2 |\n1"), "not a separator"},
		{"min > max", spec(hdr("0", "5 2"), "|\n1"), "min 5 > max 2"},
		{"leading zero in header", spec(hdr("0", "01 2"), "1 2 |\n1"), "canonical"},
		{"number too big", spec(hdr("0", "1 18446744073709551616"), "|\n1"), "below 2^64"},
		{"truncated header", spec("1\n# comment"), "unexpected end"},
		{"long line", spec("1\n#" + strings.Repeat("x", 5000) + "\n0\n1 1 |\n1 |\n1"), "longer than"},
		{"bad trailer", spec(hdr("0", "1 2"), "1 2 |\n2"), "end check bit"},
		{"no trailer", spec(hdr("0", "1 2"), "1 2 "), "end check bit"},
		{"type0 unsorted", spec(hdr("0", "1 9"), "1 5 3 9 |\n1"), "not ascending"},
		{"type0 duplicate", spec(hdr("0", "1 9"), "1 5 5 9 |\n1"), "not ascending"},
		{"type0 above max", spec(hdr("0", "1 9"), "1 5 10 |\n1"), "above max"},
		{"type0 first not min", spec(hdr("0", "1 9"), "2 5 9 |\n1"), "not min"},
		{"type0 last not max", spec(hdr("0", "1 9"), "1 5 |\n1"), "not max"},
		{"type0 no trailing space", spec(hdr("0", "1 9"), "1 9|\n1"), "not followed by a space"},
		{"type0 double space", spec(hdr("0", "1 9"), "1  9 |\n1"), "unexpected byte"},
		{"type0 leading zero", spec(hdr("0", "1 9"), "1 09 |\n1"), "leading zero"},
		{"type0 overflow", spec(hdr("0", "1 9"), "1 99999999999999999999 |\n1"), "exceeds"},
		{"type0 no data", spec(hdr("0", "1 9"), "|\n1"), "no positions"},
		// Type 1, min 0 max 9: 4-bit fields.
		{"type1 first not zero", spec(hdr("1", "0 9"), "\x19|\n1"), "not ascending and not zero"},
		{"type1 unsorted", spec(hdr("1", "0 9"), "\x05\x39|\n1"), "not ascending"},
		{"type1 above max", spec(hdr("1", "0 9"), "\x0a|\n1"), "above max"},
		{"type1 last not max", spec(hdr("1", "0 9"), "\x05|\n1"), "not max"},
		{"type1 padding not zero", spec(hdr("1", "0 9"), "\x09\x01|\n1"), "non-zero bits"},
		{"type1 extra zero byte", spec(hdr("1", "0 9"), "\x09\x00|\n1"), "more than byte padding"},
		{"type1 no data", spec(hdr("1", "0 9"), "|\n1"), "no positions"},
		// Type 2, min 0 max 9: unreachable offsets.
		{"type2 lists max", spec(hdr("2", "0 9"), "\x19|\n1"), "listed as unreachable"},
		{"type2 above max", spec(hdr("2", "0 9"), "\xa0|\n1"), "above max"},
		{"type2 unsorted", spec(hdr("2", "0 9"), "\x53|\n1"), "not ascending"},
		// Type 3, min 0 max 9: 2 bytes.
		{"type3 min unreachable", spec(hdr("3", "0 9"), "\x40\x40|\n1"), "min 0"},
		{"type3 max unreachable", spec(hdr("3", "0 9"), "\x80\x00|\n1"), "max 9"},
		{"type3 padding", spec(hdr("3", "0 9"), "\x80\x41|\n1"), "padding"},
		{"type3 short", spec(hdr("3", "0 9"), "\x80|\n1"), "data bytes"},
		{"type3 long", spec(hdr("3", "0 9"), "\x80\x40\x00|\n1"), "longer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(gzipBytes(tt.raw)), nil)
			if err == nil {
				_, err = r.Count()
			}
			if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want ErrFormat containing %q", err, tt.want)
			}
		})
	}
}

func TestTruncatedAndCorruptGzip(t *testing.T) {
	s := setOf(0, 5000, 0, 17, 99, 1000, 4999)
	for typ := Type0; typ <= Type3; typ++ {
		b, _ := writeBytes(t, s, &WriteOptions{Types: Types(typ)})
		step := 1
		if racedetector.Enabled {
			step = 1 + len(b)/300
		}
		for cut := 0; cut < len(b); cut += step {
			r, err := NewReader(bytes.NewReader(b[:cut]), nil)
			if err == nil {
				_, err = r.Count()
			}
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("type %d cut at %d/%d: error %v, want ErrFormat", typ, cut, len(b), err)
			}
		}
		// A flipped bit anywhere is caught (by deflate, the CRC or the
		// format checks).
		for i := 10; i < len(b); i += step {
			c := bytes.Clone(b)
			c[i] ^= 0x04
			r, err := NewReader(bytes.NewReader(c), nil)
			if err == nil {
				_, err = r.Count()
			}
			if err == nil {
				// Only padding bits after the final deflate block
				// may flip unseen; then the content is unchanged.
				_, got := readBytes(t, c)
				if !sameMembers(got, membersOf(s)) {
					t.Fatalf("type %d: flipped bit in byte %d changed the content undetected", typ, i)
				}
			}
		}
	}
}

// TestHugeHeaderNoHugeAllocation: a header claiming a 2^63 span (or one just
// below the memory limit) costs neither a panic nor a large allocation.
func TestHugeHeaderNoHugeAllocation(t *testing.T) {
	huge := spec("1\n3\n0 9223372036854775807 |\n\x80|\n1")
	r, err := NewReader(bytes.NewReader(gzipBytes(huge)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadSet(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadSet of a 2^63 span: %v, want ErrTooLarge", err)
	}
	// A 2^35 span (within the default limit) with 1 byte of data.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, typ := range []string{"1", "3"} {
		short := spec("1\n" + typ + "\n0 34359738367 |\n\x80|\n1")
		r, err = NewReader(bytes.NewReader(gzipBytes(short)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadSet(); !errors.Is(err, ErrFormat) {
			t.Fatalf("type %s: %v, want ErrFormat", typ, err)
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Fatalf("reading a short file with a huge header allocated %d MiB", grew>>20)
	}
}

// TestGzipBomb: a small file inflating to a lot of zeros fails early.
func TestGzipBomb(t *testing.T) {
	for _, typ := range []string{"0", "1", "2"} {
		zeros := 50 << 20
		if racedetector.Enabled {
			zeros = 8 << 20
		}
		raw := append(spec("1\n"+typ+"\n0 9 |\n\x09"), make([]byte, zeros)...)
		raw = append(raw, spec("|\n1")...)
		bomb := gzipBytes(raw)
		r, err := NewReader(bytes.NewReader(bomb), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Count(); !errors.Is(err, ErrFormat) {
			t.Fatalf("type %s bomb: %v", typ, err)
		}
		if r.DecompressedBytes() > 1<<20 {
			t.Fatalf("type %s bomb: decompressed %d bytes before failing", typ, r.DecompressedBytes())
		}
	}
	// The decompressed-size limit stops a valid but large file.
	s := randomSet(newRand(), 0, 1<<20, 0.5)
	b, _ := writeBytes(t, s, &WriteOptions{Types: Types(Type0)})
	r, err := NewReader(bytes.NewReader(b), &Options{MaxDecompressed: 1 << 16})
	if err == nil {
		_, err = r.Count()
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("MaxDecompressed: %v, want ErrTooLarge", err)
	}
}

func TestClassicQuirksAccepted(t *testing.T) {
	// Classic type 2 with lastZero, classic type 3 trailer without "\n",
	// comments in both places, blank lines.
	files := map[string][]byte{
		"type2-lastZero": []byte("1\n### GAMESMAN Bagh Chal Type 2 Level Files\n### Doc\x0c\n2\n0 9 8 \x0c\n\x80\x0c\n1"),
		"type3-no-nl":    []byte("1\n#a\n\n3\n#b\n0 9 \x0c\n\xff\xc0\x0c1"),
	}
	want := map[string][]uint64{
		"type2-lastZero": {0, 1, 2, 3, 4, 5, 6, 7, 9},
		"type3-no-nl":    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
	}
	for name, raw := range files {
		h, got := readBytes(t, gzipBytes(raw))
		if !sameMembers(got, want[name]) || h.Dialect != Classic {
			t.Errorf("%s: read %v (%v), want %v", name, got, h.Dialect, want[name])
		}
	}
}
