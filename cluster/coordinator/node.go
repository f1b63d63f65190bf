// Package coordinator is a cluster's coordinator (Node): a member of a
// raft group that replicates the runs' state, serves the HTTP API of
// cluster/api, keeps the artifacts (on the coordinators' disks, each on a
// majority of them, or in an object store: see artifacts.go), and, while
// it leads, hands out leases of units of work, expires them, and merges
// what the workers' units produce into each tier's level file and value
// database.
//
// The replicated state and its rules are in internal/state, which
// nothing outside this package sees; the workers (cluster/worker) know
// the coordinators only through the API.
package coordinator

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/cluster/internal/unitio"
	"github.com/tiersolve/tiersolve/cluster/internal/wire"
	"github.com/tiersolve/tiersolve/internal/atomicfile"
	"github.com/tiersolve/tiersolve/tiergame"
)

// NodeConfig configures a coordinator.
type NodeConfig struct {
	// ID names the node in the raft configuration; RaftAddr (host:port)
	// is where its raft transport listens; HTTPAddr (host:port) is where
	// its HTTP API listens, for workers, clients and peers.
	ID, RaftAddr, HTTPAddr string
	// RaftAdvertise (host:port) and HTTPAdvertise (a base URL, or
	// host:port) are where the others reach it, when that is not where it
	// listens (a proxy, a NAT, a Kubernetes service in front of it); empty:
	// the listening addresses. They are this node's entry in Bootstrap and
	// in the members: raft tells the advertised address to the other
	// coordinators, and clients are sent to the leader's HTTPAdvertise.
	RaftAdvertise, HTTPAdvertise string
	// DataDir holds the raft log and snapshots, and the blob store (with
	// Store set, only a cache of the artifacts the node's merges read and
	// write).
	DataDir string
	// Token is the admin token: every HTTP request may carry it, and the
	// coordinators use it between themselves. WorkerToken and ReadToken,
	// if set, are tokens of narrower scopes (auth.go): a worker's, and a
	// reader's (tierd status, tierd fetch).
	Token, WorkerToken, ReadToken string
	// Bootstrap, on the very first start of a cluster, lists every
	// coordinator (this one included). A node whose data folder holds raft
	// state ignores it and rejoins from what it stored.
	Bootstrap []api.Member
	// NewGame builds a game from its name and options (games.New).
	NewGame func(name, option string) (tiergame.Game, error)
	// Store, when set, keeps every artifact in an S3-compatible bucket
	// (blobstore.OpenS3): workers read and write it directly through
	// presigned URLs, the bucket keeps the bytes, and the coordinators
	// keep only their names, so no artifact passes through them but those
	// their own merges read and write, and a coordinator that loses its
	// disk loses nothing. Nil keeps the artifacts on the coordinators'
	// disks, each on a majority of them.
	Store *blobstore.S3
	// LeaseTTL is how long a lease lives without its worker's heartbeat;
	// 0 means api.DefaultLeaseTTL.
	LeaseTTL time.Duration
	// MaxBlob is the largest artifact accepted; 0 means DefaultMaxBlob.
	MaxBlob int64
	// BlobGrace is how long an artifact that no run refers to is kept (an
	// upload whose completion is on its way); 0 means DefaultBlobGrace.
	BlobGrace time.Duration
	// RepairDelay is how long a blob the state names may be missing here
	// before this node fetches it from a peer: every blob is on a majority
	// before it is named, and most partial results are merged and dropped
	// within this time, so only lasting ones get a copy on every node. 0
	// means DefaultRepairDelay.
	RepairDelay time.Duration
	// Workers is the number of goroutines of a merge; 0 means GOMAXPROCS
	// less one: a merge that keeps every core busy delays raft and the
	// API by up to a scheduler time slice (10 ms) each time they wake,
	// and each grant and completion waits for both (Connect Four 5x5, two
	// cores: a grant's commit 3.3 ms on average with both, 1.9 ms with one).
	Workers int
	// TLS, when set, serves the HTTP API over TLS, and raft over mutual
	// TLS with the same certificate; PeerTLS is the client configuration
	// for reaching the other coordinators, whose RootCAs (the CA of every
	// coordinator's certificate) raft's mutual TLS also requires of the
	// peers' certificates.
	TLS, PeerTLS *tls.Config
	// Raft adjusts the raft configuration (timeouts, snapshot thresholds)
	// after the defaults are set; nil keeps hashicorp/raft's defaults.
	Raft func(*raft.Config)
	// Log receives the node's records (nil: discarded).
	Log *slog.Logger

	// dial, in tests, opens this node's connections to the other
	// coordinators (raft and HTTP), to route each pair through a proxy of
	// its own; nil: plain TCP.
	dial wire.DialFunc
}

