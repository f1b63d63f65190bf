package xg

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fuzzOptions keeps fuzzing iterations small.
var fuzzOptions = Options{MaxDecompressed: 4 << 20, MaxThumbnail: 1 << 20}

// corpusRecords returns the first n records of a real match, or nil when
// the corpus is missing.
func corpusRecords(n int) []byte {
	f, err := os.Open(filepath.Join(corpusDir, "test.xg"))
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	a, err := readArchive(f, st.Size(), headerSize)
	if err != nil {
		return nil
	}
	data, err := a.extract(f, a.Files[0], DefaultMaxDecompressed)
	if err != nil || len(data) < n*recordSize {
		return nil
	}
	return data[:n*recordSize]
}

func FuzzNewReader(f *testing.F) {
	f.Add(buildMatch(tinyMatch()))
	f.Add(buildXG(nil, []member{
		{name: "temp.xg", data: tinyMatch(), stored: true},
		{name: "temp.xgr", data: make([]byte, rolloutSize)},
		{name: "temp.xgc", data: []byte("{\\rtf1 a\x01\x02b}\r\n")},
	}, nil))
	f.Add(append(buildXG(nil, nil, nil)[:headerSize], zlibBytes(tinyMatch())...))
	if recs := corpusRecords(12); recs != nil {
		f.Add(buildMatch(recs))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := fuzzOptions.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if file.MatchHeader() == nil {
			t.Fatal("decoded file without a match header")
		}
		checkDecisions(t, file)
	})
}

func FuzzRecords(f *testing.F) {
	f.Add(tinyMatch())
	if recs := corpusRecords(12); recs != nil {
		f.Add(recs)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := decodeRecords(data)
		if err != nil {
			return
		}
		if len(recs) != len(data)/recordSize {
			t.Fatalf("%d records from %d bytes", len(recs), len(data))
		}
		checkDecisions(t, &File{Records: recs})
	})
}

// checkDecisions runs the position API over a decoded file: it may fail,
// but what it returns must be consistent.
func checkDecisions(t *testing.T, f *File) {
	ds, err := f.Decisions()
	if err != nil {
		return
	}
	for _, d := range ds {
		if len(d.PositionID) != 14 || len(d.MatchID) != 12 {
			t.Fatalf("record %d: IDs %q %q", d.Record, d.PositionID, d.MatchID)
		}
		if (d.Move == "") != (len(d.Steps) == 0) {
			t.Fatalf("record %d: move %q from %d steps", d.Record, d.Move, len(d.Steps))
		}
	}
}

func FuzzMove(f *testing.F) {
	add := func(p Position, moves [8]int, dice [2]int) {
		b := make([]byte, 0, 36)
		for _, n := range p {
			b = append(b, byte(n))
		}
		for _, m := range moves {
			b = append(b, byte(int8(m)))
		}
		f.Add(b, byte(dice[0]), byte(dice[1]), true)
	}
	add(startPos, [8]int{12, 7, 23, 22, -1, -1, -1, -1}, [2]int{5, 1})
	add(startPos, [8]int{12, 0, 23, 17, -1, -1, -1, -1}, [2]int{6, 6})
	add(Position{0, 2, 0, 4, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, 0, 0, 0}, [8]int{10, -1, -1, -1, -1, -1, -1, -1}, [2]int{6, 5})
	f.Fuzz(func(t *testing.T, b []byte, d0, d1 byte, p1 bool) {
		if len(b) < 34 {
			return
		}
		m := &MoveEntry{ActifP: 1, Played: true, Dice: [2]int{int(d0 % 8), int(d1 % 8)}}
		if !p1 {
			m.ActifP = -1
		}
		for i := range m.PositionI {
			m.PositionI[i] = int8(b[i])
		}
		for i := range m.Moves {
			m.Moves[i] = int(int8(b[26+i]))
		}
		m.PositionEnd = m.PositionI
		steps, err := m.Steps()
		if err != nil {
			return
		}
		before := m.Before()
		s := FormatMove(before, steps)
		if (s == "") != (len(steps) == 0) {
			t.Fatalf("FormatMove(%v) = %q", steps, s)
		}
		after, err := before.Apply(steps)
		if err != nil {
			return
		}
		// Checkers are conserved: the mover's leave only by bearing off,
		// the opponent's only move to the bar.
		off := 0
		for _, st := range steps {
			if st.To == PointOff {
				off++
			}
		}
		if mine(before)-mine(after) != off || theirs(before) != theirs(after) {
			t.Fatalf("%v: %v -> %v loses checkers", steps, before, after)
		}
		Board(after) // must not panic
	})
}

func mine(p Position) (n int) {
	for _, c := range p {
		n += max(int(c), 0)
	}
	return n
}

func theirs(p Position) (n int) {
	for _, c := range p {
		n += max(-int(c), 0)
	}
	return n
}
