package coordinator

import (
	"sync"
	"time"
)

// leaseClock keeps the deadlines of the leases, on the leader's clock
// only: deadlines are not replicated, and a new leader starts every
// lease's timer afresh (reset) rather than trusting another machine's
// clock. A lease whose deadline passes is released through the log, which
// fences out its holder.
type leaseClock struct {
	mu        sync.Mutex
	ttl       time.Duration
	deadlines map[uint64]time.Time // by token
}

func newLeaseClock(ttl time.Duration) *leaseClock {
	return &leaseClock{ttl: ttl, deadlines: map[uint64]time.Time{}}
}

// reset forgets every deadline and gives each of the tokens a full ttl
// from now: what a new leader does with the leases it inherits.
func (c *leaseClock) reset(now time.Time, tokens []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadlines = make(map[uint64]time.Time, len(tokens))
	for _, t := range tokens {
		c.deadlines[t] = now.Add(c.ttl)
	}
}

// start gives a newly granted lease a full ttl.
func (c *leaseClock) start(now time.Time, token uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadlines[token] = now.Add(c.ttl)
}

// renew extends a lease its holder reported alive; it returns false for a
// lease the clock does not know (expired, or never granted by this
// leader's state), which the holder must give up.
func (c *leaseClock) renew(now time.Time, token uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.deadlines[token]; !ok {
		return false
	}
	c.deadlines[token] = now.Add(c.ttl)
	return true
}

// forget drops a lease that ended (completed, released, expired).
func (c *leaseClock) forget(token uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.deadlines, token)
}

// expired lists the leases whose deadline has passed.
func (c *leaseClock) expired(now time.Time) []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []uint64
	for t, d := range c.deadlines {
		if now.After(d) {
			out = append(out, t)
		}
	}
	return out
}
