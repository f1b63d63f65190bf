package serve

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimiter bounds the open connections of a listener: Accept waits
// while max are open. So that idle connections (a client that connected
// and sends nothing, or keeps an idle keep-alive connection) cannot take
// every place, once three quarters of the places are taken each new
// connection closes the longest idle one (http.Server.ConnState reports
// the states).
type connLimiter struct {
	net.Listener
	sem    chan struct{}
	closed chan struct{}
	once   sync.Once

	mu   sync.Mutex
	idle map[net.Conn]time.Time // connections without a request being answered, since when
}

func newConnLimiter(l net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: l, sem: make(chan struct{}, max), closed: make(chan struct{}), idle: map[net.Conn]time.Time{}}
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
	return &limitedConn{Conn: c, release: func() { <-l.sem }}, nil
}

// Close closes the listener, and ends an Accept waiting for a place.
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// state follows the connections' states (http.Server.ConnState).
func (l *connLimiter) state(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateNew:
		if len(l.sem) >= cap(l.sem)*3/4 {
			l.closeOldestIdle()
		}
		l.idle[c] = time.Now()
	case http.StateIdle:
		l.idle[c] = time.Now()
	case http.StateActive:
		delete(l.idle, c)
	case http.StateClosed, http.StateHijacked:
		delete(l.idle, c)
	}
}

// closeOldestIdle closes the connection idle the longest, if any; l.mu is
// held. It scans every idle connection, which happens only when places
// run short.
func (l *connLimiter) closeOldestIdle() {
	var oldest net.Conn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	if oldest != nil {
		delete(l.idle, oldest)
		oldest.Close()
	}
}

// limitedConn gives its place back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
