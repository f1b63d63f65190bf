package levelfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/internal/atomicfile"
)

// Every way writing a file can fail must end in an error that names the
// file and its cause, leave no temporary file, and leave whatever was under
// the final name untouched. Each case runs against the sync-in-background
// path (the default) and the NoSync path, and exhaustive writing.

// writeWithin runs f and fails the test if it does not return in time:
// a writer that waits for a result it already consumed hangs forever.
func writeWithin(t *testing.T, f func() (Result, error)) (Result, error) {
	t.Helper()
	type out struct {
		res Result
		err error
	}
	c := make(chan out, 1)
	go func() {
		res, err := f()
		c <- out{res, err}
	}()
	select {
	case o := <-c:
		return o.res, o.err
	case <-time.After(2 * time.Minute):
		t.Fatal("the writer hangs after an error")
		return Result{}, nil
	}
}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// writerOptions are the writer paths every failure is tried on.
var writerOptions = []struct {
	name string
	o    WriteOptions
}{
	{"sync", WriteOptions{}},
	{"nosync", WriteOptions{NoSync: true}},
	{"exhaustive", WriteOptions{Exhaustive: true}},
	{"type3", WriteOptions{Types: Types(Type3)}},
}

func TestWriteToMissingFolder(t *testing.T) {
	s := randomSet(newRand(), 0, 1<<16, 0.3)
	for _, wo := range writerOptions {
		t.Run(wo.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "missing", "out.dat.gz")
			_, err := writeWithin(t, func() (Result, error) { return WriteFile(name, s, &wo.o) })
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), stem(name)) {
				t.Fatalf("error %v: want one naming %s and wrapping ErrNotExist", err, name)
			}
			if es := dirEntries(t, dir); len(es) != 0 {
				t.Fatalf("left behind: %v", es)
			}
		})
	}
}

func TestWriteOnFullDisk(t *testing.T) {
	s := randomSet(newRand(), 0, 1<<18, 0.3) // candidates of several chunks
	for _, wo := range writerOptions {
		// The disk fills at once, after part of the file, and (for the
		// spill path) while a candidate spills to its file mid-race.
		for _, c := range []struct {
			name  string
			limit int64
			spill int64
		}{{"at-once", 0, 0}, {"part-way", 5000, 0}, {"spilling", 5000, 1000}} {
			t.Run(wo.name+"/"+c.name, func(t *testing.T) {
				if c.spill > 0 {
					defer setSpillBytes(c.spill)()
				}
				dir := t.TempDir()
				name := filepath.Join(dir, "out.dat.gz")
				if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				restore := atomicfile.FillDiskAfter(c.limit)
				_, err := writeWithin(t, func() (Result, error) { return WriteFile(name, s, &wo.o) })
				restore()
				if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), stem(name)) {
					t.Fatalf("error %v: want one naming %s and wrapping ENOSPC", err, name)
				}
				if es := dirEntries(t, dir); !slices.Equal(es, []string{"out.dat.gz"}) {
					t.Fatalf("left behind: %v", es)
				}
				if b, _ := os.ReadFile(name); string(b) != "old" {
					t.Fatalf("the file under the final name changed: %q", b)
				}
			})
		}
	}
}

func TestWriteOntoFolder(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.dat.gz")
	if err := os.Mkdir(name, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := writeWithin(t, func() (Result, error) { return WriteFile(name, setOf(0, 10, 3), nil) })
	if !errors.Is(err, syscall.EISDIR) || !strings.Contains(err.Error(), name) {
		t.Fatalf("error %v: want one naming %s, a folder", err, name)
	}
	if es := dirEntries(t, dir); !slices.Equal(es, []string{"out.dat.gz"}) {
		t.Fatalf("left behind: %v", es)
	}
}

func TestWritePartialToMissingFolderNamesNoType(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	nameFor := func(t Type) string { return filepath.Join(dir, PartialName("g", "o", 3, 100, t)) }
	_, err := writeWithin(t, func() (Result, error) { return WriteFileNamed(nameFor, setOf(0, 1000, 5, 7), nil) })
	if err == nil || strings.Contains(err.Error(), "_-1") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("error %v: want one naming the folder, without the placeholder type -1", err)
	}
}

// A device cannot be replaced by a rename: it is written in place, and a
// full device (/dev/full) fails the write.
func TestWriteToDevice(t *testing.T) {
	for _, dev := range []string{os.DevNull, "/dev/full"} {
		st, err := os.Stat(dev)
		if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Skipf("no character device %s", dev)
		}
		_, err = writeWithin(t, func() (Result, error) { return WriteFile(dev, setOf(0, 100, 5, 7), nil) })
		if dev == os.DevNull && err != nil || dev != os.DevNull && !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: %v", dev, err)
		}
		if st, err := os.Stat(dev); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a device: %v %v", dev, st.Mode(), err)
		}
	}
}

// failingWriter fails after n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		k := w.n
		w.n = 0
		return k, io.ErrShortWrite
	}
	w.n -= len(b)
	return len(b), nil
}

func TestWriteStreamErrors(t *testing.T) {
	s := randomSet(newRand(), 0, 1<<12, 0.5)
	if _, err := Write(&failingWriter{n: 10}, s, nil); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("failing writer: %v", err)
	}
	for _, o := range []WriteOptions{{Level: 10}, {Dialect: 7}, {Types: 0x30}, {Game: "a\nb"}} {
		if _, err := Write(io.Discard, s, &o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
		dir := t.TempDir()
		if _, err := WriteFile(filepath.Join(dir, "x.dat.gz"), s, &o); err == nil || len(dirEntries(t, dir)) != 0 {
			t.Errorf("WriteFile with options %+v: %v, left %v", o, err, dirEntries(t, dir))
		}
	}
}

// stem is a file name without ".dat.gz": the errors of exhaustive writing
// name the intermediate file that failed, "out_<type>.dat.gz".
func stem(name string) string { return strings.TrimSuffix(name, ".dat.gz") }

// setSpillBytes lowers the size at which a candidate spills to its file.
func setSpillBytes(n int64) (restore func()) {
	old := spillBytes
	spillBytes = n
	return func() { spillBytes = old }
}
