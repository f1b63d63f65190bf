package xg

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestTinyMatch(t *testing.T) {
	f := decodeBytes(t, buildMatch(tinyMatch()))
	if len(f.Records) != 7 || len(f.Index) != 2 || f.Version != 30 || f.MatchHeader().PlayerName(2) != "Bob" ||
		f.Header.GameName != "test game" || string(f.Thumbnail) != "\xff\xd8jpeg\xff\xd9" {
		t.Fatalf("decoded %+v", f)
	}
	ds, err := f.Decisions()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 {
		t.Fatalf("%d decisions, want 2: %+v", len(ds), ds)
	}
	// MIEmAAAAAAAE: 1-cube centred, player 0 rolled 5-1, 1-point match, 0-0.
	if d := ds[0]; d.PositionID != "4HPwATDgc/ABMA" || d.Move != "24/23 13/8" || d.MatchID != "MIEmAAAAAAAE" {
		t.Errorf("opening %s:%s %q", d.PositionID, d.MatchID, d.Move)
	}
	if d := ds[1]; d.Kind != TypeCube || d.Action != "double/pass" || d.Player != 2 || d.Match.Move != 1 {
		t.Errorf("cube decision %+v", d)
	}
}

func TestArchiveExtras(t *testing.T) {
	ro := make([]byte, 2*rolloutSize)
	putI32(ro, rolloutSize+24, 1296) // MaxRoll of the second rollout
	comments := []byte("{\\rtf1 one\x01\x02two}\r\n\r\n{\\rtf1 three}\r\n")
	data := buildXG(nil, []member{
		{name: "temp.xg", data: tinyMatch(), stored: true},
		{name: "temp.xgr", data: ro},
		{name: "temp.xgc", data: comments},
		{name: "other.bin", data: []byte("ignored")},
	}, nil)
	f := decodeBytes(t, data)
	if len(f.Rollouts) != 2 || f.Rollout(1).MaxRoll != 1296 || f.Rollout(2) != nil || f.Rollout(-1) != nil {
		t.Errorf("rollouts %d, second %+v", len(f.Rollouts), f.Rollout(1))
	}
	want := []string{"{\\rtf1 one\r\ntwo}", "", "{\\rtf1 three}"}
	if strings.Join(f.Comments, "|") != strings.Join(want, "|") {
		t.Errorf("comments %q, want %q", f.Comments, want)
	}
	if len(f.Archive.Files) != 4 || !f.Archive.Files[0].Stored || f.Archive.Files[3].Name != "other.bin" || len(f.Thumbnail) != 0 {
		t.Errorf("archive %+v", f.Archive)
	}
}

// TestBareStream reads a file with no archive record: temp.xg as one
// zlib stream after a header without thumbnail.
func TestBareStream(t *testing.T) {
	data := buildXG(nil, nil, nil)[:headerSize]
	data = append(data, zlibBytes(tinyMatch())...)
	f := decodeBytes(t, data)
	if !f.Archive.Bare || len(f.Records) != 7 {
		t.Errorf("bare file: %+v, %d records", f.Archive, len(f.Records))
	}
}

// mutate returns a copy of data changed by fn.
func mutate(data []byte, fn func(b []byte) []byte) []byte {
	return fn(bytes.Clone(data))
}

