package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/poll"
)

// The golden files of cluster/testdata/golden hold what the cluster shows the
// world: the JSON answers of its HTTP API (api/), and a raft snapshot and
// the commands of a raft log (raft/). They were written by the code before
// the cluster was cut into packages of their own (issue 33), and every
// later version must answer, restore and re-encode them byte for byte.
// `go test ./cluster/coordinator -run TestAPIGolden -update` writes them again: do so only for
// a change of the API or of the formats that is meant, and say so.
var update = flag.Bool("update", false, "write the golden files of testdata/golden again")

const goldenDir = "../testdata/golden"

// volatile are the values of an answer that change from one run to the
// next, each replaced by a placeholder of the same JSON type before the
// comparison: times, durations and rates; the addresses of the nodes and
// workers (free ports); raft indexes (a lease's token, the applied
// index, a run's id r<index>) and what counts the log's bytes and
// commands, which follow the indexes' digits and the leader's timing.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"(created|finished|last_seen)":"[^"]*"`), `"$1":"<time>"`},
	{regexp.MustCompile(`"(seconds|positions_per_second)":[-+.eE0-9]+`), `"$1":0`},
	{regexp.MustCompile(`"(token|applied_index|log_bytes|commands)":[0-9]+`), `"$1":0`},
	{regexp.MustCompile(`"(addr|http_addr|raft_addr)":"[^"]*"`), `"$1":"<addr>"`},
	{regexp.MustCompile(`([{"/ ])r[0-9]+\b`), `${1}r*`},
	{regexp.MustCompile(`token [0-9]+`), `token *`},
	// The games this binary has, in the answer to an unknown one.
	{regexp.MustCompile(`\(known: [^)]*\)`), `(known: …)`},
}

// normalize replaces the volatile values of an answer's body.
func normalize(b []byte) []byte {
	for _, v := range volatile {
		b = v.re.ReplaceAll(b, []byte(v.with))
	}
	return b
}

// goldenCall sends one request to base with the admin token (none if
// token is empty) and checks the answer (its status, type and normalized
// body) against testdata/golden/api/name.golden; it returns the body as
// it came.
func goldenCall(t *testing.T, base, token, method, path, body, name string) []byte {
	t.Helper()
	resp, b := send(t, method, base+path, token, []byte(body))
	got := fmt.Appendf(nil, "%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), normalize(b))
	checkGolden(t, filepath.Join(goldenDir, "api", name+".golden"), got)
	return b
}

// checkGolden compares got with the golden file at path, or writes it
// with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n got: %s\nwant: %s", path, got, want)
	}
}

