package worker

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
)

// TestUnitsOutliveAnElection: no coordinator answers (an election under
// way) for several lease periods from the moment a unit is leased, while
// the worker computes it and reports it; then a leader answers again, as
// a new leader does, holding the lease it inherited. The worker did not
// give the unit up for the silence alone: its result is reported with
// the lease's token, and nothing is released.
func TestUnitsOutliveAnElection(t *testing.T) {
	const ttl = 300 * time.Millisecond
	const token = 9
	var mu sync.Mutex
	var quietUntil time.Time // no coordinator answers until then
	granted := false
	completed := make(chan api.CompleteRequest, 1)
	released := make(chan api.ReleaseRequest, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		quiet := time.Now().Before(quietUntil)
		first := !granted && r.URL.Path == "/v1/lease"
		if first {
			granted = true
			quietUntil = time.Now().Add(6 * ttl)
		}
		mu.Unlock()
		if quiet {
			writeJSON(w, http.StatusServiceUnavailable, api.ErrorResponse{Error: "no leader"})
			return
		}
		switch r.URL.Path {
		case "/v1/lease":
			if !first {
				select { // no more work: the request is held, as a leader does
				case <-r.Context().Done():
				case <-time.After(time.Second):
				}
				w.WriteHeader(http.StatusNoContent)
				return
			}
			// tic-tac-toe's start tier (the empty board): its set is the
			// start position, with no input to fetch.
			writeJSON(w, http.StatusOK, api.Assignment{Ref: api.UnitRef{Run: "r1", Tier: 0, Phase: api.PhaseReach}, Token: token,
				Kind: api.Expand, Game: "tictactoe", Lo: 0, Hi: 1, Children: []uint64{1}, Set: "start", LeaseTTL: ttl.Seconds()})
		case "/v1/heartbeat":
			writeJSON(w, http.StatusOK, api.HeartbeatResponse{Lost: []uint64{}})
		case "/v1/complete":
			receive(w, r, completed)
		case "/v1/release":
			receive(w, r, released)
		default:
			if r.Method == http.MethodPut {
				io.Copy(io.Discard, r.Body)
				writeJSON(w, http.StatusOK, struct{}{})
				return
			}
			writeJSON(w, http.StatusNotFound, api.ErrorResponse{Error: "no such endpoint"})
		}
	}))
	w := runAgainst(t, srv, Config{ID: "w", Threads: 1, NewGame: onlyGames("tictactoe")})
	select {
	case req := <-completed:
		mu.Lock()
		late := time.Now().After(quietUntil)
		mu.Unlock()
		if req.Token != token || !late {
			t.Errorf("completion with token %d (want %d), after the silence: %v", req.Token, token, late)
		}
	case rel := <-released:
		t.Fatalf("the unit was given back: %+v", rel)
	case <-time.After(30 * time.Second):
		t.Fatal("the unit leased before the silence was not reported after it: the worker gave it up")
	}
	for deadline := time.Now().Add(10 * time.Second); w.Units.Load() != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d units done, want 1", w.Units.Load())
		}
	}
}
