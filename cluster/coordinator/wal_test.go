package coordinator

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"
)

// TestWALTailTruncation: a coordinator's log survives what raft does to a
// follower whose last entries conflict with a new leader's (it deletes
// them and appends the leader's), then a restart. raft-wal v0.4.0 left
// the truncated segment sealed without its index, and the node could
// not start again ("sealed segment has no index block", hashicorp/raft-wal
// issue 31); v0.4.1 fixes it.
func TestWALTailTruncation(t *testing.T) {
	dir := t.TempDir()
	entries := func(lo, hi uint64, term uint64) []*raft.Log {
		var ls []*raft.Log
		for i := lo; i <= hi; i++ {
			ls = append(ls, &raft.Log{Index: i, Term: term, Type: raft.LogCommand, Data: fmt.Appendf(nil, "entry %d of term %d", i, term)})
		}
		return ls
	}
	w, err := wal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.StoreLogs(entries(1, 20, 1)); err != nil {
		t.Fatal(err)
	}
	if err := w.DeleteRange(15, 20); err != nil { // raft's "clearing log suffix"
		t.Fatal(err)
	}
	if err := w.StoreLogs(entries(15, 17, 2)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// v0.4.0 hangs here or fails: give it a bound.
	done := make(chan error, 1)
	go func() { done <- readBack(dir) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the log did not open again within 30 s")
	}
}

// readBack opens the log of TestWALTailTruncation again and checks its
// entries: 1 to 14 of term 1, 15 to 17 of term 2.
func readBack(dir string) error {
	w, err := wal.Open(dir)
	if err != nil {
		return fmt.Errorf("reopening the log: %w", err)
	}
	defer w.Close()
	for i := uint64(1); i <= 17; i++ {
		var l raft.Log
		if err := w.GetLog(i, &l); err != nil {
			return fmt.Errorf("entry %d after a restart: %w", i, err)
		}
		if want := uint64(1 + i/15); l.Term != want {
			return fmt.Errorf("entry %d of term %d, want %d", i, l.Term, want)
		}
	}
	return nil
}
