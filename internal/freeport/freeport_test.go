package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestAddrs(t *testing.T) {
	addrs, err := Addrs(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	lo := ephemeralLow()
	for _, a := range addrs {
		if seen[a] {
			t.Errorf("%s twice", a)
		}
		seen[a] = true
		_, p, err := net.SplitHostPort(a)
		port, _ := strconv.Atoi(p)
		if err != nil || port < minPort || port >= lo {
			t.Errorf("%s: want a loopback port in [%d, %d)", a, minPort, lo)
		}
		l, err := net.Listen("tcp", a) // free again once returned
		if err != nil {
			t.Errorf("%s: %v", a, err)
			continue
		}
		l.Close()
	}
}
