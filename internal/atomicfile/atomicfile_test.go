package atomicfile

import (
	"os"
	"path/filepath"
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
