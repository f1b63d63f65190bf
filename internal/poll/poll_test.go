package poll

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestWait: a condition that comes to hold ends the wait; one that never
// does ends it after the limit with its last error.
func TestWait(t *testing.T) {
	var n atomic.Int32
	if err := wait(time.Minute, func() error {
		if n.Add(1) < 4 {
			return errNotYet
		}
		return nil
	}); err != nil || n.Load() != 4 {
		t.Errorf("held at the 4th call: %v after %d calls", err, n.Load())
	}
	stuck := errors.New("stuck")
	start := time.Now()
	if err := wait(30*time.Millisecond, func() error { return stuck }); err != stuck {
		t.Errorf("never held: %v, want the last error", err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("gave up after %v, before the limit", d)
	}
}

// TestUntil: a condition that holds at once passes.
func TestUntil(t *testing.T) {
	calls := 0
	Until(t, "a true condition", time.Second, func() bool { calls++; return true })
	if calls != 1 {
		t.Errorf("%d calls, want 1", calls)
	}
}
