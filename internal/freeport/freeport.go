// Package freeport finds free TCP ports on loopback, for tests that start
// servers which bind their own addresses (other processes, raft nodes).
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Addrs returns n distinct loopback addresses ("127.0.0.1:PORT") whose
// ports were free a moment ago.
//
// The ports are drawn at random below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range), not asked of the kernel with port 0:
// the kernel hands out the ports of that range to the local ends of
// outgoing connections too, and on a busy machine one of them took such
// a port between the test closing its listener and the server binding it
// ("address already in use"). At random, two test processes looking at
// once rarely pick the same port.
func Addrs(n int) ([]string, error) {
	lo := ephemeralLow()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []string
	for tries := 0; len(out) < n; tries++ {
		addr := "127.0.0.1:0" // the kernel's choice, if the range below is too busy
		if tries < 100*n && lo > minPort+n {
			addr = "127.0.0.1:" + strconv.Itoa(minPort+rand.IntN(lo-minPort))
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			if tries >= 100*n {
				return nil, fmt.Errorf("freeport: %w", err)
			}
			continue
		}
		ls = append(ls, l) // held until all are found: no port twice
		out = append(out, l.Addr().String())
	}
	return out, nil
}

// minPort is the lowest port drawn: above the well-known and most
// registered services.
const minPort = 10000

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// default when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 32768
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return lo
}
