// Package s3test starts a real S3 server on loopback for tests: the
// Versity S3 Gateway (versitygw), serving a temporary folder (a bucket is
// a subfolder). Tests that need one call Start; without the binary they
// skip, saying how to install it, unless TIERD_REQUIRE_VERSITYGW=1 (as in
// CI), where its absence fails them.
package s3test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The credentials of the servers Start runs.
const (
	AccessKey = "tierdtestaccess"
	SecretKey = "tierdtestsecret0123456789"
)

// Install is the command that installs the server where Binary finds it.
const Install = "GOBIN=$HOME/.cache/tiersolve/bin go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// Binary finds versitygw: $TIERD_VERSITYGW, else
// $HOME/.cache/tiersolve/bin/versitygw, else the PATH; "" if none.
func Binary() string {
	if p := os.Getenv("TIERD_VERSITYGW"); p != "" {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "tiersolve", "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	return ""
}

// Server is a running versitygw.
type Server struct {
	t    testing.TB
	bin  string
	Dir  string // the served folder: bucket B is Dir/B
	Addr string // HOST:PORT
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

// Start runs a server on a free loopback port until the test ends, with
// the buckets named (folders made before it starts), and waits until it
// answers.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv("TIERD_REQUIRE_VERSITYGW") == "1" {
			t.Fatalf("versitygw is required (TIERD_REQUIRE_VERSITYGW=1) but not found; install it: %s", Install)
		}
		t.Skipf("versitygw not found (set TIERD_VERSITYGW, or install it: %s): skipping the tests against a real S3 server", Install)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &Server{t: t, bin: bin, Dir: t.TempDir(), Addr: addr}
	for _, b := range buckets {
		if err := os.MkdirAll(filepath.Join(s.Dir, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.log = filepath.Join(t.TempDir(), "versitygw.log")
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// Endpoint is the server's base URL.
func (s *Server) Endpoint() string { return "http://" + s.Addr }

// URL is the tierd store URL of a bucket and prefix on this server.
func (s *Server) URL(bucket, prefix string) string {
	return fmt.Sprintf("s3://%s/%s?endpoint=%s&region=us-east-1", bucket, prefix, s.Endpoint())
}

// Env is the environment that gives a process the server's credentials.
func Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey}
}

// Restart starts the server again after Stop, on the same port and
// folder, and waits until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	log, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.Command(s.bin, "--access", AccessKey, "--secret", SecretKey, "--region", "us-east-1", "--port", s.Addr, "posix", s.Dir)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		s.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(done) }()
	s.cmd, s.done = cmd, done
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-done:
			b, _ := os.ReadFile(s.log)
			s.t.Fatalf("versitygw exited: %s", lastLines(string(b)))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("versitygw did not answer on %s within a minute", s.Addr)
		}
	}
}

// Stop stops the server (and waits for it); Restart starts it again.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// Objects lists the files of a bucket's folder (objects, and whatever
// the server keeps beside them), relative to it.
func (s *Server) Objects(bucket string) []string {
	var out []string
	root := filepath.Join(s.Dir, bucket)
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-10):], "\n")
}
