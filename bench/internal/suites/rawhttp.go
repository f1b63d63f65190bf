package suites

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// maxAnswerBytes bounds an answer's body.
const maxAnswerBytes = 16 << 20

// loadRequest is one GET of a load run, its bytes made once.
type loadRequest struct {
	url  string
	wire []byte
}

// newLoadRequests makes the requests of urls, which must all name one
// loopback host; it returns that host.
func newLoadRequests(urls []string) (host string, reqs []loadRequest, err error) {
	for _, u := range urls {
		pu, err := url.Parse(u)
		if err != nil || pu.Scheme != "http" || !isLoopback(pu.Host) {
			return "", nil, fmt.Errorf("load URL %q: only http on loopback is asked", u)
		}
		if host == "" {
			host = pu.Host
		} else if pu.Host != host {
			return "", nil, fmt.Errorf("load URL %q: every URL of a run names one host (%s)", u, host)
		}
		wire := fmt.Appendf(nil, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: tiersolve-bench\r\n\r\n", pu.RequestURI(), pu.Host)
		reqs = append(reqs, loadRequest{url: u, wire: wire})
	}
	return host, reqs, nil
}

// isLoopback reports whether host:port names 127.0.0.1.
func isLoopback(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	return err == nil && h == "127.0.0.1"
}

// loadConn is one keep-alive HTTP/1.1 connection of a load run, driven
// as load generators such as wrk drive theirs: a request written whole,
// the answer read by its Content-Length, nothing else kept. Go's
// http.Client spends about as much CPU per answer as the server being
// measured, on the same two cores; this leaves them to the server.
type loadConn struct {
	addr    string
	timeout time.Duration
	c       net.Conn
	r       *bufio.Reader
}

// errAnswer is the error of an answer read whole whose status is not 200.
var errAnswer = errors.New("answer not 200")

// get sends req and returns the answer's body appended to buf[:0]. A
// status other than 200 is an error wrapping errAnswer, with the body. On
// any other error the connection is closed (the next get dials again).
func (lc *loadConn) get(req loadRequest, buf []byte) ([]byte, error) {
	if lc.c == nil {
		c, err := net.DialTimeout("tcp", lc.addr, lc.timeout)
		if err != nil {
			return buf[:0], fmt.Errorf("GET %s: %w", req.url, err)
		}
		lc.c = c
		if lc.r == nil {
			lc.r = bufio.NewReaderSize(c, 64<<10)
		} else {
			lc.r.Reset(c)
		}
	}
	body, status, keep, err := lc.roundTrip(req.wire, buf[:0])
	if err != nil || !keep {
		lc.c.Close()
		lc.c = nil
	}
	if err != nil {
		return body, fmt.Errorf("GET %s: %w", req.url, err)
	}
	if status != 200 {
		return body, fmt.Errorf("GET %s: %w: %d: %.300s", req.url, errAnswer, status, body)
	}
	return body, nil
}

// close closes the connection, if open.
func (lc *loadConn) close() {
	if lc.c != nil {
		lc.c.Close()
		lc.c = nil
	}
}

// roundTrip writes a request and reads its answer: the status, the body
// (by Content-Length; a chunked answer is an error) and whether the
// connection may be kept.
func (lc *loadConn) roundTrip(wire, buf []byte) (body []byte, status int, keep bool, err error) {
	if err := lc.c.SetDeadline(time.Now().Add(lc.timeout)); err != nil {
		return buf, 0, false, err
	}
	if _, err := lc.c.Write(wire); err != nil {
		return buf, 0, false, err
	}
	line, err := lc.r.ReadSlice('\n')
	if err != nil {
		return buf, 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return buf, 0, false, fmt.Errorf("status line %.100q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return buf, 0, false, fmt.Errorf("status line %.100q", line)
	}
	length, keep := -1, true
	for {
		h, err := lc.r.ReadSlice('\n')
		if err != nil {
			return buf, status, false, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return buf, status, false, fmt.Errorf("header line %.100q", h)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.Atoi(string(value))
			if err != nil || n < 0 || n > maxAnswerBytes {
				return buf, status, false, fmt.Errorf("Content-Length %.40q", value)
			}
			length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return buf, status, false, fmt.Errorf("Transfer-Encoding %.40q: want a Content-Length", value)
		case bytes.EqualFold(name, []byte("Connection")) && bytes.EqualFold(value, []byte("close")):
			keep = false
		}
	}
	if length < 0 {
		return buf, status, false, errors.New("answer without Content-Length")
	}
	if cap(buf) < length {
		buf = make([]byte, 0, length)
	}
	body = buf[:length]
	if _, err := io.ReadFull(lc.r, body); err != nil {
		return body[:0], status, false, err
	}
	return body, status, keep, nil
}
