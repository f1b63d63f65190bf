package solver

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestNotesRoundTrip: notes written and read back are the same notes,
// sorted, for counts around a section's size.
func TestNotesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, noteSection - 1, noteSection, noteSection + 3} {
		ns := make(Notes, n)
		for i := range ns {
			ns[i] = makeNote(rng.Uint64N(maxNotePos+1), noteKind(rng.IntN(7)), rng.IntN(8192))
		}
		want := slices.Sorted(slices.Values(ns))
		var b bytes.Buffer
		if err := WriteNotes(&b, ns); err != nil {
			t.Fatal(err)
		}
		got, err := ReadNotes(&b, nil)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%d notes: read %d, %v", n, len(got), err)
		}
	}
	for _, bad := range []string{"", "TSNOTES", "TSNOTES1", "TSNOTES1\x05\x03abc"} {
		if _, err := ReadNotes(bytes.NewReader([]byte(bad)), nil); !errors.Is(err, ErrNotes) {
			t.Errorf("ReadNotes(%q): %v, want ErrNotes", bad, err)
		}
	}
}

// FuzzReadNotes: any bytes are a notes file or an error, never a panic.
func FuzzReadNotes(f *testing.F) {
	for _, n := range []int{0, 3, 300} {
		ns := make(Notes, n)
		for i := range ns {
			ns[i] = makeNote(uint64(i*977), noteKind(i%7), i%100)
		}
		var b bytes.Buffer
		if err := WriteNotes(&b, ns); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ns, err := ReadNotes(bytes.NewReader(data), nil)
		if err == nil && !slices.IsSorted(ns) {
			t.Fatal("notes read not sorted")
		}
	})
}

// checkpointCase is a part of Quixo 3x3's loopy tier x2o2, checkpointed
// halfway through its levels.
func checkpointCase(t testing.TB) (g tiergame.Game, tier tiergame.Tier, set *bitarray.Ranked, cut Cut, data []byte) {
	g, err := games.New("quixo", "size=3")
	if err != nil {
		t.Fatal(err)
	}
	tier = tiergame.Tier(2<<8 | 2)
	full, err := FullTier(context.Background(), g, tier, 1)
	if err != nil {
		t.Fatal(err)
	}
	set = bitarray.NewRanked(full)
	cut = NewCut(set, 3, 1)
	p, err := NewPart(context.Background(), g, tier, set, cut, 1, 20, -1, Effort{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	var b bytes.Buffer
	if err := p.Checkpoint(&b); err != nil {
		t.Fatal(err)
	}
	return g, tier, set, cut, b.Bytes()
}

// TestRestorePart: a checkpoint restores to the same cells and tables,
// and refuses another part's or a damaged one.
func TestRestorePart(t *testing.T) {
	g, tier, set, cut, data := checkpointCase(t)
	p, err := RestorePart(context.Background(), bytes.NewReader(data), g, tier, set, cut, 1, Effort{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := p.Checkpoint(&again); err != nil {
		t.Fatal(err)
	}
	p.Free()
	if !bytes.Equal(again.Bytes(), data) {
		t.Error("a restored part's checkpoint differs")
	}
	if _, err := RestorePart(context.Background(), bytes.NewReader(data), g, tier, set, cut, 2, Effort{Workers: 1}); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("part 1's checkpoint as part 2: %v", err)
	}
	for _, n := range []int{0, 10, len(data) / 2, len(data) - 1} {
		if _, err := RestorePart(context.Background(), bytes.NewReader(data[:n]), g, tier, set, cut, 1, Effort{Workers: 1}); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("a checkpoint cut at %d bytes: %v", n, err)
		}
	}
}

// FuzzRestorePart: any bytes restore part 1 or are refused, never a
// panic.
func FuzzRestorePart(f *testing.F) {
	g, tier, set, cut, data := checkpointCase(f)
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := RestorePart(context.Background(), bytes.NewReader(data), g, tier, set, cut, 1, Effort{Workers: 1})
		if err == nil {
			p.Free()
		}
	})
}
