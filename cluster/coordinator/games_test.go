package coordinator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/worker"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/poll"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestMissingGames: the games of running runs a worker lacks, listed
// once each, sorted; none for a worker that does not say.
func TestMissingGames(t *testing.T) {
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

// TestWorkerWithoutTheGame: a worker that does not have a run's game is
// leased none of its units (the run waits, and the status says which
// worker lacks which game) while it runs the games it has; a worker that
// has the game then finishes the run. A game the coordinators do not
// know is refused at submission.
func TestWorkerWithoutTheGame(t *testing.T) {
	c := startCluster(t, 3, 5*time.Second)
	cl := c.client()
	ctx := context.Background()
	if _, err := cl.Submit(ctx, api.SubmitRequest{Game: "nim"}); err == nil || !strings.Contains(err.Error(), `unknown game "nim"`) {
		t.Errorf("submit of a game the coordinators do not know: %v", err)
	}

	runWorker(t, worker.Config{Client: c.client(), ID: "w-ttt", Threads: 1, Dir: t.TempDir(),
		NewGame: tictactoeOnly, Games: []string{"tictactoe"}, Log: testLog(t), MemoryBytes: 1 << 30})

	c4, err := cl.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=3"})
	if err != nil {
		t.Fatal(err)
	}
	// The worker's next lease request finds the connect4 run.
	waitStatus(t, cl, "w-ttt reported as lacking connect4", func(st *api.StatusResponse) bool {
		for _, w := range st.Workers {
			if w.ID == "w-ttt" && slices.Equal(w.MissingGames, []string{"connect4"}) && slices.Equal(w.Games, []string{"tictactoe"}) {
				return true
			}
		}
		return false
	})
	ttt, err := cl.Submit(ctx, api.SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, ttt, time.Minute)
	st, err := cl.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Runs {
		if r.ID == c4 && (r.UnitsDone > 0 || r.Leased > 0 || r.State != api.Running) {
			t.Fatalf("the connect4 run made progress without a worker that has connect4: %+v", r)
		}
	}
	c.startWorker("w-all", 1)
	waitRun(t, cl, c4, time.Minute)
}

// waitStatus polls the cluster's status until cond holds (a minute at
// most).
func waitStatus(t *testing.T, cl *api.Client, what string, cond func(*api.StatusResponse) bool) {
	t.Helper()
	poll.Until(t, what, time.Minute, func() bool {
		st, err := cl.Status(context.Background())
		return err == nil && cond(st)
	})
}

// tictactoeOnly is the NewGame of a worker that has tic-tac-toe alone.
func tictactoeOnly(name, option string) (tiergame.Game, error) {
	if name != "tictactoe" {
		return nil, fmt.Errorf("%w %q", games.ErrUnknownGame, name)
	}
	return games.New(name, option)
}
