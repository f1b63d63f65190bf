package serve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// runs are the small runs the tests serve, solved once per process.
var (
	runsOnce sync.Once
	runsDir  string
	runsErr  error
)

// testRuns are the runs solved for the tests: name, game, option, symmetric.
var testRuns = []struct {
	name, game, option string
	sym                bool
}{
	{"ttt", "tictactoe", "", false},
	{"ttt-sym", "tictactoe", "", true},
	{"c4", "connect4", "width=4,height=3", false},
	{"bearoff", "bearoff", "checkers=3,points=4,cube=money", false},
}

// solvedRuns solves testRuns into a folder of their own and returns it.
func solvedRuns(t testing.TB) string {
	t.Helper()
	runsOnce.Do(func() {
		runsDir, runsErr = solveAll()
	})
	if runsErr != nil {
		t.Fatal(runsErr)
	}
	return runsDir
}

var testMainDir string // set by TestMain

func solveAll() (string, error) {
	for _, r := range testRuns {
		g, err := games.New(r.game, r.option)
		if err != nil {
			return "", err
		}
		run, err := solver.Open(solver.Config{Game: g, Dir: filepath.Join(testMainDir, r.name), Symmetry: r.sym, Workers: 2})
		if err != nil {
			return "", err
		}
		if err := run.Reach(context.Background()); err != nil {
			return "", err
		}
		if err := run.Solve(context.Background()); err != nil {
			return "", err
		}
		run.Close()
	}
	return testMainDir, nil
}

// newTestServer serves every test run with cfg's bounds, on loopback.
func newTestServer(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	dir := solvedRuns(t)
	if cfg.DBs == nil {
		for _, r := range testRuns {
			cfg.DBs = append(cfg.DBs, filepath.Join(dir, r.name))
		}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Cache == 0 {
		cfg.Cache = 1 << 20 // far below the runs' sets and databases
	}
	cfg.Scratch = t.TempDir()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		s.Close()
	})
	return s, "http://" + l.Addr().String()
}

var client = &http.Client{Timeout: 20 * time.Second}

// get returns the status and body of a GET of url.
func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, b
}

// unreachable returns the text of a position of o's game that parses but
// that the run does not hold.
func unreachable(t testing.TB, o *oracle.Oracle, tiers []tiergame.Tier) string {
	t.Helper()
	g := o.Game
	for _, tt := range tiers {
		for p := range tiergame.Position(g.TierSize(tt)) {
			text := g.Format(tt, p)
			pt, pp, err := g.Parse(text)
			if err != nil || pt != tt || pp != p {
				continue
			}
			if _, err := o.Lookup(tt, p); errors.Is(err, oracle.ErrUnreachable) {
				return text
			}
		}
	}
	t.Fatal("no unreachable position found")
	return ""
}