// Defaults of NodeConfig.
const (
	DefaultMaxBlob     = 64 << 30
	DefaultBlobGrace   = time.Hour
	DefaultRepairDelay = 30 * time.Second
)

// Node is a coordinator: a raft member that replicates the state, serves
// the HTTP API and the artifacts, and, while it is the leader, hands out
// leases, expires them and merges the tiers.
type Node struct {
	cfg       NodeConfig
	log       *slog.Logger
	fsm       *state.FSM
	raft      *raft.Raft
	wal       *wal.WAL
	known     []api.Member // the bootstrap list, kept in the data folder
	transport *raft.NetworkTransport
	// local is this node's folder of artifacts: the artifacts themselves,
	// or with an object store a cache of those its merges read and write;
	// artifacts is where they are kept (artifacts.go).
	local     *blobstore.Dir
	artifacts artifacts
	guard     blobGuard // deletions against completions (blobguard.go)
	leases    *leaseClock
	workers   *workerTable
	metrics   *metrics
	peers     *http.Client
	server    *http.Server
	listener  net.Listener

	grantMu sync.Mutex  // one grant at a time: picking and proposing
	ready   atomic.Bool // leader, and the state holds every earlier entry

	lastTransfer atomic.Int64 // when the lead was last handed over (a full disk), unix ns

	// leaderEpoch ends when the leader changes (or is lost): requests
	// forwarded to a leader end with it.
	epochMu     sync.Mutex
	leaderEpoch context.Context
	endEpoch    context.CancelFunc

	premerge atomic.Pointer[premerger] // the leader's, while it leads

	games *unitio.Games

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// StartNode opens the node's data folder, starts raft (bootstrapping a new
// cluster if asked and the folder is empty) and serves the HTTP API.
func StartNode(cfg NodeConfig) (*Node, error) {
	if cfg.ID == "" || cfg.RaftAddr == "" || cfg.HTTPAddr == "" || cfg.DataDir == "" {
		return nil, errors.New("cluster: a node needs an ID, a raft address, an HTTP address and a data folder")
	}
	if err := checkTokens(cfg.Token, cfg.WorkerToken, cfg.ReadToken); err != nil {
		return nil, err
	}
	if cfg.NewGame == nil {
		return nil, errors.New("cluster: NodeConfig.NewGame is not set")
	}
	if cfg.TLS != nil && (cfg.PeerTLS == nil || cfg.PeerTLS.RootCAs == nil || len(cfg.TLS.Certificates) == 0) {
		return nil, errors.New("cluster: with TLS, raft runs over mutual TLS: it needs this node's certificate and the CA of every coordinator's (--tls-ca)")
	}
	if a := cfg.HTTPAdvertise; strings.Contains(a, "://") {
		if u, err := url.Parse(a); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("cluster: HTTP advertise address %q: want http://HOST:PORT, https://HOST:PORT or HOST:PORT", a)
		}
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = api.DefaultLeaseTTL
	}
	if cfg.MaxBlob <= 0 {
		cfg.MaxBlob = DefaultMaxBlob
	}
	if cfg.BlobGrace <= 0 {
		cfg.BlobGrace = DefaultBlobGrace
	}
	if cfg.RepairDelay <= 0 {
		cfg.RepairDelay = DefaultRepairDelay
	}
	if cfg.Workers <= 0 {
		cfg.Workers = max(1, runtime.GOMAXPROCS(0)-1)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	n := &Node{cfg: cfg, log: cfg.Log.With("node", cfg.ID), fsm: state.NewFSM(), leases: newLeaseClock(cfg.LeaseTTL),
		workers: newWorkerTable(), games: unitio.NewGames(cfg.NewGame)}
	n.leaderEpoch, n.endEpoch = context.WithCancel(context.Background())
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.metrics = newMetrics(n)
	n.peers = wire.NewHTTPClient(cfg.PeerTLS, cfg.dial)
	if err := n.openArtifacts(); err != nil {
		return nil, err
	}
	if err := n.startRaft(); err != nil {
		n.cancel()
		return nil, err
	}
	if err := n.serve(); err != nil {
		n.Close()
		return nil, err
	}
	n.wg.Add(2)
	go n.leaderLoop()
	go n.blobLoop()
	return n, nil
}

// startRaft opens the log (hashicorp/raft-wal), the snapshots and the TCP
// transport, and starts the raft node.
func (n *Node) startRaft() error {
	dir := filepath.Join(n.cfg.DataDir, "raft")
	if err := os.MkdirAll(filepath.Join(dir, "wal"), 0o755); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	logw := &hclogWriter{log: n.log.With("component", "raft")}
	hl := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Info, Output: logw, DisableTime: true})
	w, err := wal.Open(filepath.Join(dir, "wal"), wal.WithSegmentSize(8<<20), wal.WithLogger(hl))
	if err != nil {
		return fmt.Errorf("cluster: raft log: %w", err)
	}
	n.wal = w
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, hl)
	if err != nil {
		return fmt.Errorf("cluster: raft snapshots: %w", err)
	}
	stream, err := newRaftStream(n.cfg.RaftAddr, n.cfg.RaftAdvertise, n.cfg.dial)
	if err != nil {
		return fmt.Errorf("cluster: raft transport on %s: %w", n.cfg.RaftAddr, err)
	}
	if n.cfg.TLS != nil {
		stream.mutualTLS(n.cfg.TLS.Certificates, n.cfg.PeerTLS.RootCAs, func(remote string, err error) {
			n.metrics.raftRefused.Inc()
			n.log.Warn("refused a raft connection without a certificate of the coordinators' CA", "remote", remote, "error", err)
		})
	}
	// MaxRPCsInFlight 1 turns raft's pipelined replication off. In
	// hashicorp/raft v1.8.0 a follower that answers an append with
	// Success=false (as one back from a partition does) can wedge the
	// pipeline: its decoder has quit, the next send waits on a channel
	// nobody reads, and the pipeline is closed only by the goroutine
	// that waits. The follower then gets heartbeats but no more entries,
	// and Shutdown waits for ever (hashicorp/raft#612; TestPartitionedLeader
	// hung in 1 of 6 runs here). Our commands are few (7,662 in an
	// 18-minute run), so one append at a time costs nothing we can see.
	n.transport = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{Stream: stream, MaxPool: 3, MaxRPCsInFlight: 1, Timeout: 10 * time.Second, Logger: hl})
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(n.cfg.ID)
	rc.Logger = hl
	// A leader with no new entries still sends each follower its commit
	// index every CommitTimeout (raft's default 50 ms), reading its last
	// entry back from the log each time: an idle 3-coordinator cluster
	// spent 3% of a core on it. Entries that flow are sent at once
	// whatever this is; a follower only learns of the last commit of a
	// burst up to this much later.
	rc.CommitTimeout = 500 * time.Millisecond
	if n.cfg.Raft != nil {
		n.cfg.Raft(rc)
	}
	existing, err := raft.HasExistingState(w, w, snaps)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	logs, err := newLogStore(512, w)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if n.raft, err = raft.NewRaft(rc, n.fsm, logs, w, snaps, n.transport); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	n.watchLeader()
	if err := n.loadMembers(existing); err != nil {
		return err
	}
	if !existing && len(n.cfg.Bootstrap) > 0 {
		var servers []raft.Server
		for _, m := range n.cfg.Bootstrap {
			servers = append(servers, raft.Server{ID: raft.ServerID(m.ID), Address: raft.ServerAddress(m.RaftAddr)})
		}
		i := slices.IndexFunc(n.cfg.Bootstrap, func(m api.Member) bool { return m.ID == n.cfg.ID })
		if i < 0 {
			return fmt.Errorf("cluster: --bootstrap does not list this node (%s)", n.cfg.ID)
		}
		if self := n.self(); n.cfg.Bootstrap[i].RaftAddr != self.RaftAddr || n.peerURL(n.cfg.Bootstrap[i]) != n.peerURL(self) {
			return fmt.Errorf("cluster: --bootstrap lists %s at %s and %s, but it is reached at %s and %s (--raft-advertise, --http-advertise)",
				n.cfg.ID, n.cfg.Bootstrap[i].RaftAddr, n.peerURL(n.cfg.Bootstrap[i]), self.RaftAddr, n.peerURL(self))
		}
		if err := n.raft.BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			return fmt.Errorf("cluster: bootstrap: %w", err)
		}
		n.log.Info("bootstrapped a new cluster", "members", len(servers))
	} else if !existing {
		n.log.Warn("no raft state and no --bootstrap: waiting to be added to a cluster")
	}
	return nil
}

