package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

func entries(t *testing.T, dir string) []string {
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

func TestCommitReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	if err := WriteFile(name, []byte("old")); err != nil {
		t.Fatal(err)
	}
	f, err := Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new contents"))
	// Until the commit, readers see the old file.
	if b, _ := os.ReadFile(name); string(b) != "old" {
		t.Fatalf("before commit: %q", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal("Close after Commit:", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "new contents" {
		t.Fatalf("after commit: %q", b)
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Fatalf("temporary files left: %v", es)
	}
}

func TestCloseWithoutCommitLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("partial"))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if es := entries(t, dir); len(es) != 0 {
		t.Fatalf("abandoned file left: %v", es)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("Commit after Close succeeded")
	}
}

func TestCommitNoSyncAndSyncFS(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	f, err := Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	if err := f.CommitNoSync(); err != nil {
		t.Fatal(err)
	}
	if err := SyncFS(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "x" {
		t.Fatalf("%q", b)
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Fatalf("temporary files left: %v", es)
	}
}

func TestErrorsNameTheFinalPath(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "missing", "f")
	_, err := Create(name)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != name || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Create in a missing folder: %v", err)
	}
	// The folder disappears before the commit: the rename fails.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	f, err := Create(filepath.Join(sub, "f"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	os.RemoveAll(sub)
	if err := f.Commit(); !errors.As(err, &pe) || pe.Path != filepath.Join(sub, "f") {
		t.Fatalf("Commit into a removed folder: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFillDiskAfter(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	restore := FillDiskAfter(5)
	f, err := Create(name)
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.Write([]byte("0123456789"))
	var pe *fs.PathError
	if n != 5 || !errors.Is(err, syscall.ENOSPC) || !errors.As(err, &pe) || pe.Path != name {
		t.Fatalf("write past the limit: %d, %v", n, err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("write on a full disk: %v", err)
	}
	f.Close()
	restore()
	if es := entries(t, dir); len(es) != 0 {
		t.Fatalf("left behind: %v", es)
	}
	if err := WriteFile(name, []byte("0123456789")); err != nil {
		t.Fatalf("after restore: %v", err)
	}
}

func TestDeviceIsWrittenInPlace(t *testing.T) {
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Skip("no", os.DevNull)
	}
	if err := WriteFile(os.DevNull, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s was replaced: %v %v", os.DevNull, st.Mode(), err)
	}
	if _, err := Create(t.TempDir()); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("Create over a folder: %v", err)
	}
}

// RemovePending leaves no temporary file and no half-done commit: a file
// committed after it fails, and the final name keeps its old contents.
// It ends the process's writing, so it runs in a child process.
func TestRemovePending(t *testing.T) {
	if os.Getenv("ATOMICFILE_REMOVE_PENDING") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=TestRemovePending$")
		dir := t.TempDir()
		cmd.Env = append(os.Environ(), "ATOMICFILE_REMOVE_PENDING="+dir)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		if es := entries(t, dir); len(es) != 1 || es[0] != "f" {
			t.Fatalf("left: %v", es)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "old" {
			t.Fatalf("final name: %q", b)
		}
		return
	}
	dir := os.Getenv("ATOMICFILE_REMOVE_PENDING")
	name := filepath.Join(dir, "f")
	if err := WriteFile(name, []byte("old")); err != nil {
		t.Fatal(err)
	}
	a, _ := Create(name)
	b, _ := Create(filepath.Join(dir, "g"))
	a.Write([]byte("new"))
	RemovePending()
	if err := a.Commit(); err == nil {
		t.Fatal("commit after RemovePending succeeded")
	}
	if err := b.CommitNoSync(); err == nil {
		t.Fatal("commit after RemovePending succeeded")
	}
}
