package suites

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/serve"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tierdcli"
)

// TestDrawPositions draws positions of a real tic-tac-toe run: each is
// one the run holds, and the draw is the same for the same seed.
func TestDrawPositions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	e := &tierdcli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if code := tierdcli.New(games.Default()).Run(e, []string{"solve", "--game", "tictactoe", "--out", dir}); code != 0 {
		t.Fatalf("tierd solve: exit %d", code)
	}
	found, err := findRun(filepath.Dir(dir), "tictactoe", "")
	if err != nil || found != dir {
		t.Fatalf("findRun = %q, %v; want %q", found, err, dir)
	}
	if other, err := findRun(filepath.Dir(dir), "quixo", "size=3"); err != nil || other != "" {
		t.Fatalf("findRun(quixo) = %q, %v; want none", other, err)
	}
	ps, err := drawPositions(context.Background(), dir, 300, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	again, err := drawPositions(context.Background(), dir, 300, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 300 || strings.Join(ps, ",") != strings.Join(again, ",") {
		t.Fatalf("draws differ or are short: %d, %d", len(ps), len(again))
	}
	g, _ := games.New("tictactoe", "")
	o, err := oracle.Open(dir, g)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	distinct := map[string]bool{}
	for _, p := range ps {
		tr, pos, err := g.Parse(p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if _, err := o.Lookup(tr, pos); err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		distinct[p] = true
	}
	if len(distinct) < 100 {
		t.Errorf("only %d distinct positions of 300", len(distinct))
	}
}

// TestPositionForms converts positions between our text and the
// universal position strings, both ways: universalPosition for the
// gamesman query peer, uniGame.ourPosition for GamesmanUni. A want of ""
// is an error.
func TestPositionForms(t *testing.T) {
	byID := map[string]uniGame{}
	for _, u := range uniGames {
		byID[u.uniID] = u
	}
	toUniversal := universalPosition
	toOurs := func(game, p string) (string, error) { return byID[game].ourPosition(p) }
	for _, c := range []struct {
		name           string
		convert        func(game, p string) (string, error)
		game, in, want string
	}{
		{"universalPosition", toUniversal, "quixo", "x:..../..../..../....", "1_----------------"},
		{"universalPosition", toUniversal, "quixo", "o:x.../.o../..../...x", "2_X----O---------X"},
		{"universalPosition", toUniversal, "quixo", "x:xo./.../...", "1_XO-------"},
		{"universalPosition", toUniversal, "quixo", "z:..../..../..../....", ""},
		{"universalPosition", toUniversal, "quixo", "x:ab../..../..../....", ""},
		{"universalPosition", toUniversal, "quixo", "", ""},
		{"universalPosition", toUniversal, "connect4", "x:", ""},
		{"ourPosition", toOurs, "tictactoe", "1_---------", "---/---/---"},
		{"ourPosition", toOurs, "tictactoe", "2_x---o---x", "x--/-o-/--x"},
		{"ourPosition", toOurs, "quixo", "2_---X--------O---", "o:...x/..../..../o..."},
		{"ourPosition", toOurs, "teeko", "1_XO----", ""},
		{"ourPosition", toOurs, "teeko", "1_XO-----------------------", "x:xo.../...../...../...../....."},
		{"ourPosition", toOurs, "tictactoe", "3_---------", ""},
		{"ourPosition", toOurs, "tictactoe", "1_--------", ""},
		{"ourPosition", toOurs, "tictactoe", "1_-----q---", ""},
	} {
		got, err := c.convert(c.game, c.in)
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("%s %s(%q) = %q, %v; want %q", c.game, c.name, c.in, got, err, c.want)
		}
	}
}

// TestLoadTest runs the load client against a real server on loopback:
// it stops at its answer bound, counts a failing path's answers as
// errors, and refuses a URL that is not loopback.
func TestLoadTest(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Query().Get("p") == "bad" {
			http.Error(w, `{"error":"bad"}`, http.StatusBadRequest)
			return
		}
		io.WriteString(w, `{"value":"win","moves":[{"move":"a"},{"move":"b"}]}`)
	}))
	defer srv.Close()
	cpu := func() (float64, error) { return 0, nil }
	res, err := loadTest(context.Background(), []string{srv.URL + "/?p=1", srv.URL + "/?p=2"}, 8, 0, 10*time.Millisecond, 20*time.Second, 2000, cpu)
	if err != nil {
		t.Fatal(err)
	}
	if res.answers < 2000 || res.answers > 2000+8 || res.errors != 0 || res.seconds >= 20 {
		t.Errorf("answers %d errors %d in %.1f s; want 2000 (+ those in flight), none, before the time bound", res.answers, res.errors, res.seconds)
	}
	if m := res.metrics(); m["moves_per_answer"] != 2 || m["p99_ms"] <= 0 || m["answers_per_s"] <= 0 {
		t.Errorf("metrics %v", m)
	}
	res, err = loadTest(context.Background(), []string{srv.URL + "/?p=1", srv.URL + "/?p=bad"}, 4, 0, 0, 300*time.Millisecond, 1<<30, cpu)
	if err != nil {
		t.Fatal(err)
	}
	if res.errors == 0 || res.answers == 0 || !strings.Contains(res.firstError, "400") {
		t.Errorf("answers %d errors %d (%s); want both", res.answers, res.errors, res.firstError)
	}
	if _, err := loadTest(context.Background(), []string{"http://example.com/"}, 1, 0, 0, time.Second, 1, cpu); err == nil {
		t.Error("a URL off loopback was asked")
	}
}

