package levelfile

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// A type-2 file over [0, 2^64−1] lists its unreachable offsets: with none it
// holds all 2^64 positions, a count one more than a uint64 holds.
func TestCountOfTheWholeRange(t *testing.T) {
	hdr := "1\n# c\n2\n0 18446744073709551615 |\n"
	tests := []struct {
		name  string
		raw   []byte
		all   bool
		count uint64
	}{
		{"no unreachable", spec(hdr, "|\n1"), true, 0},
		// 64-bit field 5: offset 5 is unreachable.
		{"one unreachable", spec(hdr, "\x00\x00\x00\x00\x00\x00\x00\x05|\n1"), false, math.MaxUint64},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		name := filepath.Join(dir, tt.name+".dat.gz")
		if err := os.WriteFile(name, gzipBytes(tt.raw), 0o644); err != nil {
			t.Fatal(err)
		}
		info, err := Validate(name, nil)
		if err != nil || info.AllPositions != tt.all || info.Count != tt.count {
			t.Errorf("%s: Validate = count %d, all %v, %v; want count %d, all %v", tt.name, info.Count, info.AllPositions, err, tt.count, tt.all)
		}
		want := "18446744073709551615"
		if tt.all {
			want = "18446744073709551616"
		}
		if s := info.CountString(); s != want {
			t.Errorf("%s: CountString %s, want %s", tt.name, s, want)
		}
		f, err := Open(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := f.Count()
		f.Close()
		if tt.all && (!errors.Is(err, ErrCountOverflow) || n != 0) || !tt.all && (err != nil || n != tt.count) {
			t.Errorf("%s: Count = %d, %v", tt.name, n, err)
		}
	}
}
