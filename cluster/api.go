package cluster

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
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// The HTTP API. Every endpoint but the two probes needs a token, as
// "Authorization: Bearer TOKEN" (or HTTP basic auth with the token as the
// password, for a browser), of a scope it allows (auth.go): the admin
// token opens everything, the worker token what workers do, the read
// token what tierd status and tierd fetch read. Blob endpoints are served
// by each coordinator from its own store (with an object store, GET
// redirects to it and PUT is refused: workers ask /v1/uploads); the
// others are the leader's, and a follower forwards them to it.
//
//	GET  /healthz              200 "ok" while the process serves (liveness)              none
//	GET  /readyz               200 "ready" once this node knows a leader and has         none
//	                           applied what it knows committed, else 503 (readiness)
//	GET  /                     status page (HTML)                                        read
//	GET  /v1/health            this node's raft state, the leader, the applied index     read
//	GET  /metrics              Prometheus metrics                                        read
//	GET  /v1/status            runs and workers (StatusResponse)                         read
//	POST /v1/runs              submit a run (SubmitRequest → SubmitResponse)             admin
//	GET  /v1/runs/{id}         a run's whole state (Run)                                 read
//	POST /v1/lease             lease a unit (LeaseRequest → Assignment, or 204: no work) worker
//	POST /v1/heartbeat         keep leases alive (HeartbeatRequest → HeartbeatResponse)  worker
//	POST /v1/complete          a unit's result (CompleteRequest; 409 stale, 412 missing) worker
//	POST /v1/release           give a lease up (ReleaseRequest)                          worker
//	POST /v1/uploads           presigned PUTs of a leased unit's outputs, with an        worker
//	                           object store (UploadsRequest → UploadsResponse)
//	POST /v1/members           add or remove a coordinator (MembersRequest → ...)        admin
//	PUT  /v1/blobs/{sha256}    store a blob (Content-Length required; checked against    worker
//	                           its name; ?stage=1: durable only after the next
//	                           POST /v1/sync; &sync=1: flush it and everything staged)
//	POST /v1/sync              make this node's staged blobs durable (coordinators)      admin
//	GET  /v1/blobs/{sha256}    read a blob (also HEAD); with an object store, a          read, worker
//	                           redirect to a presigned GET, or with ?via=coordinator
//	                           the bytes, read from it

// SubmitRequest asks for a new run.
type SubmitRequest struct {
	Game     string    `json:"game"`
	Option   string    `json:"option"`
	Settings *Settings `json:"settings,omitempty"` // nil: DefaultSettings
	// RequestID, if set, makes the request idempotent: a run submitted
	// with the same one already is answered instead of a new one (a
	// client retries a request whose answer a reset connection lost).
	RequestID string `json:"request_id,omitempty"`
}

// DefaultSettings are a run's settings unless the submitter chose.
// MinRange: a unit costs the cluster 14-17 ms of CPU beyond its work
// (its grant and completion through raft, its outputs uploaded, copied
// and read back), about the work of 200,000 Connect Four positions; at
// 1<<20 positions, rather than 1<<16, Connect Four 5x5 runs in 103 units
// instead of 140 and the cluster uses 5-7% less CPU (cluster/README.md).
var DefaultSettings = Settings{RangesPerThread: 2, ExpandRangesPerThread: 1, MaxRanges: 256, MinRange: 1 << 20, Level: 6}

// SubmitResponse names the new run.
type SubmitResponse struct {
	ID string `json:"id"`
}

// StatusResponse is the cluster at a glance.
type StatusResponse struct {
	Leader  string       `json:"leader"`
	Members []Member     `json:"members"`
	Runs    []RunSummary `json:"runs"`
	Workers []WorkerInfo `json:"workers"`
}

// Run is the summary of run id, nil if the status has none.
func (st *StatusResponse) Run(id string) *RunSummary {
	for i := range st.Runs {
		if st.Runs[i].ID == id {
			return &st.Runs[i]
		}
	}
	return nil
}

