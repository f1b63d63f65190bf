package valuedb

import (
	"errors"
	"log/slog"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// BlockCache holds decompressed blocks of many databases (and other
// readers' blocks, such as an oracle.Oracle's pieces of level sets) within
// one byte budget, so that a server of many runs bounds its memory by one
// number. It is safe for many goroutines: it is split into shards by key,
// each with its own lock and an equal share of the budget, and evicts by
// CLOCK (an entry read since the hand last passed gets a second chance),
// which costs a hit no more than a read lock and a flag.
//
// Blocks are read on a miss by the caller (Get, then Add): two goroutines
// missing the same block at once may both read it, and the cache keeps
// one.
type BlockCache struct {
	budget int64
	fixed  atomic.Int64 // bytes held outside the blocks (Reserve), off the budget
	shards []cacheShard
	shift  uint // of a key's hash, to its shard
	nextID atomic.Uint64

	readBytes atomic.Uint64
	bytes     atomic.Int64 // held in blocks

	// dense holds, by owner id, the slots of the blocks of owners made by
	// NewDenseOwner (nil for other owners); swapped whole when an owner
	// comes or goes, under denseMu.
	dense   atomic.Pointer[[][]int32]
	denseMu sync.Mutex

	opts      CacheOptions
	unpacked  atomic.Int64 // bytes of databases unpacked
	unpacking atomic.Int64 // bytes of databases being unpacked
	warned    atomic.Bool  // of an unpack given up, once

	records *RecordCache // nil without CacheOptions.Records
}

// CacheOptions are a BlockCache's options beyond its budget.
type CacheOptions struct {
	// Unpack, when set, is a folder in which a database opened with
	// OpenCached writes its records decompressed, to a scratch file that
	// has no name (unlinked at once, so nothing is left behind, even by a
	// crash): a lookup missing the cache then reads the 1 KiB segment of
	// its record from that file, where it would decompress a whole block.
	// The operating system's page cache, not the process, holds the file.
	// A database is read as without it when the folder's file system would
	// keep less than MinFree free, or the file cannot be written.
	Unpack string
	// MinFree is the room an unpacked database must leave free on the
	// folder's file system; 0 means DefaultMinFree.
	MinFree uint64
	// Records, when set, gives that many bytes of the budget to a
	// RecordCache (BlockCache.Records) of single records by position,
	// which callers read before the blocks: a point lookup's record is
	// then kept in 16 bytes, not in a block or segment of its neighbours.
	Records uint64
}

// DefaultMinFree is the room on disk unpacking leaves free by default.
const DefaultMinFree = 1 << 30

// maxShards is the most shards: enough that two cores rarely contend. A
// small budget gets fewer, so that a share holds many blocks (one of at
// least minShare bytes).
const (
	maxShards = 32
	minShare  = 4 << 20
)

// BlockKey names a block: Owner is an id from NewOwner (one per database
// or set), Block its index there.
type BlockKey struct {
	Owner uint64
	Block uint64
}

type cacheShard struct {
	total *atomic.Int64 // the cache's bytes
	dense *atomic.Pointer[[][]int32]
	mu    sync.RWMutex
	// index finds the slot of a block of an owner without a dense array;
	// a dense array's entries (slot+1, 0 for none) are the shard's to read
	// and write too, under mu, for the blocks whose keys fall in it.
	index map[BlockKey]int32
	slots []cacheSlot
	free  []int32
	hand  int
	bytes int64
	// hits and misses are counted by shard, not for the whole cache: a
	// counter of the cache's would be one cache line that every lookup of
	// every core writes, where a shard's is written with its lock's.
	hits, misses atomic.Uint64
	// spare holds buffers of blocks added by AddCopy and evicted, for
	// AddCopy to reuse (at most maxSpare): a server's misses then make no
	// garbage.
	spare [][]byte
}

type cacheSlot struct {
	key  BlockKey
	data []byte // nil for a free slot
	ref  atomic.Bool
	// owned says data is the cache's own (AddCopy): read only under the
	// shard's lock (Read), reused once evicted.
	owned bool
}

// maxSpare bounds a shard's spare buffers.
const maxSpare = 32

// ownedCap is the capacity of an owned buffer of up to ownedCap bytes:
// one size (the allocator's class above 1 KiB), so that any spare fits
// any small block.
const ownedCap = 1152

// slotBytes is what the cache counts for a block beyond its bytes: its
// slot, its index entry and its slice header.
const slotBytes = 64

// NewBlockCache returns a cache of at most budget bytes of blocks.
func NewBlockCache(budget uint64) *BlockCache {
	return NewBlockCacheWith(budget, CacheOptions{})
}

// NewBlockCacheWith returns a cache of at most budget bytes of blocks,
// with options.
func NewBlockCacheWith(budget uint64, opts CacheOptions) *BlockCache {
	if opts.MinFree == 0 {
		opts.MinFree = DefaultMinFree
	}
	c := &BlockCache{budget: int64(min(budget, 1<<62)), opts: opts}
	n := 1
	for n < maxShards && uint64(2*n)*minShare <= budget {
		n *= 2
	}
	c.shards = make([]cacheShard, n)
	c.shift = uint(64 - bits.Len(uint(n-1)))
	for i := range c.shards {
		c.shards[i].index = map[BlockKey]int32{}
		c.shards[i].total = &c.bytes
		c.shards[i].dense = &c.dense
	}
	if opts.Records > 0 {
		c.records = NewRecordCache(min(opts.Records, uint64(c.budget)))
		c.Reserve(int64(c.records.Bytes()))
	}
	return c
}

// Records returns the cache's RecordCache (CacheOptions.Records), or
// nil.
func (c *BlockCache) Records() *RecordCache { return c.records }

// NewOwner returns an id for BlockKey.Owner that no other caller has.
func (c *BlockCache) NewOwner() uint64 { return c.nextID.Add(1) }

// maxDenseShare bounds an owner's dense array: at most this fraction
// (1/n) of the budget; a larger owner is found by the maps.
const maxDenseShare = 16

// NewDenseOwner returns an id, as NewOwner does, for an owner whose
// blocks are numbered 0 to blocks-1: the cache finds them by an array of
// the owner's own (4 bytes a block, reserved from the budget until Drop)
// in place of its maps. A hit then costs an array read where a map costs a
// hash and its probes, which was the larger part of a server's answer. An
// owner whose array would take more than a sixteenth of the budget is
// found by the maps.
func (c *BlockCache) NewDenseOwner(blocks uint64) uint64 {
	id := c.NewOwner()
	if blocks == 0 || blocks > uint64(c.budget)/4/maxDenseShare || id > 1<<31 {
		return id
	}
	c.denseMu.Lock()
	defer c.denseMu.Unlock()
	var old [][]int32
	if p := c.dense.Load(); p != nil {
		old = *p
	}
	next := make([][]int32, max(len(old), int(id)+1))
	copy(next, old)
	next[id] = make([]int32, blocks)
	c.dense.Store(&next)
	c.Reserve(4 * int64(blocks))
	return id
}

// denseOf returns owner's dense array, or nil.
func (s *cacheShard) denseOf(owner uint64) []int32 {
	if p := s.dense.Load(); p != nil && owner < uint64(len(*p)) {
		return (*p)[owner]
	}
	return nil
}

// find returns the slot of k; s.mu is held.
func (s *cacheShard) find(k BlockKey) (int32, bool) {
	if d := s.denseOf(k.Owner); d != nil {
		if k.Block >= uint64(len(d)) || d[k.Block] == 0 {
			return 0, false
		}
		return d[k.Block] - 1, true
	}
	i, ok := s.index[k]
	return i, ok
}

// put records k in slot i; s.mu is held for writing. A block beyond a
// dense owner's array is not kept (add checks).
func (s *cacheShard) put(k BlockKey, i int32) {
	if d := s.denseOf(k.Owner); d != nil {
		d[k.Block] = i + 1
		return
	}
	s.index[k] = i
}

// forget removes k's record; s.mu is held for writing.
func (s *cacheShard) forget(k BlockKey) {
	if d := s.denseOf(k.Owner); d != nil {
		d[k.Block] = 0
		return
	}
	delete(s.index, k)
}

func (c *BlockCache) shard(k BlockKey) *cacheShard {
	h := (k.Owner*0x9E3779B97F4A7C15 ^ k.Block) * 0xBF58476D1CE4E5B9
	if len(c.shards) == 1 {
		return &c.shards[0]
	}
	return &c.shards[h>>c.shift]
}

// Get returns the block of k, or false. The bytes must not be changed.
func (c *BlockCache) Get(k BlockKey) ([]byte, bool) {
	s := c.shard(k)
	s.mu.RLock()
	i, ok := s.find(k)
	var b []byte
	if ok {
		sl := &s.slots[i]
		b = sl.data
		if sl.owned {
			b = append([]byte(nil), b...) // it may be reused once evicted
		}
		if !sl.ref.Load() {
			sl.ref.Store(true)
		}
	}
	s.mu.RUnlock()
	if ok {
		s.hits.Add(1)
	} else {
		s.misses.Add(1)
	}
	return b, ok
}

// Read calls fn with the block of k, if the cache holds it, under its
// shard's read lock, and reports whether it did: fn must be quick, must not
// keep b or change it, and must not call the cache. Blocks added by
// AddCopy are read so (Get returns a copy of them).
func (c *BlockCache) Read(k BlockKey, fn func(b []byte)) bool {
	s := c.shard(k)
	s.mu.RLock()
	i, ok := s.find(k)
	if ok {
		sl := &s.slots[i]
		if !sl.ref.Load() {
			sl.ref.Store(true)
		}
		fn(sl.data)
	}
	s.mu.RUnlock()
	if ok {
		s.hits.Add(1)
	} else {
		s.misses.Add(1)
	}
	return ok
}

// AddCopy keeps a copy of b under k, as Add keeps b, in a buffer of the
// cache's own, which it reuses once the block is evicted (so b may be
// changed afterwards, and the block must be read with Read).
func (c *BlockCache) AddCopy(k BlockKey, b []byte) {
	c.add(k, b, true)
}

// Add keeps block b under k, evicting blocks of its shard as the budget
// needs; a block larger than a shard's share is not kept. b must not be
// changed afterwards.
func (c *BlockCache) Add(k BlockKey, b []byte) {
	c.add(k, b, false)
}

func (c *BlockCache) add(k BlockKey, b []byte, owned bool) {
	size := int64(len(b)) + slotBytes
	if owned {
		size = int64(max(len(b), ownedCap)) + slotBytes
	}
	share := max(0, c.budget-c.fixed.Load()) / int64(len(c.shards))
	if size > share || len(b) == 0 {
		return
	}
	s := c.shard(k)
	if d := s.denseOf(k.Owner); d != nil && k.Block >= uint64(len(d)) {
		return // beyond the owner's blocks: a caller's mistake, not kept
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.find(k); ok {
		return
	}
	for s.bytes+size > share {
		s.evictOne()
	}
	var i int32
	if n := len(s.free); n > 0 {
		i, s.free = s.free[n-1], s.free[:n-1]
	} else {
		s.slots = append(s.slots, cacheSlot{})
		i = int32(len(s.slots) - 1)
	}
	if owned {
		var buf []byte
		if n := len(s.spare); n > 0 && len(b) <= ownedCap {
			buf, s.spare = s.spare[n-1], s.spare[:n-1]
		} else {
			buf = make([]byte, 0, max(len(b), ownedCap))
		}
		b = append(buf[:0], b...)
	}
	sl := &s.slots[i]
	sl.key, sl.data, sl.owned = k, b, owned
	sl.ref.Store(false)
	s.put(k, i)
	s.bytes += size
	s.total.Add(size)
}

// size is what the cache counts for the slot's block.
func (sl *cacheSlot) size() int64 {
	if sl.owned {
		return int64(cap(sl.data)) + slotBytes
	}
	return int64(len(sl.data)) + slotBytes
}

// evictOne moves the clock's hand to the first block not read since it
// last passed, and evicts it; s.mu is held and s holds a block.
func (s *cacheShard) evictOne() {
	for {
		if s.hand >= len(s.slots) {
			s.hand = 0
		}
		sl := &s.slots[s.hand]
		s.hand++
		if sl.data == nil {
			continue
		}
		if sl.ref.Load() {
			sl.ref.Store(false)
			continue
		}
		s.forget(sl.key)
		s.bytes -= sl.size()
		s.total.Add(-sl.size())
		if sl.owned && cap(sl.data) == ownedCap && len(s.spare) < maxSpare {
			s.spare = append(s.spare, sl.data[:0])
		}
		sl.data = nil
		s.free = append(s.free, int32(s.hand-1))
		return
	}
}

// Drop forgets every block of owner (a database closed), and its dense
// array if it has one.
func (c *BlockCache) Drop(owner uint64) {
	defer c.dropDense(owner)
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for j := range s.slots {
			sl := &s.slots[j]
			if sl.data != nil && sl.key.Owner == owner {
				s.forget(sl.key)
				s.bytes -= sl.size()
				s.total.Add(-sl.size())
				sl.data = nil
				s.free = append(s.free, int32(j))
			}
		}
		s.mu.Unlock()
	}
}

// dropDense forgets owner's dense array, once its blocks are dropped.
func (c *BlockCache) dropDense(owner uint64) {
	c.denseMu.Lock()
	defer c.denseMu.Unlock()
	p := c.dense.Load()
	if p == nil || owner >= uint64(len(*p)) || (*p)[owner] == nil {
		return
	}
	next := slices.Clone(*p)
	n := len(next[owner])
	next[owner] = nil
	c.dense.Store(&next)
	c.Reserve(-4 * int64(n))
}

// Reserve counts n more bytes (or fewer, for a negative n) of memory that
// readers hold outside the blocks (a database's index of blocks, a set's
// counts, a set held for a moment), which the blocks' budget gives up:
// blocks are evicted at once to make the room.
func (c *BlockCache) Reserve(n int64) {
	fixed := c.fixed.Add(n)
	if n <= 0 {
		return
	}
	share := max(0, c.budget-fixed) / int64(len(c.shards))
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for s.bytes > share {
			s.evictOne()
		}
		s.mu.Unlock()
	}
}

