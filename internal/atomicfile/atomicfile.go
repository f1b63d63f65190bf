// Package atomicfile writes files so that a reader or a crash never sees a
// half-written file under the final name: data goes to a temporary file in
// the same directory, which is synced, renamed over the final name, and the
// directory synced.
//
// Every file the project writes goes through this package, so its errors
// name the final path (never the temporary one), and FillDiskAfter can
// make every write fail as a full disk would, for tests.
//
// A path that names a device or a pipe (/dev/null, /dev/stdout) cannot be
// replaced by a rename: it is written in place instead.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// File is a pending file. Write to it, then Commit; Close without Commit
// removes the temporary file and leaves the final name untouched.
type File struct {
	pending *renameio.PendingFile // nil when writing a device in place
	device  *os.File
	path    string
	done    bool
}

// Create starts a pending file that will replace path on Commit.
func Create(path string) (*File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return nil, &fs.PathError{Op: "create", Path: path, Err: syscall.EISDIR}
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{device: f, path: path}, nil
	}
	// The temporary file goes next to path: renameio's default probes
	// $TMPDIR with two test files per call to find one on the same file
	// system, which costs more than it saves and scatters leftovers.
	pf, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithPermissions(0o644))
	if err != nil {
		return nil, pathError("create", path, err)
	}
	f := &File{pending: pf, path: path}
	pending.Store(f, pf.Name())
	return f, nil
}

// pending maps the files not yet committed or closed to their temporary
// names, for RemovePending. Commits hold stopping's read lock, so that
// RemovePending sees each file either committed or not.
var (
	pending  sync.Map
	stopping struct {
		sync.RWMutex
		done bool
	}
)

// RemovePending removes the temporary files of every pending file and
// makes later commits fail, for a process about to exit on a signal:
// every final name keeps what it had, and no temporary file is left.
func RemovePending() {
	stopping.Lock()
	defer stopping.Unlock()
	stopping.done = true
	pending.Range(func(k, v any) bool {
		os.Remove(v.(string))
		pending.Delete(k)
		return true
	})
}

// errStopping is the error of a commit after RemovePending.
var errStopping = errors.New("stopped: the process is exiting")

// commit runs f's commit unless the process is stopping.
func (f *File) commit(do func() error) error {
	stopping.RLock()
	defer stopping.RUnlock()
	pending.Delete(f)
	if stopping.done {
		if f.pending != nil {
			f.pending.Cleanup()
		}
		return pathError("commit", f.path, errStopping)
	}
	return do()
}

// Path is the final name of the file.
func (f *File) Path() string { return f.path }

// Write writes to the pending file.
func (f *File) Write(b []byte) (int, error) {
	if f.done {
		return 0, &fs.PathError{Op: "write", Path: f.path, Err: fs.ErrClosed}
	}
	w := f.file()
	n := len(b)
	full := false
	if budget := diskBudget.Load(); budget != nil {
		left := budget.Add(-int64(len(b)))
		if left < 0 {
			n, full = max(0, len(b)+int(left)), true
		}
	}
	m, err := w.Write(b[:n])
	if err == nil && full {
		err = syscall.ENOSPC
	}
	if err != nil {
		return m, pathError("write", f.path, err)
	}
	return m, nil
}

// Sync flushes the pending file's data to stable storage.
func (f *File) Sync() error {
	if err := f.file().Sync(); err != nil && !ignorableSyncError(err) {
		return pathError("sync", f.path, err)
	}
	return nil
}

func (f *File) file() *os.File {
	if f.device != nil {
		return f.device
	}
	return f.pending.File
}

// Commit syncs the data, renames the file to its final name and syncs the
// directory so that the rename itself survives a crash.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: commit after close")
	}
	f.done = true
	if f.device != nil {
		return f.closeDevice(true)
	}
	err := f.commit(func() error {
		if err := f.pending.CloseAtomicallyReplace(); err != nil {
			f.pending.Cleanup()
			return pathError("commit", f.path, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(f.path))
}

// CommitNoSync renames the file to its final name without syncing it or
// its directory: a reader never sees a partial file, but after a crash of
// the machine (not just the program) the file may be empty or missing. For
// intermediate files whose caller syncs the file system once at the end
// of a step (see SyncFS).
func (f *File) CommitNoSync() error {
	if f.done {
		return errors.New("atomicfile: commit after close")
	}
	f.done = true
	if f.device != nil {
		return f.closeDevice(false)
	}
	return f.commit(func() error {
		name := f.pending.Name()
		if err := f.pending.File.Close(); err != nil {
			os.Remove(name)
			return pathError("close", f.path, err)
		}
		if err := os.Rename(name, f.path); err != nil {
			os.Remove(name)
			return pathError("rename", f.path, err)
		}
		return nil
	})
}

func (f *File) closeDevice(sync bool) error {
	var err error
	if sync {
		err = f.Sync()
	}
	if cerr := f.device.Close(); err == nil && cerr != nil {
		err = pathError("close", f.path, cerr)
	}
	return err
}

// SyncFS flushes the file system holding dir to stable storage: one
// journal commit for all the files written with CommitNoSync.
func SyncFS(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Syncfs(int(d.Fd())); err != nil {
		return pathError("syncfs", dir, err)
	}
	return nil
}

// Close abandons the file unless it was committed. It is safe to call after
// Commit, so `defer f.Close()` is the usual pattern.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.device != nil {
		return f.device.Close()
	}
	pending.Delete(f)
	return f.pending.Cleanup()
}

// WriteFile atomically replaces path with data.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !ignorableSyncError(err) {
		return pathError("sync", dir, err)
	}
	return nil
}

// ignorableSyncError reports errors of syncing something that cannot be
// synced (a directory on some file systems, a terminal, a pipe).
func ignorableSyncError(err error) bool {
	return errors.Is(err, os.ErrInvalid) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}

// pathError reports err as an operation on path, the final name: the
// temporary file's name means nothing to the user.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// diskBudget, when set, is the number of bytes writes may still add before
// they fail with ENOSPC (see FillDiskAfter).
var diskBudget atomic.Pointer[atomic.Int64]

// FillDiskAfter makes every write through this package fail with ENOSPC
// ("no space left on device"), process-wide, once n more bytes have been
// written, as a full disk would; the write that crosses the limit writes
// what fits. restore lifts the limit. It is for tests of what the project
// does on a full disk, where a real one cannot be had.
func FillDiskAfter(n int64) (restore func()) {
	b := new(atomic.Int64)
	b.Store(n)
	diskBudget.Store(b)
	return func() { diskBudget.Store(nil) }
}
