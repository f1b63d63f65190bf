package suites

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/clustertest"
	"github.com/tiersolve/tiersolve/games"
)

// clusterGames are the games the cluster suite runs, with the level of
// their groups (none is quick: the suite's job is tested by TestClusterJob,
// and the cluster by its own tests).
var clusterGames = []struct {
	size  string
	level harness.Level
}{{"connect4-5x4", harness.Full}, {"connect4-5x5", harness.Full}}

// Cluster is the suite of cluster runs on loopback: 3 coordinators and W
// workers of one thread each on real TCP and disks, in one process
// (cluster) and each a process of its own (processes, as users run
// them), against tierd solve with W workers, pair by pair; the ratio of
// their CPU seconds too. Its groups cluster/parts/... solve loopy tiers
// in parts on workers with a --memory budget (partsGroups).
func Cluster() harness.Suite {
	return harness.Suite{
		Name:   "cluster",
		Doc:    "3 coordinators + W one-thread workers on loopback, in one process and as processes, against tierd solve --workers W; CPU, raft log and artifact bytes; loopy tiers in parts on workers with --memory",
		Groups: clusterGroups,
		Jobs: map[string]harness.JobFunc{"solve": harness.JobOf(runSolve), "cluster": harness.JobOf(runCluster), "processes": harness.JobOf(runClusterProcesses),
			"tierd-solve": harness.JobOf(runTierdSolve), "parts": harness.JobOf(runParts)},
		Columns: clusterColumns(),
	}
}

// clusterGroups are cluster/SIZE/workers=W for each game and worker
// count, then the groups in parts.
func clusterGroups(cfg harness.Config) []harness.Group {
	var gs []harness.Group
	for _, cg := range clusterGames {
		for _, w := range workerCounts(cfg.Cores) {
			gs = append(gs, clusterGroup(gameByName(cg.size), cg.level, w))
		}
	}
	return append(gs, partsGroups(cfg)...)
}

// clusterGroup is the game size solved with w workers embedded, on the
// cluster in one process and on the cluster as processes.
func clusterGroup(s gameSize, level harness.Level, w int) harness.Group {
	return harness.Group{ID: fmt.Sprintf("cluster/%s/workers=%d", s.name, w), Table: "cluster",
		Title:  fmt.Sprintf("%s %s, %d worker(s)", s.game, s.option, w),
		Level:  level,
		Params: map[string]float64{"workers": float64(w)}, Reference: "embedded", RatioMetrics: []string{"cpu_s"},
		Variants: []harness.Variant{
			solveVariant("embedded", results.KindBaseline, s.solve(w, false)),
			workersVariant("cluster", results.KindSubject, w, harness.NewJob("cluster", s.solve(w, false))),
			workersVariant("processes", results.KindSubject, w, harness.NewJob("processes", s.solve(w, false))),
		},
		Estimate: 3*childStart + 3*s.tier*2/time.Duration(w) + 4*time.Second}
}

