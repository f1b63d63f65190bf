package coordinator

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/worker"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/freeport"
	"github.com/tiersolve/tiersolve/internal/poll"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// testToken is the shared secret of the test clusters.
const testToken = "test-token-0123456789abcdef"

// freeAddrs returns n loopback addresses with free ports.
func freeAddrs(t testing.TB, n int) []string {
	addrs, err := freeport.Addrs(n)
	if err != nil {
		t.Fatal(err)
	}
	return addrs
}

// fastRaft shortens raft's timeouts for tests on loopback.
func fastRaft(c *raft.Config) {
	c.HeartbeatTimeout = 600 * time.Millisecond
	c.ElectionTimeout = 600 * time.Millisecond
	c.LeaderLeaseTimeout = 300 * time.Millisecond
	c.CommitTimeout = 5 * time.Millisecond
}

// testCluster is coordinators in this process, on real TCP and disks.
type testCluster struct {
	t       testing.TB
	members []api.Member
	dirs    []string
	nodes   []*Node
	leaseTT time.Duration
	// serverTLS and clientTLS, when set, serve the API over HTTPS.
	serverTLS, clientTLS *tls.Config
	// configure, when set, changes node i's configuration before it starts.
	configure func(i int, cfg *NodeConfig)
}

func testLog(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.New(slog.DiscardHandler)
}

func startCluster(t testing.TB, n int, leaseTTL time.Duration) *testCluster {
	return startClusterTLS(t, n, leaseTTL, nil, nil)
}

// startClusterTLS starts a cluster whose API is served with serverTLS and
// reached with clientTLS (both nil: plain HTTP).
func startClusterTLS(t testing.TB, n int, leaseTTL time.Duration, serverTLS, clientTLS *tls.Config) *testCluster {
	c := newTestCluster(t, n, leaseTTL)
	c.serverTLS, c.clientTLS = serverTLS, clientTLS
	c.startAll()
	return c
}

// newTestCluster prepares a cluster of n coordinators on free ports, not
// started yet.
func newTestCluster(t testing.TB, n int, leaseTTL time.Duration) *testCluster {
	addrs := freeAddrs(t, 2*n)
	c := &testCluster{t: t, leaseTT: leaseTTL}
	for i := range n {
		c.members = append(c.members, api.Member{ID: fmt.Sprintf("c%d", i+1), RaftAddr: addrs[2*i], HTTPAddr: addrs[2*i+1]})
		c.dirs = append(c.dirs, t.TempDir())
	}
	c.nodes = make([]*Node, n)
	return c
}

// startAll bootstraps every node and waits for a leader.
func (c *testCluster) startAll() {
	for i := range c.nodes {
		c.start(i, true)
	}
	c.t.Cleanup(c.stop)
	c.waitLeader()
}

func (c *testCluster) start(i int, bootstrap bool) {
	c.startFull(i, bootstrap, fastRaft)
}

// startWith restarts node i (no bootstrap) with a raft configuration.
func (c *testCluster) startWith(i int, rc func(*raft.Config)) {
	c.startFull(i, false, rc)
}

