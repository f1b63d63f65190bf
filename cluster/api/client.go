package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/internal/wire"
	"github.com/tiersolve/tiersolve/internal/atomicfile"
)

// Client talks to a cluster's coordinators: any of them answers (a
// follower forwards to the leader), and once it knows the leader it talks
// to the leader directly. Requests that find no coordinator or no leader
// are retried until Patience runs out.
//
// A coordinator that does not answer (a refused or reset connection, or
// no answer in time: a crashed machine, a network partition) is given up
// for every request in flight to it, which go on to the others at once,
// and is tried last for a while.
type Client struct {
	urls  []string
	token string
	http  *http.Client
	// Patience is how long a request keeps trying while no coordinator
	// answers or there is no leader; 0 means one round over the URLs.
	Patience time.Duration

	// ThroughCoordinators has blobs read through the coordinators even
	// when the artifacts are in an object store (?via=coordinator): for a
	// client that cannot reach the store, such as tierd fetch through a
	// port-forward to a cluster whose store is inside it.
	ThroughCoordinators bool

	// Waiting, if set, is called by WaitStatus with each answer in which
	// the run has not finished yet (about every 20 s, as long as the
	// leader holds a request): a caller can show why it waits
	// (RunSummary.Blocked) or give up.
	Waiting func(*RunSummary)

	// StoreWaits counts the transfers that found the object store
	// unavailable, and waited for it.
	StoreWaits atomic.Uint64

	mu      sync.Mutex
	leader  string // base URL, from the last answer
	timeout time.Duration
	hosts   map[string]*host // by base URL
}

// host is what the client knows of one coordinator's URL.
type host struct {
	ctx    context.Context // cancelled when the coordinator fails to answer
	cancel context.CancelFunc
	failed time.Time // when it last failed to answer; zero: it answers
}

// DefaultAttemptTimeout bounds each attempt of a request (see
// Client.SetAttemptTimeout).
const DefaultAttemptTimeout = 30 * time.Second

// DefaultLeaseTTL is how long a lease lives without its worker's
// heartbeat, unless the coordinators are told otherwise: every
// Assignment says it (LeaseTTL), and a worker assumes it until its first
// lease.
const DefaultLeaseTTL = 30 * time.Second

// SetAttemptTimeout sets how long one coordinator may take to answer a
// request (beyond the time a lease request asks it to hold, and ten
// times this for a completion, which the leader answers once the outputs
// are on a majority), and how long a blob transfer may stall; then the
// request goes on to the next coordinator. A worker sets its lease time
// to live: a coordinator that cannot answer within it has lost the lease
// anyway.
func (c *Client) SetAttemptTimeout(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d <= 0 {
		d = DefaultAttemptTimeout
	}
	c.timeout = d
}

// SetTransport has the client send its requests through rt instead of
// its own transport: one that dials through a proxy, or a test's that
// injects faults or counts requests. Call it before the first request.
func (c *Client) SetTransport(rt http.RoundTripper) { c.http.Transport = rt }

func (c *Client) attemptTimeout() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timeout
}

// NewClient returns a client of the coordinators at urls (base URLs such
// as http://10.0.0.1:7070); tlsCfg, if not nil, configures HTTPS.
func NewClient(urls []string, token string, tlsCfg *tls.Config) (*Client, error) {
	if len(urls) == 0 {
		return nil, errors.New("cluster: no coordinator URL")
	}
	if err := wire.CheckToken(token); err != nil {
		return nil, err
	}
	c := &Client{token: token, http: wire.NewHTTPClient(tlsCfg, nil), timeout: DefaultAttemptTimeout, hosts: map[string]*host{}}
	// A blob's GET may be redirected to an object store: the client
	// follows it itself, without the token (the presigned URL is the
	// credential; the token is the cluster's secret).
	c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, u := range urls {
		p, err := url.Parse(strings.TrimRight(u, "/"))
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("cluster: coordinator URL %q: want http://HOST:PORT or https://HOST:PORT", u)
		}
		c.urls = append(c.urls, p.String())
	}
	return c, nil
}

// hostOf returns the state of a base URL, under c.mu.
func (c *Client) hostOf(base string) *host {
	h := c.hosts[base]
	if h == nil {
		h = &host{}
		h.ctx, h.cancel = context.WithCancel(context.Background())
		c.hosts[base] = h
	}
	return h
}