// RunSummary is a run at a glance.
type RunSummary struct {
	ID         string              `json:"id"`
	Game       string              `json:"game"`
	Option     string              `json:"option"`
	State      RunState            `json:"state"`
	Error      string              `json:"error,omitempty"`
	TiersDone  int                 `json:"tiers_done"`
	TiersTotal int                 `json:"tiers_total"`
	Reached    int                 `json:"tiers_reached"`
	UnitsDone  int                 `json:"units_done"`
	UnitsTotal int                 `json:"units_total"`
	Leased     int                 `json:"units_leased"`
	Positions  uint64              `json:"positions"` // reachable, in the merged tiers
	Created    time.Time           `json:"created"`
	Seconds    float64             `json:"seconds"` // running time so far, or to the end
	Start      *solver.StartRecord `json:"start,omitempty"`
	LogBytes   uint64              `json:"log_bytes"`
	Commands   uint64              `json:"commands"`
}

// LeaseRequest asks for a unit of work.
type LeaseRequest struct {
	Worker  string `json:"worker"`
	Threads int    `json:"threads"`
	// Wait is how long, in seconds, the leader may hold the request when
	// there is no work, answering as soon as some appears.
	Wait float64 `json:"wait"`
	// Spare asks for a unit to start when one of the worker's threads
	// frees, while all are busy. It is granted only if at least twice as
	// many units stay free as the other workers have threads (so that the
	// others do not run out of work while the spare waits), and never
	// waits.
	Spare bool `json:"spare,omitempty"`
	// Games are the names of the games the worker can run: it is leased
	// only units of runs of these games. Empty: any game (a worker that
	// does not say).
	Games []string `json:"games,omitempty"`
	// Holding lists the lease tokens of the range units whose records
	// the worker has computed or is computing, in memory: it may be leased
	// units that read them before they are recorded (provisional leases,
	// Run.readyFor). Nil from a worker that cannot take such units, or
	// holds none.
	Holding []uint64 `json:"holding,omitempty"`
}

// Assignment is a leased unit with everything its worker needs.
type Assignment struct {
	Ref    UnitRef `json:"ref"`
	Token  uint64  `json:"token"`
	Kind   Kind    `json:"kind"`
	Lo     uint64  `json:"lo"`
	Hi     uint64  `json:"hi"`
	Game   string  `json:"game"`
	Option string  `json:"option"`
	Loopy  bool    `json:"loopy,omitempty"`
	// Symmetry: the run keeps canonical positions only; the unit runs on
	// the quotient game (solver.Reduce).
	Symmetry bool     `json:"symmetry,omitempty"`
	Children []uint64 `json:"children,omitempty"`
	// Level is the tier's full level file (SolveRange, SolveTier; Expand
	// once it is written), Partials the partial level files whose union
	// is the tier (Expand before its file is written) or which a loopy
	// tier is closed from (Close), Kids the solved child tiers
	// (SolveRange, SolveTier).
	Level    *Blob      `json:"level,omitempty"`
	Partials []Blob     `json:"partials,omitempty"`
	Kids     []KidInput `json:"kids,omitempty"`
	// Set names the tier's set, the same for every unit of the tier
	// whether it comes from Level or Partials (Run.setKey): a worker
	// keeps a set it loaded under this name.
	Set string `json:"set"`
	// Live lists the tiers of the run whose sets and results a unit may
	// still read (the unit's own among them): a worker may drop what it
	// keeps in memory of the run's other tiers. Nil from a coordinator
	// that does not say.
	Live     []uint64 `json:"live,omitempty"`
	LeaseTTL float64  `json:"lease_ttl"` // seconds
	// Direct says the cluster keeps its artifacts in an object store: the
	// worker stores its outputs there, with the presigned PUTs of
	// /v1/uploads, rather than on a coordinator.
	Direct bool `json:"direct,omitempty"`
}

// UploadsRequest asks, for a leased unit, how to store its outputs in
// the object store.
type UploadsRequest struct {
	Ref     UnitRef `json:"ref"`
	Token   uint64  `json:"token"`
	Worker  string  `json:"worker"`
	Outputs []Blob  `json:"outputs"`
}