func (c *testCluster) startFull(i int, bootstrap bool, rc func(*raft.Config)) {
	m := c.members[i]
	cfg := NodeConfig{ID: m.ID, RaftAddr: m.RaftAddr, HTTPAddr: m.HTTPAddr, DataDir: c.dirs[i], Token: testToken,
		NewGame: games.New, LeaseTTL: c.leaseTT, Raft: rc, Log: testLog(c.t).With("test_node", m.ID), Workers: 2, RepairDelay: time.Second,
		TLS: c.serverTLS, PeerTLS: c.clientTLS}
	if bootstrap {
		cfg.Bootstrap = c.members
	}
	if c.configure != nil {
		c.configure(i, &cfg)
	}
	n, err := StartNode(cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	c.nodes[i] = n
}

func (c *testCluster) stopNode(i int) {
	if c.nodes[i] != nil {
		c.nodes[i].Close()
		c.nodes[i] = nil
	}
}

// stopFollower stops a follower of a three-node cluster (the third node,
// or the second if the third leads) and returns its index.
func (c *testCluster) stopFollower() int {
	i := 2
	if c.nodes[i].IsLeader() {
		i = 1
	}
	c.stopNode(i)
	return i
}

func (c *testCluster) stop() {
	for i := range c.nodes {
		c.stopNode(i)
	}
}

// waitLeader waits for a leader and returns its index.
func (c *testCluster) waitLeader() int {
	leader := -1
	poll.Until(c.t, "a leader", time.Minute, func() bool {
		for i, n := range c.nodes {
			if n != nil && n.IsLeader() {
				leader = i
				return true
			}
		}
		return false
	})
	return leader
}

func (c *testCluster) urls() []string {
	var out []string
	scheme := "http://"
	if c.serverTLS != nil {
		scheme = "https://"
	}
	for _, m := range c.members {
		out = append(out, scheme+m.HTTPAddr)
	}
	return out
}

func (c *testCluster) client() *api.Client {
	cl, err := api.NewClient(c.urls(), testToken, c.clientTLS)
	if err != nil {
		c.t.Fatal(err)
	}
	cl.Patience = 30 * time.Second
	return cl
}

// startWorker runs a worker until the test ends; it returns a stop
// function that cancels it.
func (c *testCluster) startWorker(id string, threads int) (*worker.Worker, context.CancelFunc) {
	return c.startWorkerWith(id, threads, nil)
}

// startWorkerWith starts a worker whose configuration set changes.
func (c *testCluster) startWorkerWith(id string, threads int, set func(*worker.Config)) (*worker.Worker, context.CancelFunc) {
	cfg := worker.Config{Client: c.client(), ID: id, Threads: threads, Dir: c.t.TempDir(), NewGame: games.New,
		Log: testLog(c.t).With("test_worker", id), MemoryBytes: 1 << 30}
	if set != nil {
		set(&cfg)
	}
	return runWorker(c.t, cfg)
}

// runWorker runs a worker of cfg until the test ends; it returns the
// worker and a function that stops it (cancels it and waits for it).
func runWorker(t testing.TB, cfg worker.Config) (*worker.Worker, context.CancelFunc) {
	t.Helper()
	w, err := worker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return w, stop
}

// waitRun waits for the run to be done, or fails the test showing the
// run's tiers.
func waitRun(t testing.TB, cl *api.Client, id string, limit time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if _, err := cl.WaitRun(ctx, id, 100*time.Millisecond); err != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if run, rerr := cl.Run(sctx, id); rerr == nil {
			for _, tr := range run.Tiers {
				t.Logf("tier %d %s: %s reach %s solve %s", tr.Tier, tr.Name, tr.Phase(), unitsString(tr.Reach), unitsString(tr.Solve))
			}
		}
		t.Fatal(err)
	}
}

// solvedCluster is 3 coordinators and a worker that have solved a game.
func solvedCluster(t testing.TB, game, option, worker string) (*testCluster, *api.Client, string) {
	c := startCluster(t, 3, 5*time.Second)
	c.startWorker(worker, 2)
	cl := c.client()
	id, err := cl.Submit(context.Background(), api.SubmitRequest{Game: game, Option: option})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, time.Minute)
	return c, cl, id
}

// embeddedSolve runs tierd solve's code in a folder and returns it: once
// per game, option and symmetry for the package's tests, which only read
// it.
func embeddedSolve(t testing.TB, game, option string, symmetry bool) string {
	embeddedMu.Lock()
	defer embeddedMu.Unlock()
	key := fmt.Sprintf("%s %s %v", game, option, symmetry)
	if dir, ok := embeddedRuns[key]; ok {
		return dir
	}
	g, err := games.New(game, option)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "coordinator-embedded")
	if err != nil {
		t.Fatal(err)
	}
	r, err := solver.Open(solver.Config{Game: g, Dir: dir, Workers: 2, Symmetry: symmetry})
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Reach(ctx); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	if err := r.Solve(ctx); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	embeddedRuns[key] = dir
	return dir
}

