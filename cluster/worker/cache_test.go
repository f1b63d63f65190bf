package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// TestDiskCacheEvicts checks the worker's disk cache: it evicts the least
// recently used files past its limit, spares those used in the last
// minute, and learns the files already in its folder when it opens.
func TestDiskCacheEvicts(t *testing.T) {
	dir := t.TempDir()
	store, err := blobstore.OpenDir(filepath.Join(dir, "cache"), 0)
	if err != nil {
		t.Fatal(err)
	}
	d := newDiskCache(store, nil, 250)
	var blobs []api.Blob
	for i := range 4 {
		data := make([]byte, 100)
		data[0] = byte(i)
		sum := sha256.Sum256(data)
		b := api.Blob{SHA256: hex.EncodeToString(sum[:]), Size: 100}
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d.adopt(path, b)
		blobs = append(blobs, b)
	}
	// 400 bytes, all just used: nothing may go.
	d.evict()
	if d.total != 400 || len(d.files) != 4 {
		t.Fatalf("evicted files used in the last minute: %d bytes in %d files", d.total, len(d.files))
	}
	// Age them: blob 1 the oldest, then 0, 3, 2.
	for i, age := range []time.Duration{3, 4, 1, 2} {
		f := d.files[blobs[i].SHA256]
		f.last = time.Now().Add(-age * time.Hour)
		d.files[blobs[i].SHA256] = f
	}
	d.evict()
	for i, want := range []bool{false, false, true, true} {
		_, err := store.Stat(blobs[i].SHA256)
		if (err == nil) != want {
			t.Errorf("blob %d on disk: %v, want %v", i, err == nil, want)
		}
	}
	if d.total != 200 {
		t.Errorf("%d bytes tracked after eviction, want 200", d.total)
	}
	// A cache opened on the same folder knows its files.
	if d2 := newDiskCache(store, nil, 250); d2.total != 200 || len(d2.files) != 2 {
		t.Errorf("reopened cache: %d bytes in %d files, want 200 in 2", d2.total, len(d2.files))
	}
}

// TestMemCacheRetire checks that a worker drops from memory the tiers a
// run no longer needs, and nothing else: not a tier still live, not an
// entry in use, not another run's.
func TestMemCacheRetire(t *testing.T) {
	m := newMemCache(1 << 30)
	m.partials.put("a1", owner{"r1", 1}, nil, 10)
	m.records.put("a2", owner{"r1", 2}, nil, 20)
	m.partials.put("b1", owner{"r2", 1}, nil, 40)
	_, release, err := m.sets.get("a3", owner{"r1", 3}, func() (*bitarray.Ranked, int64, error) { return nil, 80, nil })
	if err != nil {
		t.Fatal(err)
	}
	if freed := m.retire("r1", []uint64{2}); freed != 10 {
		t.Errorf("retire freed %d bytes, want 10 (tier 1 of r1 alone: tier 3 is in use)", freed)
	}
	release()
	if freed := m.retire("r1", []uint64{2}); freed != 80 {
		t.Errorf("retire freed %d bytes once tier 3 was released, want 80", freed)
	}
	for _, tc := range []struct {
		key  string
		kept bool
		peek func(string) bool
	}{
		{"a1", false, func(k string) bool { _, ok := m.partials.peek(k); return ok }},
		{"a2", true, func(k string) bool { _, ok := m.records.peek(k); return ok }},
		{"a3", false, func(k string) bool { _, ok := m.sets.peek(k); return ok }},
		{"b1", true, func(k string) bool { _, ok := m.partials.peek(k); return ok }},
	} {
		if got := tc.peek(tc.key); got != tc.kept {
			t.Errorf("%s kept: %v, want %v", tc.key, got, tc.kept)
		}
	}
	if m.used != 60 {
		t.Errorf("%d bytes counted, want 60", m.used)
	}
}