// Bytes is what the cache holds in blocks.
func (c *BlockCache) Bytes() uint64 { return uint64(max(0, c.bytes.Load())) }

// Free is the room left in the budget: what neither blocks nor
// reservations hold.
func (c *BlockCache) Free() uint64 {
	return uint64(max(0, c.budget-c.fixed.Load()-c.bytes.Load()))
}

// Budget is the cache's budget in bytes.
func (c *BlockCache) Budget() uint64 { return uint64(c.budget) }

// CountRead counts n bytes read from disk to fill the cache.
func (c *BlockCache) CountRead(n int) { c.readBytes.Add(uint64(n)) }

// CacheStats are a BlockCache's counters.
type CacheStats struct {
	Hits, Misses uint64
	Bytes        uint64 // held in blocks, with their bookkeeping
	Reserved     uint64 // held outside the blocks (Reserve)
	Budget       uint64
	ReadBytes    uint64 // read from disk to fill it
	Unpacked     uint64 // bytes of databases unpacked to scratch files (CacheOptions.Unpack)
	// RecordHits and RecordMisses count the lookups of the RecordCache.
	RecordHits, RecordMisses uint64
}

// Stats returns the cache's counters.
func (c *BlockCache) Stats() CacheStats {
	st := CacheStats{Budget: uint64(c.budget),
		Reserved: uint64(max(0, c.fixed.Load())), ReadBytes: c.readBytes.Load(),
		Unpacked: uint64(max(0, c.unpacked.Load()))}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		st.Bytes += uint64(s.bytes)
		s.mu.RUnlock()
		st.Hits += s.hits.Load()
		st.Misses += s.misses.Load()
	}
	if c.records != nil {
		st.RecordHits, st.RecordMisses = c.records.Stats()
	}
	return st
}

