package coordinator

import (
	"net/http"
	"time"

	"github.com/hashicorp/raft"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
)

// metrics are a node's Prometheus metrics, in a registry of its own (so
// several nodes can live in one test process).
type metrics struct {
	reg *prometheus.Registry

	leasesGranted, leasesExpired      prometheus.Counter
	leasesAnsweredAgain               prometheus.Counter
	completions, completionsRefused   prometheus.Counter
	unauthorized, elections, runsDone prometheus.Counter
	positions, logBytes               prometheus.Counter
	blobBytesIn, blobBytesOut         prometheus.Counter
	blobBytesReplicated               prometheus.Counter
	blobBytesRepaired                 prometheus.Counter
	storeBytesRead, storeBytesWritten prometheus.Counter
	blobBytesStored                   prometheus.Gauge
	forbidden                         *prometheus.CounterVec
	raftRefused                       prometheus.Counter
}

func newMetrics(n *Node) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "tierd", Name: name, Help: help})
		m.reg.MustRegister(c)
		return c
	}
	gaugeFunc := func(name, help string, f func() float64) {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "tierd", Name: name, Help: help}, f))
	}
	m.leasesGranted = counter("leases_granted_total", "Leases granted by this node while leader.")
	m.leasesExpired = counter("leases_expired_total", "Leases this node expired while leader.")
	m.leasesAnsweredAgain = counter("leases_answered_again_total", "Leases granted for a worker's request that it asked again, its answer lost (the leader that granted it failed first), answered again by this node while leader.")
	m.completions = counter("completions_total", "Unit results accepted by this node while leader.")
	m.completionsRefused = counter("completions_refused_total", "Unit results refused for a stale fencing token.")
	m.unauthorized = counter("unauthorized_requests_total", "HTTP requests refused for a missing or wrong token (401).")
	m.forbidden = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "tierd", Name: "forbidden_requests_total",
		Help: "HTTP requests refused for their token's scope (403), by the token's scope and the scopes the endpoint needs."}, []string{"token", "needs"})
	m.reg.MustRegister(m.forbidden)
	m.raftRefused = counter("raft_refused_connections_total", "Raft connections refused at the TLS handshake (no certificate of the coordinators' CA).")
	m.elections = counter("elections_won_total", "Times this node became the leader.")
	m.runsDone = counter("runs_done_total", "Runs this node finished while leader.")
	m.positions = counter("positions_total", "Positions processed by accepted units (expanded or solved).")
	m.logBytes = counter("raft_log_bytes_total", "Bytes of the commands this node proposed to the raft log.")
	m.blobBytesIn = counter("blob_bytes_received_total", "Blob bytes uploaded to this node.")
	m.blobBytesOut = counter("blob_bytes_sent_total", "Blob bytes downloaded from this node.")
	m.blobBytesReplicated = counter("blob_bytes_replicated_total", "Blob bytes this node copied to other coordinators.")
	m.blobBytesRepaired = counter("blob_bytes_repaired_total", "Blob bytes this node fetched from other coordinators.")
	m.storeBytesRead = counter("store_bytes_read_total", "Blob bytes this node read from the object store (--store), for its merges.")
	m.storeBytesWritten = counter("store_bytes_written_total", "Blob bytes this node wrote to the object store (--store): its merges' level files and databases.")
	m.blobBytesStored = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "tierd", Name: "blob_bytes_stored", Help: "Bytes in this node's blob store, or in the object store (at the last sweep)."})
	m.reg.MustRegister(m.blobBytesStored)
	gaugeFunc("raft_leader", "1 if this node is the raft leader.", func() float64 {
		if n.raft != nil && n.raft.State() == raft.Leader {
			return 1
		}
		return 0
	})
	gaugeFunc("raft_state", "Raft state: 0 follower, 1 candidate, 2 leader, 3 shutdown.", func() float64 {
		if n.raft == nil {
			return 3
		}
		return float64(n.raft.State())
	})
	gaugeFunc("raft_applied_index", "Last raft log index applied to the state.", func() float64 {
		if n.raft == nil {
			return 0
		}
		return float64(n.raft.AppliedIndex())
	})
	count := func(f func(*state.Run) int) float64 {
		total := 0
		n.fsm.View(func(s *state.State, _ uint64) {
			for _, r := range s.Runs {
				total += f(r)
			}
		})
		return float64(total)
	}
	for _, g := range []struct {
		name, help string
		of         func(*state.Run) int
	}{
		{"runs_running", "Runs in progress.", func(r *state.Run) int { return btoi(r.State == api.Running) }},
		{"tiers_done", "Tiers solved, over all runs.", func(r *state.Run) int { return r.Summary().TiersDone }},
		{"tiers_total", "Tiers, over all runs.", func(r *state.Run) int { return len(r.Tiers) }},
		{"units_leased", "Units under lease.", func(r *state.Run) int { return r.Summary().Leased }},
	} {
		gaugeFunc(g.name, g.help, func() float64 { return count(g.of) })
	}
	parts := func(f func(*state.Parts) uint64) float64 {
		var total uint64
		n.fsm.View(func(s *state.State, _ uint64) {
			for _, r := range s.Runs {
				for _, t := range r.Tiers {
					if t.Parts != nil {
						total += f(t.Parts)
					}
				}
			}
		})
		return float64(total)
	}
	for _, g := range []struct {
		name, help string
		of         func(*state.Parts) uint64
	}{
		{"parts_rounds", "Rounds of loopy tiers solved in parts (a unit per part each), over all runs.", func(p *state.Parts) uint64 { return uint64(p.Round) }},
		{"parts_kid_notes", "Notes the child tiers' records of loopy tiers in parts gave the parts (KidNotes units), over all runs.", func(p *state.Parts) uint64 { return p.KidNotes }},
		{"parts_kid_notes_bytes", "Bytes of the notes files the KidNotes units of loopy tiers in parts wrote for the parts, over all runs.", func(p *state.Parts) uint64 { return p.KidNotesBytes }},
		{"parts_notes", "Notes the parts of loopy tiers sent each other, over all runs.", func(p *state.Parts) uint64 { return p.Notes }},
		{"parts_notes_bytes", "Bytes of the notes files the parts of loopy tiers sent each other, over all runs.", func(p *state.Parts) uint64 { return p.NotesBytes }},
		{"parts_checkpoint_bytes", "Bytes of the checkpoints of parts of loopy tiers, over all runs.", func(p *state.Parts) uint64 { return p.Checkpoints }},
	} {
		gaugeFunc(g.name, g.help, func() float64 { return parts(g.of) })
	}
	gaugeFunc("parts_level", "The highest level a loopy tier solved in parts is at, over running runs' tiers in parts (-1: none).", func() float64 {
		level := -1
		n.fsm.View(func(s *state.State, _ uint64) {
			for _, r := range s.Runs {
				for _, t := range r.Tiers {
					if r.State == api.Running && t.Parts != nil && t.Parts.Phase != api.PartsDone {
						level = max(level, t.Parts.Level)
					}
				}
			}
		})
		return float64(level)
	})
	gaugeFunc("workers", "Workers seen by this node as leader within two lease periods.", func() float64 {
		return float64(len(n.workers.list(time.Now(), 2*n.cfg.LeaseTTL)))
	})
	gaugeFunc("positions_per_second", "Positions per second over the last minute, summed over the workers.", func() float64 {
		sum := 0.0
		for _, w := range n.workers.list(time.Now(), 2*n.cfg.LeaseTTL) {
			sum += w.Rate
		}
		return sum
	})
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Metrics is the node's Prometheus registry, as served at /metrics.
func (n *Node) Metrics() prometheus.Gatherer { return n.metrics.reg }

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
