package serve

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tiersolve/tiersolve/valuedb"
)

// metrics are the server's Prometheus metrics, in a registry of its own
// (a process may run several servers, as tests do).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
	inflight prometheus.Gauge
	shed     prometheus.Counter

	counters   sync.Map // {api, code} -> prometheus.Counter
	histograms sync.Map // api -> prometheus.Observer
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tierd_serve_requests_total",
		Help: "Requests answered, by API (position, mainline, run, runs, api, universal, page, ops) and status code."}, []string{"api", "code"})
	m.seconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tierd_serve_request_seconds",
		Help:    "Time to answer a request, by API.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}}, []string{"api"})
	m.inflight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "tierd_serve_inflight", Help: "Requests being answered."})
	m.shed = prometheus.NewCounter(prometheus.CounterOpts{Name: "tierd_serve_shed_total", Help: "Requests answered 503 overloaded because too many were in flight."})
	stat := func() valuedb.CacheStats { return s.cache.Stats() }
	m.reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tierd_serve_cache_hits_total", Help: "Look-ups of a block (a database's, or a chunk of a level set) found in the cache."},
			func() float64 { return float64(stat().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tierd_serve_cache_misses_total", Help: "Look-ups of a block that read it from disk."},
			func() float64 { return float64(stat().Misses) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tierd_serve_cache_bytes", Help: "Bytes the cache holds in blocks."},
			func() float64 { return float64(stat().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tierd_serve_cache_reserved_bytes", Help: "Bytes of the budget held outside the blocks (databases' indexes, level sets' counts)."},
			func() float64 { return float64(stat().Reserved) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tierd_serve_cache_budget_bytes", Help: "The cache's budget (--cache)."},
			func() float64 { return float64(stat().Budget) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tierd_serve_record_cache_hits_total", Help: "Look-ups of a position's record found in the records cache (a quarter of the budget, at most 32 MiB), which spared reading its level set and database."},
			func() float64 { return float64(stat().RecordHits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tierd_serve_record_cache_misses_total", Help: "Look-ups of a position's record not in the records cache."},
			func() float64 { return float64(stat().RecordMisses) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tierd_serve_read_bytes_total", Help: "Bytes read from disk into the cache."},
			func() float64 { return float64(stat().ReadBytes) }),
	)
	m.reg.MustRegister(m.requests, m.seconds, m.inflight, m.shed,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe counts a request answered.
func (m *metrics) observe(api string, code int, d time.Duration) {
	type key struct {
		api  string
		code int
	}
	// The labelled series are looked up once each: the lookup hashes the
	// labels, and this is every request.
	c, ok := m.counters.Load(key{api, code})
	if !ok {
		c, _ = m.counters.LoadOrStore(key{api, code}, m.requests.WithLabelValues(api, strconv.Itoa(code)))
	}
	c.(prometheus.Counter).Inc()
	h, ok := m.histograms.Load(api)
	if !ok {
		h, _ = m.histograms.LoadOrStore(api, m.seconds.WithLabelValues(api))
	}
	h.(prometheus.Observer).Observe(d.Seconds())
}
