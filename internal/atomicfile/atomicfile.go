// Package atomicfile writes files so that a reader or a crash never sees a
// half-written file under the final name: data goes to a temporary file in
// the same directory, which is synced, renamed over the final name, and the
// directory synced.
//
// Every file the project writes goes through this package.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// File is a pending file. Write to it, then Commit; Close without Commit
// removes the temporary file and leaves the final name untouched.
type File struct {
	*renameio.PendingFile
	path string
	done bool
}

// Create starts a pending file that will replace path on Commit.
func Create(path string) (*File, error) {
	pf, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644))
	if err != nil {
		return nil, err
	}
	return &File{PendingFile: pf, path: path}, nil
}

// Path is the final name of the file.
func (f *File) Path() string { return f.path }

// Commit syncs the data, renames the file to its final name and syncs the
// directory so that the rename itself survives a crash.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: commit after close")
	}
	f.done = true
	if err := f.PendingFile.CloseAtomicallyReplace(); err != nil {
		f.PendingFile.Cleanup()
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
	name := f.PendingFile.Name()
	if err := f.PendingFile.File.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, f.path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// SyncFS flushes the file system holding dir to stable storage: one
// journal commit for all the files written with CommitNoSync.
func SyncFS(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}

// Close abandons the file unless it was committed. It is safe to call after
// Commit, so `defer f.Close()` is the usual pattern.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	return f.PendingFile.Cleanup()
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
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
