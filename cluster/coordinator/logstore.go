package coordinator

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
)

// newLogStore is the raft log a node uses: the last n entries kept in
// memory (raft's LogCache) in front of store, the WAL. The leader reads
// each entry back to send it to every follower, and each node to apply
// it, which from the WAL's segment files is a read each time.
//
// LogCache quotes its store's error (%q) instead of wrapping it, so a
// proposal that failed on a full disk would no longer say so as a value
// (diskFull). The store under the cache keeps its last write error, and
// the log above it wraps that error back in.
func newLogStore(n int, store raft.LogStore) (raft.LogStore, error) {
	kept := &errorKeepingStore{LogStore: store}
	cache, err := raft.NewLogCache(n, kept)
	if err != nil {
		return nil, err
	}
	return &cachedLog{LogCache: cache, under: kept}, nil
}

// errorKeepingStore is a log store that keeps the error of its last
// write.
type errorKeepingStore struct {
	raft.LogStore
	mu  sync.Mutex
	err error
}

func (s *errorKeepingStore) StoreLog(l *raft.Log) error {
	return s.StoreLogs([]*raft.Log{l})
}

func (s *errorKeepingStore) StoreLogs(logs []*raft.Log) error {
	err := s.LogStore.StoreLogs(logs)
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	return err
}

// IsMonotonic passes on the store's answer (raft.MonotonicLogStore): raft
// asks the LogCache, which asks this store, whether to empty the log
// after installing a snapshot, which a monotonic store (the WAL) needs.
func (s *errorKeepingStore) IsMonotonic() bool {
	m, ok := s.LogStore.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

// lastErr is the error of the last write, nil if it succeeded.
func (s *errorKeepingStore) lastErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// cachedLog is raft's LogCache whose write errors wrap the store's.
type cachedLog struct {
	*raft.LogCache
	under *errorKeepingStore
}

func (c *cachedLog) StoreLog(l *raft.Log) error {
	return c.StoreLogs([]*raft.Log{l})
}

func (c *cachedLog) StoreLogs(logs []*raft.Log) error {
	err := c.LogCache.StoreLogs(logs)
	if err == nil {
		return nil
	}
	// raft writes the log from one goroutine at a time (the leader's
	// loop, or a follower's), so the store's last error is this write's.
	if under := c.under.lastErr(); under != nil {
		return fmt.Errorf("raft log: %w", under)
	}
	return err
}