// TestLoadTestRated asks at a rate: a fast server is asked about that
// many requests a second, and a server slower than the rate is timed
// from when each request was due, so that its latencies grow past its
// own time to answer (coordinated omission).
func TestLoadTestRated(t *testing.T) {
	var slow atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			time.Sleep(20 * time.Millisecond)
		}
		io.WriteString(w, `{"value":"win","moves":[]}`)
	}))
	defer srv.Close()
	cpu := func() (float64, error) { return 0, nil }
	urls := []string{srv.URL + "/?p=1"}
	res, err := loadTest(context.Background(), urls, 4, 400, 0, 500*time.Millisecond, 1<<30, cpu)
	if err != nil {
		t.Fatal(err)
	}
	if m := res.metrics(); m["answers_per_s"] < 300 || m["answers_per_s"] > 500 || m["rate_per_s"] != 400 {
		t.Errorf("asked at 400 a second: %v", m)
	}
	// Four clients at 100 a second each, 20 ms an answer: each falls
	// behind by 10 ms a request.
	slow.Store(true)
	res, err = loadTest(context.Background(), urls, 4, 400, 0, 500*time.Millisecond, 1<<30, cpu)
	if err != nil {
		t.Fatal(err)
	}
	if m := res.metrics(); m["max_ms"] < 100 || m["answers_per_s"] > 250 {
		t.Errorf("a server at 200 answers a second asked 400: %v; want it behind, its latest answers 100 ms or more after they were due", m)
	}
}