// UploadsResponse holds a presigned PUT for each output: the request,
// sent as it is without credentials, stores that content and no other.
type UploadsResponse struct {
	Uploads []blobstore.Upload `json:"uploads"`
}

// KidInput is a solved child tier: its level file, and its records: the
// value database if it is written, else the records of its units in rank
// order.
type KidInput struct {
	Tier  uint64 `json:"tier"`
	Level Blob   `json:"level"`
	Set   string `json:"set"` // as Assignment.Set
	DB    *Blob  `json:"db,omitempty"`
	// Planes is the tier's database of planes, beside DB, for a chance
	// game with planes (tiergame.Planes).
	Planes  *Blob  `json:"planes,omitempty"`
	Records []Blob `json:"records,omitempty"`
	// Mine lists, for a unit leased provisionally (Run.readyFor), the
	// units of the tier not done yet, all leased to the worker: it
	// computes their records itself, in place, and their places in
	// Records (one per unit, in rank order) are empty.
	Mine []MineUnit `json:"mine,omitempty"`
}

// MineUnit is a unit whose records the worker computes itself, and the
// range it covers.
type MineUnit struct {
	Ref   UnitRef `json:"ref"`
	Token uint64  `json:"token"`
	Lo    uint64  `json:"lo"`
	Hi    uint64  `json:"hi"`
}

// HeartbeatRequest reports a worker alive with the leases it holds.
type HeartbeatRequest struct {
	Worker  string   `json:"worker"`
	Threads int      `json:"threads"`
	Tokens  []uint64 `json:"tokens"`
}

// HeartbeatResponse lists the leases the worker no longer holds: it must
// stop their work.
type HeartbeatResponse struct {
	Lost []uint64 `json:"lost"`
}

// CompleteRequest reports a unit done; its outputs must be uploaded first.
type CompleteRequest struct {
	Ref       UnitRef  `json:"ref"`
	Token     uint64   `json:"token"`
	Worker    string   `json:"worker"`
	Outputs   []Output `json:"outputs"`
	Positions uint64   `json:"positions"`
	Seconds   float64  `json:"seconds"`
}

// ReleaseRequest gives a lease up; Error says why the unit failed, if it
// did.
type ReleaseRequest struct {
	Ref    UnitRef `json:"ref"`
	Token  uint64  `json:"token"`
	Worker string  `json:"worker"`
	Error  string  `json:"error,omitempty"`
}

// ErrorResponse is the body of every error answer.
type ErrorResponse struct {
	Error   string   `json:"error"`
	Missing []string `json:"missing,omitempty"`
}

// MissingError is a completion whose outputs no coordinator has: the
// worker uploads them again.
type MissingError struct{ Missing []string }

func (e *MissingError) Error() string {
	return fmt.Sprintf("%d output blobs are on no coordinator; upload them again", len(e.Missing))
}

// HeaderLeader carries the leader's base URL on every API answer, so
// clients talk to it directly.
const HeaderLeader = "X-Tierd-Leader"

// headerForwarded marks a request a follower forwarded, so it is never
// forwarded twice.
const headerForwarded = "X-Tierd-Forwarded"

var runIDPattern = regexp.MustCompile(`^r[0-9]{1,20}$`)

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
	route("POST /v1/uploads", worker, n.leaderOnly(n.handleUploads))
	route("POST /v1/members", admin, n.leaderOnly(n.handleMembers))
	route("PUT /v1/blobs/{sum}", worker, n.handlePutBlob)
	route("GET /v1/blobs/{sum}", fetch, n.handleGetBlob)
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
			w.Header().Set(HeaderLeader, n.peerURL(leader))
		}
		if r.ContentLength > maxJSON {
			writeError(w, http.StatusRequestEntityTooLarge, errTooLarge)
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
	resp := ErrorResponse{Error: err.Error()}
	var me *MissingError
	if errors.As(err, &me) {
		resp.Missing = me.Missing
	}
	writeJSON(w, code, resp)
}

