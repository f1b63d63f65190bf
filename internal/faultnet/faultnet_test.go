package faultnet

import (
	"bufio"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// echo serves an echo server on loopback until the test ends.
func echo(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return l.Addr().String()
}

func TestProxy(t *testing.T) {
	n := New()
	defer n.Close()
	p, err := n.Proxy("echo", echo(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	line := func(s string) string {
		t.Helper()
		if _, err := io.WriteString(c, s+"\n"); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := line("plain"); got != "plain\n" {
		t.Fatalf("through the proxy: %q", got)
	}

	// Cut: what is written is held (nothing comes back), then delivered
	// in order when healed.
	if err := p.Cut(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "held 1\nheld 2\n")
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := r.ReadString('\n'); !errors.Is(err, errTimeout(err)) {
		t.Fatalf("read through a cut proxy: %v", err)
	}
	c.SetReadDeadline(time.Time{})
	if err := p.Heal(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"held 1\n", "held 2\n"} {
		if got, err := r.ReadString('\n'); err != nil || got != want {
			t.Fatalf("after healing: %q %v, want %q", got, err, want)
		}
	}

	// Slow: every exchange takes the latency both ways.
	if err := p.Slow(50*time.Millisecond, 20*time.Millisecond, 1<<20); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if got := line("slow"); got != "slow\n" || time.Since(t0) < 60*time.Millisecond {
		t.Fatalf("through a slow proxy: %q in %v", got, time.Since(t0))
	}
	p.Heal()

	// Reset with probability 1: the next chunk ends the connection.
	if err := p.ResetRandomly(1); err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "reset\n")
	if got, err := r.ReadString('\n'); err == nil {
		t.Fatalf("a connection reset at every chunk answered %q", got)
	}
}

// errTimeout returns err if it is a timeout, else a sentinel that
// matches nothing.
func errTimeout(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return errors.New("not a timeout")
}
