package valuedb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// TestConcat: the records of a tier cut at multiples of the block size,
// each part written by Write, then joined by Concat, are the bytes Write
// writes for the whole tier; parts that do not line up are refused.
func TestConcat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	hdr := Header{Game: "g", Option: "o", Tier: 9, TierName: "nine"}
	write := func(name string, recs []Record, o *WriteOptions) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if _, err := Write(path, hdr, recs, o); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// parts cuts recs at the given record counts and writes each part.
	parts := func(recs []Record, cuts []int, o *WriteOptions) []string {
		var paths []string
		lo := 0
		for i, hi := range append(cuts, len(recs)) {
			paths = append(paths, write(fmt.Sprintf("part%d", i), recs[lo:hi], o))
			lo = hi
		}
		return paths
	}
	for _, tc := range []struct {
		n, maxRem, block int
		cuts             []int // in blocks
	}{
		{0, 0, 0, nil},
		{1, 5, 0, nil},
		{100000, 63, 0, []int{1, 2}},
		{5000, 63, 100, []int{3, 4, 10, 10, 49}},
		{5000, 300, 128, []int{1, 30}},
		{4096, 20, 64, []int{64}}, // an empty last part
		{70000, 16383, 4096, []int{5, 16}},
	} {
		o := &WriteOptions{BlockRecords: tc.block, Workers: 2}
		block := o.normalized().BlockRecords
		recs := randomRecords(r, tc.n, tc.maxRem)
		var cuts []int
		for _, c := range tc.cuts {
			cuts = append(cuts, c*block)
		}
		want, err := Write(filepath.Join(dir, "whole"), hdr, recs, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Concat(filepath.Join(dir, "joined"), hdr, parts(recs, cuts, o), o)
		if err != nil {
			t.Fatalf("n=%d cuts %v: %v", tc.n, tc.cuts, err)
		}
		if got != want {
			t.Errorf("n=%d cuts %v: header %+v, want %+v", tc.n, tc.cuts, got, want)
		}
		a, _ := os.ReadFile(filepath.Join(dir, "whole"))
		b, _ := os.ReadFile(filepath.Join(dir, "joined"))
		if !bytes.Equal(a, b) {
			t.Errorf("n=%d cuts %v: the joined database differs from the whole one", tc.n, tc.cuts)
		}
	}

	// Parts that do not line up.
	o := &WriteOptions{BlockRecords: 64}
	low, high := randomRecords(r, 640, 63), randomRecords(r, 640, 200)
	probs := filepath.Join(dir, "probs")
	if _, err := WriteProbs(probs, hdr, []tiergame.Prob{1, 2, 3}, nil); err != nil {
		t.Fatal(err)
	}
	for name, ps := range map[string][]string{
		"a part of partial blocks":  parts(low, []int{100}, o),
		"another block size":        {write("b32", low, &WriteOptions{BlockRecords: 32}), write("b64", low, o)},
		"narrower records":          {write("low", low, o), write("high", high, o)},
		"probabilities":             {probs},
		"probabilities after value": {write("v", low, o), probs},
	} {
		_, err := Concat(filepath.Join(dir, "bad"), hdr, ps, o)
		if !errors.Is(err, ErrUnaligned) {
			t.Errorf("%s: %v, want ErrUnaligned", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
			t.Errorf("%s: a file was written", name)
		}
	}
	if _, err := Concat(filepath.Join(dir, "bad"), hdr, []string{filepath.Join(dir, "missing")}, o); err == nil || errors.Is(err, ErrUnaligned) {
		t.Errorf("a missing part: %v", err)
	}
}

// TestCopyExactlyShort: a part's data shorter than its index says (a file
// cut while it was joined) is an error, not a shorter copy.
func TestCopyExactlyShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if err := copyExactly(&out, f, 2, 8, make([]byte, 3)); err != nil || out.String() != "23456789" {
		t.Errorf("8 bytes at 2: %q, %v", out.String(), err)
	}
	if err := copyExactly(io.Discard, f, 2, 9, make([]byte, 3)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("9 bytes at 2 of 10: %v, want io.ErrUnexpectedEOF", err)
	}
}