// OpenCached opens a database as Open does, its lookups keeping their
// decompressed blocks in c (shared with other databases) instead of a
// cache of the database's own (UseCache). With c's CacheOptions.Unpack it
// unpacks the database (Unpack) before it returns; a database that cannot
// be unpacked (no room, a bad block) is read as without the option, with
// a warning logged.
func OpenCached(name string, c *BlockCache) (*DB, error) {
	d, err := Open(name)
	if err != nil {
		return nil, err
	}
	d.UseCache(c)
	if c.opts.Unpack != "" {
		if err := d.Unpack(); errors.Is(err, ErrFormat) {
			slog.Warn("valuedb: database read without unpacking", "db", name, "err", err)
		} else if err != nil {
			c.warnUnpack("valuedb: databases read without unpacking", "err", err)
		}
	}
	return d, nil
}

// UseCache makes the database's lookups keep their decompressed blocks in
// c, shared with other databases, instead of a cache of its own; its index
// of blocks counts against c's budget (Reserve) until Close. Call it
// before the first lookup, once.
func (d *DB) UseCache(c *BlockCache) {
	d.shared, d.owner, d.cache, d.order = c, c.NewOwner(), nil, nil
	c.Reserve(d.indexBytes())
}

// indexBytes is the memory of the database's index of blocks.
func (d *DB) indexBytes() int64 { return 8 * int64(len(d.index)) }

