package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	tests := []struct {
		method, path string
		status       int
		ctype, body  string // body: a piece the answer holds
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", `<script src="app.js"`},
		{"GET", "/index.html", 200, "text/html; charset=utf-8", `id="board"`},
		{"HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/app.js", 200, "text/javascript; charset=utf-8", "/api/v1/runs"},
		{"GET", "/boards.js", 200, "text/javascript; charset=utf-8", "gnubgDecode"},
		{"GET", "/style.css", 200, "text/css; charset=utf-8", "--win: #008000"},
		{"GET", "/nothing.js", 404, "", ""},
		{"GET", "/static/app.js", 404, "", ""},
		{"GET", "/../web.go", 404, "", ""},
		{"GET", "/web.go", 404, "", ""},
		{"POST", "/", 405, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.status)
			}
			if tt.status != 200 {
				return
			}
			if got := res.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type %q, want %q", got, tt.ctype)
			}
			if got := res.Header.Get("Content-Security-Policy"); !strings.Contains(got, "default-src 'none'") {
				t.Errorf("Content-Security-Policy %q", got)
			}
			if !strings.Contains(string(b), tt.body) {
				t.Errorf("body lacks %q:\n%.300s", tt.body, b)
			}
		})
	}
}

// TestNothingFromElsewhere checks that the page loads nothing from other
// hosts: no absolute URLs in its files (the page runs where there is no
// internet, and its Content-Security-Policy would block them anyway).
func TestNothingFromElsewhere(t *testing.T) {
	for _, name := range []string{"index.html", "app.js", "boards.js", "style.css"} {
		b, err := files.ReadFile("static/" + name)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(b), "http://www.w3.org/2000/svg", "") // a name, not a fetch
		for _, bad := range []string{"http://", "https://", "//cdn", "@import"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s holds %q", name, bad)
			}
		}
	}
}