// order is the URLs to try: the leader first if known, then the others,
// those that failed to answer recently last.
func (c *Client) order() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	failed := func(u string) bool { h := c.hosts[u]; return h != nil && now.Sub(h.failed) < wire.FailedRecently }
	out := make([]string, 0, len(c.urls)+1)
	if c.leader != "" && !failed(c.leader) {
		out = append(out, c.leader)
	}
	for _, late := range []bool{false, true} {
		for _, u := range c.urls {
			if u != c.leader && failed(u) == late {
				out = append(out, u)
			}
		}
	}
	if c.leader != "" && failed(c.leader) {
		out = append(out, c.leader)
	}
	return out
}

// attempt is one request to one coordinator: its context ends with the
// caller's, when the coordinator is given up (hctx, its context from
// hostCtx, ends: by this request or another in flight to it), or after
// limit (if not 0).
func (c *Client) attempt(ctx, hctx context.Context, limit time.Duration) (context.Context, func()) {
	actx, cancel := context.WithCancel(ctx)
	if limit > 0 {
		actx, cancel = context.WithTimeout(ctx, limit)
	}
	stop := context.AfterFunc(hctx, cancel)
	return actx, func() { stop(); cancel() }
}

// answered records that the coordinator at base answered.
func (c *Client) answered(base string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hostOf(base).failed = time.Time{}
}

// unanswered records that the coordinator at base did not answer: it is
// tried last for a while, and if it did not answer in time (timedOut),
// every request in flight to it is given up. A request given up because
// another one timed out does not count again.
func (c *Client) unanswered(base string, hctx context.Context, timedOut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.hostOf(base)
	if h.ctx != hctx {
		return // given up already, since this request started
	}
	if timedOut {
		h.cancel()
		h.ctx, h.cancel = context.WithCancel(context.Background())
	}
	h.failed = time.Now()
	if c.leader == base {
		c.leader = ""
	}
}

func (c *Client) hostCtx(base string) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hostOf(base).ctx
}

