package plan

import (
	"slices"
	"testing"
)

// TestPartBytes: a part's estimate shrinks with its share of the tier's
// hashes, stays below the whole tier's, and counts what every round
// holds (its window of the tier's set, its cells and tables, BaseBytes).
func TestPartBytes(t *testing.T) {
	const size, kid = 1 << 28, 1 << 27
	whole := LoopyTierBytes(size, size/2, [][2]uint64{{kid, kid / 2}})
	prev := uint64(0)
	for _, parts := range []uint64{64, 16, 4, 2} {
		n := PartBytes(size, size/parts, kid)
		if n <= prev || n >= whole || n < BaseBytes+BitsetBytes(size/parts)+PartHeldBytes(size/parts) {
			t.Errorf("%d parts: %d bytes a part (fewer parts: %d, whole tier: %d)", parts, n, prev, whole)
		}
		prev = n
	}
	if got := CellsOf(size, size/4); got != size/4 {
		t.Errorf("a sparse tier's cells: %d, want one a position", got)
	}
}

// TestPartRoundBytes: a part's first pass and later rounds hold its
// cells with the tables beside them, its window of the tier's set and a
// section of notes read, and no child tier (KidNotes units read them); a
// round also the notes it makes; its cells take two bytes a position
// from the level a byte's codes do not hold (wins and losses, or ties),
// once, not both layouts at once.
func TestPartRoundBytes(t *testing.T) {
	const size, hashes, kid = 1 << 28, 1 << 26, 1 << 27
	first := PartFirstPassBytes(hashes, hashes)
	round := PartRoundBytes(hashes, PartHeldBytes(hashes))
	if first >= round || round-first != 2*FlushNotes*NoteBytes || first != BaseBytes+BitsetBytes(hashes)+hashes+hashes/4+readNotesBytes {
		t.Errorf("a round %d bytes, its first pass %d: want the notes a round makes between them", round, first)
	}
	if whole := PartFirstPassBytes(size, hashes); whole-first != BitsetBytes(size)-BitsetBytes(hashes) {
		t.Errorf("a first pass over the whole set %d bytes, over its window %d: want the sets' difference", whole, first)
	}
	if PartBytes(size, hashes, kid) != max(round, KidNotesBytes(kid, 4)) || PartBytes(size, hashes, 0) != round {
		t.Errorf("PartBytes is not the largest of a first pass, a round and a child's notes")
	}
	for _, c := range []struct {
		level int
		ties  bool
		cells uint64
	}{{-1, false, hashes}, {NarrowRem - 2, false, hashes}, {NarrowRem - 1, false, 2 * hashes},
		{500, false, 2 * hashes}, {NarrowTieRem - 2, true, hashes}, {NarrowTieRem - 1, true, 2 * hashes}} {
		if got := PartCellBytes(hashes, c.level, c.ties); got != c.cells {
			t.Errorf("level %d (ties %v): %d bytes of cells, want %d", c.level, c.ties, got, c.cells)
		}
	}
}

// TestKidNotesBytes: a KidNotes unit holds the child tier's set, a
// chunk of its records with their notes and their encoding, and a file
// buffer per role and part; nothing of the tier, whatever its size.
func TestKidNotesBytes(t *testing.T) {
	const kid = 1 << 27
	chunk := uint64(ChildChunk) * (RecordBytes + 2*notesPerRecord*NoteBytes)
	if got, want := KidNotesBytes(kid, 4), BaseBytes+BitsetBytes(kid)+chunk+12*notesFileBytes; got != want {
		t.Errorf("a range of a child of %d hashes in 4 parts: %d bytes, want %d", kid, got, want)
	}
	if got, want := KidNotesBytes(kid, 8)-KidNotesBytes(kid, 4), 12*uint64(notesFileBytes); got != want {
		t.Errorf("4 parts more: %d bytes more, want %d (their files)", got, want)
	}
	// A child smaller than a chunk: its records, not a chunk's.
	if got, want := KidNotesBytes(1000, 1), BaseBytes+BitsetBytes(1000)+1000*(RecordBytes+2*notesPerRecord*NoteBytes)+3*notesFileBytes; got != want {
		t.Errorf("a child of 1000 hashes: %d bytes, want %d", got, want)
	}
}

