// Package faultnet puts TCP proxies that inject faults between the parts
// of a cluster in tests, on loopback: Shopify's toxiproxy, embedded (no
// server process, no HTTP API), with the faults the cluster's tests need:
// a partition (Cut, Heal), latency with jitter, a bandwidth cap, and
// connections reset at random.
//
// Two toxics are its own: a valve (a bandwidth cap that can be closed
// in the middle of a chunk, and holds what it has until it opens) and a
// reset at random chunks (toxiproxy's own reset_peer decides once per
// connection).
//
// Only tests import it: toxiproxy is linked into no command.
package faultnet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// Net is a set of proxies.
type Net struct {
	api *toxiproxy.ApiServer

	mu      sync.Mutex
	proxies []*Proxy
}

// New returns an empty set of proxies.
func New() *Net {
	return &Net{api: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())}
}

// Proxy starts a proxy on a free loopback port that forwards every
// connection to upstream (host:port).
func (n *Net) Proxy(name, upstream string) (*Proxy, error) {
	p := toxiproxy.NewProxy(n.api, name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("faultnet: proxy %s: %w", name, err)
	}
	px := &Proxy{p: p, valve: newValve()}
	valves.Store(name, px.valve)
	for _, stream := range []string{"upstream", "downstream"} {
		b, _ := json.Marshal(map[string]any{"name": "faultnet_valve_" + stream, "type": "faultnet_valve", "stream": stream, "attributes": map[string]string{"valve": name}})
		if _, err := p.Toxics.AddToxicJson(bytes.NewReader(b)); err != nil {
			p.Stop()
			return nil, fmt.Errorf("faultnet: proxy %s: %w", name, err)
		}
	}
	n.mu.Lock()
	n.proxies = append(n.proxies, px)
	n.mu.Unlock()
	return px, nil
}

// Close stops every proxy and closes their connections.
func (n *Net) Close() {
	n.mu.Lock()
	ps := n.proxies
	n.proxies = nil
	n.mu.Unlock()
	for _, p := range ps {
		p.valve.set(true, 0)
		p.p.Stop()
		valves.Delete(p.p.Name)
	}
}

// Proxy is one proxy: every connection to Addr goes on to its upstream
// through the faults added to it, in both directions.
type Proxy struct {
	p     *toxiproxy.Proxy
	valve *valve

	mu    sync.Mutex
	names []string // the toxics in place
}

// Addr is where the proxy listens (127.0.0.1:PORT).
func (p *Proxy) Addr() string { return p.p.Listen }

// Name is the proxy's name.
func (p *Proxy) Name() string { return p.p.Name }

// both adds a toxic of a type with attributes to both directions.
func (p *Proxy) both(typ string, toxicity float32, attrs any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, stream := range []string{"upstream", "downstream"} {
		name := fmt.Sprintf("%s_%s_%d", typ, stream, len(p.names))
		b, err := json.Marshal(map[string]any{"name": name, "type": typ, "stream": stream, "toxicity": toxicity, "attributes": attrs})
		if err != nil {
			return err
		}
		if _, err := p.p.Toxics.AddToxicJson(bytes.NewReader(b)); err != nil {
			return fmt.Errorf("faultnet: %s on %s: %w", typ, p.p.Name, err)
		}
		p.names = append(p.names, name)
	}
	return nil
}

// Cut partitions the proxy: no byte goes through in either direction,
// and nothing is lost. As on a real network cut, connections stay open
// (new ones too: the proxy accepts them), writes go into buffers until
// they are full, then block; Heal lets everything held go through, in
// order, as TCP retransmits after a partition heals. On a proxy slowed by
// Slow, the cut falls where the data is: a chunk half sent stays half
// sent.
func (p *Proxy) Cut() error {
	p.valve.set(false, p.valve.rate.Load())
	return nil
}

// Slow delays every chunk of data by latency ± jitter (each direction)
// and caps each direction of each connection at rate bytes per second
// (at least 10; 0: no cap).
func (p *Proxy) Slow(latency, jitter time.Duration, rate int64) error {
	if latency > 0 {
		if err := p.both("latency", 1, map[string]int64{"latency": latency.Milliseconds(), "jitter": jitter.Milliseconds()}); err != nil {
			return err
		}
	}
	if rate > 0 {
		rate = max(10, rate)
	}
	p.valve.rate.Store(rate)
	return nil
}

// ResetRandomly closes a connection abruptly, mid-stream, with
// probability prob at each chunk of data it carries (a chunk is what one
// read of the socket returns, at most 32 KiB): a connection carrying n
// chunks survives with probability (1-prob)^n. Connections opened after
// the call are reset (RST, SO_LINGER 0), older ones closed (FIN).
func (p *Proxy) ResetRandomly(prob float64) error {
	// reset_peer with a toxicity of 0 never fires: it is there because
	// toxiproxy sets SO_LINGER 0 on the links of a proxy that has one.
	if err := p.both("reset_peer", 0, map[string]int64{"timeout": 0}); err != nil {
		return err
	}
	return p.both("faultnet_reset", 1, map[string]float64{"probability": prob})
}

// Heal removes every fault: held data goes through.
func (p *Proxy) Heal() error {
	p.valve.set(true, 0)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range p.names {
		if err := p.p.Toxics.RemoveToxic(context.Background(), name); err != nil {
			return fmt.Errorf("faultnet: healing %s: %w", p.p.Name, err)
		}
	}
	p.names = nil
	return nil
}

func init() {
	toxics.Register("faultnet_valve", new(valveToxic))
	toxics.Register("faultnet_reset", new(resetToxic))
	zerolog.SetGlobalLevel(zerolog.Disabled) // toxiproxy's toxics log to stderr through the global logger
}

// resets counts the connections ResetRandomly reset.
var resets atomic.Int64

// Resets is how many connections ResetRandomly has reset, over all the
// proxies of the process.
func Resets() int64 { return resets.Load() }

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
			select {
			case <-stub.Interrupt:
				return
			case c := <-stub.Input:
				if c == nil {
					stub.Close()
					return
				}
				st.rest = c
			}
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
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
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
}
