package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSymmetricFiles: write --symmetric marks a file, info and validate
// say so, convert keeps the mark, merge keeps it for symmetric inputs and
// refuses a mix of symmetric and full files.
func TestSymmetricFiles(t *testing.T) {
	dir := t.TempDir()
	sym, full := filepath.Join(dir, "sym.dat.gz"), filepath.Join(dir, "full.dat.gz")
	if code, _, stderr := levelctl(t, "1 5 9", "write", "--symmetric", "-o", sym); code != 0 {
		t.Fatalf("write --symmetric: exit %d: %s", code, stderr)
	}
	if code, _, stderr := levelctl(t, "2 5", "write", "-o", full); code != 0 {
		t.Fatalf("write: exit %d: %s", code, stderr)
	}
	symmetric := func(name string) bool {
		t.Helper()
		code, stdout, stderr := levelctl(t, "", "info", "--json", name)
		var info struct{ Symmetric bool }
		if code != 0 || json.Unmarshal([]byte(stdout), &info) != nil {
			t.Fatalf("info %s: exit %d: %s %s", name, code, stdout, stderr)
		}
		return info.Symmetric
	}
	if !symmetric(sym) || symmetric(full) {
		t.Fatalf("info: marks %v %v", symmetric(sym), symmetric(full))
	}
	if _, stdout, _ := levelctl(t, "", "validate", sym); !strings.Contains(stdout, "3 canonical positions") {
		t.Errorf("validate: %q", stdout)
	}
	conv := filepath.Join(dir, "conv.dat.gz")
	if code, _, stderr := levelctl(t, "", "convert", "--type", "0", "-o", conv, sym); code != 0 || !symmetric(conv) {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	merged := filepath.Join(dir, "merged.dat.gz")
	if code, _, stderr := levelctl(t, "", "merge", "-o", merged, sym, conv); code != 0 || !symmetric(merged) {
		t.Fatalf("merge of symmetric files: exit %d: %s", code, stderr)
	}
	code, _, stderr := levelctl(t, "", "merge", "-o", merged, full, sym)
	if code != 1 || !strings.Contains(stderr, "their union would be neither") {
		t.Fatalf("merge of a mix: exit %d: %s", code, stderr)
	}
}
