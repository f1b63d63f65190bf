package valuedb

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestRecordCacheModel checks a RecordCache against a map of what was put:
// a hit gives the record last put under its key, never another's.
func TestRecordCacheModel(t *testing.T) {
	for _, size := range []uint64{0, 64, 4 << 10} {
		c := NewRecordCache(size)
		want := map[[2]uint64]Record{}
		rng := rand.New(rand.NewPCG(uint64(size), 1))
		var hits int
		for range 20000 {
			k := [2]uint64{rng.Uint64N(3) + 1, rng.Uint64N(300)}
			if rng.IntN(2) == 0 {
				r := Record(rng.Uint32())
				c.Put(k[0], k[1], r)
				want[k] = r
				continue
			}
			got, ok := c.Get(k[0], k[1])
			if !ok {
				continue
			}
			hits++
			if w, put := want[k]; !put || got != w {
				t.Fatalf("size %d: Get%v = %d, want %d (put %v)", size, k, got, w, put)
			}
		}
		if hits == 0 {
			t.Errorf("size %d: no hit", size)
		}
	}
}

// TestRecordCacheKeepsRecent checks a one-set cache: it keeps four keys,
// drops the one read least recently for a fifth, and refuses owners a tag
// cannot hold.
func TestRecordCacheKeepsRecent(t *testing.T) {
	c := NewRecordCache(0)
	if got := c.Bytes(); got != 64 {
		t.Fatalf("a cache of no bytes has %d bytes, want one set of 64", got)
	}
	for p := range uint64(4) {
		c.Put(7, p, Record(p+10))
	}
	if _, ok := c.Get(7, 0); !ok { // 0 is now the most recent
		t.Fatal("key 0 dropped from a set of four")
	}
	c.Put(7, 4, 14) // drops 1, the least recent
	for p := range uint64(5) {
		r, ok := c.Get(7, p)
		if ok != (p != 1) || (ok && r != Record(p+10)) {
			t.Errorf("key %d: %d, %v", p, r, ok)
		}
	}
	if _, ok := c.Get(8, 0); ok {
		t.Error("another owner's key found")
	}
	c.Put(maxRecordOwner+1, 0, 1)
	if _, ok := c.Get(maxRecordOwner+1, 0); ok {
		t.Error("an owner beyond the tag's bits kept")
	}
	if h, m := c.Stats(); h == 0 || m == 0 {
		t.Errorf("stats: %d hits, %d misses", h, m)
	}
}

// TestRecordCacheConcurrent puts and gets from many goroutines (run with
// -race): every hit is the record of its key.
func TestRecordCacheConcurrent(t *testing.T) {
	c := NewRecordCache(1 << 10)
	rec := func(o, p uint64) Record { return Record(o*31 + p*7) }
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			for range 20000 {
				o, p := rng.Uint64N(4)+1, rng.Uint64N(500)
				if r, ok := c.Get(o, p); ok {
					if r != rec(o, p) {
						t.Errorf("Get(%d, %d) = %d, want %d", o, p, r, rec(o, p))
						return
					}
				} else {
					c.Put(o, p, rec(o, p))
				}
			}
		}()
	}
	wg.Wait()
}