// serve starts the HTTP API.
func (n *Node) serve() error {
	l, err := net.Listen("tcp", n.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("cluster: HTTP API: %w", err)
	}
	if n.cfg.TLS != nil {
		l = tls.NewListener(l, n.cfg.TLS.Clone())
	}
	n.listener = l
	n.server = &http.Server{Handler: n.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(n.log.Handler(), slog.LevelWarn)}
	go n.server.Serve(l)
	self := n.self()
	n.log.Info("coordinator started", "raft", n.cfg.RaftAddr, "http", n.cfg.HTTPAddr, "raft_advertise", self.RaftAddr, "http_advertise", n.peerURL(self))
	return nil
}

// Close stops the node: the HTTP API, the loops, raft and its log. The
// data folder keeps everything a restart needs.
func (n *Node) Close() error {
	n.cancel()
	var errs []error
	if n.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, n.server.Shutdown(ctx))
		cancel()
	}
	n.wg.Wait()
	if n.raft != nil {
		errs = append(errs, n.raft.Shutdown().Error())
	}
	if n.transport != nil {
		errs = append(errs, n.transport.Close())
	}
	if n.wal != nil {
		errs = append(errs, n.wal.Close())
	}
	return errors.Join(errs...)
}

// IsLeader reports whether this node is the raft leader.
func (n *Node) IsLeader() bool { return n.raft.State() == raft.Leader }

