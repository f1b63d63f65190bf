// Package blobstore keeps immutable files named by the SHA-256 of their
// content: level files, value databases and the partial results of units
// of work in a cluster run.
//
// A Store is small on purpose, so that other kinds can stand in for Dir,
// the one on local disk: S3 keeps the blobs in a bucket of an
// S3-compatible object store. Put checks the content against its name
// (Dir while it streams, S3 by the store's own SHA-256 checksum), so a
// store never holds a blob under a wrong name.
package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tiersolve/tiersolve/internal/atomicfile"
)

// Errors that callers test.
var (
	// ErrNotFound: the store has no blob of that name.
	ErrNotFound = errors.New("blob not found")
	// ErrMismatch: the content does not hash to its name, or its size is
	// not the one announced.
	ErrMismatch = errors.New("blob content does not match its name")
	// ErrTooLarge: the content is larger than the store accepts.
	ErrTooLarge = errors.New("blob too large")
	// ErrBadName: the name is not a SHA-256 in lower-case hex.
	ErrBadName = errors.New("blob name is not a lower-case hex SHA-256")
)

// Store holds immutable blobs named by their SHA-256 (lower-case hex).
type Store interface {
	// Put stores size bytes from r under sum. It fails with ErrMismatch if
	// they do not hash to sum, ErrTooLarge past the store's limit; a
	// failed Put leaves nothing behind. Putting a blob the store already
	// has reads nothing and succeeds: blobs are immutable.
	Put(ctx context.Context, sum string, size int64, r io.Reader) error
	// Open returns the blob's content and size, or ErrNotFound.
	Open(sum string) (io.ReadCloser, int64, error)
	// Stat returns the blob's size, or ErrNotFound.
	Stat(sum string) (int64, error)
	// Delete removes a blob; deleting a missing blob is not an error.
	Delete(sum string) error
	// Walk calls f for every blob, with its size and when it was stored.
	Walk(f func(sum string, size int64, stored time.Time) error) error
}

