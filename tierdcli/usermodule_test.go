package tierdcli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/clustertest"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

// userMain is a user's own tierd: a module outside this repository with
// a game of its own (Nim of two heaps, written with the exported API
// only), registered next to the bundled games.
const userMain = `package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tierdcli"
	"github.com/tiersolve/tiersolve/tiergame"
)

// nim is Nim with two heaps of at most heap tokens: take any number from
// one heap; who cannot move loses. A tier is the tokens left, a position
// in it the tokens of the first heap.
type nim struct{ heap int }

func newNim(o tiergame.Options) (tiergame.Game, error) {
	if err := o.Check("heap"); err != nil {
		return nil, err
	}
	h, err := o.Int("heap", 5, 1, 40)
	if err != nil {
		return nil, err
	}
	return nim{h}, nil
}

func (g nim) Name() string                                { return "nim" }
func (g nim) Option() string                              { return fmt.Sprintf("heap=%d", g.heap) }
func (g nim) Start() (tiergame.Tier, tiergame.Position)   { return tiergame.Tier(2 * g.heap), tiergame.Position(g.heap) }
func (g nim) TierSize(t tiergame.Tier) uint64             { return uint64(t) + 1 }
func (g nim) TierName(t tiergame.Tier) string             { return fmt.Sprintf("%d tokens", t) }
func (g nim) Format(t tiergame.Tier, p tiergame.Position) string { return fmt.Sprintf("%d,%d", p, uint64(t)-uint64(p)) }

func (g nim) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	var out []tiergame.Tier
	for c := range t {
		out = append(out, c)
	}
	return out
}

func (g nim) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	a, b := tiergame.Tier(p), t-tiergame.Tier(p)
	if a == 0 && b == 0 {
		return tiergame.Lose, dst
	}
	for k := tiergame.Tier(1); k <= a; k++ {
		dst = append(dst, tiergame.Child{Tier: t - k, Pos: p - tiergame.Position(k)})
	}
	for k := tiergame.Tier(1); k <= b; k++ {
		dst = append(dst, tiergame.Child{Tier: t - k, Pos: p})
	}
	return tiergame.Undecided, dst
}

func (g nim) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	as, bs, ok := strings.Cut(s, ",")
	a, err1 := strconv.Atoi(as)
	b, err2 := strconv.Atoi(bs)
	if !ok || err1 != nil || err2 != nil || a < 0 || b < 0 || a > g.heap || b > g.heap {
		return 0, 0, fmt.Errorf("want A,B: two heaps of 0 to %d tokens", g.heap)
	}
	return tiergame.Tier(a + b), tiergame.Position(a), nil
}

func main() {
	tierdcli.Main(games.Default().With(games.Spec{
		Name:    "nim",
		Summary: "Nim with two heaps; tier = tokens left",
		Options: []games.Option{{Key: "heap", Default: "5", Doc: "tokens a heap starts with, 1 to 40"}},
		New:     newNim,
	}))
}
`

// userBinary builds userMain the way docs/writing-a-game.md says, step
// for step ("Outside this repository"): a new module in a folder of its
// own (go mod init), a workspace with this checkout (go work init . ROOT),
// go build. It builds as a user's machine without the network and without
// the checksum database would: no module proxy (GOPROXY=off), nothing
// written to a go.sum (-mod=readonly), and a GOPATH of its own, so no
// state of the checksum database that an earlier go mod tidy may have
// left; only the module cache that building this repository filled. The
// module gets no go.sum: the workspace takes the checksums from this
// checkout's. Then go mod graph of the module must hold none of the
// modules only this repository's tests, benchmarks and deployment checks
// use.
func userBinary(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot build a user's module")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	modCache, err := exec.Command(goBin, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "mynim")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOWORK=", "GOTOOLCHAIN=local",
		"GOSUMDB=sum.golang.org", "GONOSUMDB=", "GONOSUMCHECK=", "GOPRIVATE=", "GOINSECURE=",
		"GOPATH="+t.TempDir(), "GOMODCACHE="+strings.TrimSpace(string(modCache)))
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s (as docs/writing-a-game.md says, offline, without the checksum database): %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("mod", "init", "example.com/mynim")
	goCmd("work", "init", ".", root)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(userMain), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "mynim")
	goCmd("build", "-o", bin, ".")
	for _, name := range []string{"go.sum", "go.work.sum"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("the build wrote %s: a checksum came from somewhere other than the checkout's go.sum", name)
		}
	}
	graph := goCmd("mod", "graph")
	modules := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(graph), "\n") {
		from, to, _ := strings.Cut(line, " ")
		modules[to] = true
		if from != "github.com/tiersolve/tiersolve" {
			continue
		}
		for _, testOnly := range []string{"github.com/Shopify/toxiproxy", "github.com/rs/zerolog", "gonum.org/v1/plot", "k8s.io/", "sigs.k8s.io/yaml"} {
			if strings.HasPrefix(to, testOnly) {
				t.Errorf("go mod graph: tiersolve requires %s, which only its tests, benchmarks or deployment checks use", to)
			}
		}
	}
	t.Logf("the user's module: no go.sum; %d module versions in its go mod graph", len(modules))
	return bin
}