// TestChildRanges: a child tier's records are cut into as many ranges
// as the parts, at whole chunks, none below the least records, and
// cover every record once.
func TestChildRanges(t *testing.T) {
	for _, c := range []struct {
		count        uint64
		parts        int
		least, align uint64
		want         []Range
	}{
		{0, 4, 1, 1, nil},
		{10, 4, 1, 1, []Range{{0, 2}, {2, 5}, {5, 7}, {7, 10}}},
		{10, 4, 5, 1, []Range{{0, 5}, {5, 10}}},
		{10, 4, 100, 1, []Range{{0, 10}}},
		{3, 8, 1, 1, []Range{{0, 1}, {1, 2}, {2, 3}}},
		{100, 3, 1, 16, []Range{{0, 32}, {32, 64}, {64, 100}}},
		{100, 8, 1, 16, []Range{{0, 16}, {16, 32}, {32, 48}, {48, 64}, {64, 80}, {80, 96}, {96, 100}}},
		{5 * ChildChunk, 4, 1 << 20, ChildChunk, []Range{{0, 5 * ChildChunk}}},
		{10<<20 + 7, 4, 1 << 20, ChildChunk, []Range{{0, 40 * ChildChunk}, {40 * ChildChunk, 80 * ChildChunk}, {80 * ChildChunk, 120 * ChildChunk}, {120 * ChildChunk, 10<<20 + 7}}},
	} {
		got := ChildRanges(c.count, c.parts, c.least, c.align)
		if !slices.Equal(got, c.want) {
			t.Errorf("ChildRanges(%d, %d, %d, %d) = %v, want %v", c.count, c.parts, c.least, c.align, got, c.want)
		}
	}
}

// TestCloseBytes: closing a tier holds its set, its frontier and, per
// goroutine, a found set and a set over each child tier; writing its
// partials holds the largest in memory, up to the spill.
func TestCloseBytes(t *testing.T) {
	const size = 1 << 28
	kids := []uint64{size / 2, size / 4}
	set, children := BitsetBytes(size), BitsetBytes(size/2)+BitsetBytes(size/4)
	if got, want := CloseBytes(size, kids, 1), BaseBytes+3*set+children; got != want {
		t.Errorf("one goroutine: %d, want %d", got, want)
	}
	if got, want := CloseBytes(size, kids, 3)-CloseBytes(size, kids, 2), set+children; got != want {
		t.Errorf("a goroutine more: %d bytes more, want %d", got, want)
	}
	// A child tier larger than the tier: writing its partial is the peak.
	if got, want := CloseBytes(1<<20, []uint64{1 << 32}, 1), BaseBytes+BitsetBytes(1<<20)+BitsetBytes(1<<32)+storedSpill; got != want {
		t.Errorf("a large child: %d, want %d", got, want)
	}
}

// TestLoopyPartsFor: a tier that fits whole is not cut; else the fewest
// parts that fit; none fit a budget below what every round holds.
func TestLoopyPartsFor(t *testing.T) {
	const size, kid = 1 << 28, 1 << 27
	kids := [][2]uint64{{kid, kid / 2}}
	whole := LoopyTierBytes(size, size/2, kids)
	if p, ok := LoopyParts(size, size/2, kids, whole, 256); p != 0 || !ok {
		t.Errorf("fits whole: %d parts, %v", p, ok)
	}
	p, ok := LoopyParts(size, size/2, kids, whole/2, 256)
	if !ok || p < 2 || PartBytes(size, size/uint64(p)+1, kid) > whole/2 || p > 2 && PartBytes(size, size/uint64(p-1)+1, kid) <= whole/2 {
		t.Errorf("half the memory: %d parts, %v", p, ok)
	}
	if p, ok := LoopyParts(size, size/2, kids, BaseBytes, 256); ok || p != 256 {
		t.Errorf("too little memory: %d parts, %v", p, ok)
	}
}

// TestCutBudget: parts are cut for a sixteenth less than the largest
// budget, at least 8 MiB less, never less than half of it.
func TestCutBudget(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct{ budget, want uint64 }{
		{0, 0}, {10 * mib, 5 * mib}, {16 * mib, 8 * mib}, {135 * mib, 135*mib - 135*mib/16},
		{128 * mib, 120 * mib}, {1024 * mib, 960 * mib},
	} {
		if got := CutBudget(tc.budget); got != tc.want {
			t.Errorf("CutBudget(%d MiB) = %d MiB, want %d MiB", tc.budget/mib, got/mib, tc.want/mib)
		}
	}
}
