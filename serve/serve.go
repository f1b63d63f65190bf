// Package serve serves solved runs over HTTP, read-only: the answers of
// tierd query under /api/v1/, the GamesCrafters universal API under
// /universal/v1/, a page at /, and /healthz, /readyz and /metrics for
// operators, within bounds on connections, requests in flight and cache
// memory.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/serve/universal"
	"github.com/tiersolve/tiersolve/serve/web"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Defaults of Config's zero values.
const (
	DefaultCache       = 256 << 20
	DefaultMaxConns    = 4096
	DefaultMaxInflight = 256
	// MaxQuery is the longest query string the API reads (414 beyond).
	MaxQuery = 2048
	// MaxPosition is the longest position text the API parses (400
	// beyond); every bundled game's positions are far shorter.
	MaxPosition = 512
	// maxHeaderBytes bounds the request line and headers (431 beyond).
	maxHeaderBytes = 16 << 10
)

// Config says what a Server serves and within which bounds.
type Config struct {
	// DBs are the run folders to serve (tierd solve's, or fetched from a
	// cluster); each must be a finished run.
	DBs []string
	// Games makes the runs' games (default games.Default()).
	Games *games.Registry
	// Cache is the byte budget of the databases' blocks and the tiers'
	// sets that all runs share (default DefaultCache).
	Cache uint64
	// MaxConns bounds the open connections (default DefaultMaxConns); idle
	// ones are closed first when connections run short.
	MaxConns int
	// MaxInflight bounds the requests being answered at once (default
	// DefaultMaxInflight); beyond it a request gets 503 overloaded.
	MaxInflight int
	// Log gets the server's records (default slog.Default()).
	Log *slog.Logger
	// Universal makes the handler of the GamesCrafters universal API over
	// the runs, mounted at /universal/v1/ with the prefix stripped
	// (default universal.NewHandler).
	Universal func(runs []universal.Run, log *slog.Logger) http.Handler
	// Page serves the page at /: every path not under /api/, /universal/
	// or the operators' paths (default web.Handler()).
	Page http.Handler
	// DrainDelay is how long Serve, once its context is done, keeps taking
	// requests while /readyz answers 503 draining, so that a load balancer
	// sees it and sends no more, before it stops taking connections and
	// lets the requests in flight finish.
	DrainDelay time.Duration
	// Warm makes /readyz answer 503 warming until Warm has loaded every
	// tier (requests are answered meanwhile, each tier loaded on its
	// first query).
	Warm bool
	// Scratch is the folder in which the server makes its folder of
	// scratch files (the tiers' level sets in chunks, each written on the
	// tier's first query; default os.TempDir()). It is removed by Close.
	Scratch string
	// MET is the match equity table of match play in a bearoff run; nil
	// means gnubg's default file when it exists (else match play answers
	// 400).
	MET *met.Table
}

// Server serves a set of runs. Its handler is safe for concurrent use.
type Server struct {
	cfg      Config
	log      *slog.Logger
	runs     []*Run
	byID     map[string]*Run
	metrics  *metrics
	handler  http.Handler
	inflight atomic.Int64  // requests being answered (not the operators')
	matchSem chan struct{} // match play questions being computed
	draining atomic.Bool
	warm     atomic.Bool
	met      *met.Table
	cache    *valuedb.BlockCache
	scratch  string
}

