package tierdcli

import (
	"bufio"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/internal/s3test"
)

// TestClusterS3Processes: tierd coordinator --store on a real S3 server
// (versitygw on loopback). A wrong secret, an unknown access key and a
// missing bucket are each one clear line and exit 1 at start; 3
// coordinators and 2 workers, separate processes, solve Connect Four 5x4
// into the bytes of tierd solve, and no artifact byte goes through a
// coordinator to or from a worker (their /metrics); fetch
// --through-coordinators reads the same bytes through them.
func TestClusterS3Processes(t *testing.T) {
	srv := s3test.Start(t, "tierd")
	c := newProcCluster(t, 3)
	m := c.members[0]
	start := func(store string) (int, string) {
		code, _, stderr := c.run("coordinator", "--node-id", m.ID, "--raft-addr", m.RaftAddr, "--http-addr", m.HTTPAddr,
			"--data", filepath.Join(t.TempDir(), "bad"), "--token-file", c.token, "--store", store)
		return code, stderr
	}
	for _, tc := range []struct {
		name, access, secret, bucket, want string
	}{
		{"wrong secret", s3test.AccessKey, "not-the-secret-0123", "tierd", "refused the credentials"},
		{"unknown access key", "nobody", s3test.SecretKey, "tierd", "refused the credentials"},
		{"missing bucket", s3test.AccessKey, s3test.SecretKey, "nobucket", "the bucket does not exist"},
	} {
		t.Setenv("AWS_ACCESS_KEY_ID", tc.access)
		t.Setenv("AWS_SECRET_ACCESS_KEY", tc.secret)
		code, stderr := start(srv.URL(tc.bucket, "runs"))
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != 1 || len(lines) != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q", tc.name, code, stderr)
		}
	}
	if code, stderr := start("s3://tierd?endpoint=ftp://x"); code != 2 || !strings.Contains(stderr, "--store") {
		t.Errorf("a bad store URL: exit %d, %q", code, stderr)
	}

	t.Setenv("AWS_ACCESS_KEY_ID", s3test.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3test.SecretKey)
	c.coordArgs = []string{"--store", srv.URL("tierd", "runs")}
	c.startAll(true)
	c.startWorker("w1", 1)
	c.startWorker("w2", 1)
	id := c.submit(c4Game, c4Option)
	c.waitDone(id)
	sameFolders(t, embedded(t, c4Game, c4Option), c.fetch(id))
	for _, m := range c.members {
		metrics := scrape(t, m.HTTPAddr)
		for _, name := range []string{"tierd_blob_bytes_received_total", "tierd_blob_bytes_sent_total",
			"tierd_blob_bytes_replicated_total", "tierd_blob_bytes_repaired_total"} {
			if metrics[name] != 0 {
				t.Errorf("%s: %s %v", m.ID, name, metrics[name])
			}
		}
		t.Logf("%s: read %v and wrote %v bytes of the object store", m.ID, metrics["tierd_store_bytes_read_total"], metrics["tierd_store_bytes_written_total"])
	}
	// A client that cannot reach the store reads through the coordinators.
	through := filepath.Join(t.TempDir(), "through")
	if code, _, errs := c.run(c.client("fetch", "--through-coordinators", "--out", through, id)...); code != 0 {
		t.Fatalf("fetch --through-coordinators: exit %d: %s", code, errs)
	}
	sameFolders(t, embedded(t, c4Game, c4Option), through)
	sent := 0.0
	for _, m := range c.members {
		sent += scrape(t, m.HTTPAddr)["tierd_blob_bytes_sent_total"]
	}
	if sent == 0 {
		t.Error("fetch --through-coordinators: no bytes went through a coordinator")
	}
}

// scrape reads a coordinator's /metrics (with the test token): each
// metric without labels by name.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer cluster-test-token-0123456789abcdef")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return parseMetrics(resp.Body)
}

func parseMetrics(r io.Reader) map[string]float64 {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			out[f[0]] = v
		}
	}
	return out
}