// embeddedRuns are embeddedSolve's folders (a dozen tests compare with
// Connect Four 4x4 or tic-tac-toe, a solve of seconds under the race
// detector). TestMain removes them.
var (
	embeddedMu   sync.Mutex
	embeddedRuns = map[string]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range embeddedRuns {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// checkFetched fetches run id through cl into a new folder and checks it
// against tierd solve's run of game, option and symmetry
// (sameRunFolders); it returns the fetched manifest.
func checkFetched(t testing.TB, cl *api.Client, id, game, option string, symmetry bool) *runfolder.Manifest {
	t.Helper()
	out := t.TempDir()
	m, err := cl.Fetch(context.Background(), id, out, games.New)
	if err != nil {
		t.Fatal(err)
	}
	sameRunFolders(t, embeddedSolve(t, game, option, symmetry), out)
	return m
}

// sameRunFolders compares two run folders: every level file decompressed
// and compressed, every database byte for byte, and the manifests.
func sameRunFolders(t testing.TB, want, got string) {
	t.Helper()
	wm, err := runfolder.LoadManifest(want)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := runfolder.LoadManifest(got)
	if err != nil {
		t.Fatal(err)
	}
	for i, wt := range wm.Tiers {
		gt := gm.Tiers[i]
		wl, gl := readFile(t, want, wt.Level.Path), readFile(t, got, gt.Level.Path)
		if !bytes.Equal(gunzip(t, wl), gunzip(t, gl)) {
			t.Errorf("tier %d: level files differ after gunzip", wt.Tier)
		}
		if !bytes.Equal(wl, gl) {
			t.Errorf("tier %d: level files differ", wt.Tier)
		}
		if !bytes.Equal(readFile(t, want, wt.DB.Path), readFile(t, got, gt.DB.Path)) {
			t.Errorf("tier %d: value databases differ", wt.Tier)
		}
		if (wt.Planes == nil) != (gt.Planes == nil) || wt.Planes != nil && !bytes.Equal(readFile(t, want, wt.Planes.Path), readFile(t, got, gt.Planes.Path)) {
			t.Errorf("tier %d: databases of planes differ", wt.Tier)
		}
	}
	if a, b := readFile(t, want, runfolder.ManifestName), readFile(t, got, runfolder.ManifestName); !bytes.Equal(a, b) {
		t.Errorf("manifests differ:\n%s\n----\n%s", a, b)
	}
}

func readFile(t testing.TB, dir, rel string) []byte {
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gunzip(t testing.TB, b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClusterMatchesEmbedded: 3 coordinators and 2 workers in this
// process solve each game, with and without symmetry; the fetched folder
// is the embedded run's bytes. One worker writes its partial level files
// stored, the other compressed (worker.Config.CompressPartials), and the
// merges take both. Under the race detector, one run of each
// kind of tier (loop-free, loopy, symmetric): the race detector makes
// each run many times slower, and .ci/run runs them all without it.
func TestClusterMatchesEmbedded(t *testing.T) {
	for _, tc := range []struct {
		game, option string
		symmetry     bool
		underRace    bool
	}{
		{"tictactoe", "", false, true},
		{"quixo", "size=3", false, false},
		{"connect4", "width=4,height=4", false, true},
		{"quixo", "size=3", true, true},
		{"connect4", "width=4,height=4", true, false},
	} {
		if race.Enabled && !tc.underRace {
			continue
		}
		name := tc.game
		if tc.symmetry {
			name += "-symmetry"
		}
		t.Run(name, func(t *testing.T) {
			c := startCluster(t, 3, 5*time.Second)
			c.startWorker("w1", 2)
			c.startWorkerWith("w2", 1, func(cfg *worker.Config) { cfg.CompressPartials = true })
			cl := c.client()
			ctx := context.Background()
			id, err := cl.Submit(ctx, api.SubmitRequest{Game: tc.game, Option: tc.option, Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6, Symmetry: tc.symmetry}})
			if err != nil {
				t.Fatal(err)
			}
			waitRun(t, cl, id, 2*time.Minute)
			if tc.game == "connect4" {
				checkPartialKinds(t, c, cl, id)
			}
			checkFetched(t, cl, id, tc.game, tc.option, tc.symmetry)
		})
	}
}

// TestProvisionalLeases: a cluster with one worker of one thread starts
// each tier's solving before the last units of its child tier are
// recorded (provisional leases); the fetched folder is the embedded
// run's.
func TestProvisionalLeases(t *testing.T) {
	for _, symmetry := range []bool{false, true} {
		t.Run(fmt.Sprint("symmetry=", symmetry), func(t *testing.T) {
			c := startCluster(t, 3, 5*time.Second)
			w, _ := c.startWorker("w", 1)
			cl := c.client()
			ctx := context.Background()
			settings := api.DefaultSettings
			settings.MinRange, settings.Symmetry = 64, symmetry
			id, err := cl.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4", Settings: &settings})
			if err != nil {
				t.Fatal(err)
			}
			waitRun(t, cl, id, 2*time.Minute)
			checkFetched(t, cl, id, "connect4", "width=4,height=4", symmetry)
			if w.Provisional.Load() == 0 {
				t.Error("no unit leased provisionally")
			}
		})
	}
}

// checkPartialKinds checks that run id's expansion units left partial
// level files of both kinds, by their workers: w1's stored (the first
// deflate block of each a stored block), w2's compressed (some of them
// begin with a Huffman-coded block).
func checkPartialKinds(t *testing.T, c *testCluster, cl *api.Client, id string) {
	t.Helper()
	run, err := cl.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]map[bool]int{} // worker → compressed → files
	for _, tr := range run.Tiers {
		for _, u := range tr.Reach {
			if u.Done == nil {
				continue
			}
			for _, o := range u.Done.Outputs {
				var b []byte
				for _, n := range c.nodes {
					if b, err = os.ReadFile(n.local.Path(o.Blob.SHA256)); err == nil {
						break
					}
				}
				// A gzip header of 10 bytes (no optional fields), then
				// the first deflate block: BTYPE is bits 1-2 of its first
				// byte, 0 for a stored block.
				if len(b) < 11 || b[0] != 0x1f || b[1] != 0x8b || b[3] != 0 {
					t.Fatalf("%s's partial %s is not a level file as written (%d bytes)", u.Done.Worker, o.Blob.SHA256, len(b))
				}
				if kinds[u.Done.Worker] == nil {
					kinds[u.Done.Worker] = map[bool]int{}
				}
				kinds[u.Done.Worker][b[10]>>1&3 != 0]++
			}
		}
	}
	if kinds["w1"][true] > 0 || kinds["w1"][false] == 0 || kinds["w2"][true] == 0 {
		t.Errorf("partials by worker, compressed or not: %v; want w1's all stored and some of w2's compressed", kinds)
	}
}

func unitsString(us []*api.Unit) string {
	var b strings.Builder
	for _, u := range us {
		switch {
		case u.Done != nil:
			b.WriteString("D")
		case u.Lease != nil:
			fmt.Fprintf(&b, "L(%s,%d)", u.Lease.Worker, u.Lease.Token)
		default:
			b.WriteString(".")
		}
	}
	return b.String()
}

// TestLoopyPartsMatchEmbedded: every loopy tier solved in 3 parts on 3
// workers (api.Settings.LoopyRanges), in rounds through the replicated
// state, their first passes in sub-parts (Level.FirstParts: four a worker
// thread), with notes and checkpoints through the artifact store: the
// fetched folder is the embedded run's bytes, the parts' notes and
// checkpoints are gone from the store once their tiers are solved, and
// the status page and the metrics show the parts. Under the race
// detector, Quixo 3x3 alone (.ci/run runs both without it).
func TestLoopyPartsMatchEmbedded(t *testing.T) {
	for _, tc := range []struct {
		game, option string
		underRace    bool
	}{
		{"quixo", "size=3", true},
		{"xiangqi", "material=KRvKA", false},
	} {
		if race.Enabled && !tc.underRace {
			continue
		}
		t.Run(tc.game, func(t *testing.T) {
			c := newTestCluster(t, 3, 5*time.Second)
			// Blobs no run refers to are deleted once 3 s old.
			c.configure = func(_ int, cfg *NodeConfig) { cfg.BlobGrace = 3 * time.Second }
			c.startAll()
			for _, w := range []string{"w1", "w2", "w3"} {
				c.startWorker(w, 1)
			}
			cl := c.client()
			ctx := context.Background()
			id, err := cl.Submit(ctx, api.SubmitRequest{Game: tc.game, Option: tc.option, Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6, LoopyRanges: 3}})
			if err != nil {
				t.Fatal(err)
			}
			waitRun(t, cl, id, 2*time.Minute)
			run, err := cl.Run(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			parted, subs := 0, 0
			for _, tr := range run.Tiers {
				if tr.Parts != nil {
					parted++
					if len(tr.Level.FirstParts) > len(tr.Level.Parts) {
						subs++ // its first passes made a sub-part a unit, then gathered
					}
					if tr.Parts.Phase != api.PartsDone || len(tr.Solve) != len(tr.Level.Parts)-1 {
						t.Errorf("tier %d: parts %+v, %d solve units", tr.Tier, tr.Parts, len(tr.Solve))
					}
				}
			}
			if parted == 0 || subs == 0 {
				t.Fatalf("%d tiers solved in parts, %d of them with their first passes in sub-parts", parted, subs)
			}
			onlyResultsStored(t, c, run)
			// The status page and the metrics show the parts.
			page, metrics := leaderGet(t, c, "/"), leaderGet(t, c, "/metrics")
			if !strings.Contains(page, "3 parts") || !strings.Contains(page, "child notes ") || !strings.Contains(page, "· notes ") {
				t.Error("the status page does not show the tiers' parts")
			}
			if !regexp.MustCompile(`(?m)^tierd_parts_notes_bytes [1-9]`).MatchString(metrics) || !strings.Contains(metrics, "tierd_parts_level -1") ||
				!regexp.MustCompile(`(?m)^tierd_parts_kid_notes [1-9]`).MatchString(metrics) {
				t.Error("the metrics do not count the notes of the child tiers or those exchanged, or show a level after the run")
			}
			checkFetched(t, cl, id, tc.game, tc.option, false)
		})
	}
}

// TestPartsKeptOffMemory: a worker whose memory keeps no more than the
// part it ran last between rounds (one worker, three parts, a cache of a
// byte) keeps each other on its disk as the memory drops it, and reads it
// back for its next round: no part is restored from a checkpoint but
// after its sub-parts' first passes. With its disk refusing them (its
// spill folder a file), it restores them from their checkpoints every
// round instead, and writes a checkpoint whenever it replayed a round, so
// no round replays more than two: one the part ran from memory (the one
// it ran last runs first: Parts.order), and one restored from the round
// before's checkpoint, which writes none. Either way the run is the
// embedded solve's, byte for byte.
func TestPartsKeptOffMemory(t *testing.T) {
	if race.Enabled {
		// Single-threaded restores, a minute under -race: .ci/run runs it
		// without (TestClusterLoopyParts restores parts under -race).
		t.Skip("run without -race")
	}
	for _, spill := range []bool{true, false} {
		t.Run(fmt.Sprintf("spill=%v", spill), func(t *testing.T) {
			c := newTestCluster(t, 3, 5*time.Second)
			c.startAll()
			logs := &syncBuffer{}
			var dir string
			c.startWorkerWith("w1", 1, func(cfg *worker.Config) {
				cfg.MemoryBytes = 1
				cfg.Log = slog.New(slog.NewJSONHandler(logs, nil))
				dir = cfg.Dir
			})
			if !spill {
				folder := filepath.Join(dir, "spill")
				if err := os.RemoveAll(folder); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(folder, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cl := c.client()
			ctx := context.Background()
			id, err := cl.Submit(ctx, api.SubmitRequest{Game: "quixo", Option: "size=3", Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6, LoopyRanges: 3}})
			if err != nil {
				t.Fatal(err)
			}
			waitRun(t, cl, id, 2*time.Minute)
			restores, spills, most := 0, 0, 0
			for line := range strings.Lines(logs.String()) {
				var rec struct {
					Msg      string `json:"msg"`
					Replayed int    `json:"replayed_rounds"`
				}
				switch {
				case json.Unmarshal([]byte(line), &rec) != nil:
				case strings.HasPrefix(rec.Msg, "took a part over from its checkpoint"):
					restores++
					most = max(most, rec.Replayed)
				case strings.HasPrefix(rec.Msg, "kept a part on disk"):
					spills++
				}
			}
			switch {
			case spill && (spills < 10 || restores > 0):
				t.Fatalf("%d parts kept on disk, %d restored from a checkpoint: want them all kept on disk", spills, restores)
			case !spill && (restores < 10 || spills > 0):
				t.Fatalf("%d parts restored, %d kept on disk: the case does not check the restores", restores, spills)
			case most > 2:
				t.Errorf("a part replayed %d rounds from its checkpoint: a round that replays must write a checkpoint", most)
			}
			checkFetched(t, cl, id, "quixo", "size=3", false)
		})
	}
}

// leaderGet reads path from the leader's HTTP API, with the admin token.
func leaderGet(t *testing.T, c *testCluster, path string) string {
	t.Helper()
	for _, n := range c.nodes {
		if n == nil || !n.IsLeader() {
			continue
		}
		_, b := send(t, "GET", "http://"+n.cfg.HTTPAddr+path, testToken, nil)
		return string(b)
	}
	t.Fatal("no leader")
	return ""
}

// onlyResultsStored waits until every coordinator's store holds the
// run's level files and databases and nothing else: the units' outputs,
// notes and checkpoints are deleted once the run no longer needs them.
func onlyResultsStored(t *testing.T, c *testCluster, run *api.Run) {
	t.Helper()
	want := map[string]bool{}
	for _, tr := range run.Tiers {
		if tr.Level != nil {
			want[tr.Level.Blob.SHA256] = true
		}
		if tr.DB != nil {
			want[tr.DB.Blob.SHA256] = true
		}
	}
	var extra []string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		extra = nil
		for _, dir := range c.dirs {
			filepath.WalkDir(filepath.Join(dir, "blobs"), func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && len(d.Name()) == 64 && !want[d.Name()] {
					extra = append(extra, path)
				}
				return nil
			})
		}
		if len(extra) == 0 {
			return
		}
	}
	t.Errorf("%d blobs the run no longer needs are still stored, as %s", len(extra), extra[0])
}

// TestLoopyPartsBlocked: the units of a loopy tier too large for the
// only worker's budget (its closing, then its parts) are not leased to
// it, and the status says why. Submitted while that worker is present,
// the run is refused, with the least budget that would do.
func TestLoopyPartsBlocked(t *testing.T) {
	c := startCluster(t, 1, 5*time.Second)
	cl := c.client()
	ctx := context.Background()
	settings := &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6, LoopyRanges: 3}
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: "quixo", Option: "size=3", Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	c.startWorkerWith("small", 1, func(cfg *worker.Config) { cfg.Budget = 1 << 20 })
	var blocked string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && blocked == ""; time.Sleep(100 * time.Millisecond) {
		st, err := cl.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		blocked = st.Run(id).Blocked
	}
	if !strings.Contains(blocked, "needs about") || !strings.Contains(blocked, "largest worker budget (1.0 MiB)") {
		t.Fatalf("blocked: %q", blocked)
	}
	run, err := cl.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	estimated := func(u *api.Unit) bool {
		return (u.Kind == api.Close || u.Kind == api.SolveTier || u.Kind == api.KidNotes || u.Kind == api.Part) && (u.Lease != nil || u.Done != nil)
	}
	for _, tr := range run.Tiers {
		if slices.ContainsFunc(tr.Reach, estimated) || slices.ContainsFunc(tr.Solve, estimated) ||
			tr.Parts != nil && slices.ContainsFunc(tr.Parts.Units, estimated) {
			t.Errorf("tier %d: a unit leased to a worker too small for it", tr.Tier)
		}
	}
	_, err = cl.Submit(ctx, api.SubmitRequest{Game: "quixo", Option: "size=3", Settings: settings})
	var he *api.HTTPError
	if !errors.As(err, &he) || he.Code != http.StatusBadRequest || !strings.Contains(he.Msg, "needs workers of at least 3") || !strings.Contains(he.Msg, "the largest present has 1.0 MiB") {
		t.Errorf("a run submitted while only a worker too small for it is present: %v", err)
	}
}

