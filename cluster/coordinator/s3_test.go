package coordinator

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/cluster/worker"
	"github.com/tiersolve/tiersolve/internal/poll"
	"github.com/tiersolve/tiersolve/internal/s3test"
)

// s3Cluster is three coordinators keeping their artifacts in a bucket of
// a real S3 server (versitygw) on loopback.
func s3Cluster(t *testing.T, grace time.Duration) (*testCluster, *s3test.Server, *blobstore.S3) {
	srv := s3test.Start(t, "tierd")
	t.Setenv("AWS_ACCESS_KEY_ID", s3test.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3test.SecretKey)
	cfg, err := blobstore.ParseS3URL(srv.URL("tierd", "cluster"))
	if err != nil {
		t.Fatal(err)
	}
	open := func() *blobstore.S3 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, err := blobstore.OpenS3(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	view := open()
	c := newTestCluster(t, 3, 3*time.Second)
	c.configure = func(_ int, nc *NodeConfig) {
		nc.Store = open()
		nc.BlobGrace = grace
	}
	c.startAll()
	return c, srv, view
}

// counterValue is the value of a node's counter (0 if it has none).
func counterValue(t *testing.T, n *Node, name string) float64 {
	mfs, err := n.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			var total float64
			for _, m := range mf.Metric {
				total += counterOrGauge(m)
			}
			return total
		}
	}
	return 0
}

func counterOrGauge(m *dto.Metric) float64 {
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

// TestClusterS3: a cluster whose artifacts live in a real S3 server on
// loopback solves Connect Four 4x4 into the bytes of tierd solve, without
// an artifact passing through a coordinator from or to a worker; the S3
// server stopped mid-run and started again, the run waits, then finishes
// with the same bytes; once the grace period has passed, the bucket holds
// what the runs need and nothing else.
func TestClusterS3(t *testing.T) {
	c, srv, view := s3Cluster(t, 4*time.Second)
	var wcl *api.Client // the worker's
	c.startWorkerWith("w1", 2, func(cfg *worker.Config) { wcl = cfg.Client })
	cl := c.client()
	ctx := context.Background()

	first, err := cl.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4"})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, first, 2*time.Minute)
	t.Logf("first run done")
	checkFetched(t, cl, first, "connect4", "width=4,height=4", false)
	for _, n := range c.nodes {
		for _, m := range []string{"tierd_blob_bytes_received_total", "tierd_blob_bytes_sent_total",
			"tierd_blob_bytes_replicated_total", "tierd_blob_bytes_repaired_total"} {
			if v := counterValue(t, n, m); v != 0 {
				t.Errorf("%s: %s = %v: artifact bytes went through a coordinator", n.cfg.ID, m, v)
			}
		}
	}
	leader := c.nodes[c.waitLeader()]
	t.Logf("the leader read %v and wrote %v bytes of the object store for its merges",
		counterValue(t, leader, "tierd_store_bytes_read_total"), counterValue(t, leader, "tierd_store_bytes_written_total"))

	// The store goes away mid-run, and comes back.
	second, err := cl.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4"})
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the second run under way", time.Minute, func() bool {
		st, err := cl.Status(ctx)
		return err == nil && slices.ContainsFunc(st.Runs, func(r api.RunSummary) bool { return r.ID == second && r.Reached >= 6 })
	})
	srv.Stop()
	t.Logf("stopped the store")
	poll.Until(t, "the worker waiting for the store", time.Minute, func() bool { return wcl.StoreWaits.Load() > 0 })
	st, err := cl.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Runs {
		if r.ID == second && r.State != api.Running {
			t.Fatalf("with the store away, the run is %s (%s)", r.State, r.Error)
		}
	}
	srv.Restart()
	t.Logf("started the store again")
	waitRun(t, cl, second, 2*time.Minute)
	t.Logf("second run done")
	checkFetched(t, cl, second, "connect4", "width=4,height=4", false)

	// Nothing in the bucket that no run needs, once the grace has passed.
	var live map[string]int64
	c.nodes[c.waitLeader()].fsm.View(func(s *state.State, _ uint64) { live = s.LiveBlobs() })
	poll.Until(t, "the bucket holding what the runs need and nothing else", time.Minute, func() bool {
		stored := map[string]int64{}
		err := view.Walk(func(sum string, size int64, _ time.Time) error {
			stored[sum] = size
			return nil
		})
		if err != nil || len(stored) != len(live) {
			return false
		}
		for sum, size := range live {
			if stored[sum] != size {
				return false
			}
		}
		return true
	})
	// Every object in the bucket's folder is a blob: no leftovers of
	// failed uploads either.
	for _, o := range srv.Objects("tierd") {
		if _, ok := live[filepath.Base(o)]; !ok {
			t.Errorf("left in the bucket: %s", o)
		}
	}
}