// clusterColumns are the cluster suite's columns; a table shows those
// its rows have. The groups in parts add every process's CPU seconds
// and every worker's peak resident set.
func clusterColumns() []harness.Column {
	cols := []harness.Column{
		colPositionsPerS,
		colCPUS,
		{Key: "cpu_s_ratio", Header: "CPU ratio", Format: "%.3g"},
		{Key: "cpu_coordinators_s", Header: "CPU s coordinators", Format: "%.3g"},
		{Key: "cpu_workers_s", Header: "CPU s workers", Format: "%.3g"},
	}
	workers := 0
	for _, f := range partsFamilies {
		workers = max(workers, f.workers)
	}
	var names []string
	for i := range 3 {
		names = append(names, fmt.Sprintf("c%d", i+1))
	}
	for i := range workers {
		names = append(names, fmt.Sprintf("w%d", i+1))
	}
	for _, n := range names {
		cols = append(cols, harness.Column{Key: "cpu_s_" + n, Header: "CPU s " + n, Format: "%.3g"})
	}
	cols = append(cols,
		harness.Column{Key: "budget_bytes", Header: "worker --memory", Format: "bytes"},
		harness.Column{Key: "worker_peak_rss_bytes", Header: "worker peak RSS", Format: "bytes"})
	for _, n := range names[3:] {
		cols = append(cols, harness.Column{Key: "peak_rss_bytes_" + n, Header: "peak RSS " + n, Format: "bytes"})
	}
	return append(cols,
		harness.Column{Key: "fact:within_budget", Header: "within --memory"},
		harness.Column{Key: "units", Header: "units", Format: "%.0f"},
		harness.Column{Key: "log_bytes_per_unit", Header: "raft B/unit", Format: "%.0f"},
		harness.Column{Key: "log_bytes_per_tier", Header: "raft B/tier", Format: "%.0f"},
		harness.Column{Key: "artifact_bytes_per_position", Header: "artifact B/pos", Format: "%.3g"},
		harness.Column{Key: "notes_bytes", Header: "notes", Format: "bytes"},
		harness.Column{Key: "checkpoint_bytes", Header: "checkpoints", Format: "bytes"},
		harness.Column{Key: "blob_bytes_up", Header: "blobs up", Format: "bytes"},
		harness.Column{Key: "blob_bytes_down", Header: "blobs down", Format: "bytes"},
		harness.Column{Key: "store_bytes", Header: "store", Format: "bytes"},
		harness.Column{Key: "fetch_s", Header: "fetch s", Format: "%.3g"},
		harness.Column{Key: "fact:same_bytes", Header: "= tierd solve"},
		harness.Column{Key: "fact:cpu_by_role", Header: "workers' CPU by role (units)"},
		harness.Column{Key: "fact:longest_unit", Header: "longest unit"},
		harness.Column{Key: "fact:peak_at", Header: "workers' peak RSS reached by"},
		colPeakRSS,
	)
}

// runCluster starts 3 coordinators and Workers one-thread workers, runs
// the game from submit to done (the time compared), then fetches it.
func runCluster(ctx context.Context, env harness.JobEnv, a solveArgs) (harness.Sample, error) {
	c, err := clustertest.Start(filepath.Join(env.Dir, "cluster"), 3, clustertest.Config{NewGame: games.New})
	if err != nil {
		return harness.Sample{}, err
	}
	defer c.Close()
	for i := range a.Workers {
		if _, err := c.StartWorker(fmt.Sprintf("w%d", i+1), 1); err != nil {
			return harness.Sample{}, err
		}
	}
	cl := c.Client()
	t0, cpu0 := time.Now(), harness.CPUSeconds()
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: a.Game, Option: a.Option})
	if err != nil {
		return harness.Sample{}, err
	}
	sum, err := c.Wait(ctx, id)
	if err != nil {
		return harness.Sample{}, err
	}
	secs, cpu := time.Since(t0).Seconds(), harness.CPUSeconds()-cpu0
	t1 := time.Now()
	if _, err := cl.Fetch(ctx, id, filepath.Join(env.Dir, "fetched"), games.New); err != nil {
		return harness.Sample{}, err
	}
	fetch := time.Since(t1).Seconds()
	var artifacts float64
	for _, n := range c.Nodes {
		mfs, err := n.Metrics().Gather()
		if err != nil {
			return harness.Sample{}, err
		}
		for _, mf := range mfs {
			if strings.HasPrefix(mf.GetName(), "tierd_blob_bytes_") && strings.HasSuffix(mf.GetName(), "_total") {
				for _, m := range mf.GetMetric() {
					artifacts += m.GetCounter().GetValue()
				}
			}
		}
	}
	n := float64(sum.Positions)
	return harness.Sample{Seconds: secs, Metrics: map[string]float64{
		"positions": n, "positions_per_s": perSecond(n, secs), "fetch_s": fetch, "cpu_s": cpu,
		"units": float64(sum.UnitsTotal), "raft_log_bytes": float64(sum.LogBytes), "raft_commands": float64(sum.Commands),
		"log_bytes_per_unit": float64(sum.LogBytes) / float64(max(sum.UnitsTotal, 1)),
		"log_bytes_per_tier": float64(sum.LogBytes) / float64(max(sum.TiersTotal, 1)),
		"artifact_bytes":     artifacts, "artifact_bytes_per_position": artifacts / max(n, 1),
	}, Facts: map[string]string{"start": sum.Start.String()}}, nil
}
