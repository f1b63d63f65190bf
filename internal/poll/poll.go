// Package poll lets tests wait for a sign of readiness instead of
// sleeping: a condition is polled until it holds or a time limit passes.
package poll

import (
	"testing"
	"time"
)

// The intervals between polls: short at first, so that a condition that
// holds soon is seen soon, then longer, so that a slow one (a process
// asked for its status) does not load the machine.
const (
	firstInterval = 5 * time.Millisecond
	lastInterval  = 100 * time.Millisecond
)

// Until calls cond until it holds, and fails tb (Fatalf, naming what)
// when it still does not after limit.
func Until(tb testing.TB, what string, limit time.Duration, cond func() bool) {
	tb.Helper()
	UntilNil(tb, what, limit, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	})
}

// UntilNil calls cond until it returns nil, and fails tb (Fatalf, naming
// what and cond's last error) when it still does not after limit.
func UntilNil(tb testing.TB, what string, limit time.Duration, cond func() error) {
	tb.Helper()
	if err := wait(limit, cond); err != nil {
		if err == errNotYet {
			tb.Fatalf("waiting for %s: gave up after %v", what, limit)
		}
		tb.Fatalf("waiting for %s: gave up after %v (last: %v)", what, limit, err)
	}
}

// errNotYet is what Until's condition returns while it does not hold.
var errNotYet = notYet{}

type notYet struct{}

func (notYet) Error() string { return "not yet" }

// wait calls cond until it returns nil or limit passes, and returns its
// last error.
func wait(limit time.Duration, cond func() error) error {
	deadline := time.Now().Add(limit)
	interval := firstInterval
	for {
		err := cond()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(interval)
		interval = min(2*interval, lastInterval)
	}
}