// statusFor maps an error to its HTTP status.
func statusFor(err error) int {
	var me *MissingError
	switch {
	case errors.As(err, &me):
		return http.StatusPreconditionFailed
	case errors.Is(err, ErrStale), errors.Is(err, ErrNotRunning):
		return http.StatusConflict
	case errors.Is(err, ErrNoUnit), errors.Is(err, blobstore.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrBadOutputs), errors.Is(err, blobstore.ErrMismatch), errors.Is(err, blobstore.ErrBadName), errors.Is(err, errBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, blobstore.ErrTooLarge), errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipLost), errors.Is(err, raft.ErrLeadershipTransferInProgress),
		errors.Is(err, blobstore.ErrUnavailable):
		return http.StatusServiceUnavailable // the client retries, finding the new leader
	case diskFull(err):
		return http.StatusInsufficientStorage // the client tries another coordinator
	case errors.Is(err, ErrNotReady):
		return http.StatusTooEarly // the worker asks again, later (not another coordinator)
	}
	return http.StatusInternalServerError
}

// decode reads a JSON request body, answering 400 or 413 itself.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := readJSON(r.Body, v); err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, errTooLarge) {
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
		n.fsm.View(func(s *State, _ uint64) {
			if r := s.run(id); r != nil {
				finished = r.State == Done || r.State == Failed
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

// status is the cluster at a glance, from this node's state.
func (n *Node) status() *StatusResponse {
	leader, _ := n.leader()
	resp := &StatusResponse{Leader: leader.ID, Members: n.members(), Runs: []RunSummary{}}
	n.fsm.View(func(s *State, _ uint64) {
		for _, r := range s.Runs {
			resp.Runs = append(resp.Runs, summarize(r))
		}
	})
	resp.Workers = n.workers.list(time.Now(), 2*n.cfg.LeaseTTL)
	return resp
}

// summarize counts a run's progress.
func summarize(r *Run) RunSummary {
	s := RunSummary{ID: r.ID, Game: r.Game, Option: r.Option, State: r.State, Error: r.Error, TiersTotal: len(r.Tiers),
		Created: r.Created, Start: r.Start, LogBytes: r.LogBytes, Commands: r.Commands}
	for _, t := range r.Tiers {
		if t.DB != nil {
			s.TiersDone++
		}
		if t.Level != nil {
			s.Reached++
			s.Positions += t.Level.Reachable
		}
		for _, u := range append(t.Reach[:len(t.Reach):len(t.Reach)], t.Solve...) {
			s.UnitsTotal++
			if u.Done != nil {
				s.UnitsDone++
			}
			if u.Lease != nil {
				s.Leased++
			}
		}
	}
	end := time.Now()
	if !r.Finished.IsZero() {
		end = r.Finished
	}
	s.Seconds = end.Sub(r.Created).Seconds()
	return s
}

func (n *Node) handleSubmit(w http.ResponseWriter, r *http.Request) {
	var req SubmitRequest
	if !decode(w, r, &req) {
		return
	}
	id, err := n.submit(&req)
	if err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	n.log.Info("run submitted", "run", id, "game", req.Game, "option", req.Option)
	writeJSON(w, http.StatusOK, SubmitResponse{ID: id})
}

// errBadRequest marks a request that can never succeed as it is (a game
// that does not exist, bad settings, a member twice): 400.
var errBadRequest = errors.New("bad request")

// submit creates a run: the tier graph is computed here, once, and
// replicated with the run.
func (n *Node) submit(req *SubmitRequest) (string, error) {
	g, err := n.cfg.NewGame(req.Game, req.Option)
	if err != nil { // a game this coordinator's binary does not have, or a bad option
		return "", fmt.Errorf("%w: coordinator %s: %v", errBadRequest, n.cfg.ID, err)
	}
	set := DefaultSettings
	if req.Settings != nil {
		set = *req.Settings
	}
	if set.RangesPerThread < 1 || set.ExpandRangesPerThread < 0 || set.MaxRanges < 1 || set.MaxRanges > 1<<16 || set.Level < 1 || set.Level > 9 {
		return "", fmt.Errorf("%w: settings: ranges_per_thread must be at least 1, expand_ranges_per_thread at least 0, max_ranges 1 to 65536, level 1 to 9", errBadRequest)
	}
	if _, err := solver.Reduce(g, set.Symmetry); err != nil {
		return "", fmt.Errorf("%w: %v", errBadRequest, err)
	}
	gr, err := solver.NewGraph(g)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errBadRequest, err)
	}
	if len(req.RequestID) > 64 {
		return "", fmt.Errorf("%w: a request id has at most 64 characters", errBadRequest)
	}
	run := &Run{Game: g.Name(), Option: g.Option(), Settings: set, Created: time.Now().UTC(), RequestID: req.RequestID}
	_, run.Chance = g.(tiergame.Chance)
	if e, ok := g.(tiergame.Exhaustive); ok {
		run.Exhaustive = e.Exhaustive()
	}
	for _, t := range gr.Tiers {
		if run.Chance && gr.Loopy[t] {
			return "", fmt.Errorf("%w: %s: tier %s is loopy, which games with chance cannot be", errBadRequest, g.Name(), g.TierName(t))
		}
		tr := &Tier{Tier: uint64(t), Name: g.TierName(t), Size: g.TierSize(t), Loopy: gr.Loopy[t]}
		for _, p := range gr.Parents[t] {
			tr.Parents = append(tr.Parents, uint64(p))
		}
		for _, c := range gr.Children[t] {
			tr.Children = append(tr.Children, uint64(c))
		}
		run.Tiers = append(run.Tiers, tr)
	}
	res, err := n.propose(&command{Op: opCreate, Run: run})
	if err != nil {
		return "", err
	}
	return res.(string), nil
}

func (n *Node) handleRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !runIDPattern.MatchString(id) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("bad run id %q", id))
		return
	}
	var b []byte
	n.fsm.View(func(s *State, _ uint64) {
		if run := s.run(id); run != nil {
			b, _ = json.Marshal(run)
		}
	})
	if b == nil {
		writeError(w, http.StatusNotFound, fmt.Errorf("no run %s", id))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// runningGames are the games of the running runs.
func (n *Node) runningGames() []string {
	var out []string
	n.fsm.View(func(s *State, _ uint64) {
		for _, r := range s.Runs {
			if r.State == Running {
				out = append(out, r.Game)
			}
		}
	})
	return out
}

// maxLeaseWait bounds how long a lease request is held.
const maxLeaseWait = 30 * time.Second

func (n *Node) handleLease(w http.ResponseWriter, r *http.Request) {
	var req LeaseRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Worker == "" || len(req.Worker) > 200 {
		writeError(w, http.StatusBadRequest, errors.New("a lease request names its worker"))
		return
	}
	n.workers.seen(req.Worker, r.RemoteAddr, req.Threads, nil)
	n.workers.hasGames(req.Worker, req.Games)
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
		a, err := n.grant(req.Worker, keepFree, req.Games, req.Holding)
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
	var req HeartbeatRequest
	if !decode(w, r, &req) {
		return
	}
	now := time.Now()
	resp := HeartbeatResponse{Lost: []uint64{}}
	for _, t := range req.Tokens {
		if !n.leases.renew(now, t) {
			resp.Lost = append(resp.Lost, t)
		}
	}
	n.workers.seen(req.Worker, r.RemoteAddr, req.Threads, req.Tokens)
	writeJSON(w, http.StatusOK, resp)
}

func (n *Node) handleComplete(w http.ResponseWriter, r *http.Request) {
	var req CompleteRequest
	if !decode(w, r, &req) {
		return
	}
	// A completion is answered once its outputs are on a majority, which
	// may take a while: the worker hears it is under way meanwhile.
	var err error
	working(w, n.keepaliveInterval(), func() { err = n.complete(r.Context(), &req) })
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
// not know the time to live yet (DefaultAttemptTimeout).
func (n *Node) keepaliveInterval() time.Duration { return min(n.cfg.LeaseTTL/3, 5*time.Second) }

func (n *Node) handleRelease(w http.ResponseWriter, r *http.Request) {
	var req ReleaseRequest
	if !decode(w, r, &req) {
		return
	}
	if err := n.release(&req); err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{})
}

// handleUploads answers the holder of a unit's lease with a presigned
// PUT for each of its outputs: only the current lease may write, and
// each PUT only the content it names.
func (n *Node) handleUploads(w http.ResponseWriter, r *http.Request) {
	var req UploadsRequest
	if !decode(w, r, &req) {
		return
	}
	if n.remote == nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: this cluster keeps its artifacts on the coordinators: PUT /v1/blobs", errBadRequest))
		return
	}
	current := false
	n.fsm.View(func(s *State, _ uint64) {
		_, _, u := s.unit(req.Ref)
		current = u != nil && u.Lease != nil && u.Lease.Token == req.Token
	})
	if !current {
		writeError(w, http.StatusConflict, fmt.Errorf("%v token %d: %w", req.Ref, req.Token, ErrStale))
		return
	}
	if len(req.Outputs) > 1<<12 {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: %d outputs", errBadRequest, len(req.Outputs)))
		return
	}
	resp := UploadsResponse{Uploads: []blobstore.Upload{}}
	for _, b := range req.Outputs {
		up, err := n.remote.PresignPut(r.Context(), b.SHA256, b.Size)
		if err != nil {
			writeError(w, statusFor(err), err)
			return
		}
		resp.Uploads = append(resp.Uploads, *up)
	}
	writeJSON(w, http.StatusOK, resp)
}

