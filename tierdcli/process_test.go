package tierdcli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Tests that need tierd as a real process: signals, a killed process, a
// second process on the same folder. The test binary runs as tierd itself
// (TIERD_TEST_MAIN=1 runs Main), with the game wrapped so that the process
// stops at a chosen point of the run and waits there: the test knows
// exactly what was finished when it sends its signal.

const (
	envMain  = "TIERD_TEST_MAIN"
	envBlock = "TIERD_TEST_BLOCK" // "TIER:N": block in the N-th Moves call on TIER
	envMark  = "TIERD_TEST_MARK"  // file created when the process blocks
)

func TestMain(m *testing.M) {
	if os.Getenv(envMain) == "1" {
		reg := games.Default()
		if spec := os.Getenv(envBlock); spec != "" {
			reg = blockingRegistry(spec, os.Getenv(envMark))
		}
		Main(reg)
	}
	code := m.Run()
	removeShared() // the folders the package's tests share
	os.Exit(code)
}

// blockingGame waits in its n-th Moves call on tier until the process gets
// SIGINT, SIGTERM or SIGUSR1 (or for a minute), having created the mark
// file.
type blockingGame struct {
	tiergame.Game
	tier  tiergame.Tier
	n     int64
	calls atomic.Int64
	mark  string
	sigs  chan os.Signal
}

func (g *blockingGame) Moves(t tiergame.Tier, p tiergame.Position, buf []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if t == g.tier && g.calls.Add(1) == g.n {
		os.WriteFile(g.mark, nil, 0o644)
		select {
		case <-g.sigs:
		case <-time.After(time.Minute):
		}
	}
	return g.Game.Moves(t, p, buf)
}

// blockingRegistry is the bundled games, each wrapped in a blockingGame.
func blockingRegistry(spec, mark string) *games.Registry {
	tier, n, _ := strings.Cut(spec, ":")
	ti, _ := strconv.ParseUint(tier, 10, 64)
	ni, _ := strconv.ParseInt(n, 10, 64)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGUSR1) // SIGUSR1: go on, without stopping
	var specs []games.Spec
	for _, s := range games.All() {
		bundled := s.New
		s.New = func(o tiergame.Options) (tiergame.Game, error) {
			g, err := bundled(o)
			if err != nil {
				return nil, err
			}
			return &blockingGame{Game: g, tier: tiergame.Tier(ti), n: ni, mark: mark, sigs: sigs}, nil
		}
		specs = append(specs, s)
	}
	return new(games.Registry).With(specs...)
}

// process is tierd running as a child process.
type process struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	mark   string
}

// startBlocked starts tierd with args, blocking at the n-th position of
// tier, and waits until it is there.
func startBlocked(t *testing.T, tier tiergame.Tier, n uint64, args ...string) *process {
	t.Helper()
	p := &process{mark: filepath.Join(t.TempDir(), "blocked")}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), envMain+"=1", fmt.Sprintf("%s=%d:%d", envBlock, tier, n), envMark+"="+p.mark)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(p.mark); err == nil {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("tierd %v never reached tier %d: %s", args, tier, p.stderr.String())
		}
	}
}

// stop sends sig and returns the exit code and the last line of stderr.
func (p *process) stop(t *testing.T, sig syscall.Signal) (int, string) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	code := p.cmd.ProcessState.ExitCode()
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	lines := strings.Split(strings.TrimSpace(p.stderr.String()), "\n")
	return code, lines[len(lines)-1]
}

// solvedRun solves game in a new folder in-process: the reference bytes.
func solvedRun(t *testing.T, game, option string) (string, *runfolder.Manifest) {
	t.Helper()
	dir := solved(t, "ref", game, option, "--workers", "2")
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// sameResults compares the level files and databases of two run folders
// byte for byte, and their manifests' tier records.
func sameResults(t *testing.T, want, got string) {
	t.Helper()
	files := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		for _, sub := range []string{"levels", "db"} {
			filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(path)
					rel, _ := filepath.Rel(dir, path)
					out[rel] = b
				}
				return nil
			})
		}
		return out
	}
	w, g := files(want), files(got)
	if len(w) == 0 || len(w) != len(g) {
		t.Fatalf("%d files, want %d", len(g), len(w))
	}
	for name, b := range w {
		if !bytes.Equal(g[name], b) {
			t.Errorf("%s differs from the uninterrupted run's", name)
		}
	}
	a, _ := os.ReadFile(filepath.Join(want, runfolder.ManifestName))
	b, _ := os.ReadFile(filepath.Join(got, runfolder.ManifestName))
	if !bytes.Equal(a, b) {
		t.Errorf("manifests differ:\n%s\n----\n%s", a, b)
	}
}

