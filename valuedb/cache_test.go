package valuedb

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// TestBlockCacheBudget fills a cache with far more than its budget from
// many goroutines: it never holds more than the budget, keeps what is
// read often, returns what it holds unchanged, and gives room up to
// Reserve at once. Half the owners are dense (NewDenseOwner) where the
// budget allows their arrays.
func TestBlockCacheBudget(t *testing.T) {
	for _, budget := range []uint64{100 << 10, 64 << 20} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			c := NewBlockCache(budget)
			block := func(o, b uint64) []byte { return bytes.Repeat([]byte{byte(o*31 + b)}, 4096) }
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var owner uint64
					if g%2 == 1 {
						owner = c.NewDenseOwner(3000)
					} else {
						owner = c.NewOwner()
					}
					for i := range 20000 {
						b := uint64(i % 3000)
						if i%2 == 0 {
							b = uint64(i % 4) // a few hot blocks: 16 in all, which the smallest budget (25 blocks) holds
						}
						k := BlockKey{owner, b}
						if got, ok := c.Get(k); ok {
							if !bytes.Equal(got, block(owner, b)) {
								t.Errorf("goroutine %d: block %v changed", g, k)
								return
							}
						} else {
							c.Add(k, block(owner, b))
						}
						if i%1000 == 0 {
							if st := c.Stats(); st.Bytes > budget {
								t.Errorf("%d bytes held, budget %d", st.Bytes, budget)
							}
						}
					}
				}()
			}
			wg.Wait()
			st := c.Stats()
			if st.Bytes > budget || st.Hits == 0 || st.Misses == 0 {
				t.Errorf("stats %+v", st)
			}
			if budget < 1<<20 && st.Hits < st.Misses/2 {
				t.Errorf("hot blocks evicted: %+v", st)
			}
			if dense := budget >= 4*3000*maxDenseShare*4; dense != (st.Reserved == 2*4*3000) {
				t.Errorf("dense arrays %v: %d bytes reserved", dense, st.Reserved)
			}
			c.Reserve(int64(budget) / 2)
			if st := c.Stats(); st.Bytes > budget/2 {
				t.Errorf("after reserving half: %d bytes held", st.Bytes)
			}
			c.Drop(1)
			c.Drop(2)
			c.Drop(3)
			c.Drop(4)
			if st := c.Stats(); st.Bytes != 0 || st.Reserved != budget/2 {
				t.Errorf("after dropping every owner: %d bytes held, %d reserved", st.Bytes, st.Reserved)
			}
		})
	}
}

// TestDenseOwner checks a dense owner's blocks: found, replaced by
// eviction, one beyond its blocks not kept, and its array given back.
func TestDenseOwner(t *testing.T) {
	c := NewBlockCache(8 << 20)
	o := c.NewDenseOwner(100)
	if st := c.Stats(); st.Reserved != 400 {
		t.Fatalf("reserved %d, want 400", st.Reserved)
	}
	for b := range uint64(101) {
		c.AddCopy(BlockKey{o, b}, []byte{byte(b)})
	}
	for b := range uint64(101) {
		var got []byte
		ok := c.Read(BlockKey{o, b}, func(x []byte) { got = bytes.Clone(x) })
		if want := b < 100; ok != want || ok && !bytes.Equal(got, []byte{byte(b)}) {
			t.Errorf("block %d: %v %v", b, got, ok)
		}
	}
	other := c.NewOwner()
	c.AddCopy(BlockKey{other, 5}, []byte{55})
	if b, ok := c.Get(BlockKey{other, 5}); !ok || b[0] != 55 {
		t.Errorf("an owner without an array: %v %v", b, ok)
	}
	c.Drop(o)
	if _, ok := c.Get(BlockKey{o, 3}); ok {
		t.Error("a dropped owner's block found")
	}
	if st := c.Stats(); st.Reserved != 0 || st.Bytes != ownedCap+slotBytes {
		t.Errorf("after Drop: %+v", st)
	}
	if big := c.NewDenseOwner(1 << 40); c.Stats().Reserved != 0 {
		t.Errorf("owner %d of 2^40 blocks got an array", big)
	}
}

