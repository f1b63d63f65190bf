package deploy_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/internal/freeport"
	"github.com/tiersolve/tiersolve/internal/poll"
)

// repoRoot is the repository's root (the image's build context).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// podman returns a function running podman with the project's
// containers.conf and the runc runtime, or skips the test where podman
// cannot run containers (failing instead with TIERD_REQUIRE_PODMAN=1, as
// in CI).
func podman(t *testing.T) func(args ...string) (string, error) {
	t.Helper()
	unavailable := func(why string) {
		if os.Getenv("TIERD_REQUIRE_PODMAN") == "1" {
			t.Fatalf("podman is required (TIERD_REQUIRE_PODMAN=1): %s", why)
		}
		t.Skipf("skipping the container image test: %s (apt-get install podman runc)", why)
	}
	bin, err := exec.LookPath("podman")
	if err != nil {
		unavailable("podman is not installed")
	}
	if _, err := exec.LookPath("runc"); err != nil {
		unavailable("runc is not installed")
	}
	conf := filepath.Join(repoRoot(t), "deploy", "containers.conf")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"--runtime", "runc"}, args...)...)
		cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+conf)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := run("info"); err != nil {
		unavailable("podman info fails: " + strings.TrimSpace(out))
	}
	return run
}

var (
	imageOnce sync.Once
	imageName = "localhost/tierd:test"
	imageErr  error
)

// buildImage builds deploy/Containerfile once. Here the build stage is
// an empty image with this machine's Go toolchain, module cache and
// build cache mounted (no registry to pull a Go image from): the same
// Containerfile that builds on golang:1.26 elsewhere.
func buildImage(t *testing.T, run func(args ...string) (string, error)) string {
	t.Helper()
	imageOnce.Do(func() {
		env := map[string]string{}
		for _, k := range []string{"GOROOT", "GOMODCACHE", "GOCACHE"} {
			out, err := exec.Command("go", "env", k).Output()
			if err != nil {
				imageErr = err
				return
			}
			env[k] = strings.TrimSpace(string(out))
		}
		root := repoRoot(t)
		out, err := run("build", "-f", filepath.Join(root, "deploy", "Containerfile"), "-t", imageName,
			"--build-arg", "GO_IMAGE=scratch", "--build-arg", "GOPROXY=off",
			"-v", env["GOROOT"]+":/usr/local/go:ro", "-v", env["GOMODCACHE"]+":/go/pkg/mod:ro",
			"-v", env["GOCACHE"]+":/root/.cache/go-build", root)
		if err != nil {
			imageErr = fmt.Errorf("podman build: %v\n%s", err, out)
		}
	})
	if imageErr != nil {
		t.Fatal(imageErr)
	}
	return imageName
}

// TestImage: the image builds from the repository's root, is small, runs
// as a non-root numeric user, and `podman run IMAGE games` lists the
// games. Then a worker in the image (host networking) joins a coordinator
// on this machine and runs units of a run; the time from podman run to
// its first leased unit is logged.
func TestImage(t *testing.T) {
	run := podman(t)
	image := buildImage(t, run)
	out, err := run("image", "inspect", "--format", "{{.Size}} {{.Config.User}} {{json .Config.Entrypoint}}", image)
	if err != nil {
		t.Fatalf("podman image inspect: %v %s", err, out)
	}
	f := strings.Fields(out)
	size, _ := strconv.ParseInt(f[0], 10, 64)
	t.Logf("image %s: %.1f MB, user %s, entrypoint %s", image, float64(size)/1e6, f[1], f[2])
	if f[1] != "65532:65532" || f[2] != `["/tierd"]` {
		t.Errorf("user %s, entrypoint %s: want 65532:65532 and [\"/tierd\"]", f[1], f[2])
	}
	if size > 40e6 {
		t.Errorf("the image is %d bytes: more than a static tierd", size)
	}
	out, err = run("run", "--rm", image, "games")
	if err != nil || !strings.Contains(out, "connect4") || !strings.Contains(out, "tictactoe") {
		t.Fatalf("podman run %s games: %v\n%s", image, err, out)
	}

	// A worker in the container, a coordinator on the host.
	tierd := hostTierd(t)
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("image-test-token-0123456789abcdef\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raft, httpAddr := freeAddr(t), freeAddr(t)
	coord := exec.Command(tierd, "coordinator", "--node-id", "c1", "--raft-addr", raft, "--http-addr", httpAddr,
		"--data", filepath.Join(dir, "c1"), "--token-file", token, "--bootstrap", "c1="+raft+"="+httpAddr)
	if testing.Verbose() {
		coord.Stderr = os.Stderr
	}
	if err := coord.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coord.Process.Kill(); coord.Wait() })
	base := "http://" + httpAddr
	poll.Until(t, "the coordinator ready", time.Minute, func() bool { return get(base+"/readyz", "") == 200 })
	cl := []string{"--coordinators", base, "--token-file", token}
	if out, err := exec.Command(tierd, append([]string{"submit", "--game", "tictactoe"}, cl...)...).CombinedOutput(); err != nil {
		t.Fatalf("submit: %v %s", err, out)
	}
	data := filepath.Join(dir, "worker")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(data, 65532, 65532) // the image's user writes there
	name := fmt.Sprintf("tierd-image-test-%d", os.Getpid())
	t0 := time.Now()
	if out, err := run("run", "-d", "--rm", "--name", name, "--network", "host", "-v", token+":/token:ro", "-v", data+":/data",
		image, "worker", "--coordinators", base, "--token-file", "/token", "--data", "/data", "--threads", "1", "--id", "podman"); err != nil {
		t.Fatalf("podman run worker: %v %s", err, out)
	}
	t.Cleanup(func() { run("rm", "-f", "-t", "0", name) })
	poll.Until(t, "a lease to the worker in the container", time.Minute, func() bool {
		return metric(base, "image-test-token-0123456789abcdef", "tierd_leases_granted_total") > 0
	})
	t.Logf("podman run of a worker to its first leased unit: %v", time.Since(t0).Round(time.Millisecond))
	poll.Until(t, "the run done", 2*time.Minute, func() bool {
		out, err := exec.Command(tierd, append([]string{"status", "--json"}, cl...)...).Output()
		return err == nil && strings.Contains(string(out), `"state":"done"`)
	})
	if logs, _ := run("logs", name); !strings.Contains(logs, "unit done") {
		t.Errorf("the worker in the container did no unit:\n%s", logs)
	}
}

// hostTierd builds tierd for this machine.
func hostTierd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tierd")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/tiersolve/tiersolve/cmd/tierd").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	addrs, err := freeport.Addrs(1)
	if err != nil {
		t.Fatal(err)
	}
	return addrs[0]
}

// get returns the status of a GET (0 if it failed).
func get(url, token string) int {
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// metric reads a metric without labels from a coordinator's /metrics.
func metric(base, token, name string) float64 {
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == name {
			v, _ := strconv.ParseFloat(f[1], 64)
			return v
		}
	}
	return -1
}
