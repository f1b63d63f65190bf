package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/cluster/internal/wire"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
)

// The HTTP API of cluster/api, served by each coordinator. Every endpoint
// but the two probes needs a token of a scope it allows (auth.go). Blob
// endpoints are served by each coordinator from its own store
// (artifacts.go); the others are the leader's, and a follower forwards
// them to it (leaderOnly).

// headerForwarded marks a request a follower forwarded, so it is never
// forwarded twice.
const headerForwarded = "X-Tierd-Forwarded"

// Handler is the node's HTTP API.
func (n *Node) Handler() http.Handler {
	mux := http.NewServeMux()
	read, worker, admin := []scope{scopeRead}, []scope{scopeWorker}, []scope{scopeAdmin}
	fetch := []scope{scopeRead, scopeWorker}
	route := func(pattern string, needs []scope, h http.HandlerFunc) { mux.Handle(pattern, n.allow(needs, h)) }
	route("GET /{$}", read, n.handleStatusPage)
	route("GET /v1/health", read, n.handleHealth)
	route("GET /metrics", read, n.metrics.handler().ServeHTTP)
	route("GET /v1/status", read, n.leaderOnly(n.handleStatus))
	route("POST /v1/runs", admin, n.leaderOnly(n.handleSubmit))
	route("GET /v1/runs/{id}", read, n.leaderOnly(n.handleRun))
	route("POST /v1/lease", worker, n.leaderOnly(n.handleLease))
	route("POST /v1/heartbeat", worker, n.leaderOnly(n.handleHeartbeat))
	route("POST /v1/complete", worker, n.leaderOnly(n.handleComplete))
	route("POST /v1/release", worker, n.leaderOnly(n.handleRelease))
	route("POST /v1/uploads", worker, n.leaderOnly(n.artifacts.uploads))
	route("POST /v1/members", admin, n.leaderOnly(n.handleMembers))
	route("PUT /v1/blobs/{sum}", worker, n.artifacts.putBlob)
	route("GET /v1/blobs/{sum}", fetch, n.artifacts.getBlob)
	route("POST /v1/sync", admin, n.handleSync)
	// The probes answer without a token (Kubernetes and load balancers
	// cannot send one) and say nothing but yes or no.
	probes := http.NewServeMux()
	probes.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { probeAnswer(w, true, "ok") })
	probes.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { probeAnswer(w, n.Ready(), "ready") })
	probes.Handle("/", n.authenticate(n.idleBodies(mux)))
	return probes
}

// probeAnswer is a probe's whole answer: 200 and word, or 503.
func probeAnswer(w http.ResponseWriter, ok bool, word string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "not ready\n")
		return
	}
	io.WriteString(w, word+"\n")
}

// readyLag is how many committed entries a node may not have applied yet
// and still be ready.
const readyLag = 64

// Ready reports whether this node serves: it knows a leader (itself, once
// it has applied every entry of earlier terms), and has applied all but
// readyLag of the entries it knows committed; a follower that lost the
// leader for an election timeout knows none.
func (n *Node) Ready() bool {
	if n.IsLeader() {
		return n.ready.Load()
	}
	if _, id := n.raft.LeaderWithID(); id == "" {
		return false
	}
	return n.raft.AppliedIndex()+readyLag >= n.raft.CommitIndex()
}

// idleBodies ends the requests whose bodies move no byte for a lease's
// time to live: an upload from a worker that was cut off would otherwise
// hold a goroutine and a temporary file for as long as its connection
// lives, which on a partition is for good.
func (n *Node) idleBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			r.Body = &idleBody{ReadCloser: r.Body, rc: rc, d: n.cfg.LeaseTTL}
			defer rc.SetReadDeadline(time.Time{})
		}
		h.ServeHTTP(w, r)
	})
}