// TestProvisionalRecordsLeftMemory: a unit leased provisionally reads the
// records of this worker's own units from what they computed, even when
// the tier's slice they were computed in has left the memory cache in
// between (the second unit then computed into a new one). Found in
// review: it read zeros for the first unit's range.
func TestProvisionalRecordsLeftMemory(t *testing.T) {
	cl, err := api.NewClient([]string{"http://127.0.0.1:1"}, "a-token-of-sixteen-characters", nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Config{Client: cl, ID: "w", Threads: 1, Dir: t.TempDir(), NewGame: games.New, MemoryBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	g, err := games.New("connect4", "width=4,height=4")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	tier := tiergame.Tier(0)
	for g.TierSize(tier) < 4*n {
		tier++
	}
	size := g.TierSize(tier)
	set := bitarray.New(0, size)
	for p := range uint64(n) {
		set.Add(p * (size / n))
	}
	ranked := bitarray.NewRanked(set)
	o := owner{"r1", uint64(tier)}
	w.mem.sets.put("K", o, ranked, 1)
	half, _ := ranked.Select(n / 2)
	units := []struct {
		token  uint64
		r      plan.Range
		record valuedb.Record
	}{{1, plan.Range{Lo: 0, Hi: half}, valuedb.Make(tiergame.Win, 1)}, {2, plan.Range{Lo: half, Hi: size}, valuedb.Make(tiergame.Lose, 2)}}
	var kid api.KidInput
	kid.Tier, kid.Set = uint64(tier), "K"
	for i, u := range units {
		p := &unitProgress{done: make(chan struct{}), reported: make(chan struct{})}
		w.progress[u.token] = p
		recs := w.rangeRecords(o, "K", ranked, u.r)
		for j := range recs {
			recs[j] = u.record
		}
		w.computedRecords(u.token, recs)
		p.finish(true)
		if i == 0 {
			w.mem.tierRecords.take("K") // the slice leaves memory
		}
		kid.Records = append(kid.Records, api.Blob{})
		kid.Mine = append(kid.Mine, api.MineUnit{Ref: api.UnitRef{Run: "r1", Tier: uint64(tier), Phase: api.PhaseSolve, Index: i}, Token: u.token, Lo: u.r.Lo, Hi: u.r.Hi})
	}
	ctx := context.Background()
	if err := w.awaitMine(ctx, []api.KidInput{kid}); err != nil {
		t.Fatal(err)
	}
	u := &unit{Assignment: &api.Assignment{Ref: api.UnitRef{Run: "r1"}, Kids: []api.KidInput{kid}}, g: g}
	kids, release, err := w.solvedKids(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	wrong, i := 0, 0
	for p := range set.All() {
		want := units[0].record
		if i >= n/2 {
			want = units[1].record
		}
		i++
		if got, ok := kids[0].Lookup(tiergame.Position(p)); !ok || got != want {
			if wrong++; wrong == 1 {
				t.Logf("position %d (rank %d): %v %v, want %v", p, i-1, got, ok, want)
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d records wrong", wrong, n)
	}
}

// TestMemoryReserve: a unit's reservation (its part's cells, outside the
// shelves) drops the unused entries it needs room for, least recently
// used first, and is counted until released; a part kept between rounds
// is evicted (heldPart.Evict: kept on the worker's disk, and freed) when
// dropped.
func TestMemoryReserve(t *testing.T) {
	m := newMemCache(100)
	o := owner{"r1", 1}
	var partFreed bool
	m.parts.put(partKey{run: "r1", tier: 1}, o, &heldPart{}, 40)
	m.records.put("a", o, make([]valuedb.Record, 1), 30)
	m.memory.mu.Lock()
	for it := range m.items {
		if it.size == 40 { // the part: used first, so dropped first
			it.last = time.Now().Add(-time.Hour)
			it.evict = func() { partFreed = true }
		}
	}
	m.memory.mu.Unlock()
	release, err := m.reserve(context.Background(), o, 50)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.parts.peek(partKey{run: "r1", tier: 1}); ok || !partFreed {
		t.Errorf("the part, least recently used, kept (%v) or not evicted (%v)", ok, partFreed)
	}
	if _, ok := m.records.peek("a"); !ok {
		t.Error("an entry dropped that the reservation had room beside")
	}
	if m.used != 80 {
		t.Errorf("%d bytes used, want 80", m.used)
	}
	release()
	release()
	if m.used != 30 {
		t.Errorf("%d bytes used after the release, want 30", m.used)
	}
}

// TestHeldPartPinsItsSet: a part kept between rounds keeps its tier's
// set in memory, and counted (it reads it): a reservation that needs
// room drops the part rather than the set, least recently used as the set
// is, and the part dropped lets the set go.
func TestHeldPartPinsItsSet(t *testing.T) {
	m := newMemCache(100)
	o := owner{"r1", 1}
	m.sets.put("s", o, bitarray.NewRanked(bitarray.New(0, 64)), 50)
	m.parts.put(partKey{run: "r1", tier: 1}, o, &heldPart{set: m.sets.pin("s")}, 40)
	m.memory.mu.Lock()
	for it := range m.items {
		if it.size == 50 {
			it.last = time.Now().Add(-time.Hour)
		}
	}
	m.memory.mu.Unlock()
	release, err := m.reserve(context.Background(), o, 20)
	if err != nil {
		t.Fatal(err)
	}
	_, setKept := m.sets.peek("s")
	_, partKept := m.parts.peek(partKey{run: "r1", tier: 1})
	if !setKept || partKept {
		t.Fatalf("set kept %v, part kept %v: want the set kept while the part held it, the part dropped", setKept, partKept)
	}
	release()
	release2, err := m.reserve(context.Background(), o, 60)
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	if _, ok := m.sets.peek("s"); ok {
		t.Error("the set is still held after the part that pinned it was dropped")
	}
}

// TestMemoryReserveWaits: a reservation the memory cannot hold beside
// another's waits for its release (a unit writing its outputs while the
// next starts), or for its context; alone, it is never refused; what a
// running unit holds more (memory.hold) never waits.
func TestMemoryReserveWaits(t *testing.T) {
	m := newMemCache(100)
	o := owner{"r1", 1}
	first, err := m.reserve(context.Background(), o, 80)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := m.reserve(ctx, o, 50); err == nil {
		t.Fatal("a reservation beyond the memory did not wait")
	}
	got := make(chan error, 1)
	go func() {
		release, err := m.reserve(context.Background(), o, 50)
		if err == nil {
			release()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("did not wait for the first reservation: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	first()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	alone, err := m.reserve(context.Background(), o, 500)
	if err != nil {
		t.Fatalf("a reservation alone, larger than the memory: %v", err)
	}
	alone()
	if m.used != 0 || m.reserved != 0 {
		t.Errorf("%d bytes, %d reservations left", m.used, m.reserved)
	}
	// What a running unit holds beyond its reservation (a part's maps)
	// drops unused entries without waiting, though a reservation is held.
	round, err := m.reserve(context.Background(), o, 60)
	if err != nil {
		t.Fatal(err)
	}
	m.records.put("b", o, make([]valuedb.Record, 1), 30)
	more := m.hold(o, 30)
	if _, ok := m.records.peek("b"); ok || m.used != 90 {
		t.Errorf("held beside a reservation: entry kept %v, %d bytes used; want it dropped and 90", ok, m.used)
	}
	more()
	round()
	if m.used != 0 || m.reserved != 0 {
		t.Errorf("%d bytes, %d reservations left", m.used, m.reserved)
	}
}

// TestPartSetSource: a part unit reads its window of the tier's set,
// under a name of its own (two parts' windows are two entries, a part's
// sub-parts share theirs), counted at the window's bytes; without a
// window, the whole set under the tier's name; a window that does not
// hold the unit's hashes is refused.
func TestPartSetSource(t *testing.T) {
	g, err := games.New("xiangqi", "material=KRvKA")
	if err != nil {
		t.Fatal(err)
	}
	tt, _ := g.Start()
	source := func(lo, hi uint64, window ...uint64) (setSource, error) {
		return partSetSource(&unit{Assignment: &api.Assignment{Set: "s", Lo: lo, Hi: hi, Part: &api.PartWork{Window: window}}})
	}
	src, err := source(100, 600, 100, 1100)
	if err != nil || src.name == "s" || !slices.Equal(src.window, []uint64{100, 1100}) || src.bytes(g, tt) != int64(bitarray.RankedBytes(1000)) {
		t.Errorf("a part's window: %+v, %d bytes, %v", src, src.bytes(g, tt), err)
	}
	if other, _ := source(1100, 2100, 1100, 2100); other.name == src.name {
		t.Errorf("two windows under one name %q", src.name)
	}
	if whole, err := source(100, 600); err != nil || whole.name != "s" || whole.window != nil || whole.bytes(g, tt) != setBytes(g, tt) {
		t.Errorf("no window: %+v, %v", whole, err)
	}
	for _, w := range [][]uint64{{200, 1100}, {100, 500}, {600, 100}, {100}} {
		if _, err := source(100, 600, w...); err == nil {
			t.Errorf("window %v for hashes [100, 600) accepted", w)
		}
	}
}

// TestPartKeyCut: a part is held under its cut's range: the same index
// of a tier cut again, over other hashes, is another part.
func TestPartKeyCut(t *testing.T) {
	coarse := &api.PartWork{Part: 0, Bounds: []uint64{0, 30, 60, 100}}
	finer := &api.PartWork{Part: 0, Bounds: []uint64{0, 20, 40, 60, 100}}
	again := &api.PartWork{Part: 0, Bounds: []uint64{0, 30, 60, 100}, Steps: []api.PartStep{{Round: 3}}}
	if keyOf("r1", 1, coarse) == keyOf("r1", 1, finer) {
		t.Error("part 0 of 3 and part 0 of 4 share a key")
	}
	if keyOf("r1", 1, coarse) != keyOf("r1", 1, again) {
		t.Error("part 0 of the same cut in two rounds: two keys")
	}
	m := newMemCache(100)
	m.parts.put(keyOf("r1", 1, coarse), owner{"r1", 1}, &heldPart{}, 40)
	if _, ok := m.parts.peek(keyOf("r1", 1, finer)); ok {
		t.Error("a part of the coarser cut found for the finer cut's")
	}
}
