package tierdcli

import (
	"bufio"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeCommand runs tierd serve as a process over two solved runs:
// its position answers are tierd query --json's bytes, and SIGTERM drains
// it (/readyz 503 while it still answers) and it exits 0.
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	ttt, bo := filepath.Join(dir, "ttt"), filepath.Join(dir, "bo")
	const boOpt = "checkers=3,points=4,cube=money"
	for _, args := range [][]string{
		{"solve", "--game", "tictactoe", "--out", ttt},
		{"solve", "--game", "bearoff", "--option", boOpt, "--out", bo},
	} {
		if code, _, stderr := tierd(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// Refused: a folder that is not a run, with a clear message.
	if code, _, stderr := tierd(t, "serve", "--db", dir, "--http-addr", "127.0.0.1:0"); code != 1 || !strings.Contains(stderr, "not a finished run") {
		t.Errorf("serve of a folder that is not a run: exit %d: %s", code, stderr)
	}
	if code, _, _ := tierd(t, "serve", "--db", ttt, "--cache", "lots"); code != 2 {
		t.Errorf("--cache lots: exit %d, want 2", code)
	}

	cmd := exec.Command(os.Args[0], "serve", "--db", ttt+","+bo, "--http-addr", "127.0.0.1:0", "--cache", "1MiB", "--drain-delay", "3s")
	cmd.Env = append(os.Environ(), envMain+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("no line from tierd serve: %v: %s", err, stderr.String())
	}
	_, rest, _ := strings.Cut(line, " at ")
	base, _, _ := strings.Cut(rest, " ")
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("tierd serve printed %q", line)
	}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + strings.TrimPrefix(path, "/"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	boStart := manifestStart(t, bo)
	for _, tc := range []struct {
		run, id string
		args    []string
		params  string
	}{
		{ttt, "ttt", []string{"---/---/---"}, "p=---/---/---"},
		{ttt, "ttt", []string{"x--/-o-/---"}, "p=x--/-o-/---"},
		{bo, "bo", []string{boStart}, "p=" + url.QueryEscape(boStart)},
		{bo, "bo", []string{"--roll", "21", boStart}, "roll=21&p=" + url.QueryEscape(boStart)},
		{bo, "bo", []string{"--cube", "opponent", "--roll", "33", boStart}, "cube=opponent&roll=33&p=" + url.QueryEscape(boStart)},
	} {
		code, want, errs := tierd(t, append([]string{"query", "--db", tc.run, "--json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("query %v: exit %d: %s", tc.args, code, errs)
		}
		status, got := get("/api/v1/runs/" + tc.id + "/position?" + tc.params)
		if status != 200 || got != want {
			t.Errorf("%s?%s: %d\n got %s\nwant %s", tc.id, tc.params, status, got, want)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Draining: /readyz says so while the server still answers.
	for deadline := time.Now().Add(3 * time.Second); ; {
		status, body := get("/readyz")
		if status == http.StatusServiceUnavailable && strings.TrimSpace(body) == "draining" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz after SIGTERM: %d %s", status, body)
		}
	}
	if status, _ := get("/api/v1/runs"); status != 200 {
		t.Errorf("runs while draining: %d", status)
	}
	rest2, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tierd serve after SIGTERM: %v: %s", err, stderr.String())
	}
	if !strings.Contains(string(rest2), "drained and stopped") {
		t.Errorf("stdout after SIGTERM: %q", rest2)
	}
}

// manifestStart is the start position a run's manifest records.
func manifestStart(t *testing.T, dir string) string {
	t.Helper()
	m, err := runfolder.LoadManifest(dir)
	if err != nil || m.Start == nil {
		t.Fatalf("%s: %v, no start position", dir, err)
	}
	return m.Start.Position
}
