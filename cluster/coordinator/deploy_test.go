package coordinator

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/poll"
)

// probe GETs a probe path without a token and returns the status and
// body.
func probe(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, h := range []string{api.HeaderLeader, "Www-Authenticate"} {
		if v := resp.Header.Get(h); v != "" {
			t.Errorf("%s: header %s: %q", path, h, v)
		}
	}
	return resp.StatusCode, string(b)
}

// TestProbes: /healthz and /readyz answer without the token, with one
// word; /readyz is 200 on every node once a leader is known and 503 on a
// node that has lost its majority, while /healthz stays 200.
func TestProbes(t *testing.T) {
	c := startCluster(t, 3, 2*time.Second)
	for _, m := range c.members {
		if code, body := probe(t, m.HTTPAddr, "/healthz"); code != 200 || body != "ok\n" {
			t.Errorf("%s /healthz: %d %q", m.ID, code, body)
		}
		poll.Until(t, m.ID+" ready", time.Minute, func() bool {
			code, body := probe(t, m.HTTPAddr, "/readyz")
			return code == 200 && body == "ready\n"
		})
	}
	// Two of three gone: the last one knows no leader after an election
	// timeout, and is not ready; it is still alive.
	leader := c.waitLeader()
	last := (leader + 1) % 3
	for i := range c.nodes {
		if i != last {
			c.stopNode(i)
		}
	}
	m := c.members[last]
	poll.Until(t, m.ID+" not ready", time.Minute, func() bool {
		code, body := probe(t, m.HTTPAddr, "/readyz")
		return code == http.StatusServiceUnavailable && body == "not ready\n"
	})
	if code, _ := probe(t, m.HTTPAddr, "/healthz"); code != 200 {
		t.Errorf("/healthz of a node without a majority: %d", code)
	}
}

// TestRestartWithBootstrap: coordinators restarted with the same
// --bootstrap list as on their first start (as every pod of a
// StatefulSet is) ignore it, since their data folders hold raft state:
// they keep their runs and elect a leader.
func TestRestartWithBootstrap(t *testing.T) {
	c, cl, id := solvedCluster(t, "tictactoe", "", "w1")
	for i := range c.nodes {
		c.stopNode(i)
	}
	for i := range c.nodes {
		c.start(i, true)
	}
	c.waitLeader()
	waitRun(t, cl, id, time.Minute)
	checkFetched(t, cl, id, "tictactoe", "", false)
	st, err := cl.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Runs) != 1 || len(st.Members) != 3 {
		t.Errorf("after the restart: %d runs, %d members", len(st.Runs), len(st.Members))
	}
}
