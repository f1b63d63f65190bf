package coordinator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// raftStream is raft's stream layer: TCP connections between the
// coordinators, listening on the bind address and telling the others the
// advertised one (the address they dial: the same, or a proxy's, a NAT's,
// a Kubernetes service's). With TLS, both ends of every connection show
// a certificate of the coordinators' CA (mutual TLS): a host that can
// reach the raft port but has no such certificate can neither join nor
// send a single raft message; its connection is refused at the
// handshake, logged and counted.
type raftStream struct {
	net.Listener
	advertise advertisedAddr
	dial      func(ctx context.Context, network, addr string) (net.Conn, error)

	// With TLS: server and client configurations, the connections that
	// passed the handshake, and what to do with a refused one.
	server, client *tls.Config
	accepted       chan net.Conn
	acceptErr      chan error
	refused        func(remote string, err error)
	closed         chan struct{}
	closeOnce      sync.Once
}

// advertisedAddr is an address as the other coordinators dial it: a host
// name stays a name (resolved by each dialer, when it dials).
type advertisedAddr string

func (a advertisedAddr) Network() string { return "tcp" }
func (a advertisedAddr) String() string  { return string(a) }

// newRaftStream listens on bind and advertises advertise (bind if empty).
func newRaftStream(bind, advertise string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*raftStream, error) {
	if advertise == "" {
		advertise = bind
	}
	if err := checkAdvertisable(advertise); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	return &raftStream{Listener: l, advertise: advertisedAddr(advertise), dial: dial, closed: make(chan struct{})}, nil
}

// handshakeTimeout bounds a raft connection's TLS handshake.
const handshakeTimeout = 10 * time.Second

// mutualTLS makes the stream mutual TLS: cert is this coordinator's
// certificate (shown to both the peers it dials and those that dial it),
// roots the CA that signed every coordinator's. refused is called for
// each connection refused at the handshake.
func (s *raftStream) mutualTLS(cert []tls.Certificate, roots *x509.CertPool, refused func(remote string, err error)) {
	s.server = &tls.Config{Certificates: cert, ClientCAs: roots, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	s.client = &tls.Config{Certificates: cert, RootCAs: roots, MinVersion: tls.VersionTLS12}
	s.accepted, s.acceptErr, s.refused = make(chan net.Conn), make(chan error, 1), refused
	go s.acceptTLS()
}

// acceptTLS accepts connections and hands on those whose handshake
// succeeds; each handshake runs on its own, so that a connection that
// says nothing holds up no other.
func (s *raftStream) acceptTLS() {
	for {
		c, err := s.Listener.Accept()
		if err != nil {
			select {
			case s.acceptErr <- err:
			case <-s.closed:
			}
			return
		}
		go func() {
			tc := tls.Server(c, s.server)
			ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
			defer cancel()
			if err := tc.HandshakeContext(ctx); err != nil {
				c.Close()
				s.refused(c.RemoteAddr().String(), err)
				return
			}
			select {
			case s.accepted <- tc:
			case <-s.closed:
				tc.Close()
			}
		}()
	}
}

// Accept implements net.Listener: with TLS, a connection that passed the
// handshake.
func (s *raftStream) Accept() (net.Conn, error) {
	if s.server == nil {
		return s.Listener.Accept()
	}
	select {
	case c := <-s.accepted:
		return c, nil
	case err := <-s.acceptErr:
		s.acceptErr <- err // for the next caller
		return nil, err
	case <-s.closed:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (s *raftStream) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return s.Listener.Close()
}

// checkAdvertisable refuses an address others cannot dial: no port, or
// every interface (0.0.0.0, ::), which is a bind address only.
func checkAdvertisable(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, err)
	}
	if port == "" || port == "0" {
		return fmt.Errorf("%q: a port other coordinators can dial is needed", addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("%q binds every interface and cannot be dialed: give the address others dial (--raft-advertise)", addr)
	}
	return nil
}

// Addr is the advertised address: raft puts it in its messages, and the
// followers tell it to whoever asks for the leader.
func (s *raftStream) Addr() net.Addr { return s.advertise }

// Dial implements raft.StreamLayer.
func (s *raftStream) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := s.dial(ctx, "tcp", string(address))
	if err != nil {
		return nil, err
	}
	if s.client == nil {
		return c, nil
	}
	cfg := s.client.Clone()
	if host, _, err := net.SplitHostPort(string(address)); err == nil {
		cfg.ServerName = host
	}
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("raft TLS handshake with %s: %w", address, err)
	}
	return tc, nil
}
