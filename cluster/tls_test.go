package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
)

// testCert makes a self-signed certificate for 127.0.0.1, and a client
// configuration that trusts it.
func testCert(t *testing.T) (server, client *tls.Config) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tierd test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
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
	ctx := context.Background()
	id, err := cl.Submit(ctx, SubmitRequest{Game: "tictactoe"})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, time.Minute)
	out := t.TempDir()
	if _, err := cl.Fetch(ctx, id, out, games.New); err != nil {
		t.Fatal(err)
	}
	sameRunFolders(t, embeddedSolve(t, "tictactoe", "", false), out)
	// Plain HTTP is refused, and so is a client that does not trust the
	// certificate.
	resp, err := http.Get("http://" + c.members[0].HTTPAddr + "/healthz")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("plain HTTP to a TLS coordinator: %s", resp.Status)
		}
	}
	untrusting, _ := NewClient(c.urls(), testToken, nil)
	untrusting.Patience = 0
	if _, err := untrusting.Status(ctx); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client that does not trust the certificate: %v", err)
	}
}
