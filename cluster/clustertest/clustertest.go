// Package clustertest starts a whole cluster on this machine: coordinators
// and workers in this process, on loopback TCP, with their data in a
// folder. It is for benchmarks and for tests of code that drives a
// cluster, as net/http/httptest is for HTTP servers.
package clustertest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator"
	"github.com/tiersolve/tiersolve/cluster/worker"
	"github.com/tiersolve/tiersolve/internal/freeport"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Token is the shared secret of the clusters this package starts.
const Token = "clustertest-token-0123456789abcdef"

// Config configures a cluster.
type Config struct {
	// NewGame builds games (games.New).
	NewGame func(name, option string) (tiergame.Game, error)
	// LeaseTTL of the coordinators; 0 means api.DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Log receives every node's records; nil discards them.
	Log *slog.Logger
}

// Cluster is coordinators and workers in this process.
type Cluster struct {
	cfg     Config
	dir     string
	Members []api.Member
	Nodes   []*coordinator.Node

	mu      sync.Mutex
	workers []*runningWorker
}

type runningWorker struct {
	w      *worker.Worker
	cancel context.CancelFunc
	done   chan struct{}
}

// Start starts n coordinators with their data under dir and waits for a
// leader that answers (coordinator.Node.Serving).
func Start(dir string, n int, cfg Config) (*Cluster, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	c := &Cluster{cfg: cfg, dir: dir}
	addrs, err := freeport.Addrs(2 * n)
	if err != nil {
		return nil, err
	}
	for i := range n {
		c.Members = append(c.Members, api.Member{ID: fmt.Sprintf("c%d", i+1), RaftAddr: addrs[2*i], HTTPAddr: addrs[2*i+1]})
	}
	for _, m := range c.Members {
		node, err := coordinator.StartNode(coordinator.NodeConfig{ID: m.ID, RaftAddr: m.RaftAddr, HTTPAddr: m.HTTPAddr,
			DataDir: filepath.Join(dir, m.ID), Token: Token, Bootstrap: c.Members, NewGame: cfg.NewGame,
			LeaseTTL: cfg.LeaseTTL, Log: cfg.Log.With("node", m.ID), Raft: loopbackRaft})
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Nodes = append(c.Nodes, node)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for c.Leader() == nil || !c.Leader().Serving() {
		select {
		case <-ctx.Done():
			c.Close()
			return nil, errors.New("clustertest: no leader serving within 2 minutes")
		case <-time.After(10 * time.Millisecond):
		}
	}
	return c, nil
}

// loopbackRaft shortens raft's timeouts, for a cluster on one machine.
func loopbackRaft(rc *raft.Config) {
	rc.HeartbeatTimeout = 500 * time.Millisecond
	rc.ElectionTimeout = 500 * time.Millisecond
	rc.LeaderLeaseTimeout = 250 * time.Millisecond
	rc.CommitTimeout = 5 * time.Millisecond
}

// Leader is the leading coordinator, or nil.
func (c *Cluster) Leader() *coordinator.Node {
	for _, n := range c.Nodes {
		if n != nil && n.IsLeader() {
			return n
		}
	}
	return nil
}

// URLs are the coordinators' base URLs.
func (c *Cluster) URLs() []string {
	var out []string
	for _, m := range c.Members {
		out = append(out, "http://"+m.HTTPAddr)
	}
	return out
}

// Client returns a client of the coordinators.
func (c *Cluster) Client() *api.Client {
	cl, err := api.NewClient(c.URLs(), Token, nil)
	if err != nil {
		panic(err) // the URLs and token are ours
	}
	cl.Patience = 30 * time.Second
	return cl
}

// StartWorker starts a worker with threads threads; it runs until Close.
func (c *Cluster) StartWorker(id string, threads int) (*worker.Worker, error) {
	w, err := worker.New(worker.Config{Client: c.Client(), ID: id, Threads: threads,
		Dir: filepath.Join(c.dir, "worker-"+id), NewGame: c.cfg.NewGame, Log: c.cfg.Log.With("worker", id)})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	rw := &runningWorker{w: w, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(rw.done)
		w.Run(ctx)
	}()
	c.mu.Lock()
	c.workers = append(c.workers, rw)
	c.mu.Unlock()
	return w, nil
}

// Wait polls until run id is done, and fails if it fails.
func (c *Cluster) Wait(ctx context.Context, id string) (*api.RunSummary, error) {
	return c.Client().WaitRun(ctx, id, 20*time.Millisecond)
}

// Close stops the workers and the coordinators.
func (c *Cluster) Close() error {
	c.mu.Lock()
	ws := c.workers
	c.workers = nil
	c.mu.Unlock()
	for _, w := range ws {
		w.cancel()
		<-w.done
	}
	var errs []error
	for _, n := range c.Nodes {
		if n != nil {
			errs = append(errs, n.Close())
		}
	}
	return errors.Join(errs...)
}
