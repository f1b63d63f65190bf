package valuedb

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestUnpackLookups writes random databases (records of one and two
// bytes, small blocks, a partial last block), opens them through caches
// that unpack, of budgets below and above their size, and checks every
// record, asked in a random order and then after Prefetch, against
// ReadAll; the scratch file has no name in the folder, and the cache
// counts its bytes until Close.
func TestUnpackLookups(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 24 {
		n := 1 + r.IntN(30000)
		maxRem := []int{5, 63, 64, 300}[trial%4]
		blockRecords := []int{1, 7, 1000, 4096, 5000}[r.IntN(5)]
		if blockRecords == 1 {
			n = min(n, 3000)
		}
		budget := []uint64{8 << 10, 64 << 10, 16 << 20}[r.IntN(3)]
		recs := randomRecords(r, n, maxRem)
		dir := t.TempDir()
		name := filepath.Join(dir, "t.vdb")
		h, err := Write(name, Header{Game: "g", Tier: 1}, recs, &WriteOptions{BlockRecords: blockRecords})
		if err != nil {
			t.Fatal(err)
		}
		scratch := t.TempDir()
		c := NewBlockCacheWith(budget, CacheOptions{Unpack: scratch, MinFree: 1})
		d, err := OpenCached(name, c)
		if err != nil {
			t.Fatal(err)
		}
		if d.unpacked.Load() == nil {
			t.Fatalf("trial %d: not unpacked", trial)
		}
		if ents, err := os.ReadDir(scratch); err != nil || len(ents) != 0 {
			t.Fatalf("trial %d: scratch folder holds %v, %v", trial, ents, err)
		}
		size := uint64(n * h.RecordBytes)
		if st := c.Stats(); st.Unpacked != size {
			t.Fatalf("trial %d: %d bytes unpacked, want %d", trial, st.Unpacked, size)
		}
		want, err := d.ReadAll(0)
		if err != nil {
			t.Fatal(err)
		}
		check := func(when string) {
			for _, i := range r.Perm(n) {
				got, err := d.Lookup(uint64(i))
				if err != nil || got != want[i] || got != recs[i] {
					t.Fatalf("trial %d (%d records of %d bytes, blocks of %d, budget %d) %s: record %d: %v, %v; want %v",
						trial, n, h.RecordBytes, blockRecords, budget, when, i, got, err, want[i])
				}
			}
		}
		check("lookups")
		if err := d.Prefetch(func() bool { return c.Free() > budget/2 }); err != nil {
			t.Fatal(err)
		}
		check("after Prefetch")
		if st := c.Stats(); st.Bytes > budget || st.Misses == 0 {
			t.Fatalf("trial %d: stats %+v", trial, st)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if st := c.Stats(); st.Unpacked != 0 || st.Bytes != 0 {
			t.Fatalf("trial %d: after Close: %+v", trial, st)
		}
	}
}

// TestUnpackCorrupt flips a byte in one block: Unpack fails with
// ErrFormat, the database is not read from a partial file, and lookups of
// the other blocks still answer right while those of the bad block fail.
func TestUnpackCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	recs := randomRecords(r, 20000, 40)
	name := filepath.Join(t.TempDir(), "t.vdb")
	if _, err := Write(name, Header{Game: "g", Tier: 1}, recs, &WriteOptions{BlockRecords: 1000}); err != nil {
		t.Fatal(err)
	}
	d := mustOpen(t, name)
	const badBlock = 7
	at := d.dataStart + int64(d.index[badBlock]+d.index[badBlock+1])/2
	d.Close()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	raw[at] ^= 0x10
	if err := os.WriteFile(name, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	c := NewBlockCacheWith(1<<20, CacheOptions{Unpack: t.TempDir(), MinFree: 1})
	d, err = Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.UseCache(c)
	if err := d.Unpack(); !errors.Is(err, ErrFormat) {
		t.Fatalf("Unpack: %v, want ErrFormat", err)
	}
	if d.unpacked.Load() != nil || c.Stats().Unpacked != 0 {
		t.Fatalf("a database with a bad block is read unpacked: %+v", c.Stats())
	}
	for i := range recs {
		got, err := d.Lookup(uint64(i))
		if i/1000 == badBlock {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("record %d of the bad block: %v, %v; want ErrFormat", i, got, err)
			}
			continue
		}
		if err != nil || got != recs[i] {
			t.Fatalf("record %d: %v, %v; want %v", i, got, err, recs[i])
		}
	}

	// OpenCached gives the same database, read as without unpacking.
	d2, err := OpenCached(name, c)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if _, err := d2.Lookup(badBlock * 1000); !errors.Is(err, ErrFormat) {
		t.Fatalf("OpenCached, bad block: %v, want ErrFormat", err)
	}
}

// TestUnpackFallback: a folder that cannot hold the file, or a file
// system with less room than MinFree, leaves the database read as
// without unpacking, its records right.
func TestUnpackFallback(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	recs := randomRecords(r, 10000, 200)
	dir := t.TempDir()
	name := filepath.Join(dir, "t.vdb")
	if _, err := Write(name, Header{Game: "g", Tier: 1}, recs, &WriteOptions{BlockRecords: 1000}); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts CacheOptions
	}{
		{"not a folder", CacheOptions{Unpack: filepath.Join(notDir, "sub")}},
		{"missing folder", CacheOptions{Unpack: filepath.Join(dir, "missing")}},
		{"no room", CacheOptions{Unpack: t.TempDir(), MinFree: 1 << 62}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewBlockCacheWith(64<<10, tc.opts)
			d, err := OpenCached(name, c)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if d.unpacked.Load() != nil || c.Stats().Unpacked != 0 {
				t.Fatalf("unpacked: %+v", c.Stats())
			}
			for _, i := range r.Perm(len(recs)) {
				if got, err := d.Lookup(uint64(i)); err != nil || got != recs[i] {
					t.Fatalf("record %d: %v, %v; want %v", i, got, err, recs[i])
				}
			}
		})
	}
}
