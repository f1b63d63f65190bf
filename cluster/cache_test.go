package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
)

// TestDiskCacheEvicts checks the worker's disk cache: it evicts the least
// recently used files past its limit, spares those used in the last
// minute, and learns the files already in its folder when it opens.
func TestDiskCacheEvicts(t *testing.T) {
	dir := t.TempDir()
	store, err := blobstore.OpenDir(filepath.Join(dir, "cache"), 0)
	if err != nil {
		t.Fatal(err)
	}
	d := newDiskCache(store, nil, 250)
	var blobs []Blob
	for i := range 4 {
		data := make([]byte, 100)
		data[0] = byte(i)
		sum := sha256.Sum256(data)
		b := Blob{SHA256: hex.EncodeToString(sum[:]), Size: 100}
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d.adopt(path, b)
		blobs = append(blobs, b)
	}
	// 400 bytes, all just used: nothing may go.
	d.evict()
	if d.total != 400 || len(d.files) != 4 {
		t.Fatalf("evicted files used in the last minute: %d bytes in %d files", d.total, len(d.files))
	}
	// Age them: blob 1 the oldest, then 0, 3, 2.
	for i, age := range []time.Duration{3, 4, 1, 2} {
		f := d.files[blobs[i].SHA256]
		f.last = time.Now().Add(-age * time.Hour)
		d.files[blobs[i].SHA256] = f
	}
	d.evict()
	for i, want := range []bool{false, false, true, true} {
		_, err := store.Stat(blobs[i].SHA256)
		if (err == nil) != want {
			t.Errorf("blob %d on disk: %v, want %v", i, err == nil, want)
		}
	}
	if d.total != 200 {
		t.Errorf("%d bytes tracked after eviction, want 200", d.total)
	}
	// A cache opened on the same folder knows its files.
	if d2 := newDiskCache(store, nil, 250); d2.total != 200 || len(d2.files) != 2 {
		t.Errorf("reopened cache: %d bytes in %d files, want 200 in 2", d2.total, len(d2.files))
	}
}