// finished lists the tiers the manifest of dir records as reached and as
// solved.
func finished(t *testing.T, dir string) (reached, solved map[uint64]bool) {
	t.Helper()
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	reached, solved = map[uint64]bool{}, map[uint64]bool{}
	for _, rec := range m.Tiers {
		reached[rec.Tier] = rec.Reached
		solved[rec.Tier] = rec.Solved
	}
	return reached, solved
}

// A signal during tierd solve, in reachability or in solving: every tier
// finished before it is recorded, the process exits 128+signal with one
// line saying how to resume, and resuming gives the bytes of a run that
// was never stopped.
func TestSignalStopsAndResumes(t *testing.T) {
	const game, option = "connect4", "width=4,height=4"
	ref, m := solvedRun(t, game, option)
	g, _ := games.New(game, option)
	gr, _ := tiergraph.New(g)
	const blockTier = 8
	reachable := m.Tiers[blockTier].Reachable
	for _, tc := range []struct {
		name  string
		sig   syscall.Signal
		calls uint64 // Moves calls on blockTier before blocking
	}{
		{"reach/SIGINT", syscall.SIGINT, 1},
		{"solve/SIGINT", syscall.SIGINT, reachable + 1},
		{"solve/SIGTERM", syscall.SIGTERM, reachable + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"solve", "--game", game, "--option", option, "--out", dir, "--workers", "2"}
			p := startBlocked(t, blockTier, tc.calls, args...)
			code, last := p.stop(t, tc.sig)
			if code != 128+int(tc.sig) || !strings.Contains(last, "run the same command again to resume") || !strings.Contains(last, dir) {
				t.Errorf("exit %d, last line %q; want exit %d and how to resume", code, last, 128+int(tc.sig))
			}
			// Every tier finished before the blocked one is recorded:
			// parents first in reachability, children first in solving.
			reached, solved := finished(t, dir)
			for _, tier := range gr.Tiers {
				if tier == blockTier {
					break
				}
				if !reached[uint64(tier)] {
					t.Errorf("tier %d was reached before the signal but is not recorded", tier)
				}
			}
			if tc.calls > 1 {
				for _, tier := range gr.SolveOrder() {
					if tier == blockTier {
						break
					}
					if !solved[uint64(tier)] {
						t.Errorf("tier %d was solved before the signal but is not recorded", tier)
					}
				}
			}
			if code, _, stderr := tierd(t, args...); code != 0 {
				t.Fatalf("resume: exit %d: %s", code, stderr)
			}
			sameResults(t, ref, dir)
		})
	}
}

// A process killed outright (SIGKILL) records nothing more, and leaves its
// lock behind only as a file: the kernel drops the lock itself, so the
// next run starts at once and ends with the same bytes.
func TestKilledRunResumes(t *testing.T) {
	const game, option = "connect4", "width=4,height=4"
	ref, m := solvedRun(t, game, option)
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"solve", "--game", game, "--option", option, "--out", dir, "--workers", "2"}
	p := startBlocked(t, 8, m.Tiers[8].Reachable/2, args...)
	if code, _ := p.stop(t, syscall.SIGKILL); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("exit %d", code)
	}
	// What a kill in the middle of writing a file leaves: its temporary.
	stale := filepath.Join(dir, "levels", ".mconnect4_width4-height4_8.dat.gz123456")
	if err := os.WriteFile(stale, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := tierd(t, args...); code != 0 {
		t.Fatalf("resume after SIGKILL: exit %d: %s", code, stderr)
	}
	sameResults(t, ref, dir)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the temporary file of the killed process is still there: %v", err)
	}
}

// A second process on a folder in use is refused at once, naming the
// holder; the first goes on undisturbed.
func TestSecondProcessRefused(t *testing.T) {
	const game, option = "connect4", "width=4,height=4"
	ref, _ := solvedRun(t, game, option)
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"solve", "--game", game, "--option", option, "--out", dir, "--workers", "2"}
	p := startBlocked(t, 8, 1, args...)
	host, _ := os.Hostname()
	for _, second := range [][]string{args, {"reach", "--game", game, "--option", option, "--out", dir}, {"verify", "--db", dir}} {
		code, _, stderr := tierd(t, second...)
		want := fmt.Sprintf("is held by pid %d on %s, started ", p.cmd.Process.Pid, host)
		if code != 1 || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("tierd %s on a folder in use: exit %d, %q; want exit 1 and one line containing %q", second[0], code, stderr, want)
		}
	}
	if code, last := p.stop(t, syscall.SIGINT); code != 130 {
		t.Fatalf("first process: exit %d: %s", code, last)
	}
	if code, _, stderr := tierd(t, args...); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	sameResults(t, ref, dir)
}