// Prefetch reads the database's blocks into its shared cache (UseCache),
// in order, while more() says so: a server warms its cache with it before
// the first queries.
func (d *DB) Prefetch(more func() bool) error {
	if d.shared == nil {
		return nil
	}
	if u := d.unpacked.Load(); u != nil {
		return d.prefetchUnpacked(u, more)
	}
	for b := 0; b < d.h.Blocks && more(); b++ {
		var err error
		if d.h.Kind == "" {
			_, err = d.fillSegment(b, 0, true)
		} else if _, ok := d.shared.Get(BlockKey{d.owner, uint64(b)}); !ok {
			_, err = d.cacheBlock(b)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// A shared cache keeps the value records of a database (the records of
// every query) in segments of segBytes of a block, not whole blocks: a
// block holds 32768 records of which a query wants one, and the
// positions asked again and again are spread over many blocks, so a
// budget of segments holds several times the hot records a budget of
// blocks does. A miss still decompresses the whole block (a zstd frame
// has no random access) and keeps only the segment asked for.
// Probabilities and planes, stored a byte plane at a time across the
// block, stay whole blocks.
const segBytes = 4096

// segKey is the key of segment seg of block b: the high bit keeps
// segments apart from whole blocks.
func segKey(owner uint64, b, seg int) BlockKey {
	return BlockKey{owner, 1<<63 | uint64(b)<<16 | uint64(seg)}
}

// lookupShared is Lookup through the shared cache.
func (d *DB) lookupShared(rank uint64) (Record, error) {
	b := int(rank / uint64(d.h.BlockRecords))
	off := int(rank%uint64(d.h.BlockRecords)) * d.h.RecordBytes
	seg := off / segBytes
	raw, ok := d.shared.Get(segKey(d.owner, b, seg))
	if !ok {
		var err error
		if raw, err = d.fillSegment(b, seg, false); err != nil {
			return 0, err
		}
	}
	return decodeRecord(raw[off-seg*segBytes:], d.h.RecordBytes), nil
}

// blockBufs are the buffers a miss decompresses a block into (and reads
// its compressed bytes into): only segments are kept, copied.
var blockBufs sync.Pool

type blockBuf struct{ raw, comp []byte }

// fillSegment decompresses block b and keeps its segment seg in the
// cache, or with all every segment, and returns segment seg.
func (d *DB) fillSegment(b, seg int, all bool) ([]byte, error) {
	buf, _ := blockBufs.Get().(*blockBuf)
	if buf == nil {
		buf = &blockBuf{}
	}
	defer blockBufs.Put(buf)
	raw, err := d.blockInto(b, buf.raw, buf.comp)
	if err != nil {
		return nil, err
	}
	buf.raw = raw[:0]
	var want []byte
	for s := 0; s*segBytes < len(raw); s++ {
		if s != seg && !all {
			continue
		}
		piece := append([]byte(nil), raw[s*segBytes:min(len(raw), (s+1)*segBytes)]...)
		if s == seg {
			want = piece
		}
		d.shared.Add(segKey(d.owner, b, s), piece)
	}
	return want, nil
}
