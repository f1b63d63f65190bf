package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestDir(t *testing.T) {
	root := t.TempDir()
	d, err := OpenDir(filepath.Join(root, "store"), 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	data := []byte("a level file")
	name := sum(data)
	for _, tc := range []struct {
		what string
		name string
		size int64
		body []byte
		want error
	}{
		{"good", name, int64(len(data)), data, nil},
		{"again: a no-op", name, int64(len(data)), nil, nil},
		{"wrong content", sum([]byte("x")), int64(len(data)), data, ErrMismatch},
		{"longer than announced", sum(data[:4]), 4, data, ErrMismatch},
		{"shorter than announced", name, int64(len(data)) + 1, data, ErrMismatch},
		{"too large", sum(bytes.Repeat([]byte("x"), 101)), 101, bytes.Repeat([]byte("x"), 101), ErrTooLarge},
		{"a path", "../" + name[3:], int64(len(data)), data, ErrBadName},
		{"upper case", strings.ToUpper(name), int64(len(data)), data, ErrBadName},
		{"short", name[:10], int64(len(data)), data, ErrBadName},
	} {
		err := d.Put(ctx, tc.name, tc.size, bytes.NewReader(tc.body))
		if !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
			t.Errorf("%s: %v, want %v", tc.what, err, tc.want)
		}
	}
	rc, size, err := d.Open(name)
	if err != nil || size != int64(len(data)) {
		t.Fatal(err, size)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, data) {
		t.Fatal("content changed")
	}
	var names []string
	d.Walk(func(s string, size int64, at time.Time) error { names = append(names, s); return nil })
	if len(names) != 1 || names[0] != name {
		t.Fatalf("walk: %v (a failed Put left something behind?)", names)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "store", name[:2]))
	if len(entries) != 1 {
		t.Fatalf("files next to the blob: %v", entries)
	}
	if _, err := d.Stat(sum([]byte("missing"))); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	// Adopt moves a finished file in.
	tmp, _ := d.TempDir()
	other := []byte("merged level file")
	p := filepath.Join(tmp, "x")
	os.WriteFile(p, other, 0o644)
	s, n, err := HashFile(p)
	if err != nil || s != sum(other) || n != int64(len(other)) {
		t.Fatal(err)
	}
	if err := d.Adopt(p, s); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(s); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(s); err != nil {
		t.Fatalf("deleting a missing blob: %v", err)
	}
	// A cancelled upload leaves nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := d.Put(cctx, sum(other), int64(len(other)), bytes.NewReader(other)); err == nil {
		t.Fatal("a cancelled Put succeeded")
	}
	if _, err := d.Stat(sum(other)); !errors.Is(err, ErrNotFound) {
		t.Fatal("a cancelled Put left its blob")
	}
}
