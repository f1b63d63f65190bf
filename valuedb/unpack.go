package valuedb

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"
)

// A database unpacked (Unpack) is read from its file of records in
// segments of unpackSeg bytes: a miss costs one read of a segment from
// the page cache, where it would decompress a whole block (32768
// records, of which a query wants one). Records of 1 and 2 bytes never
// straddle two segments. A segment smaller than a page wastes less of
// the budget on records nobody asks (the records a server is asked
// again are scattered one to a segment) and less garbage a miss: on the
// handler's benchmark (Quixo 4x4, cache 8 MiB) 1 KiB answered as fast as
// 512 bytes and some 25% faster than 4 KiB, with 41 KB of garbage an
// answer instead of 75 KB.
const unpackSeg = 1024

// unpackKey is the cache's key of segment seg of an unpacked database,
// whose segments have an owner of their own (DB.segOwner).
func unpackKey(segOwner, seg uint64) BlockKey { return BlockKey{segOwner, seg} }

// Unpack writes the database's records, decompressed, to a scratch file
// in its shared cache's CacheOptions.Unpack folder, from which its
// lookups then read the segments they miss. Each block is checked as a
// lookup checks it (zstd checksum, length, remoteness) before any lookup
// reads the file, so a bad block fails Unpack with ErrFormat and the
// database stays read as before. Blocks are decompressed on GOMAXPROCS
// goroutines. Unpack does nothing without a shared cache with that
// option, for probabilities and planes (stored in byte planes), after it
// ran once, or when the folder's file system would keep less than the
// cache's MinFree free (a warning is logged, once for the cache).
// OpenCached calls it.
func (d *DB) Unpack() error {
	c := d.shared
	if c == nil || c.opts.Unpack == "" || d.h.Kind != "" || d.h.Count == 0 {
		return nil
	}
	d.unpackMu.Lock()
	defer d.unpackMu.Unlock()
	if d.unpackTried {
		return nil
	}
	d.unpackTried = true
	size := int64(d.h.Count) * int64(d.h.RecordBytes)
	// Databases unpacked at once each count the others' whole size: the
	// file system's free room does not show what they will write yet.
	inflight := c.unpacking.Add(size)
	defer c.unpacking.Add(-size)
	var st unix.Statfs_t
	if err := unix.Statfs(c.opts.Unpack, &st); err != nil {
		return fmt.Errorf("valuedb %s: unpack: %w", d.name, err)
	}
	if free := int64(st.Bavail) * int64(st.Bsize); free-inflight < int64(c.opts.MinFree) {
		c.warnUnpack("valuedb: databases read without unpacking: too little room on disk",
			"folder", c.opts.Unpack, "free_bytes", free, "needed_bytes", inflight, "min_free_bytes", c.opts.MinFree)
		return nil
	}
	f, err := os.CreateTemp(c.opts.Unpack, "unpacked-*.records")
	if err != nil {
		return fmt.Errorf("valuedb %s: unpack: %w", d.name, err)
	}
	// The file lives as long as it is open: nothing is left behind.
	os.Remove(f.Name())
	if err := d.unpackInto(f); err != nil {
		f.Close()
		return err
	}
	c.unpacked.Add(size)
	d.segOwner = c.NewDenseOwner(uint64((size + unpackSeg - 1) / unpackSeg))
	d.unpacked.Store(f)
	return nil
}

// unpackBuf is a worker's room for a block, compressed and not.
type unpackBuf struct{ raw, comp []byte }

// unpackInto writes every block decompressed to f at its records'
// offset, on GOMAXPROCS goroutines.
func (d *DB) unpackInto(f *os.File) error {
	var maxComp uint64
	for b := range d.h.Blocks {
		maxComp = max(maxComp, d.index[b+1]-d.index[b])
	}
	blockBytes := d.h.BlockRecords * d.h.RecordBytes
	pool := sync.Pool{New: func() any {
		return &unpackBuf{raw: make([]byte, 0, blockBytes), comp: make([]byte, maxComp)}
	}}
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(runtime.GOMAXPROCS(0))
	for b := range d.h.Blocks {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil
			}
			buf := pool.Get().(*unpackBuf)
			defer pool.Put(buf)
			raw, err := d.blockInto(b, buf.raw, buf.comp)
			if err != nil {
				return err
			}
			if _, err := f.WriteAt(raw, int64(b)*int64(blockBytes)); err != nil {
				return fmt.Errorf("valuedb %s: unpack block %d: %w", d.name, b, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// lookupUnpacked is Lookup of a database unpacked to u.
func (d *DB) lookupUnpacked(u *os.File, rank uint64) (Record, error) {
	off := rank * uint64(d.h.RecordBytes)
	seg := off / unpackSeg
	k := unpackKey(d.segOwner, seg)
	at, rb := off-seg*unpackSeg, d.h.RecordBytes
	var rec Record
	if d.shared.Read(k, func(raw []byte) { rec = decodeRecord(raw[at:], rb) }) {
		return rec, nil
	}
	// A miss reads into a pooled buffer, which the cache copies into one
	// of its own (reused once evicted): no garbage.
	buf := segBufs.Get().(*[unpackSeg]byte)
	defer segBufs.Put(buf)
	size := d.h.Count * uint64(d.h.RecordBytes)
	raw := buf[:min(unpackSeg, size-seg*unpackSeg)]
	if _, err := u.ReadAt(raw, int64(seg*unpackSeg)); err != nil {
		return 0, fmt.Errorf("valuedb %s: unpacked records at %d: %w", d.name, seg*unpackSeg, err)
	}
	d.shared.CountRead(len(raw))
	d.shared.AddCopy(k, raw)
	return decodeRecord(raw[at:], rb), nil
}

// segBufs are the buffers a miss reads a segment into.
var segBufs = sync.Pool{New: func() any { return new([unpackSeg]byte) }}

// prefetchUnpacked is Prefetch of a database unpacked to u: its segments,
// in order, while more() says so.
func (d *DB) prefetchUnpacked(u *os.File, more func() bool) error {
	size := int64(d.h.Count) * int64(d.h.RecordBytes)
	buf := make([]byte, 64*unpackSeg)
	for off := int64(0); off < size && more(); off += int64(len(buf)) {
		n := min(int64(len(buf)), size-off)
		if _, err := u.ReadAt(buf[:n], off); err != nil {
			return fmt.Errorf("valuedb %s: unpacked records at %d: %w", d.name, off, err)
		}
		d.shared.CountRead(int(n))
		for s := int64(0); s < n && more(); s += unpackSeg {
			d.shared.AddCopy(unpackKey(d.segOwner, uint64(off+s)/unpackSeg), buf[s:min(n, s+unpackSeg)])
		}
	}
	return nil
}

// closeUnpacked closes the database's unpacked file, if any.
func (d *DB) closeUnpacked() {
	if f := d.unpacked.Swap(nil); f != nil {
		f.Close()
		d.shared.Drop(d.segOwner)
		d.shared.unpacked.Add(-int64(d.h.Count) * int64(d.h.RecordBytes))
	}
}

// warnUnpack logs a warning of databases not unpacked, once for the
// cache: every database of a server would give the same reason.
func (c *BlockCache) warnUnpack(msg string, args ...any) {
	if c.warned.CompareAndSwap(false, true) {
		slog.Warn(msg, args...)
	}
}