// TestUserModule: a user's module registers a game of its own with
// tierdcli.Main; its binary lists the game, solves it, answers queries,
// and runs it on a cluster of its own processes (one coordinator, one
// worker) whose fetched run is the bytes of its solve. A bundled tierd
// worker in that cluster is leased none of the run's units, and the
// status says it lacks the game.
func TestUserModule(t *testing.T) {
	bin := userBinary(t)
	run := func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String(), errb.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errb.String()
	}

	// The binary calls itself by its own name.
	if code, _, stderr := run("solve", "--bad"); code != 2 || !strings.Contains(stderr, "mynim solve: flag provided but not defined: -bad\nusage: mynim solve ") {
		t.Errorf("mynim solve --bad: exit %d, %q; want exit 2 and mynim's own name", code, stderr)
	}
	code, stdout, stderr := run("games")
	if code != 0 || !strings.Contains(stdout, "nim\tNim with two heaps") || !strings.Contains(stdout, "connect4\t") {
		t.Fatalf("games: exit %d: %s %s", code, stdout, stderr)
	}

	// Two equal heaps of 5 lose for the player to move: the loser takes
	// one token at a time, the winner mirrors, 10 moves in all.
	solved := filepath.Join(t.TempDir(), "solved")
	code, stdout, stderr = run("solve", "--game", "nim", "--option", "heap=5", "--out", solved, "--workers", "2", "--json")
	var sum struct {
		Total uint64 `json:"total"`
		Start struct {
			Value      string `json:"value"`
			Remoteness int    `json:"remoteness"`
		} `json:"start"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &sum) != nil || sum.Start.Value != "lose" || sum.Start.Remoteness != 10 || sum.Total != 36 {
		t.Fatalf("solve: exit %d: %s %s; want the start a lose in 10 of 36 positions", code, stdout, stderr)
	}
	// 3,1: take two from the first heap to leave 1,1, a lose in 2.
	code, stdout, stderr = run("query", "--db", solved, "--json", "3,1")
	var q struct {
		Value      string `json:"value"`
		Remoteness int    `json:"remoteness"`
		Moves      []struct {
			Position   string
			MoverValue string `json:"mover_value"`
		} `json:"moves"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &q) != nil || q.Value != "win" || q.Remoteness != 3 || len(q.Moves) != 4 ||
		q.Moves[0].Position != "1,1" || q.Moves[0].MoverValue != "win" {
		t.Fatalf("query 3,1: exit %d: %s %s", code, stdout, stderr)
	}
	if code, stdout, stderr = run("verify", "--db", solved); code != 0 {
		t.Fatalf("verify: exit %d: %s %s", code, stdout, stderr)
	}

	c := newProcClusterOf(t, bin, 1)
	c.startAll(true)
	// The bundled tierd as a worker: it does not have nim.
	c.startBin("bundled", tierdBinary(t), "worker", "--coordinators", c.urls(), "--token-file", c.token,
		"--data", filepath.Join(c.dir, "bundled"), "--threads", "1", "--id", "bundled", "--memory", "1GiB")
	id := c.submit("nim", "heap=5")
	c.waitFor("the bundled worker reported as lacking nim", 2*time.Minute, func(st *api.StatusResponse) bool {
		for _, w := range st.Workers {
			if w.ID == "bundled" && slices.Equal(w.MissingGames, []string{"nim"}) {
				return true
			}
		}
		return false
	})
	if code, stdout, _ := c.run(c.client("status")...); code != 0 || !strings.Contains(stdout, "worker bundled does not have nim") {
		t.Errorf("status: exit %d: %s", code, stdout)
	}
	if r := c.runJSON(id); r.State != api.Running || countDone(r) > 0 {
		t.Fatalf("the run made progress with no worker that has nim: %s, %d units done", r.State, countDone(r))
	}
	c.startWorker("w1", 1)
	c.waitDone(id)
	sameFolders(t, solved, c.fetch(id))
}

// countDone counts a run's finished units.
func countDone(r *api.Run) int {
	n := 0
	for _, t := range r.Tiers {
		for _, u := range append(t.Reach, t.Solve...) {
			if u.Done != nil {
				n++
			}
		}
	}
	return n
}

// TestSubmitUnknownToTheCoordinators: a game the coordinators do not
// have is refused by them, with exit 1 and one line that names it,
// whether this program has it or not.
func TestSubmitUnknownToTheCoordinators(t *testing.T) {
	c, err := clustertest.Start(t.TempDir(), 1, clustertest.Config{NewGame: games.New})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte(clustertest.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	ttt, _ := games.Lookup("tictactoe")
	mine := ttt
	mine.Name = "mine"
	mine.New = func(o tiergame.Options) (tiergame.Game, error) {
		g, err := ttt.New(o)
		return renamed{g, "mine"}, err
	}
	p := New(games.Default().With(mine))
	args := []string{"submit", "--coordinators", strings.Join(c.URLs(), ","), "--token-file", token, "--game", "mine"}
	for _, game := range []string{"mine", "chess"} {
		args[len(args)-1] = game
		want := `coordinator c1: unknown game "` + game + `"`
		if code, _, stderr, _ := runProgram(p, args...); code != 1 || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("submit of %s, which the coordinators lack: exit %d, %q; want exit 1 and one line with %q", game, code, stderr, want)
		}
	}
}

// renamed is a game under another name.
type renamed struct {
	tiergame.Game
	name string
}

func (r renamed) Name() string { return r.name }
