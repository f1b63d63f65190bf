// Command faultproxy is the server behind internal/faultnet: Shopify's
// toxiproxy, with two toxics of its own, run as a process of its own so
// that toxiproxy is a requirement of this module only, never of the
// module a game author imports.
//
// It listens on a loopback port, prints "listening on HOST:PORT" as its
// first line on stdout, and serves a small HTTP API (JSON bodies):
//
//	POST   /proxies                {"name":…, "upstream":"host:port"} → {"name":…, "listen":"127.0.0.1:PORT"}
//	POST   /proxies/{name}/cut     close the proxy's valve: nothing goes through, nothing is lost
//	POST   /proxies/{name}/slow    {"latency_ms":…, "jitter_ms":…, "rate":BYTES_PER_S}
//	POST   /proxies/{name}/reset   {"probability":…}: reset connections at random chunks
//	POST   /proxies/{name}/heal    remove every fault; held data goes through
//	DELETE /proxies/{name}         stop the proxy and close its connections
//	GET    /resets                 {"resets":N}: connections reset so far
//
// It exits when its standard input closes: the test process that started
// it holds the other end, so it never outlives that process.
//
// The toxics of its own: a valve (a bandwidth cap that can be closed in
// the middle of a chunk, and holds what it has until it opens) and a
// reset at random chunks (toxiproxy's own reset_peer decides once per
// connection).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "where the API listens")
	flag.Parse()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("faultproxy: %v", err)
	}
	s := newServer()
	go func() {
		io.Copy(io.Discard, os.Stdin) // until the parent goes away
		s.closeAll()
		os.Exit(0)
	}()
	fmt.Printf("listening on %s\n", l.Addr())
	log.Fatal(http.Serve(l, s.routes()))
}

func init() {
	toxics.Register("faultnet_valve", new(valveToxic))
	toxics.Register("faultnet_reset", new(resetToxic))
	zerolog.SetGlobalLevel(zerolog.Disabled) // toxiproxy's toxics log to stderr through the global logger
}

// server holds the proxies by name.
type server struct {
	api *toxiproxy.ApiServer

	mu      sync.Mutex
	proxies map[string]*proxy
}

func newServer() *server {
	return &server{api: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop()), proxies: map[string]*proxy{}}
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /proxies", s.create)
	mux.HandleFunc("POST /proxies/{name}/{fault}", s.fault)
	mux.HandleFunc("DELETE /proxies/{name}", s.remove)
	mux.HandleFunc("GET /resets", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]int64{"resets": resets.Load()})
	})
	return mux
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	var req struct{ Name, Upstream string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Name == "" || req.Upstream == "" {
		http.Error(w, "want {\"name\":…, \"upstream\":…}", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	_, taken := s.proxies[req.Name]
	s.mu.Unlock()
	if taken {
		http.Error(w, "proxy "+req.Name+" exists", http.StatusConflict)
		return
	}
	p, err := newProxy(s.api, req.Name, req.Upstream)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	s.proxies[req.Name] = p
	s.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]string{"name": req.Name, "listen": p.p.Listen})
}