// try sends one request to each coordinator in turn until one answers
// with something other than "no leader", and retries rounds with a
// backoff until Patience runs out. body, if set, makes a fresh request
// body for each attempt; limit bounds each attempt (0: none, the caller's
// context only); stall, if not 0, ends an attempt whose request or
// answer body moves no byte for that long (blob transfers).
func (c *Client) try(ctx context.Context, method, path string, body func() (io.Reader, int64, error), limit, stall time.Duration, handle func(*http.Response) error) error {
	deadline := time.Now().Add(c.Patience)
	backoff := 100 * time.Millisecond
	for {
		var errs []error
		for _, base := range c.order() {
			hctx := c.hostCtx(base)
			actx, done := c.attempt(ctx, hctx, limit)
			resp, err := c.send(actx, method, base+path, body, stall)
			if err == nil {
				c.answered(base)
				if l := resp.Header.Get(HeaderLeader); l != "" {
					c.mu.Lock()
					c.leader = l
					c.mu.Unlock()
				}
				if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusInsufficientStorage {
					errs = append(errs, readError(resp))
					done()
					continue
				}
				err = handle(resp)
				resp.Body.Close()
				if err == nil || ctx.Err() != nil || actx.Err() == nil {
					done()
					return err
				}
				// The answer's body stalled or was cut: try another.
			}
			done()
			var be bodyError
			switch {
			case errors.As(err, &be):
				return be.err // reading the request body (a file) failed
			case errors.Is(ctx.Err(), context.Canceled):
				return ctx.Err() // the caller gave up: say nothing of the coordinator
			}
			// It did not answer in time (every request in flight to it is
			// given up), or the connection failed (refused, reset: only
			// this request).
			timedOut := errors.Is(err, wire.ErrStalled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(actx.Err(), context.DeadlineExceeded)
			c.unanswered(base, hctx, timedOut)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, fmt.Errorf("%s: %w", base, err))
		}
		if time.Now().Add(backoff).After(deadline) {
			return fmt.Errorf("cluster: no coordinator answered %s %s: %w", method, path, errors.Join(errs...))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// bodyError is a failure to read a request body of our own (a file).
type bodyError struct{ err error }

func (e bodyError) Error() string { return e.err.Error() }

// send sends one request; with stall > 0, the request ends when its body
// or its answer's body moves no byte for that long (see wire.Send).
func (c *Client) send(ctx context.Context, method, url string, body func() (io.Reader, int64, error), stall time.Duration) (*http.Response, error) {
	var rd io.Reader
	size := int64(-1)
	if body != nil {
		var err error
		if rd, size, err = body(); err != nil {
			return nil, bodyError{err}
		}
		if rc, ok := rd.(io.Closer); ok {
			defer rc.Close()
		}
		rd = bodyReader{rd}
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if size >= 0 {
		req.ContentLength = size
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	return wire.Send(c.http, req, stall)
}

// bodyReader marks the errors of reading a request body of our own.
type bodyReader struct{ r io.Reader }

func (b bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = bodyError{err}
	}
	return n, err
}

// readError turns an error answer into an error value (and closes it).
func readError(resp *http.Response) error {
	defer resp.Body.Close()
	var e ErrorResponse
	b, _ := io.ReadAll(io.LimitReader(resp.Body, wire.MaxJSON))
	if json.Unmarshal(b, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(b))
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return ErrUnauthorized
	case http.StatusForbidden:
		return fmt.Errorf("%w: %s", ErrForbidden, strings.TrimPrefix(e.Error, ErrForbidden.Error()+": "))
	case http.StatusConflict:
		if strings.Contains(e.Error, ErrNotRunning.Error()) {
			return fmt.Errorf("%w: %s", ErrNotRunning, e.Error)
		}
		return fmt.Errorf("%w: %s", ErrStale, e.Error)
	case http.StatusPreconditionFailed:
		return &MissingError{Missing: e.Missing}
	case http.StatusTooEarly:
		return fmt.Errorf("%w: %s", ErrNotReady, e.Error)
	}
	return &HTTPError{Code: resp.StatusCode, Msg: e.Error}
}

// call sends a JSON request and decodes a JSON answer into out (if not
// nil). It reports whether the answer had content (204 has none). Each
// attempt may take the attempt timeout.
func (c *Client) call(ctx context.Context, method, path string, in, out any) (bool, error) {
	return c.callWithin(ctx, c.attemptTimeout(), 0, method, path, in, out)
}

// callWithin is call with each attempt bounded by limit, and given up
// when it moves no byte for stall (if not 0): for requests a coordinator
// holds open and keeps alive (see working).
func (c *Client) callWithin(ctx context.Context, limit, stall time.Duration, method, path string, in, out any) (bool, error) {
	var body func() (io.Reader, int64, error)
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return false, err
		}
		body = func() (io.Reader, int64, error) { return bytes.NewReader(b), int64(len(b)), nil }
	}
	content := false
	err := c.try(ctx, method, path, body, limit, stall, func(resp *http.Response) error {
		switch {
		case resp.StatusCode == http.StatusNoContent:
			return nil
		case resp.StatusCode != http.StatusOK:
			return readError(resp)
		}
		content = true
		if out == nil {
			return nil
		}
		return json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(out)
	})
	return content, err
}

// Submit starts a run and returns its id. It gives the request an id of
// its own, if it has none, so that its retries start one run.
func (c *Client) Submit(ctx context.Context, req SubmitRequest) (string, error) {
	if req.RequestID == "" {
		b := make([]byte, 16)
		rand.Read(b)
		req.RequestID = hex.EncodeToString(b)
	}
	var resp SubmitResponse
	_, err := c.call(ctx, http.MethodPost, "/v1/runs", req, &resp)
	return resp.ID, err
}

// Status returns the cluster at a glance.
func (c *Client) Status(ctx context.Context) (*StatusResponse, error) {
	var resp StatusResponse
	_, err := c.call(ctx, http.MethodGet, "/v1/status", nil, &resp)
	return &resp, err
}

// Run returns a run's whole state.
func (c *Client) Run(ctx context.Context, id string) (*Run, error) {
	if !wire.ValidRunID(id) {
		return nil, fmt.Errorf("cluster: %q is not a run id (like r12)", id)
	}
	var r Run
	_, err := c.call(ctx, http.MethodGet, "/v1/runs/"+id, nil, &r)
	return &r, err
}

// Lease asks for a unit of work; it returns nil when there is none.
func (c *Client) Lease(ctx context.Context, req LeaseRequest) (*Assignment, error) {
	var a Assignment
	wait := time.Duration(req.Wait * float64(time.Second))
	ok, err := c.callWithin(ctx, wait+c.attemptTimeout(), c.attemptTimeout(), http.MethodPost, "/v1/lease", req, &a)
	if err != nil || !ok {
		return nil, err
	}
	return &a, nil
}

// Heartbeat renews a worker's leases and returns those it lost.
func (c *Client) Heartbeat(ctx context.Context, req HeartbeatRequest) (*HeartbeatResponse, error) {
	var resp HeartbeatResponse
	_, err := c.call(ctx, http.MethodPost, "/v1/heartbeat", req, &resp)
	return &resp, err
}

// Complete reports a unit done. Its outputs must be uploaded; it fails
// with ErrStale if the lease is no longer the worker's, and with a
// *MissingError naming outputs to upload again.
func (c *Client) Complete(ctx context.Context, req CompleteRequest) error {
	_, err := c.callWithin(ctx, 10*c.attemptTimeout(), c.attemptTimeout(), http.MethodPost, "/v1/complete", req, nil)
	return err
}

// Release gives a lease up; errMsg says why the unit failed, if it did.
func (c *Client) Release(ctx context.Context, req ReleaseRequest) error {
	_, err := c.call(ctx, http.MethodPost, "/v1/release", req, nil)
	return err
}

// PutBlob uploads a file, named by its SHA-256, preferably to the leader.
// The blob is staged: the leader makes it durable, on a majority, before
// it accepts the completion that names it.
func (c *Client) PutBlob(ctx context.Context, path string, b Blob) error {
	body := func() (io.Reader, int64, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, err
		}
		return f, b.Size, nil
	}
	return c.try(ctx, http.MethodPut, "/v1/blobs/"+b.SHA256+"?stage=1", body, 0, c.attemptTimeout(), func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK {
			return readError(resp)
		}
		return nil
	})
}