// ValidName reports whether sum is a SHA-256 in lower-case hex: the only
// names a store accepts, so a name can never escape the store's folder.
func ValidName(sum string) bool {
	if len(sum) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(sum); i++ {
		c := sum[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Dir is a Store in a folder of the local disk: blob ab12… is the file
// ab/ab12…, written atomically and synced before Put returns.
type Dir struct {
	root string
	// MaxSize is the largest blob Put accepts; 0 means no limit.
	MaxSize int64
}

// OpenDir opens (creating it if needed) a store in folder root.
func OpenDir(root string, maxSize int64) (*Dir, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	return &Dir{root: root, MaxSize: maxSize}, nil
}

// Path is the file of blob sum (which may not exist). Callers that need a
// file name, such as the level-file merge, read it in place.
func (d *Dir) Path(sum string) string {
	return filepath.Join(d.root, sum[:2], sum)
}

func checkName(sum string) error {
	if !ValidName(sum) {
		return fmt.Errorf("blobstore: %q: %w", sum, ErrBadName)
	}
	return nil
}

// Put implements Store: the blob is on disk (synced) when it returns.
func (d *Dir) Put(ctx context.Context, sum string, size int64, r io.Reader) error {
	return d.put(ctx, sum, size, r, true)
}

// Stage stores a blob as Put does, checked the same way, but without
// waiting for the disk: it is durable after the next Sync. Many blobs
// staged then synced once cost one flush instead of one each.
func (d *Dir) Stage(ctx context.Context, sum string, size int64, r io.Reader) error {
	return d.put(ctx, sum, size, r, false)
}

// Sync makes every staged or adopted blob durable: one flush of the
// store's file system.
func (d *Dir) Sync() error {
	if err := atomicfile.SyncFS(d.root); err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	return nil
}

func (d *Dir) put(ctx context.Context, sum string, size int64, r io.Reader, sync bool) error {
	if err := checkName(sum); err != nil {
		return err
	}
	if d.MaxSize > 0 && size > d.MaxSize {
		return fmt.Errorf("blobstore: %s: %d bytes: %w (limit %d)", sum, size, ErrTooLarge, d.MaxSize)
	}
	if size < 0 {
		return fmt.Errorf("blobstore: %s: size %d: %w", sum, size, ErrMismatch)
	}
	if have, err := d.Stat(sum); err == nil && have == size {
		// Stored again: its age (Walk) starts over, as an upload's
		// would, so that a collector's grace covers this copy too.
		now := time.Now()
		os.Chtimes(d.Path(sum), now, now)
		return nil
	}
	path := d.Path(sum)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	// One byte more than announced tells a longer stream apart.
	n, err := Copy(io.MultiWriter(f, h), io.LimitReader(ctxReader{ctx, r}, size+1))
	if err != nil {
		return fmt.Errorf("blobstore: %s: %w", sum, err)
	}
	if n != size || hex.EncodeToString(h.Sum(nil)) != sum {
		return fmt.Errorf("blobstore: %s: %d bytes hashing to %x: %w", sum, n, h.Sum(nil), ErrMismatch)
	}
	commit := f.Commit
	if !sync {
		commit = f.CommitNoSync
	}
	if err := commit(); err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	return nil
}

// Adopt moves the finished file at path, whose SHA-256 is sum, into the
// store, without copying. path must be on the store's file system; the
// blob is durable after the next Sync.
func (d *Dir) Adopt(path, sum string) error {
	if err := checkName(sum); err != nil {
		return err
	}
	dst := d.Path(sum)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	if err := os.Rename(path, dst); err != nil {
		return fmt.Errorf("blobstore: %w", err)
	}
	return nil
}

// TempDir is a folder on the store's file system for files to Adopt.
func (d *Dir) TempDir() (string, error) {
	dir := filepath.Join(d.root, "tmp")
	return dir, os.MkdirAll(dir, 0o755)
}

// Open implements Store.
func (d *Dir) Open(sum string) (io.ReadCloser, int64, error) {
	if err := checkName(sum); err != nil {
		return nil, 0, err
	}
	f, err := os.Open(d.Path(sum))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("blobstore: %s: %w", sum, ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("blobstore: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("blobstore: %w", err)
	}
	return f, st.Size(), nil
}

// Stat implements Store.
func (d *Dir) Stat(sum string) (int64, error) {
	if err := checkName(sum); err != nil {
		return 0, err
	}
	st, err := os.Stat(d.Path(sum))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("blobstore: %s: %w", sum, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("blobstore: %w", err)
	}
	return st.Size(), nil
}

// Delete implements Store.
func (d *Dir) Delete(sum string) error {
	if err := checkName(sum); err != nil {
		return err
	}
	if err := os.Remove(d.Path(sum)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blobstore: %w", err)
	}
	return nil
}

// Walk implements Store. Files that are not blobs (temporary files) are
// skipped.
func (d *Dir) Walk(f func(sum string, size int64, stored time.Time) error) error {
	return filepath.WalkDir(d.root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != d.root && (len(e.Name()) != 2 || strings.Trim(e.Name(), "0123456789abcdef") != "") {
				return filepath.SkipDir
			}
			return nil
		}
		if !ValidName(e.Name()) {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		return f(e.Name(), info.Size(), info.ModTime())
	})
}

// HashFile returns the SHA-256 (lower-case hex) and size of a file.
func HashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// copyBuffers are Copy's buffers, a megabyte each.
var copyBuffers = sync.Pool{New: func() any { return new([1 << 20]byte) }}

// Copy is io.Copy through a buffer of a megabyte: blobs move between
// sockets, files and hashes, where io.Copy's 32 KB meant a system call
// (and a hash call) for every 32 KB.
func Copy(dst io.Writer, src io.Reader) (int64, error) {
	buf := copyBuffers.Get().(*[1 << 20]byte)
	defer copyBuffers.Put(buf)
	return io.CopyBuffer(dst, src, buf[:])
}

// ctxReader stops reading when its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