// TestAPIGolden: one coordinator, a run of tic-tac-toe taken through the
// API as a worker and a client see it (a lease by hand, its heartbeat and
// release, answers of refusals, then a real worker solves it); every
// answer is its golden file's. With -update it also writes the golden
// raft files: the state's snapshot and the commands of the log
// (internal/state's TestRaftGolden reads them).
func TestAPIGolden(t *testing.T) {
	c := startCluster(t, 1, 30*time.Second)
	base := "http://" + c.members[0].HTTPAddr
	ctx := context.Background()
	call := func(method, path, body, name string) []byte {
		t.Helper()
		return goldenCall(t, base, testToken, method, path, body, name)
	}
	poll.Until(t, "the leader serving", time.Minute, func() bool { return c.nodes[0].Serving() })
	call("GET", "/v1/health", "", "health")
	goldenCall(t, base, "", "GET", "/v1/status", "", "unauthorized")
	var sub api.SubmitResponse
	json.Unmarshal(call("POST", "/v1/runs", `{"game":"tictactoe","request_id":"golden"}`, "submit"), &sub)
	call("POST", "/v1/runs", `{"game":"tictactoe","request_id":"golden"}`, "submit")
	call("POST", "/v1/runs", `{"game":"nim"}`, "submit-unknown-game")
	cl := c.client()
	// The start tier's level file is written and its units made; no
	// worker runs yet, so nothing moves until the lease below.
	poll.Until(t, "the start tier written", time.Minute, func() bool {
		run, err := cl.Run(ctx, sub.ID)
		return err == nil && run.Tiers[0].Reach != nil && run.Tiers[0].Level != nil && run.Tiers[0].Level.Blob.SHA256 != ""
	})
	call("GET", "/v1/runs/"+sub.ID, "", "run-started")
	var a api.Assignment
	json.Unmarshal(call("POST", "/v1/lease", `{"worker":"golden","threads":1,"wait":10}`, "lease"), &a)
	call("POST", "/v1/heartbeat", fmt.Sprintf(`{"worker":"golden","threads":1,"tokens":[%d]}`, a.Token), "heartbeat")
	call("GET", "/v1/runs/"+sub.ID, "", "run-leased")
	ref, _ := json.Marshal(a.Ref)
	call("POST", "/v1/complete", fmt.Sprintf(`{"ref":%s,"token":%d,"worker":"golden","outputs":[]}`, ref, a.Token+1000), "complete-stale")
	call("POST", "/v1/uploads", fmt.Sprintf(`{"ref":%s,"token":%d,"worker":"golden","outputs":[]}`, ref, a.Token), "uploads-disks")
	call("PUT", "/v1/blobs/nothex", "x", "blob-bad-name")
	call("POST", "/v1/release", fmt.Sprintf(`{"ref":%s,"token":%d,"worker":"golden"}`, ref, a.Token), "release")
	call("POST", "/v1/release", fmt.Sprintf(`{"ref":%s,"token":%d,"worker":"golden"}`, ref, a.Token), "release-stale")
	call("GET", "/v1/runs/r999999", "", "run-missing")
	call("GET", "/v1/runs/bad", "", "run-bad-id")
	call("POST", "/v1/members", `{}`, "members-bad")
	call("POST", "/v1/lease", `{"worker":"","threads":1}`, "lease-no-worker")

	c.startWorker("w1", 1)
	waitRun(t, cl, sub.ID, time.Minute)
	call("POST", "/v1/heartbeat", `{"worker":"golden","threads":1,"tokens":[]}`, "heartbeat-none")
	call("GET", "/v1/runs/"+sub.ID, "", "run-done")
	// Runs of the other shapes: loopy tiers (close and solve-tier units)
	// with symmetry and an expansion cut apart; a game with dice whose
	// every position is reachable (probabilities, no expansion).
	for _, r := range []struct{ name, body string }{
		{"run-loopy", `{"game":"quixo","option":"size=3","settings":{"ranges_per_thread":2,"expand_ranges_per_thread":1,"max_ranges":4,"min_range":64,"level":6,"symmetry":true}}`},
		{"run-chance", `{"game":"bearoff","option":"checkers=2,points=3","settings":{"ranges_per_thread":2,"max_ranges":4,"min_range":64,"level":6}}`},
	} {
		var sub api.SubmitResponse
		json.Unmarshal(call("POST", "/v1/runs", r.body, "submit"), &sub)
		waitRun(t, cl, sub.ID, 2*time.Minute)
		call("GET", "/v1/runs/"+sub.ID, "", r.name)
	}
	// The worker's last heartbeat may be on its way: wait for the status
	// to say it holds no lease.
	waitStatus(t, cl, "no lease held", func(st *api.StatusResponse) bool {
		for _, w := range st.Workers {
			if w.Leases != 0 {
				return false
			}
		}
		return true
	})
	call("GET", "/v1/status", "", "status")
	call("GET", fmt.Sprintf("/v1/status?finished=%s&wait=1", sub.ID), "", "status")
	if *update {
		writeRaftGolden(t, c)
	}
}

// writeRaftGolden writes the golden raft files from the node of a
// one-coordinator cluster that has finished its work: the state's
// snapshot, then (once the node is closed) the commands of its log.
func writeRaftGolden(t *testing.T, c *testCluster) {
	n := c.nodes[0]
	snap, err := n.fsm.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	c.stopNode(0)
	w, err := wal.Open(filepath.Join(c.dirs[0], "raft", "wal"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	first, _ := w.FirstIndex()
	last, _ := w.LastIndex()
	var log bytes.Buffer
	for i := first; i <= last; i++ {
		var l raft.Log
		if err := w.GetLog(i, &l); err != nil {
			t.Fatal(err)
		}
		if l.Type != raft.LogCommand {
			continue
		}
		line, err := json.Marshal(goldenEntry{Index: l.Index, Data: l.Data})
		if err != nil {
			t.Fatal(err)
		}
		log.Write(append(line, '\n'))
	}
	checkGolden(t, filepath.Join(goldenDir, "raft", "snapshot.json"), sink.Bytes())
	checkGolden(t, filepath.Join(goldenDir, "raft", "log.jsonl"), log.Bytes())
}

// goldenEntry is a command of the golden raft log: its index and its
// bytes (a JSON document, kept as it is).
type goldenEntry struct {
	Index uint64          `json:"index"`
	Data  json.RawMessage `json:"data"`
}

// memSink is a raft.SnapshotSink in memory.
type memSink struct{ bytes.Buffer }

func (m *memSink) ID() string    { return "mem" }
func (m *memSink) Cancel() error { return nil }
func (m *memSink) Close() error  { return nil }
