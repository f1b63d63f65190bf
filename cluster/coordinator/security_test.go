package coordinator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/worker"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/poll"
)

// request sends a request with token (none if empty) and returns the
// answer, its body read.
func request(t *testing.T, method, url, token string, body []byte) *http.Response {
	t.Helper()
	resp, _ := send(t, method, url, token, body)
	return resp
}

// send is request, and the answer's body.
func send(t *testing.T, method, url, token string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestSecurity: a wrong token, a stale completion, a blob that does not
// match its name, oversized bodies and names that try to leave the store
// are all refused; afterwards the run still completes with the embedded
// run's bytes.
func TestSecurity(t *testing.T) {
	c := startCluster(t, 3, 2*time.Second)
	leader := c.nodes[c.waitLeader()]
	base := "http://" + c.members[0].HTTPAddr
	ctx := context.Background()

	// Every endpoint needs the token.
	for _, ep := range []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/v1/health"}, {"GET", "/metrics"}, {"GET", "/v1/status"}, {"POST", "/v1/runs"},
		{"GET", "/v1/runs/r1"}, {"POST", "/v1/lease"}, {"POST", "/v1/heartbeat"}, {"POST", "/v1/complete"},
		{"POST", "/v1/release"}, {"PUT", "/v1/blobs/" + strings.Repeat("a", 64)}, {"GET", "/v1/blobs/" + strings.Repeat("a", 64)},
		{"HEAD", "/v1/blobs/" + strings.Repeat("a", 64)}, {"POST", "/v1/sync"}, {"POST", "/v1/members"}, {"POST", "/v1/uploads"},
		{"GET", "/healthz/x"}, {"POST", "/healthz"}, {"GET", "/nothing"},
	} {
		for _, tok := range []string{"", "wrong-token-0123456789", testToken + "x"} {
			if resp := request(t, ep.method, base+ep.path, tok, nil); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s %s with token %q: %s", ep.method, ep.path, tok, resp.Status)
			}
		}
	}
	if resp := request(t, "GET", base+"/v1/health", testToken, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("/v1/health with the token: %s", resp.Status)
	}
	req, _ := http.NewRequest("GET", base+"/v1/health", nil)
	req.SetBasicAuth("anyone", testToken)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("basic auth with the token as password: %v %v", err, resp)
	}
	bad, err := api.NewClient(c.urls(), "wrong-token-0123456789", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Status(ctx); !errors.Is(err, api.ErrUnauthorized) {
		t.Fatalf("client with a wrong token: %v", err)
	}

	// Blobs: content must hash to the name; size limits; names.
	content := []byte("some level file bytes")
	sum := sha256.Sum256(content)
	good := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("0", 64)
	if resp := request(t, "PUT", base+"/v1/blobs/"+wrong, testToken, content); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("upload whose content does not match its name: %s", resp.Status)
	}
	if _, err := c.nodes[0].local.Stat(wrong); err == nil {
		t.Error("a mismatched upload was kept")
	}
	for _, name := range []string{"..%2F..%2Fescape", "%2e%2e%2f%2e%2e%2fescape", strings.ToUpper(good), good[:63], good + "0", "..", "."} {
		resp := request(t, "PUT", base+"/v1/blobs/"+name, testToken, content)
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed &&
			resp.StatusCode != http.StatusMovedPermanently && resp.StatusCode != http.StatusTemporaryRedirect {
			t.Errorf("upload named %q: %s", name, resp.Status)
		}
	}
	for _, dir := range c.dirs {
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); err == nil {
			t.Error("an upload escaped the store")
		}
	}
	if resp := request(t, "PUT", base+"/v1/blobs/"+good, testToken, content); resp.StatusCode != http.StatusOK {
		t.Fatalf("a good upload: %s", resp.Status)
	}
	big := bytes.Repeat([]byte("x"), 2048)
	leader.cfg.MaxBlob = 1024 // as --max-artifact 1KiB
	bsum := sha256.Sum256(big)
	lbase := "http://" + leader.cfg.HTTPAddr
	if resp := request(t, "PUT", lbase+"/v1/blobs/"+hex.EncodeToString(bsum[:]), testToken, big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized upload: %s", resp.Status)
	}
	leader.cfg.MaxBlob = DefaultMaxBlob
	huge := []byte(`{"worker":"` + strings.Repeat("w", 2<<20) + `"}`)
	if resp := request(t, "POST", lbase+"/v1/lease", testToken, huge); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized JSON body: %s", resp.Status)
	}

	// A stale completion: the lease expires (no heartbeats), the late
	// result is refused and its upload discarded.
	cl := c.client()
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4", Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := cl.Lease(ctx, api.LeaseRequest{Worker: "slow", Wait: 10})
	if err != nil || a == nil {
		t.Fatalf("lease: %v %v", a, err)
	}
	late := []byte("a late result")
	lsum := sha256.Sum256(late)
	lateBlob := api.Blob{SHA256: hex.EncodeToString(lsum[:]), Size: int64(len(late))}
	path := filepath.Join(t.TempDir(), "late")
	os.WriteFile(path, late, 0o644)
	waitLeaseEnded(t, cl, a)
	if err := cl.PutBlob(ctx, path, lateBlob); err != nil {
		t.Fatal(err)
	}
	err = cl.Complete(ctx, api.CompleteRequest{Ref: a.Ref, Token: a.Token, Worker: "slow", Outputs: []api.Output{{Tier: 1, Blob: lateBlob}}})
	if !errors.Is(err, api.ErrStale) {
		t.Fatalf("completion after the lease expired: %v", err)
	}
	for i, n := range c.nodes {
		if _, err := n.local.Stat(lateBlob.SHA256); err == nil {
			t.Errorf("coordinator %d kept the refused upload", i)
		}
	}
	// A forged token for a unit someone else holds is refused too.
	a2, err := cl.Lease(ctx, api.LeaseRequest{Worker: "other", Wait: 10})
	if err != nil || a2 == nil {
		t.Fatalf("lease: %v", err)
	}
	if err := cl.Complete(ctx, api.CompleteRequest{Ref: a2.Ref, Token: a2.Token + 1000, Worker: "forger"}); !errors.Is(err, api.ErrStale) {
		t.Fatalf("completion with a forged token: %v", err)
	}
	cl.Release(ctx, api.ReleaseRequest{Ref: a2.Ref, Token: a2.Token, Worker: "other"})

	// Nothing is lost: workers finish the run with the embedded bytes.
	c.startWorker("w1", 2)
	waitRun(t, cl, id, 2*time.Minute)
	checkFetched(t, cl, id, "connect4", "width=4,height=4", false)
}

