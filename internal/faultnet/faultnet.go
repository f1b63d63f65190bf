// Package faultnet puts TCP proxies that inject faults between the parts
// of a cluster in tests, on loopback: Shopify's toxiproxy, embedded (no
// server process, no HTTP API), with the faults the cluster's tests need:
// a partition (Cut, Heal), latency with jitter, a bandwidth cap, and
// connections reset at random.
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
	px := &Proxy{p: p}
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
		p.p.Stop()
	}
}

// Proxy is one proxy: every connection to Addr goes on to its upstream
// through the faults added to it, in both directions.
type Proxy struct {
	p *toxiproxy.Proxy

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
// order, as TCP retransmits after a partition heals.
func (p *Proxy) Cut() error { return p.both("faultnet_hold", 1, struct{}{}) }

// Slow delays every chunk of data by latency ± jitter (each direction)
// and caps each direction at rate bytes per second.
func (p *Proxy) Slow(latency, jitter time.Duration, rate int64) error {
	if err := p.both("latency", 1, map[string]int64{"latency": latency.Milliseconds(), "jitter": jitter.Milliseconds()}); err != nil {
		return err
	}
	return p.both("bandwidth", 1, map[string]int64{"rate": max(1, rate/1000)})
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
	toxics.Register("faultnet_hold", new(holdToxic))
	toxics.Register("faultnet_reset", new(resetToxic))
	zerolog.SetGlobalLevel(zerolog.Disabled) // toxiproxy's toxics log to stderr through the global logger
}

// resets counts the connections ResetRandomly reset.
var resets atomic.Int64

// Resets is how many connections ResetRandomly has reset, over all the
// proxies of the process.
func Resets() int64 { return resets.Load() }

// holdToxic reads nothing until it is removed: data waits behind it.
type holdToxic struct{}

func (holdToxic) Pipe(stub *toxics.ToxicStub) { <-stub.Interrupt }

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
