package loopy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/internal/bytier"
	"github.com/tiersolve/tiersolve/solver/internal/cells"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestNotesRoundTrip: notes written and read back are the same notes,
// sorted, for counts around a section's size. Under the race detector,
// which makes sorting a section's million random notes seconds long (the
// code is serial), only the small counts: .ci/run runs the others
// without it, and TestEachNotes reads two sections under it.
func TestNotesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	counts := []int{0, 1, 7, plan.NoteSection - 1, plan.NoteSection, plan.NoteSection + 3}
	if race.Enabled {
		counts = counts[:3]
	}
	for _, n := range counts {
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

// TestEachNotes: a notes file is read a section at a time, each sorted,
// and f's error stops the reading.
func TestEachNotes(t *testing.T) {
	ns := make(Notes, plan.NoteSection+5)
	for i := range ns {
		ns[i] = makeNote(uint64(len(ns)-i), childHeld, 0)
	}
	var b bytes.Buffer
	if err := WriteNotes(&b, ns); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var got Notes
	if err := EachNotes(bytes.NewReader(b.Bytes()), func(s Notes) error {
		sizes = append(sizes, len(s))
		got = append(got, s...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sizes, []int{plan.NoteSection, 5}) || !slices.Equal(got, ns) {
		t.Errorf("sections of %v notes, %d in all", sizes, len(got))
	}
	stop := errors.New("stop")
	calls := 0
	if err := EachNotes(bytes.NewReader(b.Bytes()), func(Notes) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("f's error: %v after %d calls", err, calls)
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

// quixoParts is Quixo 3x3's loopy tier x2o2, every legal position of it,
// cut into 3 parts: the case of the part tests.
func quixoParts(tb testing.TB) (tiergame.Game, tiergame.Tier, *bitarray.Ranked, plan.Cut) {
	tb.Helper()
	g, err := games.New("quixo", "size=3")
	if err != nil {
		tb.Fatal(err)
	}
	tier := tiergame.Tier(2<<8 | 2)
	full, err := reach.FullTier(context.Background(), g, tier, 1)
	if err != nil {
		tb.Fatal(err)
	}
	set := bitarray.NewRanked(full)
	return g, tier, set, plan.NewCut(set, 3, 1)
}

// checkpointCase is a part of Quixo 3x3's loopy tier x2o2, checkpointed
// after its own moves and notes of wins elsewhere for some of its
// positions, with a narrow layout: its side tables hold counts and
// longest wins.
func checkpointCase(t testing.TB) (g tiergame.Game, tier tiergame.Tier, set *bitarray.Ranked, cut plan.Cut, data []byte) {
	g, tier, set, cut = quixoParts(t)
	s, err := newPart(context.Background(), g, tier, set, cut, 1, cells.Layout{Bits: 8, Rem: 40, TieRem: 2, Ctr: 1}, work.Effort{Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Part{s}
	defer p.Free()
	var won Notes
	for q := range set.Range(cut.Bounds[1], cut.Bounds[2]) {
		if q%5 == 0 {
			won = append(won, makeNote(q, childWon, int(q%17)))
		}
	}
	if err := p.Apply(context.Background(), won); err != nil {
		t.Fatal(err)
	}
	if p.s.counted.len() == 0 || p.s.maxWin.len() == 0 {
		t.Fatalf("side tables of %d and %d entries: the case checks none", p.s.counted.len(), p.s.maxWin.len())
	}
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
	p, err := RestorePart(context.Background(), bytes.NewReader(data), g, tier, set, cut, 1, work.Effort{Workers: 1})
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
	if _, err := RestorePart(context.Background(), bytes.NewReader(data), g, tier, set, cut, 2, work.Effort{Workers: 1}); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("part 1's checkpoint as part 2: %v", err)
	}
	for _, n := range []int{0, 10, len(data) / 2, len(data) - 1} {
		if _, err := RestorePart(context.Background(), bytes.NewReader(data[:n]), g, tier, set, cut, 1, work.Effort{Workers: 1}); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("a checkpoint cut at %d bytes: %v", n, err)
		}
	}
	// Cells by the other index, with the same words: read, they would put
	// every value on another position.
	flipped := withHeader(t, data, func(h *partHeader) { h.Dense = !h.Dense })
	if _, err := RestorePart(context.Background(), bytes.NewReader(flipped), g, tier, set, cut, 1, work.Effort{Workers: 1}); !errors.Is(err, ErrCheckpoint) {
		t.Errorf("a checkpoint whose cells are by the other index: %v", err)
	}
}

// TestSpillPart: a part spilled (its cells uncompressed) restores to the
// part its checkpoint does; compressed frames read as raw, or raw ones as
// compressed, are refused.
func TestSpillPart(t *testing.T) {
	g, tier, set, cut, data := checkpointCase(t)
	restore := func(b []byte) (*Part, error) {
		return RestorePart(context.Background(), bytes.NewReader(b), g, tier, set, cut, 1, work.Effort{Workers: 1})
	}
	p, err := restore(data)
	if err != nil {
		t.Fatal(err)
	}
	var spilled bytes.Buffer
	if err := p.Spill(&spilled); err != nil {
		t.Fatal(err)
	}
	p.Free()
	if spilled.Len() <= len(data) {
		t.Errorf("a spill of %d bytes, its checkpoint %d: not raw", spilled.Len(), len(data))
	}
	back, err := restore(spilled.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := back.Checkpoint(&again); err != nil {
		t.Fatal(err)
	}
	back.Free()
	if !bytes.Equal(again.Bytes(), data) {
		t.Error("a part restored from its spill checkpoints otherwise")
	}
	for name, b := range map[string][]byte{
		"compressed read as raw": withHeader(t, data, func(h *partHeader) { h.Raw = true }),
		"raw read as compressed": withHeader(t, spilled.Bytes(), func(h *partHeader) { h.Raw = false }),
	} {
		if _, err := restore(b); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// withHeader returns checkpoint data with its header changed by edit.
func withHeader(t testing.TB, data []byte, edit func(*partHeader)) []byte {
	br := bufio.NewReader(bytes.NewReader(data))
	h, err := readPartHeader(br)
	if err != nil {
		t.Fatal(err)
	}
	edit(&h)
	hj, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(partMagic), binary.AppendUvarint(nil, uint64(len(hj)))...)
	out = append(out, hj...)
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, rest...)
}

// FuzzRestorePart: any bytes restore part 1 or are refused, never a
// panic.
func FuzzRestorePart(f *testing.F) {
	g, tier, set, cut, data := checkpointCase(f)
	f.Add(data)
	p, err := RestorePart(context.Background(), bytes.NewReader(data), g, tier, set, cut, 1, work.Effort{Workers: 1})
	if err != nil {
		f.Fatal(err)
	}
	var spilled bytes.Buffer
	if err := p.Spill(&spilled); err != nil {
		f.Fatal(err)
	}
	p.Free()
	f.Add(spilled.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := RestorePart(context.Background(), bytes.NewReader(data), g, tier, set, cut, 1, work.Effort{Workers: 1})
		if err == nil {
			p.Free()
		}
	})
}

// TestGatherPart: a part gathered from its sub-parts' first passes
// (GatherPart) checkpoints as the part's own first pass does, by position
// and by rank, with wide cells too, whether the sub-parts start on a word
// of cells or inside one, and over the tier's set or the part's window of
// it (as a worker reads it).
func TestGatherPart(t *testing.T) {
	g, tier, set, cut := quixoParts(t)
	// Notes of every kind a first pass reads, for positions all over the
	// tier: each sub-part applies them all and keeps its own.
	var held, won Notes
	for q := range set.Range(set.Base(), set.End()) {
		switch q % 7 {
		case 1:
			held = append(held, makeNote(q, childHeld, 0))
		case 2:
			held = append(held, makeNote(q, childLost, int(q%9)))
		case 3, 4:
			won = append(won, makeNote(q, childWon, int(q%17)))
		}
	}
	for _, tc := range []struct {
		name  string
		m     int
		align uint64
		paths *work.Paths
	}{
		{"dense", 4, 1, nil},
		{"dense aligned", 3, 64, nil},
		{"ranked", 5, 1, &work.Paths{Ranked: true}},
		{"ranked aligned", 2, 8, &work.Paths{Ranked: true}},
		{"narrow", 4, 1, &work.Paths{Narrow: true}},
		{"dense window", 4, 1, nil},
		{"ranked window", 5, 1, &work.Paths{Ranked: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := work.Effort{Workers: 2, Paths: tc.paths}
			fine := cut.Refine(set, tc.m, tc.align)
			if fine.Parts() <= cut.Parts() {
				t.Fatalf("%v refined into %v", cut.Bounds, fine.Bounds)
			}
			for k := range cut.Parts() {
				set := set
				if strings.HasSuffix(tc.name, "window") {
					set = bitarray.NewRanked(set.Sub(cut.Bounds[k], cut.Bounds[k+1]))
				}
				want := firstPassCheckpoint(t, g, tier, set, cut, k, e, held, won)
				var subs []io.Reader
				for j := range fine.Parts() {
					if fine.Bounds[j] >= cut.Bounds[k] && fine.Bounds[j+1] <= cut.Bounds[k+1] {
						subs = append(subs, bytes.NewReader(firstPassCheckpoint(t, g, tier, set, fine, j, e, held, won)))
					}
				}
				var grown []uint64
				grew := func(p *Part) { grown = append(grown, p.Bytes()) }
				p, err := GatherPart(context.Background(), subs, g, tier, set, cut, fine, k, e, grew)
				if err != nil {
					t.Fatal(err)
				}
				if len(grown) != len(subs) || !slices.IsSorted(grown) || grown[len(grown)-1] != p.Bytes() {
					t.Errorf("part %d: grew called with %v over %d sub-parts, the part holding %d bytes", k, grown, len(subs), p.Bytes())
				}
				var got bytes.Buffer
				if err := p.Checkpoint(&got); err != nil {
					t.Fatal(err)
				}
				if p.s.counted.len()+p.s.maxWin.len() == 0 {
					t.Errorf("part %d: no side table: the case checks none", k)
				}
				p.Free()
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("part %d gathered from %d sub-parts: its checkpoint differs from its own first pass's", k, len(subs))
				}
				if len(subs) > 1 {
					if _, err := GatherPart(context.Background(), subs[1:], g, tier, set, cut, fine, k, e, nil); err == nil {
						t.Errorf("part %d gathered without its first sub-part", k)
					}
				}
			}
		})
	}
}

// FuzzGatherPart: any bytes as the second sub-part's checkpoint gather
// into part 1 or are refused, never a panic.
func FuzzGatherPart(f *testing.F) {
	g, tier, set, cut, _ := checkpointCase(f)
	fine := cut.Refine(set, 2, 1)
	var subs [][]byte
	for j := range fine.Parts() {
		if fine.Bounds[j] >= cut.Bounds[1] && fine.Bounds[j+1] <= cut.Bounds[2] {
			subs = append(subs, firstPassCheckpoint(f, g, tier, set, fine, j, work.Effort{Workers: 1}))
		}
	}
	if len(subs) != 2 {
		f.Fatalf("part 1 in %d sub-parts", len(subs))
	}
	f.Add(subs[1])
	f.Add(subs[0])
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := GatherPart(context.Background(), []io.Reader{bytes.NewReader(subs[0]), bytes.NewReader(data)}, g, tier, set, cut, fine, 1, work.Effort{Workers: 1}, nil)
		if err == nil {
			p.Free()
		}
	})
}

// firstPassCheckpoint is the checkpoint of part k of tier as cut after
// its first pass (NewPart for child tiers of remoteness up to 30, no
// ties), with each of notes applied in turn (copies: Apply sorts them).
func firstPassCheckpoint(tb testing.TB, g tiergame.Game, tier tiergame.Tier, set *bitarray.Ranked, cut plan.Cut, k int, e work.Effort, notes ...Notes) []byte {
	tb.Helper()
	p, err := NewPart(context.Background(), g, tier, set, cut, k, 30, -1, e, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Free()
	for _, ns := range notes {
		if err := p.Apply(context.Background(), slices.Clone(ns)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := p.EndFirstPass(); err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Checkpoint(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// TestNewPartHeldFirst: a part whose held notes come before its moves
// are read (NewPart's held) checkpoints as the part whose first pass
// reads every move and then applies the same notes, by position and by
// rank, over the set or the part's window; a won note before the first
// pass is refused.
func TestNewPartHeldFirst(t *testing.T) {
	g, tier, set, cut := quixoParts(t)
	// Held notes name parents, never a primitive position
	// (Unmover.Parents): only those of positions with moves.
	moves := bytier.New(g, tier)
	var held, won Notes
	for q := range set.Range(set.Base(), set.End()) {
		if v, err := moves.Value(q); err != nil || v != tiergame.Undecided {
			continue
		}
		switch q % 5 {
		case 1:
			held = append(held, makeNote(q, childHeld, 0))
		case 2:
			held = append(held, makeNote(q, childLost, int(q%9)))
		case 3:
			won = append(won, makeNote(q, childWon, int(q%17)))
		}
	}
	for _, tc := range []struct {
		name   string
		paths  *work.Paths
		window bool
	}{
		{"dense", nil, false},
		{"ranked", &work.Paths{Ranked: true}, false},
		{"narrow", &work.Paths{Narrow: true}, false},
		{"window", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := work.Effort{Workers: 2, Paths: tc.paths}
			for k := range cut.Parts() {
				set := set
				if tc.window {
					set = bitarray.NewRanked(set.Sub(cut.Bounds[k], cut.Bounds[k+1]))
				}
				want := firstPassCheckpoint(t, g, tier, set, cut, k, e, held, won)
				early := func(apply func(Notes) error) error {
					// In two sections, as a file's are read.
					h := slices.Clone(held)
					if err := apply(h[:len(h)/2]); err != nil {
						return err
					}
					return apply(h[len(h)/2:])
				}
				p, err := NewPart(context.Background(), g, tier, set, cut, k, 30, -1, e, early)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Apply(context.Background(), slices.Clone(won)); err != nil {
					t.Fatal(err)
				}
				if err := p.EndFirstPass(); err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := p.Checkpoint(&got); err != nil {
					t.Fatal(err)
				}
				p.Free()
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("part %d: its held notes first give another checkpoint", k)
				}
			}
			wonFirst := func(apply func(Notes) error) error { return apply(slices.Clone(won)) }
			if p, err := NewPart(context.Background(), g, tier, set, cut, 1, 30, -1, e, wonFirst); err == nil {
				p.Free()
				t.Error("won notes before the first pass were applied")
			}
		})
	}
}