// Uploads asks for presigned PUTs of a leased unit's outputs (a cluster
// with an object store: Assignment.Direct).
func (c *Client) Uploads(ctx context.Context, req UploadsRequest) ([]blobstore.Upload, error) {
	var resp UploadsResponse
	_, err := c.call(ctx, http.MethodPost, "/v1/uploads", req, &resp)
	return resp.Uploads, err
}

// PutDirect stores the file at path, blob b, with a presigned PUT; a
// transfer that moves no byte for the attempt timeout is given up.
func (c *Client) PutDirect(ctx context.Context, up *blobstore.Upload, path string, b Blob) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return blobstore.PutUpload(ctx, &http.Client{Transport: stallTransport{c.http.Transport, c.attemptTimeout()}}, up, b.Size, f)
}

// stallTransport sends requests with wire.Send.
type stallTransport struct {
	rt    http.RoundTripper
	stall time.Duration
}

func (t stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return wire.Send(&http.Client{Transport: t.rt}, req, t.stall)
}

// GetBlob downloads blob b into the file dst, from the first coordinator
// that has it (or from the object store it redirects to), checking its
// SHA-256 and size. The file appears whole or not at all, but is not
// synced: callers that need it durable sync the file system once at the
// end (atomicfile.SyncFS). While the object store does not answer, it
// waits and tries again until ctx is done.
func (c *Client) GetBlob(ctx context.Context, b Blob, dst string) error {
	if !blobstore.ValidName(b.SHA256) {
		return fmt.Errorf("cluster: %q: %w", b.SHA256, blobstore.ErrBadName)
	}
	for attempt := 0; ; attempt++ {
		err := c.getBlob(ctx, b, dst)
		if err == nil || !errors.Is(err, blobstore.ErrUnavailable) || ctx.Err() != nil {
			return err
		}
		c.StoreWaits.Add(1)
		if !wire.Sleep(ctx, time.Duration(min(attempt+1, 10))*500*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// getBlob is one round of GetBlob over the coordinators.
func (c *Client) getBlob(ctx context.Context, b Blob, dst string) error {
	var errs []error
	for _, base := range c.order() {
		hctx := c.hostCtx(base)
		actx, done := c.attempt(ctx, hctx, 0)
		answered, err := c.getFrom(actx, base, b, dst)
		done()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !answered {
			c.unanswered(base, hctx, errors.Is(err, wire.ErrStalled))
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("cluster: blob %s: %w", b.SHA256, errors.Join(errs...))
}

// getFrom downloads blob b from one coordinator; answered says whether
// it answered (and sent the whole body, if it had the blob).
func (c *Client) getFrom(ctx context.Context, base string, b Blob, dst string) (answered bool, err error) {
	path := "/v1/blobs/" + b.SHA256
	if c.ThroughCoordinators {
		path += "?via=coordinator"
	}
	resp, err := c.send(ctx, http.MethodGet, base+path, nil, c.attemptTimeout())
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	c.answered(base)
	store := false
	if resp.StatusCode == http.StatusTemporaryRedirect {
		// To the object store: a new request, without the token.
		loc, err := resp.Location()
		if err != nil {
			return true, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
		if err != nil {
			return true, err
		}
		if resp, err = wire.Send(c.http, req, c.attemptTimeout()); err != nil {
			return true, fmt.Errorf("%w: %v", blobstore.ErrUnavailable, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			return true, fmt.Errorf("%w: %s", blobstore.ErrUnavailable, resp.Status)
		}
		base, store = loc.Scheme+"://"+loc.Host, true
	}
	if resp.StatusCode != http.StatusOK {
		return true, readError(resp)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return true, err
	}
	f, err := atomicfile.Create(dst)
	if err != nil {
		return true, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := blobstore.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, b.Size+1))
	if err != nil && store {
		return true, fmt.Errorf("%w: %v", blobstore.ErrUnavailable, err)
	}
	if err != nil {
		return false, err
	}
	if n != b.Size || hex.EncodeToString(h.Sum(nil)) != b.SHA256 {
		return true, fmt.Errorf("%s sent %d bytes that do not match blob %s (%d bytes): %w", base, n, b.SHA256, b.Size, blobstore.ErrMismatch)
	}
	return true, f.CommitNoSync()
}

// WaitRun waits until run id is done, and returns its summary; a failed
// run is an error.
func (c *Client) WaitRun(ctx context.Context, id string, every time.Duration) (*RunSummary, error) {
	st, err := c.WaitStatus(ctx, id, every)
	if err != nil {
		return nil, err
	}
	r := st.Run(id)
	if r.State == Failed {
		return nil, fmt.Errorf("cluster: run %s failed: %s", id, r.Error)
	}
	return r, nil
}

// WaitStatus waits until run id has finished, done or failed, and returns
// the status that says so. Each request is held by the leader until the
// run finishes (or for runWait); a coordinator that answers at once (one
// from before it could wait) is asked again every so often.
func (c *Client) WaitStatus(ctx context.Context, id string, every time.Duration) (*StatusResponse, error) {
	if !wire.ValidRunID(id) {
		return nil, fmt.Errorf("cluster: %q is not a run id (like r12)", id)
	}
	path := fmt.Sprintf("/v1/status?finished=%s&wait=%g", id, runWait.Seconds())
	for {
		asked := time.Now()
		var st StatusResponse
		_, err := c.callWithin(ctx, runWait+c.attemptTimeout(), c.attemptTimeout(), http.MethodGet, path, nil, &st)
		r := st.Run(id)
		if err == nil && r != nil && (r.State == Done || r.State == Failed) {
			return &st, nil
		}
		if err == nil && r != nil && c.Waiting != nil {
			c.Waiting(r)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: run %s: %w (last status error: %v)", id, ctx.Err(), err)
		case <-time.After(every - time.Since(asked)):
		}
	}
}

// runWait is how long one request of WaitRun is held.
const runWait = 20 * time.Second

// ChangeMembers adds or removes a coordinator.
func (c *Client) ChangeMembers(ctx context.Context, req MembersRequest) ([]Member, error) {
	var resp MembersResponse
	_, err := c.call(ctx, http.MethodPost, "/v1/members", req, &resp)
	return resp.Members, err
}
