package worker

import (
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
)

// diskCache keeps a worker's inputs on its disk, by SHA-256, downloading
// each once and evicting the least recently used past its limit. It keeps
// the files' sizes in memory: the folder is listed once, when it opens.
type diskCache struct {
	store  *blobstore.Dir
	client *api.Client
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

func newDiskCache(store *blobstore.Dir, client *api.Client, limit int64) *diskCache {
	d := &diskCache{store: store, client: client, limit: limit, files: map[string]cachedFile{}}
	store.Walk(func(sum string, size int64, stored time.Time) error {
		d.files[sum] = cachedFile{size, stored}
		d.total += size
		return nil
	})
	return d
}

// use records blob b as in the cache and used now.
func (d *diskCache) use(b api.Blob) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.total += b.Size - d.files[b.SHA256].size
	d.files[b.SHA256] = cachedFile{b.Size, time.Now()}
}

// paths returns the files of blobs, downloading those not cached.
func (d *diskCache) paths(ctx context.Context, blobs []api.Blob) ([]string, error) {
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
func (d *diskCache) adopt(path string, b api.Blob) {
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