// idleBody moves the connection's read deadline on at every read, and
// clears it at the end of the body.
type idleBody struct {
	io.ReadCloser
	rc *http.ResponseController
	d  time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.rc.SetReadDeadline(time.Now().Add(b.d))
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		// The body is read: the handler may take its time (a lease held
		// open, a completion copied to a follower), and the server's
		// watch for the client going away must not time out.
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// leaderOnly serves h on the leader; a follower forwards the request to
// the leader (once), and answers 503 when no leader is known.
func (n *Node) leaderOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		leader, ok := n.leader()
		if ok {
			w.Header().Set(api.HeaderLeader, n.peerURL(leader))
		}
		if r.ContentLength > wire.MaxJSON {
			writeError(w, http.StatusRequestEntityTooLarge, wire.ErrTooLarge)
			return
		}
		if n.IsLeader() {
			if !n.ready.Load() {
				w.Header().Set("Retry-After", "1")
				writeError(w, http.StatusServiceUnavailable, errors.New("a new leader is catching up; retry"))
				return
			}
			// A read is answered from this node's state: first make sure
			// it still leads (a leader that was paused or partitioned
			// believes it does until it hears of the next term, and its
			// state is stale). Writes go through the log, which a deposed
			// leader cannot commit.
			if r.Method == http.MethodGet {
				if err := n.raft.VerifyLeader().Error(); err != nil {
					w.Header().Set("Retry-After", "1")
					writeError(w, http.StatusServiceUnavailable, fmt.Errorf("this node no longer leads (%v); retry", err))
					return
				}
			}
			h(w, r)
			return
		}
		if !ok || r.Header.Get(headerForwarded) != "" {
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, errors.New("no leader at the moment; retry"))
			return
		}
		// The request is forwarded for as long as the leader leads (a
		// leader that is lost, by a partition or a crash, would otherwise
		// hold it for as long as the connection lives) and this node runs
		// (a forwarded request the leader holds would delay its close).
		ctx, cancel := context.WithCancel(r.Context())
		defer context.AfterFunc(n.epoch(), cancel)()
		defer context.AfterFunc(n.ctx, cancel)()
		defer cancel()
		r = r.WithContext(ctx)
		target, _ := url.Parse(n.peerURL(leader))
		proxy := &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) {
				pr.SetURL(target)
				pr.Out.Header.Set(headerForwarded, n.cfg.ID)
			},
			Transport:     n.peers.Transport,
			FlushInterval: -1,
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				w.Header().Set("Retry-After", "1")
				writeError(w, http.StatusServiceUnavailable, fmt.Errorf("forwarding to the leader %s: %w", leader.ID, err))
			},
		}
		proxy.ServeHTTP(w, r)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	resp := api.ErrorResponse{Error: err.Error()}
	var me *api.MissingError
	if errors.As(err, &me) {
		resp.Missing = me.Missing
	}
	writeJSON(w, code, resp)
}

// statusFor maps an error to its HTTP status.
func statusFor(err error) int {
	var me *api.MissingError
	switch {
	case errors.As(err, &me):
		return http.StatusPreconditionFailed
	case errors.Is(err, api.ErrStale), errors.Is(err, api.ErrNotRunning):
		return http.StatusConflict
	case errors.Is(err, state.ErrNoUnit), errors.Is(err, blobstore.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, api.ErrBadOutputs), errors.Is(err, blobstore.ErrMismatch), errors.Is(err, blobstore.ErrBadName), errors.Is(err, errBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, blobstore.ErrTooLarge), errors.Is(err, wire.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipLost), errors.Is(err, raft.ErrLeadershipTransferInProgress),
		errors.Is(err, blobstore.ErrUnavailable):
		return http.StatusServiceUnavailable // the client retries, finding the new leader
	case diskFull(err):
		return http.StatusInsufficientStorage // the client tries another coordinator
	case errors.Is(err, api.ErrNotReady):
		return http.StatusTooEarly // the worker asks again, later (not another coordinator)
	}
	return http.StatusInternalServerError
}

// decode reads a JSON request body, answering 400 or 413 itself.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := wire.ReadJSON(r.Body, v); err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, wire.ErrTooLarge) {
			code = http.StatusRequestEntityTooLarge
		}
		writeError(w, code, err)
		return false
	}
	return true
}