// Serving reports whether this node is the leader and answers: it has
// applied every entry of earlier terms (until then the API answers 503).
func (n *Node) Serving() bool { return n.IsLeader() && n.ready.Load() }

// leader returns the leader's member record, if a leader is known.
func (n *Node) leader() (api.Member, bool) {
	_, id := n.raft.LeaderWithID()
	if id == "" {
		return api.Member{}, false
	}
	for _, m := range n.members() {
		if m.ID == string(id) {
			return m, true
		}
	}
	return api.Member{}, false
}

// membersFile keeps, in a node's data folder, the coordinators it was
// bootstrapped with: their HTTP addresses are not part of raft's own
// configuration, and the node needs them before the state has them.
const membersFile = "members.json"

// loadMembers records the bootstrap list in the data folder on a first
// start, or reads it back on a restart.
func (n *Node) loadMembers(existing bool) error {
	path := filepath.Join(n.cfg.DataDir, membersFile)
	if !existing && len(n.cfg.Bootstrap) > 0 {
		b, _ := json.MarshalIndent(n.cfg.Bootstrap, "", "  ")
		if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
		n.known = n.cfg.Bootstrap
		return nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = json.Unmarshal(b, &n.known)
	}
	if err != nil {
		return fmt.Errorf("cluster: %s: %w", path, err)
	}
	return nil
}

// members is the coordinators: from the replicated state, or before the
// first leader recorded them, from the bootstrap list.
func (n *Node) members() []api.Member {
	var ms []api.Member
	n.fsm.View(func(s *state.State, _ uint64) { ms = slices.Clone(s.Members) })
	if len(ms) == 0 {
		ms = n.known
	}
	return ms
}

// self is this node as the others reach it: its advertised addresses.
func (n *Node) self() api.Member {
	m := api.Member{ID: n.cfg.ID, RaftAddr: n.cfg.RaftAdvertise, HTTPAddr: n.cfg.HTTPAdvertise}
	if m.RaftAddr == "" {
		m.RaftAddr = n.cfg.RaftAddr
	}
	if m.HTTPAddr == "" {
		m.HTTPAddr = n.cfg.HTTPAddr
	}
	return m
}

