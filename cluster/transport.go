package cluster

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/hashicorp/raft"
)

// raftStream is raft's stream layer: TCP connections between the
// coordinators, listening on the bind address and telling the others the
// advertised one (the address they dial: the same, or a proxy's, a NAT's,
// a Kubernetes service's).
type raftStream struct {
	net.Listener
	advertise advertisedAddr
	dial      func(ctx context.Context, network, addr string) (net.Conn, error)
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
	return &raftStream{Listener: l, advertise: advertisedAddr(advertise), dial: dial}, nil
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
	return c, nil
}