func (n *Node) handleHealth(w http.ResponseWriter, r *http.Request) {
	leader, _ := n.leader()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "node": n.cfg.ID, "state": n.raft.State().String(),
		"leader": leader.ID, "applied_index": n.raft.AppliedIndex()})
}

func (n *Node) handleStatus(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if id := q.Get("finished"); id != "" {
		// ?finished=ID&wait=SECONDS: the answer waits until run ID is
		// done or failed, or for SECONDS. One held request costs the
		// leader nothing while it waits, where each poll of the status
		// costs it a round of raft messages (VerifyLeader): polling
		// every 50 ms cost 1.4-4.1% of a core.
		secs, err := strconv.ParseFloat(q.Get("wait"), 64)
		if err != nil || !(secs >= 0) || math.IsInf(secs, 1) {
			writeError(w, http.StatusBadRequest, fmt.Errorf("bad wait %q: seconds expected", q.Get("wait")))
			return
		}
		n.waitFinished(r.Context(), w, id, min(time.Duration(secs*float64(time.Second)), maxLeaseWait))
	}
	writeJSON(w, http.StatusOK, n.status())
}

// waitFinished returns once run id is done or failed (or unknown), after
// wait, or when ctx ends, keeping the client's request alive meanwhile.
func (n *Node) waitFinished(ctx context.Context, w http.ResponseWriter, id string, wait time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	keepalive := time.NewTicker(n.keepaliveInterval())
	defer keepalive.Stop()
	for {
		changed := n.fsm.Changed()
		finished := true
		n.fsm.View(func(s *state.State, _ uint64) {
			if r := s.Run(id); r != nil {
				finished = r.State == api.Done || r.State == api.Failed
			}
		})
		if finished || !n.awaitChange(ctx, w, changed, keepalive.C) {
			return
		}
	}
}

// awaitChange waits for changed (the state's), writing a keep-alive (102
// Processing, see working) at every tick of keepalive; it returns false
// if ctx ends or the node closes first.
func (n *Node) awaitChange(ctx context.Context, w http.ResponseWriter, changed <-chan struct{}, keepalive <-chan time.Time) bool {
	for {
		select {
		case <-changed:
			return true
		case <-keepalive:
			w.WriteHeader(http.StatusProcessing)
		case <-ctx.Done():
			return false
		case <-n.ctx.Done(): // the node is closing
			return false
		}
	}
}

// largestBudget is the largest memory budget of workers, 0 if there are
// none or one did not say (it takes any unit).
func largestBudget(ws []api.WorkerInfo) int64 {
	var largest int64
	for _, w := range ws {
		if w.Memory <= 0 {
			return 0
		}
		largest = max(largest, w.Memory)
	}
	return largest
}

// status is the cluster at a glance, from this node's state.
func (n *Node) status() *api.StatusResponse {
	leader, _ := n.leader()
	resp := &api.StatusResponse{Leader: leader.ID, Members: n.members(), Runs: []api.RunSummary{}}
	resp.Workers = n.workers.list(time.Now(), 2*n.cfg.LeaseTTL)
	largest := largestBudget(resp.Workers)
	n.fsm.View(func(s *state.State, _ uint64) {
		for _, r := range s.Runs {
			sum := r.Summary()
			if r.State == api.Running {
				sum.Blocked = s.Blocked(r.ID, largest)
			}
			resp.Runs = append(resp.Runs, sum)
		}
	})
	return resp
}

func (n *Node) handleSubmit(w http.ResponseWriter, r *http.Request) {
	var req api.SubmitRequest
	if !decode(w, r, &req) {
		return
	}
	id, err := n.submit(&req)
	if err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	n.log.Info("run submitted", "run", id, "game", req.Game, "option", req.Option)
	writeJSON(w, http.StatusOK, api.SubmitResponse{ID: id})
}

// errBadRequest marks a request that can never succeed as it is (a game
// that does not exist, bad settings, a member twice): 400.
var errBadRequest = errors.New("bad request")

