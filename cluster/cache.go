package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// diskCache keeps a worker's inputs on its disk, by SHA-256, downloading
// each once and evicting the least recently used past its limit. It keeps
// the files' sizes in memory: the folder is listed once, when it opens.
type diskCache struct {
	store  *blobstore.Dir
	client *Client
	limit  int64
	group  singleflight.Group

	mu    sync.Mutex
	files map[string]cachedFile // by SHA-256
	total int64                 // bytes in files
}

type cachedFile struct {
	size int64
	last time.Time // last use
}

func newDiskCache(store *blobstore.Dir, client *Client, limit int64) *diskCache {
	d := &diskCache{store: store, client: client, limit: limit, files: map[string]cachedFile{}}
	store.Walk(func(sum string, size int64, stored time.Time) error {
		d.files[sum] = cachedFile{size, stored}
		d.total += size
		return nil
	})
	return d
}

// use records blob b as in the cache and used now.
func (d *diskCache) use(b Blob) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.total += b.Size - d.files[b.SHA256].size
	d.files[b.SHA256] = cachedFile{b.Size, time.Now()}
}

// paths returns the files of blobs, downloading those not cached.
func (d *diskCache) paths(ctx context.Context, blobs []Blob) ([]string, error) {
	out := make([]string, len(blobs))
	for i, b := range blobs {
		if size, err := d.store.Stat(b.SHA256); err != nil || size != b.Size {
			_, err, _ := d.group.Do(b.SHA256, func() (any, error) {
				if size, err := d.store.Stat(b.SHA256); err == nil && size == b.Size {
					return nil, nil
				}
				return nil, d.client.GetBlob(ctx, b, d.store.Path(b.SHA256))
			})
			if err != nil {
				return nil, err
			}
		}
		d.use(b)
		out[i] = d.store.Path(b.SHA256)
	}
	d.evict()
	return out, nil
}

// adopt moves a file of the worker's folder into the cache as blob b.
func (d *diskCache) adopt(path string, b Blob) {
	if err := d.store.Adopt(path, b.SHA256); err != nil {
		return // only a cache
	}
	d.use(b)
}

// evict deletes the least recently used blobs while the cache is over its
// limit, sparing those used in the last minute (a unit may be about to
// open them).
func (d *diskCache) evict() {
	type file struct {
		sum string
		cachedFile
	}
	d.mu.Lock()
	if d.total <= d.limit {
		d.mu.Unlock()
		return
	}
	files := make([]file, 0, len(d.files))
	for sum, f := range d.files {
		files = append(files, file{sum, f})
	}
	d.mu.Unlock()
	slices.SortFunc(files, func(a, b file) int { return a.last.Compare(b.last) })
	for _, f := range files {
		d.mu.Lock()
		if d.total <= d.limit {
			d.mu.Unlock()
			return
		}
		// Look again: the file may have been used since the list was made.
		cur, ok := d.files[f.sum]
		evict := ok && time.Since(cur.last) >= time.Minute
		if evict {
			delete(d.files, f.sum)
			d.total -= cur.size
		}
		d.mu.Unlock()
		if evict {
			d.store.Delete(f.sum) // if it fails, the file is only untracked
		}
	}
}

// memCache keeps loaded inputs (tier sets, solved tiers) in memory up to
// a budget, loading each once however many units ask at the same time.
// An entry in use is never evicted.
type memCache struct {
	limit int64
	group singleflight.Group

	mu      sync.Mutex
	used    int64
	entries map[string]*memEntry
}

type memEntry struct {
	v     any
	owner owner
	size  int64
	refs  int
	last  time.Time
}

// owner is the tier of a run a memory cache entry belongs to: it is
// dropped once the run no longer needs the tier (memCache.retire).
// Entries are named by their content, so two runs of the same game may
// share one: it is the first run's, and the other loads it again if it
// needs it after that.
type owner struct {
	run  string
	tier uint64
}

func newMemCache(limit int64) *memCache {
	return &memCache{limit: limit, entries: map[string]*memEntry{}}
}