func (s *server) fault(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p := s.proxies[r.PathValue("name")]
	s.mu.Unlock()
	if p == nil {
		http.Error(w, "no proxy "+r.PathValue("name"), http.StatusNotFound)
		return
	}
	var err error
	switch r.PathValue("fault") {
	case "cut":
		p.valve.set(false, p.valve.rate.Load())
	case "heal":
		err = p.heal()
	case "slow":
		var req struct {
			LatencyMS int64 `json:"latency_ms"`
			JitterMS  int64 `json:"jitter_ms"`
			Rate      int64 `json:"rate"`
		}
		if err = json.NewDecoder(r.Body).Decode(&req); err == nil {
			err = p.slow(req.LatencyMS, req.JitterMS, req.Rate)
		}
	case "reset":
		var req struct{ Probability float64 }
		if err = json.NewDecoder(r.Body).Decode(&req); err == nil {
			err = p.resetRandomly(req.Probability)
		}
	default:
		http.Error(w, "no fault "+r.PathValue("fault"), http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (s *server) remove(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	p := s.proxies[r.PathValue("name")]
	delete(s.proxies, r.PathValue("name"))
	s.mu.Unlock()
	if p != nil {
		p.stop()
	}
}

func (s *server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, p := range s.proxies {
		p.stop()
		delete(s.proxies, name)
	}
}

// proxy is one toxiproxy proxy with its valve and the toxics added to it.
type proxy struct {
	p     *toxiproxy.Proxy
	valve *valve

	mu    sync.Mutex
	names []string // the toxics in place, but the valves
}

func newProxy(api *toxiproxy.ApiServer, name, upstream string) (*proxy, error) {
	p := toxiproxy.NewProxy(api, name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("proxy %s: %w", name, err)
	}
	px := &proxy{p: p, valve: newValve()}
	valves.Store(name, px.valve)
	for _, stream := range []string{"upstream", "downstream"} {
		b, _ := json.Marshal(map[string]any{"name": "faultnet_valve_" + stream, "type": "faultnet_valve", "stream": stream, "attributes": map[string]string{"valve": name}})
		if _, err := p.Toxics.AddToxicJson(bytes.NewReader(b)); err != nil {
			px.stop()
			return nil, fmt.Errorf("proxy %s: %w", name, err)
		}
	}
	return px, nil
}

func (p *proxy) stop() {
	p.valve.set(true, 0)
	p.p.Stop()
	valves.Delete(p.p.Name)
}

// both adds a toxic of a type with attributes to both directions.
func (p *proxy) both(typ string, toxicity float32, attrs any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, stream := range []string{"upstream", "downstream"} {
		name := fmt.Sprintf("%s_%s_%d", typ, stream, len(p.names))
		b, err := json.Marshal(map[string]any{"name": name, "type": typ, "stream": stream, "toxicity": toxicity, "attributes": attrs})
		if err != nil {
			return err
		}
		if _, err := p.p.Toxics.AddToxicJson(bytes.NewReader(b)); err != nil {
			return fmt.Errorf("%s on %s: %w", typ, p.p.Name, err)
		}
		p.names = append(p.names, name)
	}
	return nil
}

func (p *proxy) slow(latencyMS, jitterMS, rate int64) error {
	if latencyMS > 0 {
		if err := p.both("latency", 1, map[string]int64{"latency": latencyMS, "jitter": jitterMS}); err != nil {
			return err
		}
	}
	if rate > 0 {
		rate = max(10, rate)
	}
	p.valve.rate.Store(rate)
	return nil
}

func (p *proxy) resetRandomly(prob float64) error {
	// reset_peer with a toxicity of 0 never fires: it is there because
	// toxiproxy sets SO_LINGER 0 on the links of a proxy that has one.
	if err := p.both("reset_peer", 0, map[string]int64{"timeout": 0}); err != nil {
		return err
	}
	return p.both("faultnet_reset", 1, map[string]float64{"probability": prob})
}

func (p *proxy) heal() error {
	p.valve.set(true, 0)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range p.names {
		if err := p.p.Toxics.RemoveToxic(context.Background(), name); err != nil {
			return fmt.Errorf("healing %s: %w", p.p.Name, err)
		}
	}
	p.names = nil
	return nil
}

// resets counts the connections the reset toxic reset.
var resets atomic.Int64

// A valve is the first toxic of each direction of every proxy: it lets
// data through at a rate, in pieces of a tenth of a second, or holds it
// while it is closed, where it is, a chunk half sent included. Its state
// is shared by the proxy's links and changed in place: toxiproxy's own
// updates rewrite a toxic's attributes while its links run.
type valve struct {
	rate atomic.Int64 // bytes per second; 0: no cap

	mu     sync.Mutex
	opened chan struct{} // closed while the valve is open
}

var valves sync.Map // proxy name → *valve

func newValve() *valve {
	v := &valve{opened: make(chan struct{})}
	close(v.opened)
	return v
}

// set opens or closes the valve and sets its rate.
func (v *valve) set(open bool, rate int64) {
	v.rate.Store(rate)
	v.mu.Lock()
	defer v.mu.Unlock()
	select {
	case <-v.opened:
		if !open {
			v.opened = make(chan struct{})
		}
	default:
		if open {
			close(v.opened)
		}
	}
}

func (v *valve) open() <-chan struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.opened
}

// valveToxic is a proxy's valve in one link.
type valveToxic struct {
	Valve string `json:"valve"` // the proxy's name
}

// valveState holds the part of a chunk not sent yet.
type valveState struct{ rest *stream.StreamChunk }

func (valveToxic) NewState() any { return new(valveState) }

func (t *valveToxic) Pipe(stub *toxics.ToxicStub) {
	vv, ok := valves.Load(t.Valve)
	if !ok {
		new(toxics.NoopToxic).Pipe(stub)
		return
	}
	v, st := vv.(*valve), stub.State.(*valveState)
	for {
		if st.rest == nil {
			c, ok := next(stub)
			if !ok {
				return
			}
			st.rest = c
		}
		select {
		case <-v.open():
		case <-stub.Interrupt:
			return
		}
		n, wait := len(st.rest.Data), time.Duration(0)
		if rate := v.rate.Load(); rate > 0 {
			n = min(n, int(rate/10))
			wait = time.Duration(n) * time.Second / time.Duration(rate)
		}
		select {
		case stub.Output <- &stream.StreamChunk{Data: st.rest.Data[:n], Timestamp: st.rest.Timestamp}:
		case <-stub.Interrupt:
			return
		}
		if st.rest.Data = st.rest.Data[n:]; len(st.rest.Data) == 0 {
			st.rest = nil
		}
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-stub.Interrupt:
				return
			}
		}
	}
}

// resetToxic closes the link at a chunk with its probability.
type resetToxic struct {
	Probability float64 `json:"probability"`
}

func (t *resetToxic) Pipe(stub *toxics.ToxicStub) {
	for {
		c, ok := next(stub)
		if !ok {
			return
		}
		if rand.Float64() < t.Probability {
			resets.Add(1)
			stub.Close()
			return
		}
		select {
		case stub.Output <- c:
		case <-stub.Interrupt:
			stub.Output <- c
			return
		}
	}
}

// next reads a link's next chunk; false when the toxic must return:
// interrupted, or the input ended (then the link is closed).
func next(stub *toxics.ToxicStub) (*stream.StreamChunk, bool) {
	select {
	case <-stub.Interrupt:
		return nil, false
	case c := <-stub.Input:
		if c == nil {
			stub.Close()
			return nil, false
		}
		return c, true
	}
}
