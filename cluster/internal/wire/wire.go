// Package wire is what the client, the coordinators and the workers share
// of the cluster's HTTP plumbing: their HTTP client, requests given up
// when they move no byte (Send) and kept alive by the server meanwhile
// (Working), the bounds of JSON bodies, and the rules for tokens and run
// ids.
package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"time"
)

// DialFunc opens a connection, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// NewHTTPClient is the HTTP client of a client of the coordinators, and
// of a coordinator for its peers: tlsCfg, if not nil, configures HTTPS;
// dial, if not nil, opens its connections.
func NewHTTPClient(tlsCfg *tls.Config, dial DialFunc) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if tlsCfg != nil {
		t.TLSClientConfig = tlsCfg.Clone() // a transport adds its protocols to it
	}
	if dial != nil {
		t.DialContext = dial
	}
	t.MaxIdleConnsPerHost = 16
	return &http.Client{Transport: t}
}

// FailedRecently is how long a coordinator that did not answer is tried
// after the others.
const FailedRecently = time.Minute

// MaxJSON bounds the JSON bodies of requests, and of error answers.
const MaxJSON = 1 << 20

// ErrTooLarge is a JSON body over MaxJSON.
var ErrTooLarge = errors.New("request body too large")

// ReadJSON decodes a request body of at most MaxJSON bytes into v,
// refusing fields v does not have.
func ReadJSON(r io.Reader, v any) error {
	b, err := io.ReadAll(io.LimitReader(r, MaxJSON+1))
	if err != nil {
		return err
	}
	if len(b) > MaxJSON {
		return ErrTooLarge
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// CheckToken refuses a token too short to be a secret.
func CheckToken(tok string) error {
	if len(tok) < 16 {
		return errors.New("cluster: the token must be at least 16 characters (e.g. openssl rand -hex 32)")
	}
	return nil
}

var runID = regexp.MustCompile(`^r[0-9]{1,20}$`)

// ValidRunID reports whether id is a run id (r and a raft index).
func ValidRunID(id string) bool { return runID.MatchString(id) }

// Sleep waits d or until ctx is done; it reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