// submit creates a run: the tier graph is computed here, once, and
// replicated with the run.
func (n *Node) submit(req *api.SubmitRequest) (string, error) {
	g, err := n.cfg.NewGame(req.Game, req.Option)
	if err != nil { // a game this coordinator's binary does not have, or a bad option
		return "", fmt.Errorf("%w: coordinator %s: %v", errBadRequest, n.cfg.ID, err)
	}
	set := api.DefaultSettings
	if req.Settings != nil {
		set = *req.Settings
	}
	if set.RangesPerThread < 1 || set.ExpandRangesPerThread < 0 || set.MaxRanges < 1 || set.MaxRanges > 1<<16 || set.Level < 1 || set.Level > 9 ||
		set.LoopyRanges < 0 || set.LoopyRanges > api.MaxLoopyRanges || set.CloseRanges < 0 || set.CloseRanges > plan.MaxCloseRanges {
		return "", fmt.Errorf("%w: settings: ranges_per_thread must be at least 1, expand_ranges_per_thread at least 0, max_ranges 1 to 65536, level 1 to 9, loopy_ranges 0 to %d, close_ranges 0 to %d",
			errBadRequest, api.MaxLoopyRanges, plan.MaxCloseRanges)
	}
	if _, err := quotient.Reduce(g, set.Symmetry); err != nil {
		return "", fmt.Errorf("%w: %v", errBadRequest, err)
	}
	gr, err := tiergraph.New(g)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errBadRequest, err)
	}
	if len(req.RequestID) > 64 {
		return "", fmt.Errorf("%w: a request id has at most 64 characters", errBadRequest)
	}
	run := &state.Run{Game: g.Name(), Option: g.Option(), Settings: set, Created: time.Now().UTC(), RequestID: req.RequestID}
	_, run.Chance = g.(tiergame.Chance)
	if e, ok := g.(tiergame.Exhaustive); ok {
		run.Exhaustive = e.Exhaustive()
	}
	for _, t := range gr.Tiers {
		if run.Chance && gr.Loopy[t] {
			return "", fmt.Errorf("%w: %s: tier %s is loopy, which games with chance cannot be", errBadRequest, g.Name(), g.TierName(t))
		}
		tr := &state.Tier{Tier: uint64(t), Name: g.TierName(t), Size: g.TierSize(t), Loopy: gr.Loopy[t]}
		for _, p := range gr.Parents[t] {
			tr.Parents = append(tr.Parents, uint64(p))
		}
		for _, c := range gr.Children[t] {
			tr.Children = append(tr.Children, uint64(c))
		}
		run.Tiers = append(run.Tiers, tr)
	}
	// Workers present, each with a budget, none of which could ever take
	// some unit however the leader cuts it: refused now, rather than a
	// run that waits for ever (a run submitted before its workers start
	// is not checked: its status says why it waits, if it does).
	if largest := largestBudget(n.workers.list(time.Now(), 2*n.cfg.LeaseTTL)); largest > 0 {
		if need, tier := run.LeastBudget(); need > uint64(largest) {
			return "", fmt.Errorf("%w: %s: tier %s needs workers of at least %s (its closing, or its solving at the finest cut), and the largest present has %s: start workers with more --memory",
				errBadRequest, g.Name(), tier, plan.BytesString(need), plan.BytesString(uint64(largest)))
		}
	}
	res, err := n.propose(state.Create(run))
	if err != nil {
		return "", err
	}
	return res.(string), nil
}

func (n *Node) handleRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !wire.ValidRunID(id) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("bad run id %q", id))
		return
	}
	var view *api.Run
	n.fsm.View(func(s *state.State, _ uint64) {
		if run := s.Run(id); run != nil {
			view = run.View()
		}
	})
	if view == nil {
		writeError(w, http.StatusNotFound, fmt.Errorf("no run %s", id))
		return
	}
	b, _ := json.Marshal(view)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// runningGames are the games of the running runs.
func (n *Node) runningGames() []string {
	var out []string
	n.fsm.View(func(s *state.State, _ uint64) {
		for _, r := range s.Runs {
			if r.State == api.Running {
				out = append(out, r.Game)
			}
		}
	})
	return out
}

// maxLeaseWait bounds how long a lease request is held.
const maxLeaseWait = 30 * time.Second

