package worker

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/chance"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// memCache keeps what the worker loaded or computed in memory, up to a
// budget, so that the next units find it in place: each kind of entry on
// a shelf of its own, a map typed by what it holds. A full budget drops
// the least recently used entries first, whatever their shelf; an entry
// in use is never dropped.
type memCache struct {
	*memory
	// sets are tier sets, ranked, by their name (api.Assignment.Set).
	sets *shelf[string, *bitarray.Ranked]
	// partials are the sets of the partial level files this worker wrote,
	// by the file's SHA-256: it merges them from memory.
	partials *shelf[string, *bitarray.Set]
	// tierRecords are the slices of a whole tier's records that its range
	// units solve into, by the tier's set name: the worker finds the
	// records of its own units in place (rangeRecords).
	tierRecords *shelf[string, []valuedb.Record]
	// records and probs are the results of units this worker computed, by
	// the SHA-256 of the file it wrote them to (probs: with a game's planes,
	// 1+K values a position, unitio.JoinChance).
	records *shelf[string, []valuedb.Record]
	probs   *shelf[string, []tiergame.Prob]
	// solved and chance are solved child tiers, loaded for the units of
	// their parents.
	solved *shelf[kidKey, *solved.Tier]
	chance *shelf[kidKey, *chance.Tier]
	// parts are the parts of loopy tiers solved in parts that the worker
	// keeps between their rounds (parts.go).
	parts *shelf[partKey, *heldPart]
}

// kidKey names a solved child tier: the same records from the database or
// from the units are the same tier.
type kidKey struct {
	tier  uint64
	level string // the SHA-256 of its level file
}

func newMemCache(limit int64) *memCache {
	m := &memory{limit: limit, items: map[*item]struct{}{}, released: make(chan struct{})}
	return &memCache{memory: m, sets: newShelf[string, *bitarray.Ranked](m), partials: newShelf[string, *bitarray.Set](m),
		tierRecords: newShelf[string, []valuedb.Record](m), records: newShelf[string, []valuedb.Record](m),
		probs: newShelf[string, []tiergame.Prob](m), solved: newShelf[kidKey, *solved.Tier](m),
		chance: newShelf[kidKey, *chance.Tier](m), parts: newShelf[partKey, *heldPart](m)}
}

// reserve makes room for size bytes a unit is about to hold outside the
// shelves (dropping unused entries, least recently used first) and
// counts them until release. While other units' reservations leave too
// little room (a unit writing its outputs while the next one starts), it
// waits for them to be released, or for ctx; a reservation alone is never
// refused.
func (m *memory) reserve(ctx context.Context, o owner, size int64) (release func(), err error) {
	it := &item{owner: o, size: size, refs: 1, last: time.Now(), drop: func() {}, free: func() {}}
	m.mu.Lock()
	for {
		m.evictFor(size)
		if m.used+size <= m.limit || m.reserved == 0 {
			break
		}
		wake := m.released
		m.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		m.mu.Lock()
	}
	m.add(it)
	m.reserved++
	m.mu.Unlock()
	return m.releaser(it), nil
}

// hold counts size bytes more that a running unit holds beside its
// reservation (a part's side tables, as its first pass grows them), dropping
// unused entries to make room, without waiting: the unit runs already.
func (m *memory) hold(o owner, size int64) (release func()) {
	it := &item{owner: o, size: size, refs: 1, last: time.Now(), drop: func() {}, free: func() {}}
	m.mu.Lock()
	m.add(it)
	m.reserved++
	m.mu.Unlock()
	return m.releaser(it)
}

// releaser is the release of a reservation it.
func (m *memory) releaser(it *item) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			m.remove(it)
			m.reserved--
			close(m.released)
			m.released = make(chan struct{})
			m.mu.Unlock()
		})
	}
}

// reserveUnit makes room in the memory for what unit u holds beside the
// shelves while it runs (reserve): need, the estimate of its peak (the
// leader's, api.Assignment.Bytes, or the worker's own), less what every
// estimate counts for the program and the runtime (plan.BaseBytes:
// the worker's fixed part, outside the memory cache) and less held, the bytes of the shelves'
// entries it holds (counted there).
func (w *Worker) reserveUnit(ctx context.Context, u *unit, need, held int64) (release func(), err error) {
	return w.mem.reserve(ctx, u.own, max(need-plan.BaseBytes-held, 0))
}

// setLimit changes the budget, dropping unused entries past it.
func (m *memory) setLimit(limit int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limit = limit
	m.evictFor(0)
}

// memory is the budget the shelves share, and the entries on all of them.
type memory struct {
	mu    sync.Mutex
	limit int64
	used  int64
	items map[*item]struct{}
	// reserved counts the reservations held; released is closed (and
	// replaced) when one is released.
	reserved int
	released chan struct{}
}

// item is what the memory knows of an entry, whatever its shelf.
type item struct {
	owner owner
	size  int64
	refs  int       // holders, who must release it
	last  time.Time // last use
	// drop takes it off its shelf (under memory.mu), and free frees its
	// value if it holds memory outside the Go heap (a solved tier's
	// cells); evict, if set, is free for a value dropped to make room,
	// which may keep it elsewhere first (heldPart.Evict).
	drop, free, evict func()
}

// owner is the tier of a run an entry belongs to: it is dropped once the
// run no longer needs the tier (retire). Entries are named by their
// content, so two runs of the same game may share one: it is the first
// run's, and the other loads it again if it needs it after that.
type owner struct {
	run  string
	tier uint64
}

// add accounts for a new entry, making room for it first; m.mu is held.
func (m *memory) add(it *item) {
	m.evictFor(it.size)
	m.items[it] = struct{}{}
	m.used += it.size
}