// peerURL is the base URL of a coordinator's HTTP API: its address if it
// is a URL, else http:// or https:// (when this node serves TLS, so do
// the others) and its host:port.
func (n *Node) peerURL(m api.Member) string {
	if strings.Contains(m.HTTPAddr, "://") {
		return strings.TrimRight(m.HTTPAddr, "/")
	}
	if n.cfg.TLS != nil {
		return "https://" + m.HTTPAddr
	}
	return "http://" + m.HTTPAddr
}

// propose appends a command to the raft log and waits until it is
// applied; it returns the FSM's answer, with a refusal as the error.
func (n *Node) propose(c *state.Command) (any, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	f := n.raft.Apply(b, 10*time.Second)
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("cluster: proposing %s: %w", c.Op, err)
	}
	n.metrics.logBytes.Add(float64(len(b)))
	if err, ok := f.Response().(error); ok {
		return nil, err
	}
	return f.Response(), nil
}

// leaderLoop does the leader's periodic work while this node leads:
// expiring leases and starting the merges the state calls for.
func (n *Node) leaderLoop() {
	defer n.wg.Done()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var lead *leadership
	for {
		select {
		case <-n.ctx.Done():
			if lead != nil {
				lead.stop()
			}
			return
		case <-tick.C:
		case <-n.fsm.Changed():
		}
		leader := n.IsLeader()
		if lead != nil && (!leader || n.raft.CurrentTerm() != lead.term) {
			// Lost the lead, or lost it and won it again between two
			// ticks: a new term is a new leadership (its barrier, its
			// lease timers: leases granted in between are not on this
			// node's clock).
			lead.stop()
			lead = nil
			n.log.Info("no longer the leader")
		}
		if leader && lead == nil {
			lead = n.elected()
		}
		if lead != nil {
			lead.tick()
		}
	}
}

// watchLeader ends the leader epoch at every change of leader raft
// observes (a new one, or none).
func (n *Node) watchLeader() {
	ch := make(chan raft.Observation, 16)
	obs := raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	n.raft.RegisterObserver(obs)
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer n.raft.DeregisterObserver(obs)
		for {
			select {
			case <-n.ctx.Done():
				return
			case <-ch:
				n.epochMu.Lock()
				n.endEpoch()
				n.leaderEpoch, n.endEpoch = context.WithCancel(context.Background())
				n.epochMu.Unlock()
			}
		}
	}()
}

// epoch is the current leader epoch.
func (n *Node) epoch() context.Context {
	n.epochMu.Lock()
	defer n.epochMu.Unlock()
	return n.leaderEpoch
}

// diskFull reports whether err is a full disk (or quota).
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// diskIsFull is what a node does when its disk is full: it cannot record
// the work it is sent, so while it leads it hands the lead to another
// coordinator (raft's leadership transfer, to the follower most up to
// date), at most once a second. Uploads to it are refused (507), and
// clients try another coordinator.
func (n *Node) diskIsFull(err error) {
	if !n.IsLeader() {
		return
	}
	now := time.Now().UnixNano()
	if last := n.lastTransfer.Load(); now-last < int64(time.Second) || !n.lastTransfer.CompareAndSwap(last, now) {
		return
	}
	n.log.Error("this node's disk is full: handing the lead to another coordinator", "error", err)
	go func() {
		if err := n.raft.LeadershipTransfer().Error(); err != nil {
			n.log.Warn("handing the lead over", "error", err)
		}
	}()
}

// hclogWriter turns hashicorp/raft's log lines into slog records.
type hclogWriter struct{ log *slog.Logger }

func (w *hclogWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		level := slog.LevelInfo
		switch {
		case strings.Contains(line, "[ERROR]"):
			level = slog.LevelError
		case strings.Contains(line, "[WARN]"):
			level = slog.LevelWarn
		case strings.Contains(line, "[DEBUG]"), strings.Contains(line, "[TRACE]"):
			level = slog.LevelDebug
		}
		w.log.Log(context.Background(), level, strings.TrimSpace(line[strings.Index(line, "]")+1:]))
	}
	return len(p), nil
}
