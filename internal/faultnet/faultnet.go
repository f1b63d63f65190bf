// Package faultnet puts TCP proxies that inject faults between the parts
// of a cluster in tests, on loopback, with the faults the cluster's tests
// need: a partition (Cut, Heal), latency with jitter, a bandwidth cap,
// and connections reset at random.
//
// The proxies are Shopify's toxiproxy, run in a process of its own (the
// command in faultproxy/, a module of its own with two toxics added)
// that this package starts and drives through its HTTP API on loopback.
// So toxiproxy is a requirement of that module only: it is in no module
// graph of a program that imports this repository's packages, and
// linked into no command.
//
// The server is built with the go command on first use, from this
// checkout (or taken from $TIERD_FAULTPROXY), started once per process,
// and exits when that process does.
package faultnet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Net is a set of proxies.
type Net struct {
	id int64 // names the proxies of this Net apart from other Nets' in the server

	mu      sync.Mutex
	proxies []*Proxy
}

var nets atomic.Int64

// New returns an empty set of proxies. The server starts with the first
// proxy.
func New() *Net {
	return &Net{id: nets.Add(1)}
}

// Proxy starts a proxy on a free loopback port that forwards every
// connection to upstream (host:port).
func (n *Net) Proxy(name, upstream string) (*Proxy, error) {
	s, err := theServer()
	if err != nil {
		return nil, fmt.Errorf("faultnet: proxy %s: %w", name, err)
	}
	p := &Proxy{s: s, name: name, id: fmt.Sprintf("n%d-%s", n.id, name)}
	var resp struct{ Listen string }
	if err := s.call("POST", "/proxies", map[string]string{"name": p.id, "upstream": upstream}, &resp); err != nil {
		return nil, fmt.Errorf("faultnet: proxy %s: %w", name, err)
	}
	p.addr = resp.Listen
	n.mu.Lock()
	n.proxies = append(n.proxies, p)
	n.mu.Unlock()
	return p, nil
}

// Close stops every proxy and closes their connections.
func (n *Net) Close() {
	n.mu.Lock()
	ps := n.proxies
	n.proxies = nil
	n.mu.Unlock()
	for _, p := range ps {
		p.s.call("DELETE", "/proxies/"+p.id, nil, nil)
	}
}

// Proxy is one proxy: every connection to Addr goes on to its upstream
// through the faults added to it, in both directions.
type Proxy struct {
	s        *server
	name, id string
	addr     string
}

// Addr is where the proxy listens (127.0.0.1:PORT).
func (p *Proxy) Addr() string { return p.addr }

// Name is the proxy's name.
func (p *Proxy) Name() string { return p.name }

// fault asks the server for a fault on this proxy.
func (p *Proxy) fault(fault string, body any) error {
	if err := p.s.call("POST", "/proxies/"+p.id+"/"+fault, body, nil); err != nil {
		return fmt.Errorf("faultnet: %s on %s: %w", fault, p.name, err)
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
func (p *Proxy) Cut() error { return p.fault("cut", nil) }

// Slow delays every chunk of data by latency ± jitter (each direction)
// and caps each direction of each connection at rate bytes per second
// (at least 10; 0: no cap).
func (p *Proxy) Slow(latency, jitter time.Duration, rate int64) error {
	return p.fault("slow", map[string]int64{"latency_ms": latency.Milliseconds(), "jitter_ms": jitter.Milliseconds(), "rate": rate})
}

// ResetRandomly closes a connection abruptly, mid-stream, with
// probability prob at each chunk of data it carries (a chunk is what one
// read of the socket returns, at most 32 KiB): a connection carrying n
// chunks survives with probability (1-prob)^n. Connections opened after
// the call are reset (RST, SO_LINGER 0), older ones closed (FIN).
func (p *Proxy) ResetRandomly(prob float64) error {
	return p.fault("reset", map[string]float64{"probability": prob})
}

// Heal removes every fault: held data goes through.
func (p *Proxy) Heal() error { return p.fault("heal", nil) }

// Resets is how many connections ResetRandomly has reset, over all the
// proxies of the process (0 before the first proxy).
func Resets() int64 {
	if running.Load() == nil {
		return 0
	}
	var resp struct{ Resets int64 }
	if err := running.Load().call("GET", "/resets", nil, &resp); err != nil {
		return 0
	}
	return resp.Resets
}

// server is the running fault proxy of this process.
type server struct {
	url   string
	cmd   *exec.Cmd
	stdin io.WriteCloser // held, never written: the server exits when it closes
}

var (
	startOnce sync.Once
	running   atomic.Pointer[server]
	startErr  error
)

// theServer starts the process's server on first use.
func theServer() (*server, error) {
	startOnce.Do(func() {
		var s *server
		s, startErr = start()
		running.Store(s)
	})
	return running.Load(), startErr
}

// start builds the server unless $TIERD_FAULTPROXY names one, and runs it
// with a pipe as its standard input that only this process holds, so
// that it exits with this process.
func start() (*server, error) {
	bin := os.Getenv("TIERD_FAULTPROXY")
	if bin == "" {
		dir, err := os.MkdirTemp("", "faultproxy-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir) // a running binary may be removed
		if bin, err = build(dir); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s did not start: %q %v: %s", bin, line, err, stderr.Bytes())
	}
	go io.Copy(io.Discard, stdout)
	return &server{url: "http://" + addr, cmd: cmd, stdin: stdin}, nil
}

// build compiles the server from this checkout into dir.
func build(dir string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot find the fault proxy's source (set TIERD_FAULTPROXY)")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	bin := filepath.Join(dir, "faultproxy")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(filepath.Dir(file), "faultproxy")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the fault proxy in %s: %v\n%s", cmd.Dir, err, out)
	}
	return bin, nil
}

// client is the HTTP client of every call: loopback, and quick.
var client = &http.Client{Timeout: 30 * time.Second}

// call sends a request with a JSON body (nil: none) and decodes a JSON
// answer into out (nil: ignored).
func (s *server) call(method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, r)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s", strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