func (n *Node) handleLease(w http.ResponseWriter, r *http.Request) {
	var req api.LeaseRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Worker == "" || len(req.Worker) > 200 {
		writeError(w, http.StatusBadRequest, errors.New("a lease request names its worker"))
		return
	}
	n.workers.seen(req.Worker, r.RemoteAddr, req.Threads, nil)
	n.workers.hasGames(req.Worker, req.Games)
	n.workers.hasMemory(req.Worker, req.Memory)
	if missing := missingGames(n.runningGames(), req.Games); n.workers.missing(req.Worker, missing) && len(missing) > 0 {
		n.log.Warn("a worker does not have the games of running runs: it is leased none of their units, which wait for a worker that has them",
			"worker", req.Worker, "missing", strings.Join(missing, ","), "worker_games", strings.Join(req.Games, ","))
	}
	wait := min(time.Duration(req.Wait*float64(time.Second)), maxLeaseWait)
	keepFree := 0
	if req.Spare {
		wait = 0
		// Twice the other workers' threads: the spare waits for this
		// worker's running unit, and meanwhile the others must not run
		// out of units.
		keepFree = 2 * max(0, n.workers.threads(time.Now(), 2*n.cfg.LeaseTTL)-req.Threads)
	}
	ctx, cancel := context.WithTimeout(r.Context(), wait)
	defer cancel()
	// The worker hears the wait goes on (see working).
	keepalive := time.NewTicker(n.keepaliveInterval())
	defer keepalive.Stop()
	for {
		changed := n.fsm.Changed()
		a, err := n.grant(state.Taker{Worker: req.Worker, Games: req.Games, Holding: req.Holding,
			Present: n.workers.present(time.Now(), n.cfg.LeaseTTL), Peers: n.workers.list(time.Now(), n.cfg.LeaseTTL),
			Memory: req.Memory, Request: req.Request}, keepFree)
		if err != nil {
			writeError(w, statusFor(err), err)
			return
		}
		if a != nil {
			n.workers.granted(req.Worker)
			writeJSON(w, http.StatusOK, a)
			return
		}
		if !n.awaitChange(ctx, w, changed, keepalive.C) || !n.IsLeader() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
}

func (n *Node) handleHeartbeat(w http.ResponseWriter, r *http.Request) {
	var req api.HeartbeatRequest
	if !decode(w, r, &req) {
		return
	}
	now := time.Now()
	resp := api.HeartbeatResponse{Lost: []uint64{}}
	var unknown []uint64
	for _, t := range req.Tokens {
		if !n.leases.renew(now, t) {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		// A lease whose report was accepted is not lost: its worker has
		// not had the answer yet (lost with the last leader), and asks
		// again.
		n.fsm.View(func(s *state.State, _ uint64) {
			for _, t := range unknown {
				if !s.AcceptedToken(t) {
					resp.Lost = append(resp.Lost, t)
				}
			}
		})
	}
	n.workers.seen(req.Worker, r.RemoteAddr, req.Threads, req.Tokens)
	writeJSON(w, http.StatusOK, resp)
}

func (n *Node) handleComplete(w http.ResponseWriter, r *http.Request) {
	var req api.CompleteRequest
	if !decode(w, r, &req) {
		return
	}
	// A completion is answered once its outputs are on a majority, which
	// may take a while: the worker hears it is under way meanwhile.
	var err error
	wire.Working(w, n.keepaliveInterval(), func() { err = n.complete(r.Context(), &req) })
	if err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{})
}

// keepaliveInterval is how often a request held open (a lease awaited, a
// completion copied to a majority) is told it is under way: three times
// in a lease's time to live, the longest a worker waits without a word
// (its attempt timeout), and at least every 5 s, for a client that does
// not know the time to live yet (api.DefaultAttemptTimeout).
func (n *Node) keepaliveInterval() time.Duration { return min(n.cfg.LeaseTTL/3, 5*time.Second) }

func (n *Node) handleRelease(w http.ResponseWriter, r *http.Request) {
	var req api.ReleaseRequest
	if !decode(w, r, &req) {
		return
	}
	if err := n.release(&req); err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{})
}
