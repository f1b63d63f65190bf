package levelfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
)

const classicDir = "../../shared/testvectors/levelfile/classic"

// classicCase is one file written by GamesmanClassic's own writer and the
// BITARRAY it was given (args.txt: startIndex endIndex pos...).
type classicCase struct {
	name       string
	start, end uint64
	positions  []uint64
	file       []byte
}

func classicCases(t *testing.T) []classicCase {
	t.Helper()
	dirs, err := os.ReadDir(classicDir)
	if os.IsNotExist(err) {
		t.Skipf("%s not found", classicDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var cases []classicCase
	for _, d := range dirs {
		args, err := os.ReadFile(filepath.Join(classicDir, d.Name(), "args.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var nums []uint64
		for _, f := range strings.Fields(string(args)) {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			nums = append(nums, n)
		}
		file, err := os.ReadFile(filepath.Join(classicDir, d.Name(), d.Name()+".dat.gz"))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, classicCase{d.Name(), nums[0], nums[1], nums[2:], file})
	}
	if len(cases) == 0 {
		t.Fatal("no classic vectors")
	}
	return cases
}

// TestClassicVectorsRead reads every file GamesmanClassic wrote.
func TestClassicVectorsRead(t *testing.T) {
	for _, c := range classicCases(t) {
		t.Run(c.name, func(t *testing.T) {
			h, ps := readBytes(t, c.file)
			if h.Type != Type0 || h.Dialect != Classic {
				t.Errorf("type %d dialect %v, want 0 classic", h.Type, h.Dialect)
			}
			if !sameMembers(ps, c.positions) {
				t.Errorf("positions %v, want %v", ps, c.positions)
			}
			if h.Min != c.positions[0] || h.Max != c.positions[len(c.positions)-1] {
				t.Errorf("min/max %d/%d", h.Min, h.Max)
			}
		})
	}
}

// TestClassicVectorsWrite: the classic-dialect writer produces the same
// decompressed bytes as GamesmanClassic for the same BITARRAY.
func TestClassicVectorsWrite(t *testing.T) {
	for _, c := range classicCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want := gunzip(t, c.file)
			// Through the original API: a BITARRAY from startIndex.
			array := make([]byte, (c.end-c.start+7)/8+1)
			for _, p := range c.positions {
				i := p - c.start
				array[i/8] |= 0x80 >> (i % 8)
			}
			name := filepath.Join(t.TempDir(), "m"+c.name+".dat.gz")
			if err := WriteLevelFile(name, array, c.start, c.end, &WriteOptions{Types: Types(Type0), Dialect: Classic}); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if raw := gunzip(t, got); !bytes.Equal(raw, want) {
				t.Errorf("decompressed bytes differ:\n got %q\nwant %q", raw, want)
			}
			// And through the Go API with a set.
			s := bitarray.New(c.start, c.end-c.start)
			for _, p := range c.positions {
				s.Add(p)
			}
			b, _ := writeBytes(t, s, &WriteOptions{Types: Types(Type0), Dialect: Classic})
			if raw := gunzip(t, b); !bytes.Equal(raw, want) {
				t.Errorf("Write: decompressed bytes differ:\n got %q\nwant %q", raw, want)
			}
		})
	}
}
