package met

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// debianDir is where Debian's gnubg package installs the tables (CI
// installs it; see .ci/run).
const debianDir = "/usr/share/gnubg/met"

// small is a 2-point table in gnubg's format.
const small = `<?xml version = "1.0"?>
<!DOCTYPE met PUBLIC "-//GNU Backgammon//DTD Match Equity Tables//EN" "met.dtd">
<met>
  <info><name>small</name><description>two points</description><length>2</length></info>
  <pre-crawford-table type="explicit">
    <row><me>0.5</me><me>0.7</me></row>
    <row><me>0.3</me><me>0.5</me></row>
  </pre-crawford-table>
  <post-crawford-table type="explicit" player="both">
    <row><me>0.5</me></row>
  </post-crawford-table>
</met>`

func TestReadSmall(t *testing.T) {
	tb, err := Read(strings.NewReader(small))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Name != "small" || tb.Description != "two points" || tb.Length != 2 {
		t.Errorf("table %+v", tb)
	}
	for _, tc := range []struct {
		a0, a1 int
		post   bool
		want   float64
	}{
		{1, 2, false, 0.7}, {2, 1, false, 0.3}, {2, 2, false, 0.5}, {1, 1, false, 0.5},
		{1, 1, true, 0.5}, {0, 2, false, 1}, {2, -1, true, 0}, {-3, 0, false, 1},
	} {
		got, err := tb.Win(tc.a0, tc.a1, tc.post)
		if err != nil || got != tc.want {
			t.Errorf("Win(%d, %d, %v) = %v, %v; want %v", tc.a0, tc.a1, tc.post, got, err, tc.want)
		}
	}
	for _, tc := range [][2]int{{3, 1}, {1, 3}, {2, 1}} { // 2-away trailing post-Crawford: not in a 2-point table
		if _, err := tb.Win(tc[0], tc[1], true); !errors.Is(err, ErrLength) {
			t.Errorf("Win(%d, %d, post-Crawford): %v, want ErrLength", tc[0], tc[1], err)
		}
	}
}

// TestReadErrors checks that broken tables are refused with ErrFormat, and
// tables by formula with ErrUnsupported.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           error
	}{
		{"not XML", "<met>", "<met", ErrFormat},
		{"length", "<length>2</length>", "<length>two</length>", ErrFormat},
		{"zero length", "<length>2</length>", "<length>0</length>", ErrFormat},
		{"long", "<length>2</length>", "<length>65</length>", ErrFormat},
		{"rows", "<length>2</length>", "<length>3</length>", ErrFormat},
		{"row values", "<row><me>0.3</me><me>0.5</me></row>", "<row><me>0.3</me></row>", ErrFormat},
		{"above one", "<me>0.7</me>", "<me>1.7</me>", ErrFormat},
		{"negative", "<me>0.7</me>", "<me>-0.1</me>", ErrFormat},
		{"not a number", "<me>0.7</me>", "<me>NaN</me>", ErrFormat},
		{"no post-Crawford table", `player="both"`, `player="0"`, ErrFormat},
		{"bad player", `player="both"`, `player="2"`, ErrFormat},
		{"type", `<pre-crawford-table type="explicit">`, `<pre-crawford-table type="other">`, ErrFormat},
		{"formula", `<pre-crawford-table type="explicit">`, `<pre-crawford-table type="zadeh">`, ErrUnsupported},
		{"post formula", `<post-crawford-table type="explicit"`, `<post-crawford-table type="mec"`, ErrUnsupported},
	} {
		s := strings.Replace(small, tc.old, tc.new, 1)
		if s == small {
			t.Fatalf("%s: %q not in the table", tc.name, tc.old)
		}
		if _, err := Read(strings.NewReader(s)); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := Read(strings.NewReader(strings.Repeat(" ", maxFile+1))); !errors.Is(err, ErrFormat) {
		t.Errorf("a file too large: %v", err)
	}
}

// TestDebianTables reads every table gnubg installs: the explicit ones
// whole, with values checked against the file for Kazaross-XG2 (gnubg's
// default), the symmetric ones adding up to one, and the tables by
// formula refused.
func TestDebianTables(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(debianDir, "*.xml"))
	if len(files) == 0 {
		t.Skipf("no tables in %s (Debian package gnubg)", debianDir)
	}
	for _, f := range files {
		name := filepath.Base(f)
		tb, err := ReadFile(f)
		switch name {
		case "catalog.xml":
			if err == nil {
				t.Errorf("%s: read as a table", name)
			}
			continue
		case "mec.xml", "zadeh.xml":
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v, want ErrUnsupported", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.HasPrefix(name, "jac") {
			worst := 0.0
			for a := 1; a <= tb.Length; a++ {
				for b := 1; b <= tb.Length; b++ {
					x, _ := tb.Win(a, b, false)
					y, _ := tb.Win(b, a, false)
					worst = max(worst, math.Abs(x+y-1))
				}
			}
			if worst > 0.003 { // ortega.xml's rounding
				t.Errorf("%s: player 0's and player 1's chances add up to one within %g", name, worst)
			}
		}
		t.Logf("%s: %q, %d points", name, tb.Name, tb.Length)
	}
	tb, err := ReadFile(DefaultFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a0, a1 int
		post   bool
		want   float64
	}{
		{1, 2, false, 0.67736}, {2, 1, false, 0.32264}, {7, 7, false, 0.5}, {1, 25, false, 0.99905},
		{2, 1, true, 0.48803}, {1, 2, true, 1 - 0.48803}, {3, 1, true, 0.32264}, {1, 1, true, 0.5},
	} {
		got, err := tb.Win(tc.a0, tc.a1, tc.post)
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Kazaross-XG2: Win(%d, %d, %v) = %v, %v; want %v", tc.a0, tc.a1, tc.post, got, err, tc.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(small))
	for _, name := range []string{"Kazaross-XG2.xml", "jac050.xml", "zadeh.xml"} {
		if b, err := os.ReadFile(filepath.Join(debianDir, name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := Read(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		if tb.Length < 1 || tb.Length > MaxLength {
			t.Fatalf("length %d", tb.Length)
		}
		for a := -1; a <= tb.Length+1; a++ {
			for c := -1; c <= tb.Length+1; c++ {
				for _, post := range []bool{false, true} {
					if w, err := tb.Win(a, c, post); err == nil && (w < 0 || w > 1) {
						t.Fatalf("Win(%d, %d, %v) = %v", a, c, post, w)
					}
				}
			}
		}
	})
}