func (n *Node) handlePutBlob(w http.ResponseWriter, r *http.Request) {
	sum := r.PathValue("sum")
	if !blobstore.ValidName(sum) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%q: %w", sum, blobstore.ErrBadName))
		return
	}
	if n.remote != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: this cluster keeps its artifacts in an object store: POST /v1/uploads for a presigned PUT", errBadRequest))
		return
	}
	size := r.ContentLength
	if size < 0 {
		if size, _ = strconv.ParseInt(r.Header.Get("X-Tierd-Size"), 10, 64); size <= 0 && r.Header.Get("X-Tierd-Size") != "0" {
			writeError(w, http.StatusLengthRequired, errors.New("a blob upload needs its Content-Length"))
			return
		}
	}
	if size > n.cfg.MaxBlob {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("%d bytes: %w (limit %d)", size, blobstore.ErrTooLarge, n.cfg.MaxBlob))
		return
	}
	body := http.MaxBytesReader(w, r.Body, size+1)
	put := n.store.Put
	if r.URL.Query().Get("stage") == "1" {
		put = n.store.Stage // durable at the next POST /v1/sync
	}
	if err := put(r.Context(), sum, size, body); err != nil {
		n.log.Warn("refused a blob", "sha256", sum, "remote", r.RemoteAddr, "error", err)
		if diskFull(err) {
			n.diskIsFull(err)
		}
		writeError(w, statusFor(err), err)
		return
	}
	if r.URL.Query().Get("sync") == "1" { // and everything staged before it
		if err := n.store.Sync(); err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
	}
	n.metrics.blobBytesIn.Add(float64(size))
	writeJSON(w, http.StatusOK, struct{}{})
}

func (n *Node) handleGetBlob(w http.ResponseWriter, r *http.Request) {
	sum := r.PathValue("sum")
	store := blobstore.Store(n.store)
	if n.remote != nil && r.URL.Query().Get("via") == "coordinator" {
		store = n.remote // for a reader that cannot reach the store
	} else if n.remote != nil {
		// The reader takes it from the object store (and checks it).
		u, err := n.remote.PresignGet(r.Context(), sum)
		if err != nil {
			writeError(w, statusFor(err), err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, u, http.StatusTemporaryRedirect)
		return
	}
	rc, size, err := store.Open(sum)
	if err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	if r.Method == http.MethodHead {
		return
	}
	copied, _ := io.Copy(w, rc)
	n.metrics.blobBytesOut.Add(float64(copied))
}

func (n *Node) handleSync(w http.ResponseWriter, r *http.Request) {
	if err := n.store.Sync(); err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{})
}