// remove takes an entry off the memory, for a caller that owns its value
// from then on; m.mu is held.
func (m *memory) remove(it *item) {
	it.drop()
	delete(m.items, it)
	m.used -= it.size
}

// discard drops an entry that nobody holds, and frees its value; m.mu is
// held.
func (m *memory) discard(it *item) {
	m.remove(it)
	it.free()
}

// evictFor drops unused entries, least recently used first, until size
// more bytes fit (or nothing more can go); m.mu is held.
func (m *memory) evictFor(size int64) {
	for m.used+size > m.limit {
		var victim *item
		for it := range m.items {
			if it.refs == 0 && (victim == nil || it.last.Before(victim.last)) {
				victim = it
			}
		}
		if victim == nil {
			return
		}
		m.remove(victim)
		if victim.evict != nil {
			victim.evict()
		} else {
			victim.free()
		}
	}
}

// retire drops the entries of run's tiers that are not in live and that
// nobody holds, and returns the bytes freed. The budget alone would keep
// them until it is full: the run's tiers solved long ago would then
// raise the worker's peak memory, and with it the pages the system must
// hand it (a worker kept twice the memory of tierd solve).
func (m *memory) retire(run string, live []uint64) (freed int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for it := range m.items {
		if it.owner.run == run && it.refs == 0 && !slices.Contains(live, it.owner.tier) {
			freed += it.size
			m.discard(it)
		}
	}
	return freed
}

// shelf holds the entries of one kind, by key.
type shelf[K comparable, V any] struct {
	mem     *memory
	entries map[K]*entry[V]
	loading map[K]*loading // loads under way, which others wait for
}

type entry[V any] struct {
	item
	v V
}

// loading is a load under way: done closes when it ends, with err.
type loading struct {
	done chan struct{}
	err  error
}

func newShelf[K comparable, V any](m *memory) *shelf[K, V] {
	return &shelf[K, V]{mem: m, entries: map[K]*entry[V]{}, loading: map[K]*loading{}}
}

// insert puts v (of size bytes) on the shelf under key as o's, held refs
// times; mem.mu is held.
func (s *shelf[K, V]) insert(key K, o owner, v V, size int64, refs int) *entry[V] {
	e := &entry[V]{item: item{owner: o, size: size, refs: refs, last: time.Now()}, v: v}
	e.drop = func() { delete(s.entries, key) }
	e.free = func() {
		if f, ok := any(e.v).(interface{ Free() }); ok {
			f.Free()
		}
	}
	if ev, ok := any(v).(interface{ Evict() }); ok {
		e.evict = ev.Evict
	}
	s.entries[key] = e
	s.mem.add(&e.item)
	return e
}

// get returns the value under key, loading it if needed as o's (load
// returns it and its size in bytes; it runs once however many ask at the
// same time); release must be called when the caller is done with it.
func (s *shelf[K, V]) get(key K, o owner, load func() (V, int64, error)) (V, func(), error) {
	m := s.mem
	for {
		m.mu.Lock()
		if e := s.entries[key]; e != nil {
			e.refs++
			e.last = time.Now()
			m.mu.Unlock()
			return e.v, s.releaser(e), nil
		}
		if l := s.loading[key]; l != nil {
			m.mu.Unlock()
			<-l.done
			if l.err != nil {
				var zero V
				return zero, nil, l.err
			}
			continue
		}
		l := &loading{done: make(chan struct{})}
		s.loading[key] = l
		m.mu.Unlock()
		v, size, err := load()
		m.mu.Lock()
		delete(s.loading, key)
		l.err = err
		var e *entry[V]
		if err == nil {
			e = s.insert(key, o, v, size, 1)
		}
		m.mu.Unlock()
		close(l.done)
		if err != nil {
			return v, nil, err
		}
		return v, s.releaser(e), nil
	}
}

// releaser is the release of one hold of e.
func (s *shelf[K, V]) releaser(e *entry[V]) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mem.mu.Lock()
			e.refs--
			s.mem.mu.Unlock()
		})
	}
}

// put keeps v (of size bytes) under key as o's, as a value nobody holds,
// unless the shelf has one already; it reports whether it kept v.
func (s *shelf[K, V]) put(key K, o owner, v V, size int64) bool {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	if s.entries[key] != nil {
		return false
	}
	s.insert(key, o, v, size, 0)
	return true
}

// pin holds the entry under key, if there is one, for a value of
// another shelf that reads it (a held part, its tier's set): the entry
// stays in memory, and counted, until unpin. It returns nil when the
// shelf has no such entry.
func (s *shelf[K, V]) pin(key K) *item {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	e := s.entries[key]
	if e == nil {
		return nil
	}
	e.refs++
	e.last = time.Now()
	return &e.item
}

// unpinLocked lets go of a pin's hold (nil: none); the memory's lock is
// held (as when the memory drops the value that had the pin).
func unpinLocked(it *item) {
	if it != nil {
		it.refs--
	}
}

// unpin is unpinLocked for a caller that does not hold m.mu.
func (m *memory) unpin(it *item) {
	m.mu.Lock()
	defer m.mu.Unlock()
	unpinLocked(it)
}

// peek returns the value under key if it is in memory, without loading
// it; the caller must not keep it (it may be dropped).
func (s *shelf[K, V]) peek(key K) (V, bool) {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	e := s.entries[key]
	if e == nil {
		var zero V
		return zero, false
	}
	e.last = time.Now()
	return e.v, true
}

// take removes the value under key from the shelf, unless it is in use,
// and returns it: the caller owns it from then on.
func (s *shelf[K, V]) take(key K) (V, bool) {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	e := s.entries[key]
	if e == nil || e.refs > 0 {
		var zero V
		return zero, false
	}
	s.mem.remove(&e.item)
	return e.v, true
}
