package levelfile

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSymmetricMark: a file written with Symmetric says so in its header
// (spec dialect), reads back with the same members, and still has exactly
// two SEP bytes before its data (readers that count them skip the header);
// without it, or in the classic dialect, there is no mark.
func TestSymmetricMark(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := randomSet(r, 0, 5000, 0.3)
	for _, tc := range []struct {
		o    WriteOptions
		mark bool
	}{
		{WriteOptions{Symmetric: true, Game: "quixo"}, true},
		{WriteOptions{Symmetric: true, Types: Types(Type0)}, true},
		{WriteOptions{Game: "quixo"}, false},
		{WriteOptions{Symmetric: true, Dialect: Classic}, false},
	} {
		b, _ := writeBytes(t, s, &tc.o)
		h, members := readBytes(t, b)
		if h.Symmetric() != tc.mark {
			t.Errorf("%+v: Symmetric() = %v", tc.o, h.Symmetric())
		}
		if want := slices.Collect(s.All()); !slices.Equal(members, want) {
			t.Errorf("%+v: %d members read, %d written", tc.o, len(members), len(want))
		}
		// The first SEP ends the last comment line, the second the
		// min/max line that follows the type.
		raw := gunzip(t, b)
		sep := byte(h.Dialect)
		first := bytes.IndexByte(raw, sep)
		second := first + 1 + bytes.IndexByte(raw[first+1:], sep)
		lines := bytes.Split(raw[first+2:second], []byte("\n"))
		if len(lines) != 2 || !bytes.Contains(raw[:first], []byte("### Doc on level file formats")) {
			t.Errorf("%+v: header %q", tc.o, raw[:second+1])
		}
	}
}
