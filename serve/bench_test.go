package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkPosition answers Connect Four positions through the handler
// (no network): the cost of a request's parsing, look-ups and JSON.
func BenchmarkPosition(b *testing.B) {
	s, _ := newTestServer(b, Config{Cache: 64 << 20})
	h := s.Handler()
	paths := []string{"..../..../....", "..../..../x...", "..../..../xo..", "..../x.../xo..", "..../..../.xo."}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		// A request per goroutine: the mux sets its path values.
		reqs := make([]*http.Request, len(paths))
		for i, p := range paths {
			reqs[i] = httptest.NewRequest(http.MethodGet, "http://x/api/v1/runs/c4/position?p="+p, nil)
		}
		i := 0
		for pb.Next() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, reqs[i%len(reqs)])
			if w.Code != 200 {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
			i++
		}
	})
}