// BenchmarkServeHandler asks tierd serve's handler in this process (no
// network) for random positions of the run in $TIERSOLVE_SERVE_RUN with
// a cache of $TIERSOLVE_SERVE_CACHE (default 8MiB), the load of the serve
// suite without its HTTP clients: run it with -cpuprofile to see what an
// answer costs the server.
//
//	TIERSOLVE_SERVE_RUN=/work/runs/quixo-4x4 go test -run '^$' -bench ServeHandler -cpuprofile cpu.out ./bench/internal/suites/
func BenchmarkServeHandler(b *testing.B) {
	dir := os.Getenv("TIERSOLVE_SERVE_RUN")
	if dir == "" {
		b.Skip("TIERSOLVE_SERVE_RUN names no run folder")
	}
	cache := uint64(8 << 20)
	if c := os.Getenv("TIERSOLVE_SERVE_CACHE"); c != "" {
		var err error
		if cache, err = memsize.Parse(c); err != nil {
			b.Fatal(err)
		}
	}
	ps, err := drawPositions(context.Background(), dir, servePositions, rand.New(rand.NewPCG(43, 1)))
	if err != nil {
		b.Fatal(err)
	}
	// tierd serve keeps the heap within the cache and 32 MiB (its memory
	// limit, unless GOMEMLIMIT says otherwise): so does this benchmark.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(cache) + 32<<20))
	}
	srv, err := serve.New(serve.Config{DBs: []string{dir}, Cache: cache, Scratch: b.TempDir(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	h := srv.Handler()
	id := srv.Runs()[0].ID
	urls := make([]string, len(ps))
	for i, p := range ps {
		urls[i] = "/api/v1/runs/" + url.PathEscape(id) + "/position?p=" + url.QueryEscape(p)
	}
	// One pass over the positions first: every tier's set is loaded and
	// the cache is as full as it gets, so that the profile is of answers.
	for _, u := range urls {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, u, nil))
	}
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			u := urls[int(next.Add(1))%len(urls)]
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, u, nil))
			if w.Code != http.StatusOK {
				b.Errorf("%s: %d %s", u, w.Code, w.Body)
				return
			}
		}
	})
}

// TestUniStatic serves a dist folder under /uni/: its files as they are,
// any other path under /uni/ as index.html (the page routes itself).
func TestUniStatic(t *testing.T) {
	dist := t.TempDir()
	for name, body := range map[string]string{"index.html": "INDEX", "assets/app.js": "JS"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dist, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dist, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(uniStatic(dist))
	defer srv.Close()
	for _, c := range []struct {
		path, want string
		code       int
	}{
		{"/uni/assets/app.js", "JS", 200},
		{"/uni/games/tictactoe/variants/regular", "INDEX", 200},
		{"/uni/", "INDEX", 200},
		{"/uni/../../etc/passwd", "invalid URL path\n", 400},
	} {
		resp, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || string(b) != c.want {
			t.Errorf("GET %s: %d %q; want %d %q", c.path, resp.StatusCode, b, c.code, c.want)
		}
	}
}

func TestLoadConn(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("p") {
		case "close":
			w.Header().Set("Connection", "close")
		case "chunked":
			io.WriteString(w, `{"a":`)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, `{"p":"`+r.URL.Query().Get("p")+`"}`)
	}))
	defer srv.Close()
	host, reqs, err := newLoadRequests([]string{srv.URL + "/?p=1", srv.URL + "/?p=close", srv.URL + "/?p=chunked"})
	if err != nil {
		t.Fatal(err)
	}
	lc := &loadConn{addr: host, timeout: 5 * time.Second}
	defer lc.close()
	var buf []byte
	for _, c := range []struct {
		req        int
		want, fail string
		open       bool
	}{
		{req: 0, want: `{"p":"1"}`, open: true},
		{req: 0, want: `{"p":"1"}`, open: true},
		{req: 1, want: `{"p":"close"}`, open: false},
		{req: 0, want: `{"p":"1"}`, open: true},
		{req: 2, fail: "Transfer-Encoding", open: false},
		{req: 0, want: `{"p":"1"}`, open: true},
	} {
		body, err := lc.get(reqs[c.req], buf)
		switch {
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
			t.Errorf("%s: error %v, want one saying %s", reqs[c.req].url, err, c.fail)
		case c.fail == "" && (err != nil || string(body) != c.want):
			t.Errorf("%s: %q, %v; want %s", reqs[c.req].url, body, err, c.want)
		}
		if (lc.c != nil) != c.open {
			t.Errorf("%s: connection open %v, want %v", reqs[c.req].url, lc.c != nil, c.open)
		}
		buf = body
	}
	if _, _, err := newLoadRequests([]string{srv.URL + "/", "http://127.0.0.1:1/"}); err == nil {
		t.Error("URLs of two hosts were accepted")
	}
}
