package cluster

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/faultnet"
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
	binds                []Member
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
	pc.members = make([]Member, n)
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
		pc.members[j] = Member{ID: b.ID, RaftAddr: pc.raftFront[j].Addr(), HTTPAddr: "http://" + pc.httpFront[j].Addr()}
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
func (pc *proxiedCluster) clientVia(id string) *Client {
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
	cl, err := NewClient(pc.urls(), testToken, nil)
	if err != nil {
		pc.t.Fatal(err)
	}
	cl.http = peerClient(nil, pc.dialer(nil, links))
	cl.Patience = 30 * time.Second
	return cl
}

// startWorker runs a worker whose connections go through links of its own.
func (pc *proxiedCluster) startWorker(id string, threads int) (*Worker, context.CancelFunc) {
	w, err := NewWorker(WorkerConfig{Client: pc.clientVia(id), ID: id, Threads: threads, Dir: filepath.Join(pc.t.TempDir(), id),
		NewGame: games.New, Log: testLog(pc.t).With("test_worker", id), MemoryBytes: 1 << 30})
	if err != nil {
		pc.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	stop := func() { cancel(); <-done }
	pc.t.Cleanup(stop)
	return w, stop
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
	ctx := context.Background()
	id, err := cl.Submit(ctx, SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, time.Minute)
	out := t.TempDir()
	if _, err := cl.Fetch(ctx, id, out, games.New); err != nil {
		t.Fatal(err)
	}
	sameRunFolders(t, embeddedSolve(t, "tictactoe", "", false), out)

	for i, n := range pc.nodes {
		if addr, _ := n.raft.LeaderWithID(); string(addr) != pc.members[l].RaftAddr {
			t.Errorf("node %d names the leader at %q, want its advertised %q", i, addr, pc.members[l].RaftAddr)
		}
		// A follower's answer sends the client to the leader's proxy.
		req, _ := http.NewRequest("GET", "http://"+pc.binds[i].HTTPAddr+"/v1/status", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get(HeaderLeader); got != pc.members[l].HTTPAddr {
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
		self := Member{ID: "x", RaftAddr: addrs[0], HTTPAddr: addrs[1]}
		cfg := NodeConfig{ID: "x", RaftAddr: addrs[0], HTTPAddr: addrs[1], DataDir: t.TempDir(), Token: testToken,
			NewGame: games.New, Bootstrap: []Member{self}}
		tc.cfg(&cfg)
		if n, err := StartNode(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			if n != nil {
				n.Close()
			}
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
}
