package wire

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"
)

// TestStallWatch: a request a server holds open is given up when nothing
// comes back for the stall time, and kept while the server says it is
// working on it ("102 Processing", also through a forwarding coordinator's
// reverse proxy).
func TestStallWatch(t *testing.T) {
	// Wide enough for a loaded machine (the package runs beside the
	// coordinator's heavy tests): a keep-alive every 80 ms.
	const stall = 400 * time.Millisecond
	const busy = 1600 * time.Millisecond // four stall times
	silent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(busy):
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusOK)
	})
	keptAlive := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Working(w, stall/5, func() { time.Sleep(busy) })
		w.WriteHeader(http.StatusOK)
	})
	forwarded := func(h http.Handler) http.Handler {
		backend := httptest.NewServer(h)
		t.Cleanup(backend.Close)
		target, _ := url.Parse(backend.URL)
		return &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }, FlushInterval: -1}
	}
	for _, tc := range []struct {
		name    string
		handler http.Handler
		stalled bool
	}{
		{"silent", silent, true},
		{"working", keptAlive, false},
		{"silent, forwarded", forwarded(silent), true},
		{"working, forwarded", forwarded(keptAlive), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
			start := time.Now()
			resp, err := Send(srv.Client(), req, stall)
			took := time.Since(start)
			if tc.stalled {
				if !errors.Is(err, ErrStalled) {
					t.Fatalf("got %v after %v, want it given up as stalled", err, took)
				}
				if took > busy {
					t.Errorf("given up after %v, longer than the server's %v", took, busy)
				}
				return
			}
			if err != nil {
				t.Fatalf("a request the server kept alive was given up after %v: %v", took, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || took < busy {
				t.Errorf("status %d after %v", resp.StatusCode, took)
			}
		})
	}
}
