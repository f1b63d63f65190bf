package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver"
)

func TestOps(t *testing.T) {
	_, base := newTestServer(t, Config{})
	get(t, base+"/api/v1/runs/ttt/position?p=---/---/---")
	for _, tc := range []struct {
		path   string
		status int
		has    []string
	}{
		{"/healthz", 200, []string{"ok"}},
		{"/readyz", 200, []string{"ready"}},
		{"/metrics", 200, []string{`tierd_serve_requests_total{api="position",code="200"} 1`, "tierd_serve_request_seconds_bucket",
			"tierd_serve_cache_hits_total", "tierd_serve_cache_misses_total", "tierd_serve_cache_bytes", "tierd_serve_read_bytes_total", "tierd_serve_inflight",
			"tierd_serve_record_cache_hits_total", "tierd_serve_record_cache_misses_total"}},
	} {
		status, body := get(t, base+tc.path)
		if status != tc.status {
			t.Errorf("%s: %d", tc.path, status)
		}
		for _, h := range tc.has {
			if !strings.Contains(string(body), h) {
				t.Errorf("%s: no %q in\n%s", tc.path, h, body)
			}
		}
	}
	// CORS is open, on answers and on preflights.
	resp, err := client.Get(base + "/api/v1/runs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin %q", got)
	}
	req, _ := http.NewRequest(http.MethodOptions, base+"/api/v1/runs", nil)
	req.Header.Set("Origin", "http://example.org")
	req.Header.Set("Access-Control-Request-Method", "GET")
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	// The API is read-only.
	if resp, err = client.Post(base+"/api/v1/runs", "text/plain", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(b), `"code":"bad_request"`) {
		t.Errorf("POST: %d %s", resp.StatusCode, b)
	}
}

// TestHugeRequest sends a request line far beyond the bound: the server
// answers 431 and keeps answering.
func TestHugeRequest(t *testing.T) {
	_, base := newTestServer(t, Config{})
	addr := strings.TrimPrefix(base, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go fmt.Fprintf(c, "GET /api/v1/runs/ttt/position?p=%s HTTP/1.1\r\nHost: x\r\n\r\n", strings.Repeat("x", 1<<20))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a 1 MiB request line: %d, want 431", resp.StatusCode)
	}
	if status, _ := get(t, base+"/api/v1/runs"); status != 200 {
		t.Errorf("after it: %d", status)
	}
}

// TestIdleConnections opens many more idle connections than the server
// takes, some silent and some idle after a request, and checks that
// another client still gets its answers.
func TestIdleConnections(t *testing.T) {
	_, base := newTestServer(t, Config{MaxConns: 200})
	addr := strings.TrimPrefix(base, "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 1200 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		conns = append(conns, c)
		if i%4 == 0 { // a keep-alive connection left idle after a request
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		}
	}
	fresh := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	for i := range 20 {
		start := time.Now()
		resp, err := fresh.Get(base + "/api/v1/runs/c4/position?p=..../..../....")
		if err != nil {
			t.Fatalf("request %d beside 1200 idle connections: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("request %d took %v", i, d)
		}
	}
}

// blocker is a page handler that holds its requests until released.
type blocker struct {
	started chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan struct{}, 100), release: make(chan struct{})}
}

func (b *blocker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.started <- struct{}{}
	<-b.release
	w.Write([]byte("done"))
}

// TestShedding fills the requests in flight and checks that one more is
// answered 503 overloaded at once, and that health stays answered.
func TestShedding(t *testing.T) {
	b := newBlocker()
	_, base := newTestServer(t, Config{MaxInflight: 2, Page: b})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if status, body := get(t, base+"/"); status != 200 || string(body) != "done" {
				t.Errorf("held request: %d %s", status, body)
			}
		}()
	}
	<-b.started
	<-b.started
	status, body := get(t, base+"/api/v1/runs")
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), `"code":"overloaded"`) {
		t.Errorf("over the bound: %d %s, want 503 overloaded", status, body)
	}
	if status, _ := get(t, base+"/healthz"); status != 200 {
		t.Errorf("healthz while full: %d", status)
	}
	close(b.release)
	wg.Wait()
	if status, _ := get(t, base+"/api/v1/runs"); status != 200 {
		t.Errorf("after: %d", status)
	}
}

// TestDrain cancels Serve's context with a request in flight: /readyz
// turns 503 while requests are still taken, the request in flight
// finishes, and Serve returns nil.
func TestDrain(t *testing.T) {
	dir := solvedRuns(t)
	b := newBlocker()
	s, err := New(Config{DBs: []string{filepath.Join(dir, "ttt")}, Page: b, DrainDelay: time.Second,
		Scratch: t.TempDir(), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, l) }()
	if status, _ := get(t, base+"/readyz"); status != 200 {
		t.Fatalf("readyz before: %d", status)
	}
	inflight := make(chan int, 1)
	go func() {
		resp, err := client.Get(base + "/page")
		if err != nil {
			t.Error(err)
			inflight <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		inflight <- resp.StatusCode
	}()
	<-b.started
	cancel()
	for !s.Draining() {
		time.Sleep(time.Millisecond) // Serve sets it as it sees ctx done
	}
	if status, body := get(t, base+"/readyz"); status != http.StatusServiceUnavailable || strings.TrimSpace(string(body)) != "draining" {
		t.Errorf("readyz while draining: %d %s", status, body)
	}
	close(b.release)
	if status := <-inflight; status != 200 {
		t.Errorf("the request in flight: %d", status)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := client.Get(base + "/healthz"); err == nil {
		t.Error("a request after the drain was answered")
	}
}

// TestRefusesUnfinished checks that a folder that is not a finished run
// is refused with ErrNotRun.
func TestRefusesUnfinished(t *testing.T) {
	reached := t.TempDir()
	g, err := games.New("tictactoe", "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := solver.Open(solver.Config{Game: g, Dir: reached})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Reach(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "nothing"), reached} {
		_, err := New(Config{DBs: []string{dir}, Scratch: t.TempDir()})
		if !errors.Is(err, ErrNotRun) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v, want ErrNotRun naming the folder", dir, err)
		} else {
			t.Log(err)
		}
	}
}

// TestWarm checks that /readyz waits for Warm, which fills the cache.
func TestWarm(t *testing.T) {
	s, base := newTestServer(t, Config{Warm: true, Cache: 8 << 20})
	if status, body := get(t, base+"/readyz"); status != http.StatusServiceUnavailable || strings.TrimSpace(string(body)) != "warming" {
		t.Errorf("readyz before Warm: %d %s", status, body)
	}
	if err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if status, _ := get(t, base+"/readyz"); status != 200 {
		t.Errorf("readyz after Warm: %d", status)
	}
	if s.cache.Bytes() == 0 {
		t.Error("Warm read nothing into the cache")
	}
	st := s.cache.Stats()
	if status, _ := get(t, base+"/api/v1/runs/c4/position?p=..../..../x..."); status != 200 {
		t.Errorf("position: %d", status)
	}
	if after := s.cache.Stats(); after.Misses != st.Misses {
		t.Errorf("a position after Warm missed the cache %d times", after.Misses-st.Misses)
	}
}