// New opens the runs of cfg.DBs and returns their server. It fails when a
// folder is not a finished run (ErrNotRun).
func New(cfg Config) (*Server, error) {
	if len(cfg.DBs) == 0 {
		return nil, errors.New("serve: no run folder given")
	}
	if cfg.Games == nil {
		cfg.Games = games.Default()
	}
	if cfg.Cache == 0 {
		cfg.Cache = DefaultCache
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxInflight <= 0 {
		cfg.MaxInflight = DefaultMaxInflight
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Universal == nil {
		cfg.Universal = universal.NewHandler
	}
	if cfg.Page == nil {
		cfg.Page = web.Handler()
	}
	s := &Server{cfg: cfg, log: cfg.Log, byID: map[string]*Run{}, matchSem: make(chan struct{}, 1), met: cfg.MET}
	scratch, err := os.MkdirTemp(cfg.Scratch, "tierd-serve-*")
	if err != nil {
		return nil, fmt.Errorf("serve: scratch folder: %w", err)
	}
	s.scratch = scratch
	// Databases are unpacked into the scratch folder: a miss of the cache
	// then reads 1 KiB from the page cache instead of decompressing a
	// block of 32768 records. Part of the budget keeps the records asked,
	// by position: an answer reads one record here and there (each of its
	// moves'), which a segment keeps with a thousand neighbours.
	s.cache = valuedb.NewBlockCacheWith(cfg.Cache, valuedb.CacheOptions{Unpack: scratch, Records: recordsBytes(cfg.Cache)})
	open := func(dir string, g tiergame.Game) (*oracle.Oracle, error) {
		return oracle.OpenWith(dir, g, oracle.Options{Cache: s.cache, Scratch: scratch})
	}
	for _, dir := range cfg.DBs {
		r, err := openRun(dir, cfg.Games, open)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.runs = append(s.runs, r)
	}
	runIDs(s.runs)
	for _, r := range s.runs {
		s.byID[r.ID] = r
		s.log.Info("serving run", "id", r.ID, "dir", r.Dir, "game", r.Info.Game, "option", r.Info.Option, "positions", r.Info.Positions)
	}
	if s.met == nil {
		if t, err := met.ReadFile(met.DefaultFile); err == nil {
			s.met = t
		}
	}
	s.metrics = newMetrics(s)
	s.handler = s.routes()
	return s, nil
}

// recordsBytes is the part of a cache of budget bytes that keeps single
// records (valuedb.RecordCache): a quarter, at most maxRecordsBytes. Two
// million records hold the positions a server is asked again; beyond
// them the table would only take memory that blocks use better (and a
// cache that holds whole runs needs none: 512 MiB of records in a 2 GiB
// cache holding Quixo 4x4 whole grew the heap to 1.2 GiB and its p99 to
// seconds).
func recordsBytes(budget uint64) uint64 { return min(budget/4, maxRecordsBytes) }

// maxRecordsBytes bounds the records cache.
const maxRecordsBytes = 32 << 20

// Runs returns the runs served, in the order of Config.DBs.
func (s *Server) Runs() []*Run { return s.runs }

// Close closes the runs' databases.
func (s *Server) Close() error {
	for _, r := range s.runs {
		r.Oracle.Close()
	}
	if s.scratch != "" {
		return os.RemoveAll(s.scratch)
	}
	return nil
}

// Handler returns the server's HTTP handler: every path, with CORS open,
// the bound on requests in flight and the metrics.
func (s *Server) Handler() http.Handler { return s.handler }

// Warm loads every solved tier of every run, one at a time, as its first
// query would (its level set into a chunk file), so that no query waits
// for one; then reads databases' blocks into the cache while half of it
// is free (all of a run smaller than that: no query of it then waits for
// a block); then /readyz answers ready. It stops early, with ctx's
// error, when ctx is done.
func (s *Server) Warm(ctx context.Context) error {
	start := time.Now()
	tiers := make([][]tiergame.Tier, len(s.runs))
	for i, r := range s.runs {
		m, err := runfolder.LoadManifest(r.Dir)
		if err != nil {
			return fmt.Errorf("warm %s: %w", r.ID, err)
		}
		for _, tr := range m.Tiers {
			if err := ctx.Err(); err != nil {
				return err
			}
			if !tr.Solved {
				continue
			}
			t := tiergame.Tier(tr.Tier)
			if err := r.Oracle.Preload(t); err != nil {
				return fmt.Errorf("warm %s: tier %s: %w", r.ID, tr.Name, err)
			}
			tiers[i] = append(tiers[i], t)
		}
		s.log.Info("warm: tiers loaded", "run", r.ID, "tiers", len(tiers[i]), "seconds", time.Since(start).Seconds())
	}
	more := func() bool { return ctx.Err() == nil && s.cache.Free() > s.cache.Budget()/2 }
	for i, r := range s.runs {
		for _, t := range tiers[i] {
			if !more() {
				break
			}
			if err := r.Oracle.Prefetch(t, more); err != nil {
				return fmt.Errorf("warm %s: %w", r.ID, err)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.log.Info("warm", "seconds", time.Since(start).Seconds(), "cache_bytes", s.cache.Bytes())
	if st := s.cache.Stats(); st.Reserved > st.Budget/4 {
		s.log.Warn("the cache is small for these runs: their indexes take much of it, little is left for blocks",
			"reserved_bytes", st.Reserved, "budget_bytes", st.Budget)
	}
	s.warm.Store(true)
	return nil
}

// Draining reports whether the server stopped taking requests (Serve's
// context is done): /readyz then answers 503.
func (s *Server) Draining() bool { return s.draining.Load() }

// Serve answers on l until ctx is done, then drains: /readyz answers 503
// (for Config.DrainDelay while requests are still taken), then no new
// connection is taken, the requests in flight finish (for at most 30
// seconds), and Serve returns nil. It closes l.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	cl := newConnLimiter(l, s.cfg.MaxConns)
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         cl.state,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(cl) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.draining.Store(true)
	s.log.Info("draining: /readyz answers 503", "delay", s.cfg.DrainDelay)
	if s.cfg.DrainDelay > 0 {
		select {
		case <-time.After(s.cfg.DrainDelay):
		case err := <-errc:
			return fmt.Errorf("serve: %w", err)
		}
	}
	s.log.Info("draining: finishing the requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-errc
	if err != nil {
		return fmt.Errorf("serve: drain: %w", err)
	}
	s.log.Info("drained")
	return nil
}

// routes builds the handler of every path.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { plain(w, http.StatusOK, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			plain(w, http.StatusServiceUnavailable, "draining")
			return
		}
		if s.cfg.Warm && !s.warm.Load() {
			plain(w, http.StatusServiceUnavailable, "warming")
			return
		}
		plain(w, http.StatusOK, "ready")
	})
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	mux.Handle("/api/", s.api())
	urs := make([]universal.Run, len(s.runs))
	for i, r := range s.runs {
		urs[i] = universal.Run{Oracle: r.Oracle}
	}
	mux.Handle("/universal/v1/", http.StripPrefix("/universal/v1", s.cfg.Universal(urs, s.log)))
	mux.Handle("/", s.cfg.Page)
	return s.guard(mux)
}

// guard wraps every request: CORS, the bound on requests in flight, the
// bound on the query string, and the metrics.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		api := apiOf(r.URL.Path)
		rw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		defer func() { s.metrics.observe(api, rw.code, time.Since(start)) }()
		h := w.Header()
		h["Access-Control-Allow-Origin"] = corsAny // as Set, without a slice a request
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "*")
			h.Set("Access-Control-Max-Age", "86400")
			rw.WriteHeader(http.StatusNoContent)
			return
		}
		if api == "ops" {
			next.ServeHTTP(rw, r) // health and metrics are never shed
			return
		}
		if len(r.URL.RawQuery) > MaxQuery {
			writeError(rw, http.StatusRequestURITooLong, codeBadRequest, fmt.Sprintf("the query string has %d bytes, more than %d", len(r.URL.RawQuery), MaxQuery))
			return
		}
		if s.inflight.Add(1) > int64(s.cfg.MaxInflight) {
			s.inflight.Add(-1)
			s.metrics.shed.Inc()
			rw.Header().Set("Retry-After", "1")
			writeError(rw, http.StatusServiceUnavailable, codeOverloaded, "too many requests at once; try again")
			return
		}
		s.metrics.inflight.Inc()
		defer func() {
			s.inflight.Add(-1)
			s.metrics.inflight.Dec()
		}()
		if s.draining.Load() {
			rw.Header().Set("Connection", "close")
		}
		next.ServeHTTP(rw, r)
	})
}

// corsAny is every answer's Access-Control-Allow-Origin value; net/http
// only reads it.
var corsAny = []string{"*"}

// apiOf is the metrics' label of a path.
func apiOf(path string) string {
	switch {
	case path == "/healthz" || path == "/readyz" || path == "/metrics":
		return "ops"
	case strings.HasPrefix(path, "/api/v1/runs/"):
		switch {
		case strings.HasSuffix(path, "/position"):
			return "position"
		case strings.HasSuffix(path, "/mainline"):
			return "mainline"
		}
		return "run"
	case path == "/api/v1/runs":
		return "runs"
	case strings.HasPrefix(path, "/api/"):
		return "api"
	case strings.HasPrefix(path, "/universal/"):
		return "universal"
	}
	return "page"
}

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.code, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// plain writes a short text answer.
func plain(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(text + "\n"))
}
