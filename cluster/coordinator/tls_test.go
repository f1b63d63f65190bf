package coordinator

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/internal/poll"
)

// testCert makes a self-signed certificate for 127.0.0.1 (for servers and
// clients: raft's mutual TLS shows it both ways), and a client
// configuration that trusts it.
func testCert(t *testing.T) (server, client *tls.Config) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tierd test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}
	return server, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// TestTLS: with --tls-cert the API (blob copies between coordinators
// included) is HTTPS only, and a run goes through as over HTTP.
func TestTLS(t *testing.T) {
	server, client := testCert(t)
	c := startClusterTLS(t, 3, 5*time.Second, server, client)
	c.startWorker("w1", 2)
	cl := c.client()
	solveThrough(t, cl, "tictactoe", "", nil)
	// Plain HTTP is refused, and so is a client that does not trust the
	// certificate.
	resp, err := http.Get("http://" + c.members[0].HTTPAddr + "/healthz")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("plain HTTP to a TLS coordinator: %s", resp.Status)
		}
	}
	untrusting, _ := api.NewClient(c.urls(), testToken, nil)
	untrusting.Patience = 0
	if _, err := untrusting.Status(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client that does not trust the certificate: %v", err)
	}
}

// syncBuffer is a buffer several goroutines write (a node's log).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRaftMutualTLS: with TLS, raft runs over mutual TLS. A plain TCP
// client sending a well-formed raft message (an AppendEntries of a later
// term carrying a command that creates a run) changes nothing and is
// logged; a TLS client with a certificate of another CA, or none, is
// refused at the handshake; the refusals are counted.
func TestRaftMutualTLS(t *testing.T) {
	server, client := testCert(t)
	var logs syncBuffer
	c := newTestCluster(t, 3, 5*time.Second)
	c.serverTLS, c.clientTLS = server, client
	c.configure = func(i int, cfg *NodeConfig) {
		if i == 0 {
			cfg.Log = slog.New(slog.NewTextHandler(&logs, nil))
		}
	}
	c.startAll()
	target := c.nodes[0]
	term := target.raft.CurrentTerm()
	runs := func() (n int) { target.fsm.View(func(s *state.State, _ uint64) { n = len(s.Runs) }); return n }
	before := runs()

	// A plain raft client: hashicorp/raft's own TCP transport.
	intruder, err := raft.NewTCPTransport("127.0.0.1:0", nil, 1, 2*time.Second, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer intruder.Close()
	cmd, _ := json.Marshal(state.Create(&state.Run{Game: "tictactoe", Tiers: []*state.Tier{{Tier: 0}}}))
	last := target.raft.LastIndex()
	req := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("intruder"), Addr: []byte(intruder.LocalAddr())},
		Term: term + 100, PrevLogEntry: last, PrevLogTerm: term, LeaderCommitIndex: last + 1,
		Entries: []*raft.Log{{Index: last + 1, Term: term + 100, Type: raft.LogCommand, Data: cmd}}}
	var resp raft.AppendEntriesResponse
	if err := intruder.AppendEntries("c1", raft.ServerAddress(c.members[0].RaftAddr), req, &resp); err == nil {
		t.Fatalf("a plain TCP client's AppendEntries was answered: %+v", resp)
	}
	// Certificates of another CA, or none.
	other, _ := testCert(t)
	for name, certs := range map[string][]tls.Certificate{"another CA": other.Certificates, "no certificate": nil} {
		conn, err := tls.Dial("tcp", c.members[0].RaftAddr, &tls.Config{Certificates: certs, RootCAs: client.RootCAs, MinVersion: tls.VersionTLS12})
		if err == nil {
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("a TLS client with %s: %v, want a certificate error", name, err)
		}
	}
	poll.Until(t, "the refusals logged", 10*time.Second, func() bool {
		return strings.Count(logs.String(), "refused a raft connection") >= 3
	})
	if got := target.raft.CurrentTerm(); got >= term+100 {
		t.Errorf("the intruder moved the term from %d to %d", term, got)
	}
	if runs() != before {
		t.Errorf("the intruder created a run")
	}
	mfs, _ := target.Metrics().Gather()
	for _, mf := range mfs {
		if mf.GetName() == "tierd_raft_refused_connections_total" && mf.GetMetric()[0].GetCounter().GetValue() < 3 {
			t.Errorf("tierd_raft_refused_connections_total %v, want at least 3", mf.GetMetric()[0].GetCounter().GetValue())
		}
	}
	// The cluster still works.
	cl := c.client()
	id, err := cl.Submit(context.Background(), api.SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	c.startWorker("w", 2)
	waitRun(t, cl, id, time.Minute)
}
