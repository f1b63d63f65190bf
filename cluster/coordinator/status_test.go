package coordinator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/cluster/internal/wire"
	"github.com/tiersolve/tiersolve/internal/testchrome"
)

// TestStatusPage: the page lists the run, its tiers and the workers; and
// looked at as a picture in headless Chromium it shows the green "done"
// badge and progress bars. Chromium is the Debian package; without it the
// picture check is skipped, unless TIERD_REQUIRE_CHROMIUM=1 (as in CI).
func TestStatusPage(t *testing.T) {
	c, _, id := solvedCluster(t, "tictactoe", "", "worker-one")
	// Ask a follower: it forwards to the leader, which knows the workers.
	follower := 0
	for i, n := range c.nodes {
		if !n.IsLeader() {
			follower = i
		}
	}
	url := "http://" + c.members[follower].HTTPAddr + "/"
	req, _ := http.NewRequest("GET", url, nil)
	req.SetBasicAuth("tierd", testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	for _, want := range []string{id, "tictactoe", `class="badge done"`, "worker-one", "9 pieces", "tie in 9", "5,478"} {
		if !strings.Contains(page, want) {
			t.Errorf("the status page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(page)
	}

	chromium := testchrome.Path(t, "the picture check needs")
	shot := filepath.Join(t.TempDir(), "status.png")
	img := testchrome.Screenshot(t, chromium, shot,
		strings.Replace(url, "http://", "http://tierd:"+testToken+"@", 1))
	// Count the pixels of the badge and bar colours: a page that did not
	// render (a 401, an error text) has none.
	near := func(r, g, b uint32, want [3]uint32) bool {
		d := func(a, b uint32) uint32 {
			if a > b {
				return a - b
			}
			return b - a
		}
		return d(r>>8, want[0]) < 12 && d(g>>8, want[1]) < 12 && d(b>>8, want[2]) < 12
	}
	green, blue := [3]uint32{0x2f, 0x9e, 0x6a}, [3]uint32{0x2d, 0x6f, 0xd6}
	var greens, blues int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, g, bl, green) {
				greens++
			}
			if near(r, g, bl, blue) {
				blues++
			}
		}
	}
	if greens < 500 || blues < 500 {
		t.Errorf("the screenshot shows %d green and %d blue pixels; want the done badge and the progress bars (%s)", greens, blues, shot)
	}
}

// countingTransport counts the requests a client sends.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// TestWaitRun: api.Client.WaitRun holds one request at the leader until the
// run finishes, instead of polling the status (each poll costs the leader
// a round of raft messages); a bad wait is refused.
func TestWaitRun(t *testing.T) {
	c := startCluster(t, 3, 5*time.Second)
	cl := c.client()
	counter := &countingTransport{next: wire.NewHTTPClient(nil, nil).Transport}
	cl.SetTransport(counter)
	ctx := context.Background()
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	before := counter.n.Load()
	done := make(chan error, 1)
	go func() {
		sum, err := cl.WaitRun(ctx, id, 10*time.Millisecond)
		if err == nil && sum.State != api.Done {
			err = fmt.Errorf("returned a run %s", sum.State)
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("WaitRun returned before any worker came: %v", err)
	case <-time.After(time.Second):
	}
	if n := counter.n.Load() - before; n > 2 {
		t.Errorf("%d requests in a second of waiting, want 1 (held)", n)
	}
	_, stopWorker := c.startWorker("w", 2)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("WaitRun did not return once the run was done")
	}
	if resp := request(t, "GET", c.urls()[0]+"/v1/status?finished="+id+"&wait=soon", testToken, nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad wait: %s, want it refused", resp.Status)
	}

	// A run that fails: its first unit fails on every attempt (a worker
	// that gives it back with an error), and the wait ends with the
	// run's error.
	stopWorker()
	failing, err := cl.Submit(ctx, api.SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := cl.WaitRun(ctx, failing, 10*time.Millisecond)
		done <- err
	}()
	for range state.MaxFailures {
		a, err := cl.Lease(ctx, api.LeaseRequest{Worker: "breaking", Threads: 1, Wait: 10})
		if err != nil || a == nil {
			t.Fatalf("lease: %v %v", a, err)
		}
		if err := cl.Release(ctx, api.ReleaseRequest{Ref: a.Ref, Token: a.Token, Worker: "breaking", Error: "boom"}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "boom") {
			t.Errorf("WaitRun of a failed run: %v, want its error", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("WaitRun did not return once the run failed")
	}
	st, err := cl.WaitStatus(ctx, failing, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if f, d := st.Run(failing), st.Run(id); f == nil || f.State != api.Failed || d == nil || d.State != api.Done {
		t.Errorf("WaitStatus of a failed run: %+v", st)
	}
}

// TestCloseAnswersHeldRequests: a coordinator that closes answers the
// requests it holds (a lease with no unit to grant, a wait for a run),
// or forwards to the leader, at once, rather than making its HTTP
// server's shutdown wait for them.
func TestCloseAnswersHeldRequests(t *testing.T) {
	for _, tc := range []struct {
		name              string
		leader            bool
		leaseAns, waitAns int // the answers expected
	}{
		{"the leader", true, http.StatusNoContent, http.StatusOK},
		{"a follower forwarding them", false, http.StatusServiceUnavailable, http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, 3, 5*time.Second)
			cl := c.client()
			id, err := cl.Submit(context.Background(), api.SubmitRequest{Game: "tictactoe"})
			if err != nil {
				t.Fatal(err)
			}
			node := c.waitLeader()
			if !tc.leader {
				node = (node + 1) % len(c.nodes)
			}
			base := "http://" + c.members[node].HTTPAddr
			answers := make(chan int, 2)
			// held sends a request the node holds, and returns once the
			// node says it does: its first keep-alive (102 Processing).
			held := func(method, path, body string) {
				holding := make(chan struct{})
				var once sync.Once
				trace := &httptrace.ClientTrace{Got1xxResponse: func(int, textproto.MIMEHeader) error {
					once.Do(func() { close(holding) })
					return nil
				}}
				req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), method, base+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+testToken)
				go func() {
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						answers <- 0
						return
					}
					resp.Body.Close()
					answers <- resp.StatusCode
				}()
				select {
				case <-holding:
				case code := <-answers:
					t.Fatalf("%s %s answered (%d) before the node closed", method, path, code)
				case <-time.After(time.Minute):
					t.Fatalf("%s %s: not held within a minute", method, path)
				}
			}
			// A worker with no game the run needs is leased nothing: its
			// request is held.
			held(http.MethodPost, "/v1/lease", `{"worker":"w","threads":1,"games":["none"],"wait":30}`)
			held(http.MethodGet, "/v1/status?finished="+id+"&wait=30", "")
			select {
			case code := <-answers:
				t.Fatalf("a request was answered (%d) before the node closed", code)
			default:
			}
			start := time.Now()
			c.stopNode(node)
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("closing took %v with two requests held, want it to answer them at once", took)
			}
			got := []int{<-answers, <-answers}
			if !slices.Contains(got, tc.leaseAns) || !slices.Contains(got, tc.waitAns) {
				t.Errorf("answers %v, want %d (the lease) and %d (the wait)", got, tc.leaseAns, tc.waitAns)
			}
		})
	}
}
