package coordinator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/cluster/internal/wire"
	"github.com/tiersolve/tiersolve/cluster/worker"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/faultnet"
	"github.com/tiersolve/tiersolve/internal/poll"
)

// proxiedCluster is a cluster whose every connection goes through a fault
// proxy (internal/faultnet, toxiproxy): each coordinator listens on
// addresses of its own and advertises front proxies, which clients dial;
// each pair of coordinators talks through proxies of its own (i dials j's
// raft and HTTP through raftPair[i][j] and httpPair[i][j]), and so does
// each worker (links[id][j]).
type proxiedCluster struct {
	*testCluster
	net                  *faultnet.Net
	binds                []api.Member
	raftFront, httpFront []*faultnet.Proxy
	raftPair, httpPair   [][]*faultnet.Proxy
	links                map[string][]*faultnet.Proxy
}

// newProxiedCluster prepares n coordinators behind proxies; startAll
// starts them.
func newProxiedCluster(t *testing.T, n int, leaseTTL time.Duration) *proxiedCluster {
	pc := &proxiedCluster{testCluster: newTestCluster(t, n, leaseTTL), net: faultnet.New(), links: map[string][]*faultnet.Proxy{}}
	t.Cleanup(pc.net.Close)
	pc.binds = pc.members
	pc.members = make([]api.Member, n)
	proxy := func(name, upstream string) *faultnet.Proxy {
		p, err := pc.net.Proxy(name, upstream)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for j, b := range pc.binds {
		pc.raftFront = append(pc.raftFront, proxy(b.ID+"-raft", b.RaftAddr))
		pc.httpFront = append(pc.httpFront, proxy(b.ID+"-http", b.HTTPAddr))
		pc.members[j] = api.Member{ID: b.ID, RaftAddr: pc.raftFront[j].Addr(), HTTPAddr: "http://" + pc.httpFront[j].Addr()}
	}
	for i := range n {
		var rs, hs []*faultnet.Proxy
		for j, b := range pc.binds {
			if i == j {
				rs, hs = append(rs, pc.raftFront[j]), append(hs, pc.httpFront[j])
				continue
			}
			from := pc.binds[i].ID + "-to-" + b.ID
			rs, hs = append(rs, proxy(from+"-raft", b.RaftAddr)), append(hs, proxy(from+"-http", b.HTTPAddr))
		}
		pc.raftPair, pc.httpPair = append(pc.raftPair, rs), append(pc.httpPair, hs)
	}
	pc.configure = func(i int, cfg *NodeConfig) {
		cfg.RaftAddr, cfg.HTTPAddr = pc.binds[i].RaftAddr, pc.binds[i].HTTPAddr
		cfg.RaftAdvertise, cfg.HTTPAdvertise = pc.members[i].RaftAddr, pc.members[i].HTTPAddr
		cfg.dial = pc.dialer(pc.raftPair[i], pc.httpPair[i])
	}
	return pc
}

// dialer sends a dial of coordinator j's advertised raft or HTTP address
// through raft[j] or http[j].
func (pc *proxiedCluster) dialer(raft, http []*faultnet.Proxy) func(ctx context.Context, network, addr string) (net.Conn, error) {
	to := map[string]string{}
	for j := range pc.binds {
		if raft != nil {
			to[pc.raftFront[j].Addr()] = raft[j].Addr()
		}
		to[pc.httpFront[j].Addr()] = http[j].Addr()
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if a, ok := to[addr]; ok {
			addr = a
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
}

func (pc *proxiedCluster) urls() []string {
	var out []string
	for _, m := range pc.members {
		out = append(out, m.HTTPAddr)
	}
	return out
}

// clientVia is a client of the coordinators whose connections go through
// the links of the worker id (made on first use).
func (pc *proxiedCluster) clientVia(id string) *api.Client {
	links := pc.links[id]
	if links == nil {
		for _, b := range pc.binds {
			p, err := pc.net.Proxy(id+"-to-"+b.ID, b.HTTPAddr)
			if err != nil {
				pc.t.Fatal(err)
			}
			links = append(links, p)
		}
		pc.links[id] = links
	}
	cl, err := api.NewClient(pc.urls(), testToken, nil)
	if err != nil {
		pc.t.Fatal(err)
	}
	cl.SetTransport(wire.NewHTTPClient(nil, pc.dialer(nil, links)).Transport)
	cl.Patience = 30 * time.Second
	return cl
}

// startWorker runs a worker whose connections go through links of its own.
func (pc *proxiedCluster) startWorker(id string, threads int) (*worker.Worker, context.CancelFunc) {
	return runWorker(pc.t, worker.Config{Client: pc.clientVia(id), ID: id, Threads: threads, Dir: filepath.Join(pc.t.TempDir(), id),
		NewGame: games.New, Log: testLog(pc.t).With("test_worker", id), MemoryBytes: 1 << 30})
}

// TestAdvertise: coordinators that listen on one address and advertise a
// proxy in front of it (RaftAdvertise, HTTPAdvertise, as --raft-advertise
// and --http-advertise) are reached through the proxies only: raft names
// the leader by its proxy, clients are sent to the leader's proxy, and a
// run through them ends with tierd solve's bytes.
func TestAdvertise(t *testing.T) {
	pc := newProxiedCluster(t, 3, 5*time.Second)
	pc.startAll()
	l := pc.waitLeader()
	pc.startWorker("w1", 2)
	cl := pc.clientVia("client")
	solveThrough(t, cl, "tictactoe", "", nil)

	for i, n := range pc.nodes {
		if addr, _ := n.raft.LeaderWithID(); string(addr) != pc.members[l].RaftAddr {
			t.Errorf("node %d names the leader at %q, want its advertised %q", i, addr, pc.members[l].RaftAddr)
		}
		// A follower's answer sends the client to the leader's proxy.
		resp := request(t, "GET", "http://"+pc.binds[i].HTTPAddr+"/v1/status", testToken, nil)
		if got := resp.Header.Get(api.HeaderLeader); got != pc.members[l].HTTPAddr {
			t.Errorf("node %d sends clients to %q, want the leader's advertised %q", i, got, pc.members[l].HTTPAddr)
		}
	}

	// A bootstrap list that does not name a node as it advertises itself
	// is refused, and so is an address no one can dial.
	for _, tc := range []struct {
		name string
		cfg  func(*NodeConfig)
		want string
	}{
		{"bootstrap", func(c *NodeConfig) { c.RaftAdvertise = "127.0.0.1:1" }, "--raft-advertise"},
		{"unspecified", func(c *NodeConfig) { c.RaftAddr, c.RaftAdvertise = "0.0.0.0:"+strings.Split(c.RaftAddr, ":")[1], "" }, "--raft-advertise"},
		{"url", func(c *NodeConfig) { c.HTTPAdvertise = "ftp://x:1" }, "want http://"},
	} {
		addrs := freeAddrs(t, 2)
		self := api.Member{ID: "x", RaftAddr: addrs[0], HTTPAddr: addrs[1]}
		cfg := NodeConfig{ID: "x", RaftAddr: addrs[0], HTTPAddr: addrs[1], DataDir: t.TempDir(), Token: testToken,
			NewGame: games.New, Bootstrap: []api.Member{self}}
		tc.cfg(&cfg)
		if n, err := StartNode(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			if n != nil {
				n.Close()
			}
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
}

// cut partitions coordinator i from the coordinators others (raft and
// HTTP, both ways), and heal heals every proxy.
func (pc *proxiedCluster) cut(i int, others ...int) {
	for _, j := range others {
		for _, p := range []*faultnet.Proxy{pc.raftPair[i][j], pc.raftPair[j][i], pc.httpPair[i][j], pc.httpPair[j][i]} {
			if err := p.Cut(); err != nil {
				pc.t.Fatal(err)
			}
		}
	}
}

// cutLinks cuts worker id's links to the coordinators js.
func (pc *proxiedCluster) cutLinks(id string, js ...int) {
	for _, j := range js {
		if err := pc.links[id][j].Cut(); err != nil {
			pc.t.Fatal(err)
		}
	}
}

func (pc *proxiedCluster) healAll() {
	for _, p := range pc.allProxies() {
		if err := p.Heal(); err != nil {
			pc.t.Fatal(err)
		}
	}
}

func (pc *proxiedCluster) allProxies() []*faultnet.Proxy {
	ps := append(pc.raftFront[:len(pc.raftFront):len(pc.raftFront)], pc.httpFront...)
	for i := range pc.raftPair {
		for j := range pc.raftPair[i] {
			if i != j {
				ps = append(ps, pc.raftPair[i][j], pc.httpPair[i][j])
			}
		}
	}
	for _, links := range pc.links {
		ps = append(ps, links...)
	}
	return ps
}

// watchLeaders samples the nodes' raft states until the test ends and
// fails it if two nodes lead at once.
func (pc *proxiedCluster) watchLeaders() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	nodes := slices.Clone(pc.nodes)
	go func() {
		defer close(done)
		for wire.Sleep(ctx, time.Millisecond) {
			var leaders []string
			for _, n := range nodes {
				if n.IsLeader() {
					leaders = append(leaders, fmt.Sprintf("%s (term %d)", n.cfg.ID, n.raft.CurrentTerm()))
				}
			}
			if len(leaders) > 1 {
				pc.t.Errorf("two leaders at once: %v", leaders)
				return
			}
		}
	}()
	pc.t.Cleanup(func() { cancel(); <-done })
}

// unitOf returns the unit ref names in node n's state.
func unitOf(n *Node, ref api.UnitRef) (u state.Unit) {
	n.fsm.View(func(s *state.State, _ uint64) {
		if _, _, x := s.Unit(ref); x != nil {
			u = *x
		}
	})
	return u
}

// TestOutdatedRunFailed: a run in the replicated state that a
// coordinator of an earlier state format created (as after an upgrade in
// mid-run) is failed by the leader, saying why (state.TestFreeUnits: no
// unit of it is leased meanwhile); a run submitted now solves beside it.
func TestOutdatedRunFailed(t *testing.T) {
	c := startCluster(t, 1, 2*time.Second)
	n := c.nodes[c.waitLeader()]
	old := state.Create(&state.Run{Game: "tictactoe", Option: "", Settings: api.DefaultSettings, Created: time.Now().UTC(),
		Tiers: []*state.Tier{{Tier: 0, Name: "t0", Size: 1}}})
	old.Run.Format = 0 // as an earlier coordinator wrote it
	res, err := n.propose(old)
	if err != nil {
		t.Fatal(err)
	}
	id := res.(string)
	cl := c.client()
	ctx := context.Background()
	var r *api.Run
	poll.Until(t, "the outdated run failed", time.Minute, func() bool {
		r, err = cl.Run(ctx, id)
		return err == nil && r.State == api.Failed
	})
	if !strings.Contains(r.Error, "state format 0") || !strings.Contains(r.Error, "submit the run again") {
		t.Errorf("the outdated run failed with %q", r.Error)
	}
	fresh, err := cl.Submit(ctx, api.SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	c.startWorker("w", 1)
	waitRun(t, cl, fresh, time.Minute)
	if r, err := cl.Run(ctx, fresh); err != nil || r.Format != state.Format {
		t.Errorf("a run submitted now: format %v (%v), want %d", r.Format, err, state.Format)
	}
}

// TestNoPipelinedReplication checks that the coordinators' raft
// transport replicates one append at a time: raft's pipeline can wedge
// after a partition (hashicorp/raft#612), leaving a follower without
// entries and Shutdown waiting for ever.
func TestNoPipelinedReplication(t *testing.T) {
	c := startCluster(t, 3, 2*time.Second)
	l := c.waitLeader()
	peer := c.nodes[(l+1)%len(c.nodes)]
	_, err := c.nodes[l].transport.AppendEntriesPipeline(raft.ServerID(peer.cfg.ID), raft.ServerAddress(peer.self().RaftAddr))
	if !errors.Is(err, raft.ErrPipelineReplicationNotSupported) {
		t.Fatalf("AppendEntriesPipeline: %v, want %v", err, raft.ErrPipelineReplicationNotSupported)
	}
}

// TestPartitionedLeader: the leader is cut off from both followers (raft
// and HTTP) for more than twice the election timeout, with a worker that
// can reach only it, then healed. There is one leader at a time: the old
// one steps down (its leader lease runs out) before the others elect a
// new one. A unit the old leader leased cannot be completed through it
// (fencing: nothing commits without a majority), and once the lease has
// expired on the majority's side, its late completion is refused there
// too. After the partition the old leader is a follower of the new one,
// and the run ends with tierd solve's bytes.
func TestPartitionedLeader(t *testing.T) {
	pc := newProxiedCluster(t, 3, 2*time.Second)
	pc.startAll()
	pc.watchLeaders()
	old := pc.waitLeader()
	var others []int
	for i := range pc.nodes {
		if i != old {
			others = append(others, i)
		}
	}
	ctx := context.Background()
	admin := pc.clientVia("admin")
	id, err := admin.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4", Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}})
	if err != nil {
		t.Fatal(err)
	}
	pc.startWorker("w-old", 1)
	pc.startWorker("w-new", 2)
	poll.Until(t, "the run under way", time.Minute, func() bool {
		var reached int
		pc.nodes[old].fsm.View(func(s *state.State, _ uint64) { reached = s.Run(id).Summary().Reached })
		return reached >= 3
	})

	// A unit leased just before the cut, by a worker that then reaches
	// only the old leader.
	stale := pc.clientVia("stale")
	a, err := stale.Lease(ctx, api.LeaseRequest{Worker: "stale", Wait: 10})
	if err != nil || a == nil {
		t.Fatalf("lease: %v %v", a, err)
	}
	if u := unitOf(pc.nodes[old], a.Ref); u.Lease == nil || u.Lease.Token != a.Token {
		t.Fatalf("the unit leased before the cut is no longer leased with its token: %+v", u.Lease)
	}
	term := pc.nodes[old].raft.CurrentTerm()
	unitsDone := func(i int) (done int) {
		pc.nodes[i].fsm.View(func(s *state.State, _ uint64) { done = s.Run(id).Summary().UnitsDone })
		return done
	}
	// Progress is counted from the cut: the stale completion below may
	// take seconds, time enough for the majority to finish the run.
	before := map[int]int{}
	for _, i := range others {
		before[i] = unitsDone(i)
	}
	cutAt := time.Now()
	pc.cut(old, others...)
	pc.cutLinks("stale", others...)
	pc.cutLinks("w-old", others...)
	pc.cutLinks("w-new", old)
	electionTimeout := 600 * time.Millisecond // fastRaft
	var leader int
	poll.Until(t, "a new leader on the majority's side", time.Minute, func() bool {
		for _, i := range others {
			if pc.nodes[i].Serving() && pc.nodes[i].raft.CurrentTerm() > term {
				leader = i
				return true
			}
		}
		return false
	})
	t.Logf("new leader %s %v after the cut", pc.members[leader].ID, time.Since(cutAt))
	if pc.nodes[old].IsLeader() {
		t.Error("the old leader still leads after the others elected a new one")
	}
	// Through the old leader alone, the unit cannot be completed.
	late := []byte("a result nobody may accept")
	sum := sha256.Sum256(late)
	lateBlob := api.Blob{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(late))}
	path := filepath.Join(t.TempDir(), "late")
	os.WriteFile(path, late, 0o644)
	var outs []api.Output
	for _, c := range a.Children {
		outs = append(outs, api.Output{Tier: c, Blob: lateBlob})
	}
	req := api.CompleteRequest{Ref: a.Ref, Token: a.Token, Worker: "stale", Outputs: outs}
	func() {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		stale.PutBlob(cctx, path, lateBlob)
		if err := stale.Complete(cctx, req); err == nil {
			t.Error("a completion through the partitioned old leader was accepted")
		}
	}()
	// The majority's side goes on with the run: a worker that reached
	// the old leader first turns to the others.
	poll.Until(t, "units done on the majority's side", 2*time.Minute, func() bool { return unitsDone(leader) >= before[leader]+3 })
	t.Logf("%d units done on the majority's side %v after the cut", unitsDone(leader)-before[leader], time.Since(cutAt))
	// The partition lasts until the lease has expired on the majority's
	// side, and at least twice the election timeout.
	poll.Until(t, "the stale lease expired on the majority's side", time.Minute, func() bool {
		u := unitOf(pc.nodes[leader], a.Ref)
		return u.Lease == nil || u.Lease.Token != a.Token
	})
	for time.Since(cutAt) < 2*electionTimeout {
		time.Sleep(10 * time.Millisecond)
	}
	pc.healAll()
	t.Logf("healed after %v", time.Since(cutAt))
	poll.Until(t, "the old leader following the new one", time.Minute, func() bool {
		_, id := pc.nodes[old].raft.LeaderWithID()
		return !pc.nodes[old].IsLeader() && id != "" && string(id) != pc.members[old].ID
	})
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := stale.Complete(cctx, req); !errors.Is(err, api.ErrStale) {
		t.Errorf("the late completion after healing: %v, want it refused as stale", err)
	}
	waitRun(t, admin, id, 2*time.Minute)
	// Each node applies the run's last entries on its own time: a
	// follower (or a leader just elected after the heal) may be a few
	// entries behind the node that answered waitRun.
	for i, n := range pc.nodes {
		poll.Until(t, fmt.Sprintf("node %d applying the unit's completion", i), 30*time.Second, func() bool { return unitOf(n, a.Ref).Done != nil })
		if u := unitOf(n, a.Ref); u.Done.Token == a.Token {
			t.Errorf("node %d: the unit leased before the cut was completed with the stale token: %+v", i, u.Done)
		}
	}
	checkFetched(t, admin, id, "connect4", "width=4,height=4", false)
}

// solveThrough submits a run of game through cl, waits for it and checks
// its bytes against tierd solve's; it returns the run's time from submit
// to done.
func solveThrough(t *testing.T, cl *api.Client, game, option string, set *api.Settings) time.Duration {
	t.Helper()
	ctx := context.Background()
	t0 := time.Now()
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: game, Option: option, Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, 3*time.Minute)
	took := time.Since(t0)
	checkFetched(t, cl, id, game, option, false)
	return took
}

// TestSlowNetwork: a run on a clean network through the proxies, then on
// a slow one (50 ms ± 20 ms each way and 512 KB/s on every link: between
// the coordinators, raft and HTTP, and from the workers), then on a slow
// one whose connections are also reset at random (1% of the chunks of
// data each carries): each ends with tierd solve's bytes. Tic-tac-toe;
// Connect Four 4x4 with TIERSOLVE_LONG=1.
func TestSlowNetwork(t *testing.T) {
	pc := newProxiedCluster(t, 3, 5*time.Second)
	pc.startAll()
	pc.startWorker("w1", 2)
	pc.startWorker("w2", 1)
	cl := pc.clientVia("client")
	game, option := "tictactoe", ""
	if os.Getenv("TIERSOLVE_LONG") == "1" {
		game, option = "connect4", "width=4,height=4" // larger blobs: the bandwidth cap bites (about 2x the time)
	}
	set := &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}
	clean := solveThrough(t, cl, game, option, set)
	for _, p := range pc.allProxies() {
		if err := p.Slow(50*time.Millisecond, 20*time.Millisecond, 512<<10); err != nil {
			t.Fatal(err)
		}
	}
	slow := solveThrough(t, cl, game, option, set)
	for _, p := range pc.allProxies() {
		if err := p.ResetRandomly(0.01); err != nil {
			t.Fatal(err)
		}
	}
	before := faultnet.Resets()
	resets := solveThrough(t, cl, game, option, set)
	t.Logf("%s %s, 3 coordinators, 2 workers: clean %v, slow %v, slow with resets %v (%d connections reset)", game, option,
		clean.Round(time.Millisecond), slow.Round(time.Millisecond), resets.Round(time.Millisecond), faultnet.Resets()-before)
}

// partialUploads lists the blobs being written into node n's store (the
// temporary files of uploads under way) with the bytes each holds.
func partialUploads(n *Node) map[string]int64 {
	out := map[string]int64{}
	filepath.WalkDir(n.local.Path(strings.Repeat("0", 64)+"/../.."), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			if info, err := d.Info(); err == nil {
				out[d.Name()] = info.Size()
			}
		}
		return nil
	})
	return out
}