// Tokens of the scoped-token tests.
const (
	workerToken = "worker-token-0123456789abcdef"
	readToken   = "read-token-0123456789abcdef"
)

// TestScopedTokens: with a worker token and a read token besides the
// admin token, each endpoint serves the tokens of its scope (and the
// admin token), refuses the others with 403 (counted by scope in
// /metrics) and unknown tokens with 401; a worker with the worker token
// solves a run the admin token submitted, the read token fetches it
// (tierd solve's bytes), a worker with the read token is refused at its
// first lease, and the worker token cannot submit.
func TestScopedTokens(t *testing.T) {
	c := newTestCluster(t, 3, 5*time.Second)
	c.configure = func(i int, cfg *NodeConfig) { cfg.WorkerToken, cfg.ReadToken = workerToken, readToken }
	c.startAll()
	base := "http://" + c.members[0].HTTPAddr
	blob := "/v1/blobs/" + strings.Repeat("a", 64)
	tokens := []string{testToken, workerToken, readToken, "", "unknown-token-0123456789"}
	for _, ep := range []struct {
		method, path string
		allowed      []string
	}{
		{"GET", "/", []string{testToken, readToken}},
		{"GET", "/metrics", []string{testToken, readToken}},
		{"GET", "/v1/health", []string{testToken, readToken}},
		{"GET", "/v1/status", []string{testToken, readToken}},
		{"GET", "/v1/runs/r1", []string{testToken, readToken}},
		{"POST", "/v1/runs", []string{testToken}},
		{"POST", "/v1/members", []string{testToken}},
		{"POST", "/v1/sync", []string{testToken}},
		{"POST", "/v1/lease", []string{testToken, workerToken}},
		{"POST", "/v1/heartbeat", []string{testToken, workerToken}},
		{"POST", "/v1/complete", []string{testToken, workerToken}},
		{"POST", "/v1/release", []string{testToken, workerToken}},
		{"POST", "/v1/uploads", []string{testToken, workerToken}},
		{"PUT", blob, []string{testToken, workerToken}},
		{"GET", blob, []string{testToken, workerToken, readToken}},
		{"HEAD", blob, []string{testToken, workerToken, readToken}},
	} {
		for _, tok := range tokens {
			code := request(t, ep.method, base+ep.path, tok, nil).StatusCode
			switch {
			case tok == testToken || tok == workerToken || tok == readToken:
				if allowed := slices.Contains(ep.allowed, tok); allowed != (code != http.StatusForbidden) || code == http.StatusUnauthorized {
					t.Errorf("%s %s with the %s token: %d (allowed: %v)", ep.method, ep.path, strings.SplitN(tok, "-", 2)[0], code, allowed)
				}
			case code != http.StatusUnauthorized:
				t.Errorf("%s %s with token %q: %d, want 401", ep.method, ep.path, tok, code)
			}
		}
	}
	// Refusals are counted by the token's scope and the endpoint's.
	forbidden := map[string]float64{}
	mfs, _ := c.nodes[0].Metrics().Gather()
	for _, mf := range mfs {
		if mf.GetName() == "tierd_forbidden_requests_total" {
			for _, m := range mf.GetMetric() {
				var token, needs string
				for _, l := range m.GetLabel() {
					if l.GetName() == "token" {
						token = l.GetValue()
					} else {
						needs = l.GetValue()
					}
				}
				forbidden[token+" for "+needs] += m.GetCounter().GetValue()
			}
		}
	}
	want := map[string]float64{"worker for read": 5, "worker for admin": 3, "read for admin": 3, "read for worker": 6}
	if !maps.Equal(forbidden, want) {
		t.Errorf("tierd_forbidden_requests_total: %v, want %v", forbidden, want)
	}

	ctx := context.Background()
	client := func(tok string) *api.Client {
		cl, err := api.NewClient(c.urls(), tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		cl.Patience = 30 * time.Second
		return cl
	}
	if _, err := client(workerToken).Submit(ctx, api.SubmitRequest{Game: "tictactoe"}); !errors.Is(err, api.ErrForbidden) || !strings.Contains(err.Error(), "needs the admin token, not the worker token") {
		t.Errorf("submit with the worker token: %v", err)
	}
	id, err := client(testToken).Submit(ctx, api.SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := worker.New(worker.Config{Client: client(readToken), ID: "reader", Threads: 1, Dir: t.TempDir(), NewGame: games.New})
	if err != nil {
		t.Fatal(err)
	}
	if err := reader.Run(ctx); !errors.Is(err, api.ErrForbidden) || reader.Units.Load() != 0 {
		t.Errorf("a worker with the read token: %v, %d units", err, reader.Units.Load())
	}
	runWorker(t, worker.Config{Client: client(workerToken), ID: "w", Threads: 2, Dir: t.TempDir(), NewGame: games.New})
	rd := client(readToken)
	waitRun(t, rd, id, time.Minute)
	checkFetched(t, rd, id, "tictactoe", "", false)

	// Tokens too short, or one token for two scopes, are refused.
	for _, cfg := range []struct{ worker, read string }{{"short", ""}, {testToken, ""}, {"", testToken}, {workerToken, workerToken}} {
		if err := checkTokens(testToken, cfg.worker, cfg.read); err == nil {
			t.Errorf("tokens %q %q accepted", cfg.worker, cfg.read)
		}
	}
}

// waitLeaseEnded waits (a minute at most) until the state no longer
// holds the lease of a: it expired, and the leader released it.
func waitLeaseEnded(t *testing.T, cl *api.Client, a *api.Assignment) {
	t.Helper()
	poll.Until(t, "the lease to expire", time.Minute, func() bool {
		run, err := cl.Run(context.Background(), a.Ref.Run)
		if err != nil {
			return false
		}
		u := viewUnit(run, a.Ref)
		return u != nil && (u.Lease == nil || u.Lease.Token != a.Token)
	})
}

// viewUnit is unit ref of a run as the API shows it, or nil.
func viewUnit(run *api.Run, ref api.UnitRef) *api.Unit {
	for _, t := range run.Tiers {
		if t.Tier != ref.Tier {
			continue
		}
		us := t.Reach
		if ref.Phase == api.PhaseSolve {
			us = t.Solve
		}
		if ref.Index >= 0 && ref.Index < len(us) {
			return us[ref.Index]
		}
	}
	return nil
}