// TestOpenCached reads databases through a shared cache far smaller
// than them (records one and two bytes wide) and checks every record,
// asked in a scattered order, against the database read whole.
func TestOpenCached(t *testing.T) {
	for _, maxRem := range []int{50, 300} {
		recs := make([]Record, 200000)
		for i := range recs {
			recs[i] = Make(tiergame.Value(1+i%3), (i*7)%maxRem)
		}
		name := filepath.Join(t.TempDir(), "t.db")
		if _, err := Write(name, Header{Game: "g", Tier: 1}, recs, &WriteOptions{BlockRecords: 1 << 15}); err != nil {
			t.Fatal(err)
		}
		c := NewBlockCache(64 << 10)
		d, err := OpenCached(name, c)
		if err != nil {
			t.Fatal(err)
		}
		for k := range 20000 {
			i := (k * 7919) % len(recs)
			if k%2 == 0 {
				i = k % 7 * 4099 // a few hot records, in as many segments
			}
			got, err := d.Lookup(uint64(i))
			if err != nil || got != recs[i] {
				t.Fatalf("record %d: %v, %v; want %v", i, got, err, recs[i])
			}
		}
		st := c.Stats()
		if st.Misses == 0 || st.Hits == 0 || st.ReadBytes == 0 || st.Reserved == 0 || st.Bytes > 64<<10 {
			t.Errorf("stats %+v", st)
		}
		if err := d.Prefetch(func() bool { return c.Free() > 8<<10 }); err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			if got, err := d.Lookup(uint64(i)); err != nil || got != recs[i] {
				t.Fatalf("after Prefetch, record %d: %v, %v; want %v", i, got, err, recs[i])
			}
		}
		d.Close()
		if st := c.Stats(); st.Bytes != 0 || st.Reserved != 0 {
			t.Errorf("after Close: %+v", st)
		}
	}
}

// TestBlockCacheAddCopy adds blocks by AddCopy from many goroutines, in a
// cache far too small for them (so evicted buffers are reused), and checks
// that Read and Get always see a block's own bytes, that the caller's
// buffer may change after AddCopy, and that the budget holds.
func TestBlockCacheAddCopy(t *testing.T) {
	const budget = 64 << 10
	c := NewBlockCache(budget)
	owner := c.NewOwner()
	fill := func(b []byte, k uint64) []byte {
		n := 1 + int(k*7919%1500) // some above ownedCap
		b = b[:0]
		for i := range n {
			b = append(b, byte(k+uint64(i)))
		}
		return b
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 2048)
			want := make([]byte, 0, 2048)
			for i := range 20000 {
				k := uint64((i*(w+3) + w*97) % 400)
				key := BlockKey{owner, k}
				want = fill(want, k)
				var same bool
				if c.Read(key, func(b []byte) { same = bytes.Equal(b, want) }) {
					if !same {
						errs <- fmt.Sprintf("Read of block %d: wrong bytes", k)
						return
					}
					if b, ok := c.Get(key); ok && !bytes.Equal(b, want) {
						errs <- fmt.Sprintf("Get of block %d: wrong bytes", k)
						return
					}
					continue
				}
				buf = fill(buf, k)
				c.AddCopy(key, buf)
				clear(buf) // the cache holds a copy
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if st := c.Stats(); st.Bytes > budget || st.Hits == 0 || st.Misses == 0 {
		t.Errorf("stats %+v: want hits, misses, at most %d bytes", st, budget)
	}
	c.Drop(owner)
	if st := c.Stats(); st.Bytes != 0 {
		t.Errorf("after Drop the cache holds %d bytes", st.Bytes)
	}
}