// TestWorkerCutMidUpload: a worker is cut off from every coordinator in
// the middle of an upload (its links slowed to 1 KB/s so that the
// leader holds part of the blob), and never comes back. Its lease
// expires, the unit is redone by another worker, the leader drops the
// partial upload, every blob the state names is whole on a majority of
// the coordinators, and the run ends with tierd solve's bytes.
func TestWorkerCutMidUpload(t *testing.T) {
	pc := newProxiedCluster(t, 3, 2*time.Second)
	pc.startAll()
	leader := pc.nodes[pc.waitLeader()]
	admin := pc.clientVia("admin")
	ctx := context.Background()
	pc.clientVia("w-cut") // its links
	for _, p := range pc.links["w-cut"] {
		if err := p.Slow(0, 0, 1000); err != nil {
			t.Fatal(err)
		}
	}
	pc.startWorker("w-cut", 1)
	id, err := admin.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4", Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}})
	if err != nil {
		t.Fatal(err)
	}
	var partial string
	poll.Until(t, "an upload under way on the leader", 2*time.Minute, func() bool {
		for name, size := range partialUploads(leader) {
			if size > 0 {
				partial = name
				return true
			}
		}
		return false
	})
	var held []api.UnitRef
	leader.fsm.View(func(s *state.State, _ uint64) {
		for ref, le := range s.Run(id).Leases {
			if le.Worker == "w-cut" {
				held = append(held, ref)
			}
		}
	})
	pc.cutLinks("w-cut", 0, 1, 2)
	t.Logf("cut w-cut off while it uploads %s, holding %v", partial, held)
	pc.startWorker("w-good", 2)
	waitRun(t, admin, id, 2*time.Minute)
	for _, ref := range held {
		if u := unitOf(leader, ref); u.Done == nil || u.Done.Worker == "w-cut" {
			t.Errorf("unit %v: %+v, want it redone by another worker", ref, u.Done)
		}
	}
	poll.Until(t, "the partial upload dropped", time.Minute, func() bool {
		_, ok := partialUploads(leader)[partial]
		return !ok
	})
	// Every blob a completion names is whole on a majority.
	var named []api.Blob
	leader.fsm.View(func(s *state.State, _ uint64) {
		for _, tr := range s.Run(id).Tiers {
			for _, u := range append(tr.Reach[:len(tr.Reach):len(tr.Reach)], tr.Solve...) {
				for _, o := range u.Done.Outputs {
					named = append(named, o.Blob)
				}
			}
			named = append(named, tr.Level.Blob, tr.DB.Blob)
		}
	})
	for _, b := range named {
		whole := 0
		for _, n := range pc.nodes {
			if size, err := n.local.Stat(b.SHA256); err == nil && size == b.Size {
				whole++
			}
		}
		if whole < 2 {
			t.Errorf("blob %s (%d bytes) is whole on %d coordinators", b.SHA256, b.Size, whole)
		}
	}
	checkFetched(t, admin, id, "connect4", "width=4,height=4", false)
}