func TestHostile(t *testing.T) {
	good := buildMatch(tinyMatch())
	members := func(recs []byte) []member { return []member{{name: "temp.xg", data: recs}} }
	editEntry := func(off, v int) func(int, []byte) {
		return func(_ int, e []byte) { putI32(e, off, v) }
	}
	withRecord := func(i int, fn func(r []byte)) []byte {
		recs := tinyMatch()
		fn(recs[i*recordSize : (i+1)*recordSize])
		return buildXG(nil, members(recs), nil)
	}
	tests := []struct {
		name string
		data []byte
		opts Options
		want error
	}{
		{"empty", nil, Options{}, ErrFormat},
		{"short header", good[:100], Options{}, ErrFormat},
		{"bad magic", mutate(good, func(b []byte) []byte { b[0] = 'X'; return b }), Options{}, ErrFormat},
		{"header size", mutate(good, func(b []byte) []byte { putI32(b, 8, 100); return b }), Options{}, ErrFormat},
		{"header size past end", mutate(good, func(b []byte) []byte { putI32(b, 8, 1<<30); return b }), Options{}, ErrFormat},
		{"thumbnail past end", mutate(good, func(b []byte) []byte { putI32(b, 20, 1<<30); return b }), Options{}, ErrFormat},
		{"thumbnail offset negative", mutate(good, func(b []byte) []byte { binary.LittleEndian.PutUint64(b[12:], 1<<63); return b }), Options{}, ErrFormat},
		{"thumbnail limit", good, Options{MaxThumbnail: 4}, ErrTooLarge},
		{"archive CRC", mutate(good, func(b []byte) []byte { b[headerSize+20] ^= 1; return b }), Options{}, ErrChecksum},
		{"truncated archive", good[:len(good)-40], Options{}, ErrFormat},
		{"file CRC", buildXG(nil, members(tinyMatch()), editEntry(524, 1)), Options{}, ErrChecksum},
		{"entry past archive", buildXG(nil, members(tinyMatch()), editEntry(520, 1<<20)), Options{}, ErrFormat},
		{"negative size", buildXG(nil, members(tinyMatch()), editEntry(512, -5)), Options{}, ErrFormat},
		{"size over limit", buildXG(nil, members(tinyMatch()), editEntry(512, 1<<30)), Options{}, ErrTooLarge},
		{"size over option", buildXG(nil, members(tinyMatch()), nil), Options{MaxDecompressed: 5000}, ErrTooLarge},
		{"size beyond deflate", buildXG(nil, members(tinyMatch()), editEntry(512, 30<<20)), Options{}, ErrFormat},
		{"stream longer than entry", buildXG(nil, members(tinyMatch()), editEntry(512, recordSize)), Options{}, ErrFormat},
		{"stream shorter than entry", buildXG(nil, members(tinyMatch()), editEntry(512, 8*recordSize)), Options{}, ErrFormat},
		{"stored size mismatch", buildXG(nil, []member{{name: "temp.xg", data: tinyMatch(), stored: true}}, editEntry(512, 10)), Options{}, ErrFormat},
		{"no temp.xg", buildXG(nil, []member{{name: "temp.xgi", data: tinyMatch()}}, nil), Options{}, ErrFormat},
		{"temp.xg twice", buildXG(nil, []member{{name: "temp.xg", data: tinyMatch()}, {name: "temp.xg", data: tinyMatch()}}, nil), Options{}, ErrFormat},
		{"partial record", buildXG(nil, members(tinyMatch()[:recordSize+7]), nil), Options{}, ErrFormat},
		{"no match header", buildXG(nil, members(tinyMatch()[recordSize:]), nil), Options{}, ErrFormat},
		{"second match header", buildXG(nil, members(append(tinyMatch(), matchHeaderRec(30, "", "", 1)...)), nil), Options{}, ErrFormat},
		{"record type 9", withRecord(3, func(r []byte) { r[8] = 9 }), Options{}, ErrFormat},
		{"record magic", withRecord(0, func(r []byte) { putI32(r, 556, 0) }), Options{}, ErrFormat},
		{"version 41", withRecord(0, func(r []byte) { putI32(r, 552, 41) }), Options{}, ErrVersion},
		{"rollouts size", buildXG(nil, []member{{name: "temp.xg", data: tinyMatch()}, {name: "temp.xgr", data: make([]byte, 100)}}, nil), Options{}, ErrFormat},
		{"bad index", buildXG(nil, []member{{name: "temp.xg", data: tinyMatch()}, {name: "temp.xgi", data: make([]byte, 100)}}, nil), Options{}, ErrFormat},
		{"bare with thumbnail", mutate(buildXG(nil, nil, nil)[:headerSize], func(b []byte) []byte {
			putI32(b, 20, 4)
			return append(b, append([]byte("jpeg"), zlibBytes(tinyMatch())...)...)
		}), Options{}, ErrFormat},
		{"bare with trailing data", append(append(buildXG(nil, nil, nil)[:headerSize], zlibBytes(tinyMatch())...), 0), Options{}, ErrFormat},
		{"not zlib", append(buildXG(nil, nil, nil)[:headerSize], "not zlib at all, and long enough for a trailer......"...), Options{}, ErrFormat},
		{"too many files", mutate(good, func(b []byte) []byte { putI32(b, len(b)-32, 1000); return b }), Options{}, ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			f, err := opts.NewReader(bytes.NewReader(tt.data), int64(len(tt.data)))
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, %v; want %v", f, err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "xg: ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error not one line prefixed xg: %q", err)
			}
		})
	}
}

// TestTruncated cuts a real file at many places: each must fail cleanly.
func TestTruncated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusFiles(t)[0]))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n += 997 {
		if _, err := NewReader(bytes.NewReader(data[:n]), int64(n)); err == nil {
			t.Errorf("file cut at %d bytes accepted", n)
		}
	}
}

// zlibZeros returns the start of a zlib stream of n×256 KiB zero bytes,
// without its end: enough for a reader that must stop early. It is built
// by repeating one flushed block, which decodes to zeros after zeros, as
// compressing the whole would be slow under the race detector.
func zlibZeros(n int) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	zero := make([]byte, 256<<10)
	w.Write(zero)
	w.Flush()
	first := buf.Len()
	w.Write(zero)
	w.Flush()
	block := bytes.Clone(buf.Bytes()[first:])
	out := bytes.Clone(buf.Bytes())
	for range n - 2 {
		out = append(out, block...)
	}
	return out
}

// TestZlibBomb checks that a small stream that inflates hugely is stopped
// at the limit, with memory to match.
func TestZlibBomb(t *testing.T) {
	bomb := zlibZeros(256) // 64 MiB
	archived := func(claim int) []byte {
		return buildXG(nil, []member{{name: "temp.xg", packed: bomb}}, func(_ int, e []byte) { putI32(e, 512, claim) })
	}
	bare := append(buildXG(nil, nil, nil)[:headerSize], bomb...)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"registry tells the truth", archived(64 << 20), ErrTooLarge},
		{"registry lies small", archived(recordSize), ErrFormat},
		{"bare stream", bare, ErrTooLarge},
	}
	for _, tt := range tests {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Options{MaxDecompressed: 1 << 20}.NewReader(bytes.NewReader(tt.data), int64(len(tt.data)))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("%s: allocated %d bytes for a 1 MiB limit", tt.name, alloc)
		}
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "tiny.xg")
	if err := os.WriteFile(name, buildMatch(tinyMatch()), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := Open(name); err != nil || len(f.Records) != 7 {
		t.Errorf("Open: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.xg")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.xg")
	os.WriteFile(bad, []byte("RGMH"), 0o600)
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("error does not name the file: %v", err)
	}
}
