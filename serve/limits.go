package serve

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// connLimiter bounds the open connections of a listener: Accept waits
// while max are open. So that idle connections (a client that connected
// and sends nothing, or keeps an idle keep-alive connection) cannot take
// every place, once three quarters of the places are taken each new
// connection closes the longest idle one (http.Server.ConnState reports
// the states). A connection's state is kept in the connection, so that
// the requests of keep-alive connections take no lock of the listener's;
// the set of connections changes only as they open and close.
type connLimiter struct {
	net.Listener
	sem    chan struct{}
	closed chan struct{}
	once   sync.Once

	mu    sync.Mutex
	conns map[*limitedConn]struct{}
}

func newConnLimiter(l net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: l, sem: make(chan struct{}, max), closed: make(chan struct{}), conns: map[*limitedConn]struct{}{}}
}

// Accept waits for a place, then for a connection.
func (l *connLimiter) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l}
	lc.idleSince.Store(time.Now().UnixNano())
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	return lc, nil
}

// Close closes the listener, and ends an Accept waiting for a place.
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// state follows the connections' states (http.Server.ConnState).
func (l *connLimiter) state(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	switch s {
	case http.StateNew:
		if len(l.sem) >= cap(l.sem)*3/4 {
			l.closeOldestIdle(lc)
		}
	case http.StateIdle:
		lc.idleSince.Store(time.Now().UnixNano())
	case http.StateActive:
		lc.idleSince.Store(0) // answering a request: not idle
	}
}

// closeOldestIdle closes the connection idle the longest, other than
// keep, if any. It scans every connection, which happens only when
// places run short.
func (l *connLimiter) closeOldestIdle(keep *limitedConn) {
	l.mu.Lock()
	var oldest *limitedConn
	var since int64
	for c := range l.conns {
		t := c.idleSince.Load()
		if c != keep && t != 0 && (oldest == nil || t < since) {
			oldest, since = c, t
		}
	}
	l.mu.Unlock()
	if oldest != nil {
		oldest.Close()
	}
}

// limitedConn gives its place back once, when closed.
type limitedConn struct {
	net.Conn
	l         *connLimiter
	once      sync.Once
	idleSince atomic.Int64 // unix nanoseconds; 0 while a request is answered
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		<-c.l.sem
	})
	return err
}