// TestRulesSolvedWhole: xiangqi under its rules of play (rules=chessdb)
// submitted with every loopy tier in 3 parts: the tiers the rules judge
// are solved whole (the rules read the whole tier's values), the others
// in parts, and the fetched folder is the embedded run's bytes, the
// rules' decisions included.
func TestRulesSolvedWhole(t *testing.T) {
	const game, option = "xiangqi", "material=KRvKN,rules=chessdb"
	c := newTestCluster(t, 1, 5*time.Second)
	c.startAll()
	c.startWorker("w1", 2)
	cl := c.client()
	ctx := context.Background()
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: game, Option: option, Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6, LoopyRanges: 3}})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, 3*time.Minute)
	run, err := cl.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	g, err := games.New(game, option)
	if err != nil {
		t.Fatal(err)
	}
	j := g.(tiergame.Judge)
	judged := 0
	for _, tr := range run.Tiers {
		if j.Judges(tiergame.Tier(tr.Tier)) && tr.Level.Reachable > 0 {
			judged++
			if tr.Parts != nil || len(tr.Level.Parts) > 0 {
				t.Errorf("tier %s, judged by the rules, was cut into parts", tr.Name)
			}
		}
	}
	if judged == 0 {
		t.Fatal("no tier the rules judge")
	}
	checkFetched(t, cl, id, game, option, false)
}

