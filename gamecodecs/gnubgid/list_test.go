package gnubgid

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []ListEntry
		err  bool
	}{
		{"", nil, false},
		{"4HPwATDgc/ABMA\n", []ListEntry{{1, "4HPwATDgc/ABMA"}}, false},
		{"# a comment\n\n  4HPwATDgc/ABMA  \r\nAQAABAEAAAAAAA:cAkpApAAcAAE", []ListEntry{{3, "4HPwATDgc/ABMA"}, {4, "AQAABAEAAAAAAA"}}, false},
		{"not an id", nil, true},
		{":cAkpApAAcAAE", nil, true},
		{strings.Repeat("A", MaxListLine+1), nil, true},
		{"garbage-that-is-one-word", []ListEntry{{1, "garbage-that-is-one-word"}}, false}, // DecodePosition's business
	} {
		got, err := ReadList(strings.NewReader(tc.in))
		if (err != nil) != tc.err || (err != nil && !errors.Is(err, ErrList)) {
			t.Errorf("ReadList(%.40q): error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if !tc.err && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ReadList(%.40q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzReadList: any input gives entries or an ErrList error, never a
// panic; entries are non-empty, without spaces or ':', on increasing
// lines, and each is found on its line of the input.
func FuzzReadList(f *testing.F) {
	f.Add("4HPwATDgc/ABMA\n")
	f.Add("# list\n\nAQAABAEAAAAAAA:cAkpApAAcAAE\r\n  4HPwATDgc/ABMA\n")
	f.Add("a b\n")
	f.Add(":x")
	f.Fuzz(func(t *testing.T, in string) {
		es, err := ReadList(strings.NewReader(in))
		if err != nil {
			return
		}
		lines := strings.Split(in, "\n")
		last := 0
		for _, e := range es {
			if e.ID == "" || strings.ContainsAny(e.ID, " \t\r\n:") || e.Line <= last || e.Line > len(lines) || !strings.Contains(lines[e.Line-1], e.ID) {
				t.Fatalf("entry %+v of %q", e, in)
			}
			last = e.Line
		}
	})
}
