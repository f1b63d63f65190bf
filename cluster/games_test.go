package cluster

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestFreeUnitsOfGames: a worker that names its games is leased only units
// of their runs.
func TestFreeUnitsOfGames(t *testing.T) {
	s := &State{Runs: []*Run{
		{ID: "r1", Game: "a", State: Running, Tiers: []*Tier{{Tier: 0, Reach: []*Unit{{}}}}},
		{ID: "r2", Game: "b", State: Running, Tiers: []*Tier{{Tier: 0, Reach: []*Unit{{}}}}},
	}}
	for _, tc := range []struct {
		games []string
		want  []string // runs
	}{
		{nil, []string{"r1", "r2"}},
		{[]string{"b"}, []string{"r2"}},
		{[]string{"b", "a"}, []string{"r1", "r2"}},
		{[]string{"c"}, nil},
	} {
		var got []string
		for ref := range freeUnits(s, tc.games) {
			got = append(got, ref.Run)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("freeUnits(%q) = runs %q, want %q", tc.games, got, tc.want)
		}
	}
	for _, tc := range []struct {
		running, games, want []string
	}{
		{[]string{"a", "b", "a"}, nil, nil},
		{[]string{"a", "b", "a"}, []string{"a"}, []string{"b"}},
		{[]string{"c", "b", "c"}, []string{"a"}, []string{"b", "c"}},
		{nil, []string{"a"}, nil},
	} {
		if got := missingGames(tc.running, tc.games); !slices.Equal(got, tc.want) {
			t.Errorf("missingGames(%q, %q) = %q, want %q", tc.running, tc.games, got, tc.want)
		}
	}
}

// onlyGames is a worker's NewGame that builds only the games named.
func onlyGames(names ...string) func(string, string) (tiergame.Game, error) {
	var specs []games.Spec
	for _, n := range names {
		s, _ := games.Lookup(n)
		specs = append(specs, s)
	}
	return new(games.Registry).With(specs...).New
}

// TestWorkerWithoutTheGame: a worker that does not have a run's game is
// leased none of its units (the run waits, and the status says which
// worker lacks which game) while it runs the games it has; a worker that
// has the game then finishes the run. A game the coordinators do not
// know is refused at submission.
func TestWorkerWithoutTheGame(t *testing.T) {
	c := startCluster(t, 3, 5*time.Second)
	cl := c.client()
	ctx := context.Background()
	if _, err := cl.Submit(ctx, SubmitRequest{Game: "nim"}); err == nil || !strings.Contains(err.Error(), `unknown game "nim"`) {
		t.Errorf("submit of a game the coordinators do not know: %v", err)
	}

	w1, err := NewWorker(WorkerConfig{Client: c.client(), ID: "w-ttt", Threads: 1, Dir: t.TempDir(),
		NewGame: onlyGames("tictactoe"), Games: []string{"tictactoe"}, Log: testLog(t), MemoryBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); w1.Run(wctx) }()
	t.Cleanup(func() { cancel(); <-done })

	c4, err := cl.Submit(ctx, SubmitRequest{Game: "connect4", Option: "width=4,height=3"})
	if err != nil {
		t.Fatal(err)
	}
	// The worker's next lease request finds the connect4 run.
	waitStatus(t, cl, "w-ttt reported as lacking connect4", func(st *StatusResponse) bool {
		for _, w := range st.Workers {
			if w.ID == "w-ttt" && slices.Equal(w.MissingGames, []string{"connect4"}) && slices.Equal(w.Games, []string{"tictactoe"}) {
				return true
			}
		}
		return false
	})
	ttt, err := cl.Submit(ctx, SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, ttt, time.Minute)
	st, err := cl.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Runs {
		if r.ID == c4 && (r.UnitsDone > 0 || r.Leased > 0 || r.State != Running) {
			t.Fatalf("the connect4 run made progress without a worker that has connect4: %+v", r)
		}
	}
	c.startWorker("w-all", 1)
	waitRun(t, cl, c4, time.Minute)
}

// waitStatus polls the cluster's status until cond holds (a minute at
// most).
func waitStatus(t *testing.T, cl *Client, what string, cond func(*StatusResponse) bool) {
	t.Helper()
	waitUntil(t, what, func() bool {
		st, err := cl.Status(context.Background())
		return err == nil && cond(st)
	})
}

// TestWorkerRefusesAGameItLacks: given a unit of a game it does not have
// (by a coordinator that ignores LeaseRequest.Games), a worker gives the
// lease back at once, not as a failure of the unit, and runs nothing.
func TestWorkerRefusesAGameItLacks(t *testing.T) {
	var mu sync.Mutex
	var leaseReqs []LeaseRequest
	released := make(chan ReleaseRequest, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/lease":
			var req LeaseRequest
			json.NewDecoder(r.Body).Decode(&req)
			mu.Lock()
			first := len(leaseReqs) == 0
			leaseReqs = append(leaseReqs, req)
			mu.Unlock()
			if !first {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			writeJSON(w, http.StatusOK, Assignment{Ref: UnitRef{"r1", 0, PhaseReach, 0}, Token: 9, Kind: Expand, Game: "connect4", Option: "width=4,height=3"})
		case "/v1/release":
			var req ReleaseRequest
			json.NewDecoder(r.Body).Decode(&req)
			released <- req
			writeJSON(w, http.StatusOK, struct{}{})
		case "/v1/heartbeat":
			writeJSON(w, http.StatusOK, HeartbeatResponse{Lost: []uint64{}})
		default:
			writeError(w, http.StatusNotFound, errBadRequest)
		}
	}))
	defer srv.Close()
	cl, err := NewClient([]string{srv.URL}, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(WorkerConfig{Client: cl, ID: "w-ttt", Threads: 1, Dir: t.TempDir(),
		NewGame: onlyGames("tictactoe"), Games: []string{"tictactoe"}, Log: testLog(t), MemoryBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()
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
