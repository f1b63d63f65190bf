package worker

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

// onlyGames is a worker's NewGame that builds only the games named.
func onlyGames(names ...string) func(string, string) (tiergame.Game, error) {
	var specs []games.Spec
	for _, n := range names {
		s, _ := games.Lookup(n)
		specs = append(specs, s)
	}
	return new(games.Registry).With(specs...).New
}

// writeJSON answers as a coordinator does.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// receive decodes a request's body into a T, passes it on to ch unless
// ch is full, and answers as a coordinator does.
func receive[T any](w http.ResponseWriter, r *http.Request, ch chan<- T) {
	var req T
	json.NewDecoder(r.Body).Decode(&req)
	select {
	case ch <- req:
	default:
	}
	writeJSON(w, http.StatusOK, struct{}{})
}

// workerAgainst makes a worker of cfg whose coordinator is the fake
// srv, and closes srv when the test ends.
func workerAgainst(t *testing.T, srv *httptest.Server, cfg Config) *Worker {
	t.Helper()
	t.Cleanup(srv.Close)
	cl, err := api.NewClient([]string{srv.URL}, "test-token-0123456789abcdef", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Client, cfg.Dir, cfg.MemoryBytes = cl, t.TempDir(), 1<<30
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runAgainst runs a worker of cfg against the fake coordinator srv until
// the test ends, and closes srv then.
func runAgainst(t *testing.T, srv *httptest.Server, cfg Config) *Worker {
	w := workerAgainst(t, srv, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// TestWorkerRefusesAGameItLacks: given a unit of a game it does not have
// (by a coordinator that ignores api.LeaseRequest.Games), a worker gives the
// lease back at once, not as a failure of the unit, and runs nothing.
func TestWorkerRefusesAGameItLacks(t *testing.T) {
	var mu sync.Mutex
	var leaseReqs []api.LeaseRequest
	released := make(chan api.ReleaseRequest, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/lease":
			var req api.LeaseRequest
			json.NewDecoder(r.Body).Decode(&req)
			mu.Lock()
			first := len(leaseReqs) == 0
			leaseReqs = append(leaseReqs, req)
			mu.Unlock()
			if !first {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			writeJSON(w, http.StatusOK, api.Assignment{Ref: api.UnitRef{Run: "r1", Phase: api.PhaseReach}, Token: 9, Kind: api.Expand, Game: "connect4", Option: "width=4,height=3"})
		case "/v1/release":
			receive(w, r, released)
		case "/v1/heartbeat":
			writeJSON(w, http.StatusOK, api.HeartbeatResponse{Lost: []uint64{}})
		default:
			writeJSON(w, http.StatusNotFound, api.ErrorResponse{Error: "no such endpoint"})
		}
	}))
	w := runAgainst(t, srv, Config{ID: "w-ttt", Threads: 1, NewGame: onlyGames("tictactoe"), Games: []string{"tictactoe"}})
	select {
	case rel := <-released:
		if rel.Token != 9 || rel.Error != "" {
			t.Errorf("release %+v: want token 9 given back without an error", rel)
		}
	case <-time.After(time.Minute):
		t.Fatal("the worker did not give the unit back within a minute")
	}
	mu.Lock()
	if !slices.Equal(leaseReqs[0].Games, []string{"tictactoe"}) {
		t.Errorf("lease request games %q, want [tictactoe]", leaseReqs[0].Games)
	}
	mu.Unlock()
	if w.Units.Load() != 0 {
		t.Error("the worker ran a unit of a game it does not have")
	}
}

// TestReportAcceptedAlready: a report sent again after its answer was
// lost, to a cluster whose artifacts are in an object store, finds its
// lease no longer current at /v1/uploads (the unit was accepted). It
// uploads nothing and asks the completion, which says it was accepted:
// done, not "not accepted". A lease refused in fact stays refused.
func TestReportAcceptedAlready(t *testing.T) {
	for _, accepted := range []bool{true, false} {
		completes := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v1/uploads":
				writeJSON(w, http.StatusConflict, api.ErrorResponse{Error: api.ErrStale.Error()})
			case "/v1/complete":
				completes++
				if accepted {
					writeJSON(w, http.StatusOK, struct{}{})
				} else {
					writeJSON(w, http.StatusConflict, api.ErrorResponse{Error: api.ErrStale.Error()})
				}
			default:
				t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
				http.NotFound(w, r)
			}
		}))
		w := workerAgainst(t, srv, Config{ID: "w", NewGame: onlyGames("tictactoe")})
		req := api.CompleteRequest{Ref: api.UnitRef{Run: "r1", Tier: 0, Phase: api.PhaseReach}, Token: 7, Worker: "w",
			Outputs: []api.Output{{Blob: api.Blob{SHA256: strings.Repeat("ab", 32), Size: 3}}}}
		err := w.report(context.Background(), req, []string{"unused"}, true, nil)
		switch {
		case accepted && err != nil:
			t.Errorf("a report accepted already: %v", err)
		case !accepted && !errors.Is(err, api.ErrStale):
			t.Errorf("a stale report: %v, want ErrStale", err)
		case completes != 1:
			t.Errorf("%d completions asked, want 1", completes)
		}
	}
}
