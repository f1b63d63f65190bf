package valuedb

import (
	"math/bits"
	"sync"
	"unsafe"
)

// RecordCache keeps single records by key: an owner (an id of
// BlockCache.NewOwner, say a tier of a run) and a position. A server's
// answers read a record here and there in large databases: a block or a
// segment cached for one record holds hundreds that nobody asks, where
// this cache holds the records asked in 16 bytes each, so a budget keeps
// some 70 times more of them.
//
// It is a table of sets of recWays entries, each set one cache line,
// found by a hash of the key; a set keeps its entries in the order they
// were last read (a hit moves its entry to the front, a new entry goes
// there and the last one is dropped). It is safe for many goroutines:
// the sets are guarded by striped locks. Records of an owner no one asks
// any more are never found again (owner ids are not reused) and are
// dropped as new ones come.
type RecordCache struct {
	sets  []recSet
	shift uint // of a key's hash, to its set
	locks [recLocks]recLock
}

// recWays is the entries of a set: 4 of 16 bytes fill a cache line.
const recWays = 4

// recLocks is the number of locks striped over the sets: enough that two
// cores rarely meet.
const recLocks = 256

type recSet [recWays]recEntry

// recEntry is a record under its key; tag 0 marks an empty entry.
type recEntry struct {
	pos uint64
	tag uint64 // owner<<17 | 1<<16 | record
}

type recLock struct {
	sync.Mutex
	hits, misses uint64
	_            [64 - unsafe.Sizeof(sync.Mutex{}) - 16]byte // a cache line each
}

// maxRecordOwner is the largest owner a tag holds.
const maxRecordOwner = 1<<47 - 1

// NewRecordCache returns a cache of about bytes bytes (a power of two
// sets, at least one).
func NewRecordCache(bytes uint64) *RecordCache {
	n := uint64(1)
	for 2*n*uint64(unsafe.Sizeof(recSet{})) <= bytes {
		n *= 2
	}
	// As BlockCache's shards: the hash's top bits (none for one set: a
	// shift by 64 is 0).
	return &RecordCache{sets: make([]recSet, n), shift: uint(64 - bits.Len64(n-1))}
}

// Bytes is the memory the cache's table takes.
func (c *RecordCache) Bytes() uint64 { return uint64(len(c.sets)) * uint64(unsafe.Sizeof(recSet{})) }

// set returns the index of the set of key (owner, pos).
func (c *RecordCache) set(owner, pos uint64) uint64 {
	h := (pos ^ owner*0x9E3779B97F4A7C15) * 0xBF58476D1CE4E5B9
	h ^= h >> 29
	h *= 0x94D049BB133111EB
	return h >> c.shift
}

func recTag(owner uint64, r Record) uint64 { return owner<<17 | 1<<16 | uint64(r) }

// is reports whether e holds the record of (owner, pos).
func (e recEntry) is(owner, pos uint64) bool { return e.pos == pos && e.tag>>16 == owner<<1|1 }

// Get returns the record kept under (owner, pos), if any.
func (c *RecordCache) Get(owner, pos uint64) (Record, bool) {
	if owner > maxRecordOwner {
		return 0, false
	}
	i := c.set(owner, pos)
	l := &c.locks[i%recLocks]
	s := &c.sets[i]
	l.Lock()
	for w := range recWays {
		e := s[w]
		if e.is(owner, pos) {
			copy(s[1:w+1], s[:w]) // to the front
			s[0] = e
			l.hits++
			l.Unlock()
			return Record(e.tag), true
		}
	}
	l.misses++
	l.Unlock()
	return 0, false
}

// Put keeps record r under (owner, pos), at the front of its set.
func (c *RecordCache) Put(owner, pos uint64, r Record) {
	if owner > maxRecordOwner {
		return
	}
	i := c.set(owner, pos)
	l := &c.locks[i%recLocks]
	s := &c.sets[i]
	e := recEntry{pos: pos, tag: recTag(owner, r)}
	l.Lock()
	w := recWays - 1 // the last, when the key is not there
	for k := range recWays {
		if s[k].is(owner, pos) {
			w = k
			break
		}
	}
	copy(s[1:w+1], s[:w])
	s[0] = e
	l.Unlock()
}

// Stats returns the cache's hits and misses.
func (c *RecordCache) Stats() (hits, misses uint64) {
	for i := range c.locks {
		l := &c.locks[i]
		l.Lock()
		hits += l.hits
		misses += l.misses
		l.Unlock()
	}
	return hits, misses
}