// get returns the value of key, loading it if needed (load returns it and
// its size in bytes) as o's; release must be called when the caller is
// done with it.
func (m *memCache) get(key string, o owner, load func() (any, int64, error)) (any, func(), error) {
	for {
		m.mu.Lock()
		if e := m.entries[key]; e != nil {
			e.refs++
			e.last = time.Now()
			m.mu.Unlock()
			var once sync.Once
			return e.v, func() {
				once.Do(func() {
					m.mu.Lock()
					e.refs--
					m.mu.Unlock()
				})
			}, nil
		}
		m.mu.Unlock()
		_, err, _ := m.group.Do(key, func() (any, error) {
			v, size, err := load()
			if err != nil {
				return nil, err
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			m.evictFor(size, key)
			m.entries[key] = &memEntry{v: v, owner: o, size: size, last: time.Now()}
			m.used += size
			return nil, nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
}

// put keeps v (of size bytes) under key as o's, as a value nobody holds.
func (m *memCache) put(key string, o owner, v any, size int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries[key] != nil {
		return
	}
	m.evictFor(size, key)
	m.entries[key] = &memEntry{v: v, owner: o, size: size, last: time.Now()}
	m.used += size
}

// retire drops the entries of run's tiers that are not in live and that
// nobody holds, and returns the bytes freed. The budget alone would keep
// them until it is full: the run's tiers solved long ago would then
// raise the worker's peak memory, and with it the pages the system must
// hand it (a worker kept twice the memory of tierd solve).
func (m *memCache) retire(run string, live []uint64) (freed int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, e := range m.entries {
		if e.owner.run == run && e.refs == 0 && !slices.Contains(live, e.owner.tier) {
			freed += e.size
			m.drop(k)
		}
	}
	return freed
}

// peek returns the value under key if it is in memory, without loading
// it; the caller must not keep it (it may be evicted).
func (m *memCache) peek(key string) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil {
		return nil, false
	}
	e.last = time.Now()
	return e.v, true
}

// take removes the value under key from the cache, unless it is in use,
// and returns it: the caller owns it from then on.
func (m *memCache) take(key string) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil || e.refs > 0 {
		return nil, false
	}
	m.used -= e.size
	delete(m.entries, key)
	return e.v, true
}

// evictFor drops unused entries, least recently used first, until size
// more bytes fit (or nothing more can go).
func (m *memCache) evictFor(size int64, keep string) {
	for m.used+size > m.limit {
		var victim string
		var oldest time.Time
		for k, e := range m.entries {
			if e.refs == 0 && k != keep && (victim == "" || e.last.Before(oldest)) {
				victim, oldest = k, e.last
			}
		}
		if victim == "" {
			return
		}
		m.drop(victim)
	}
}

// drop removes the entry under key, which nobody holds, and frees its
// value if it holds memory outside the Go heap (a solved tier's cells).
func (m *memCache) drop(key string) {
	e := m.entries[key]
	m.used -= e.size
	delete(m.entries, key)
	if f, ok := e.v.(interface{ Free() }); ok {
		f.Free()
	}
}

// gameCache builds each game variant once: building one can cost
// (tables, tier sizes) and games are safe for concurrent use.
type gameCache struct {
	newGame func(name, option string) (tiergame.Game, error)
	mu      sync.Mutex
	m       map[string]tiergame.Game // by name and option
}

func newGameCache(newGame func(name, option string) (tiergame.Game, error)) *gameCache {
	return &gameCache{newGame: newGame, m: map[string]tiergame.Game{}}
}

// get returns the game, or with symmetry its quotient (solver.Reduce): a
// symmetric run's units and merges work on canonical positions.
func (c *gameCache) get(name, option string, symmetry bool) (tiergame.Game, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := fmt.Sprintf("%s\x00%s\x00%v", name, option, symmetry)
	if g, ok := c.m[key]; ok {
		return g, nil
	}
	g, err := c.newGame(name, option)
	if err != nil {
		return nil, err
	}
	if g, err = solver.Reduce(g, symmetry); err != nil {
		return nil, err
	}
	c.m[key] = g
	return g, nil
}