// TestClosingByRanges: every loopy tier's closing cut into 3 ranges of
// its hashes (api.Settings.CloseRanges), each a unit on its own worker,
// in rounds with notes between them, until a round sends none: the
// fetched folder is the embedded run's bytes, and the tiers' closings
// took more than one round. In Quixo's run, a worker stops while it holds
// a range of a later round, and another runs that round of the range.
func TestClosingByRanges(t *testing.T) {
	for _, tc := range []struct {
		game, option string
		stop         bool
	}{{"quixo", "size=3", true}, {"dshogi", "pieces=LC", false}} {
		t.Run(tc.game, func(t *testing.T) {
			c := newTestCluster(t, 3, 2*time.Second)
			c.startAll()
			stops := map[string]context.CancelFunc{}
			for _, w := range []string{"w1", "w2", "w3"} {
				_, stops[w] = c.startWorker(w, 1)
			}
			cl := c.client()
			ctx := context.Background()
			id, err := cl.Submit(ctx, api.SubmitRequest{Game: tc.game, Option: tc.option, Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6, CloseRanges: 3}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.stop {
				var holder string
				poll.Until(t, "a range of a later round leased", time.Minute, func() bool {
					run, err := cl.Run(ctx, id)
					if err != nil {
						return false
					}
					for _, tr := range run.Tiers {
						for i, u := range tr.Reach {
							if u.Kind == api.CloseRange && i >= 3 && u.Lease != nil {
								holder = u.Lease.Worker
								return true
							}
						}
					}
					return false
				})
				stops[holder]()
				t.Logf("stopped worker %s holding a range of a later round", holder)
				c.startWorker("w4", 1)
			}
			waitRun(t, cl, id, 2*time.Minute)
			run, err := cl.Run(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			ranged, rounds := 0, 0
			workers := map[string]bool{}
			for _, tr := range run.Tiers {
				if len(tr.Reach) == 0 || tr.Reach[0].Kind != api.CloseRange {
					continue
				}
				ranged++
				if len(tr.Reach)%3 != 0 {
					t.Errorf("tier %s: %d closing units, not whole rounds of 3", tr.Name, len(tr.Reach))
				}
				rounds = max(rounds, len(tr.Reach)/3)
				for _, u := range tr.Reach {
					if u.Done != nil {
						workers[u.Done.Worker] = true
					}
				}
			}
			t.Logf("%d tiers closed by ranges, in up to %d rounds, on %d workers", ranged, rounds, len(workers))
			if ranged == 0 || rounds < 2 || len(workers) < 2 {
				t.Errorf("%d tiers closed by ranges, in up to %d rounds, on %d workers", ranged, rounds, len(workers))
			}
			checkFetched(t, cl, id, tc.game, tc.option, false)
		})
	}
}
