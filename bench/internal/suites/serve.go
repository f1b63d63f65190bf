package suites

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tierdcli"
	"github.com/tiersolve/tiersolve/tiergame"
)

// serveRun is one solved run the serve suite loads `tierd serve` with.
type serveRun struct {
	name, game, option string
	// cache is serve's --cache: smaller than the run's databases, so that
	// random positions miss it and the server reads its files.
	cache string
	// universal is the run's game and variant in the universal API
	// ("quixo", "4x4"), "" when the load does not ask it there.
	universalGame, universalVariant string
	// solve estimates a `tierd solve` of the run on the reference machine,
	// which Setup runs when --runs holds no such run.
	solve time.Duration
	// heldWhenRated: the load at serveRate is asked with a cache that
	// holds the run (the issue asks a cache smaller than the databases
	// of the xiangqi and Connect Four runs only).
	heldWhenRated bool
}

var serveRuns = []serveRun{
	{name: "quixo-4x4", game: "quixo", option: "size=4", cache: "8MiB", universalGame: "quixo", universalVariant: "4x4",
		solve: 30 * time.Second, heldWhenRated: true},
	{name: "xiangqi-KRNvKRA", game: "xiangqi", option: "material=KRNvKRA", cache: "64MiB", solve: 8 * time.Minute},
	{name: "connect4-6x5", game: "connect4", option: "width=6,height=5", cache: "64MiB", solve: 150 * time.Second},
}

// Load settings of every serve group: the clients, how long they ask
// and how many positions are drawn (the cycle the clients walk).
const (
	serveClients   = 64
	serveDuration  = 20 * time.Second
	serveWarmup    = 2 * time.Second
	servePositions = 20000
	// serveRate is the requests a second of a rated load.
	serveRate = 10000
	// serveMaxAnswers bounds a load run whatever its time: a faster
	// server than expected stops at it.
	serveMaxAnswers = 5_000_000
	// gamesmanQueries is how many positions GamesmanOne's `gamesman
	// query` answers, one process each.
	gamesmanQueries = 60
	// rssSlack is what the issue allows the server above its --cache.
	rssSlack = 64 << 20
)

// Files a serve group's Setup writes into its shared folder.
const (
	serveRunFile       = "run.txt"       // the run folder's path
	servePositionsFile = "positions.txt" // one position a line, the game's Format
)

// Serve is the suite of `tierd serve` under load: a real server process
// over a solved run with a --cache smaller than its databases, 64
// concurrent HTTP clients on loopback asking random reachable positions
// (each answer with all its moves), against GamesmanOne's `gamesman
// query` on the same positions, one process a query.
func Serve() harness.Suite {
	return harness.Suite{
		Name:   "serve",
		Doc:    "tierd serve under load: 64 clients on loopback asking random reachable positions of a run (cache smaller than its databases); GamesmanOne's gamesman query on the same positions",
		Groups: serveGroups,
		Jobs: map[string]harness.JobFunc{"setup": harness.JobOf(runServeSetup), "load": harness.JobOf(runServeLoad), "gamesman": harness.JobOf(runGamesmanQuery),
			"gamesmanuni": runGamesmanUni},
		Columns: []harness.Column{
			{Key: "rate_per_s", Header: "asked/s", Format: "si"},
			{Key: "answers_per_s", Header: "answers/s", Format: "si"},
			{Key: "p50_ms", Header: "p50 ms", Format: "%.3g"},
			{Key: "p99_ms", Header: "p99 ms", Format: "%.3g"},
			{Key: "max_ms", Header: "max ms", Format: "%.3g"},
			{Key: "errors", Header: "errors", Format: "%.0f"},
			{Key: "moves_per_answer", Header: "moves/answer", Format: "%.3g"},
			{Key: "server_cpu_s", Header: "server CPU s", Format: "%.3g"},
			{Key: "client_cpu_s", Header: "client CPU s", Format: "%.3g"},
			{Key: "cache_bytes", Header: "--cache", Format: "bytes"},
			colDBBytes,
			{Key: "server_peak_rss_bytes", Header: "server peak RSS", Format: "bytes"},
			{Key: "server_rss_anon_bytes", Header: "RSS anon at end", Format: "bytes"},
			{Key: "server_rss_file_bytes", Header: "RSS file at end", Format: "bytes"},
			{Key: "fact:within_budget", Header: "RSS ≤ cache+64MiB"},
			{Key: "fact:target", Header: "≥10k/s, p99<10ms, no error"},
			{Key: "fact:agree", Header: "values agree"},
		},
	}
}

// serveGroups are serve/RUN for each run, then the peers' groups.
func serveGroups(cfg harness.Config) []harness.Group {
	var gs []harness.Group
	for _, r := range serveRuns {
		gs = append(gs, serveLoadGroup(r))
	}
	return append(gs, gamesmanGroup(cfg), uniGroup(cfg))
}

// serveLoadGroup is serve/RUN: the load on our API, on it with a cache
// that holds the run, and on the universal API where the game has one.
func serveLoadGroup(r serveRun) harness.Group {
	setup := harness.NewJob("setup", serveSetupArgs{Run: r.name})
	vs := []harness.Variant{{Name: "api", Kind: results.KindSubject,
		Job: harness.NewJob("load", serveLoadArgs{Run: r.name, API: "api"})}}
	// The same load with a cache that holds a run of up to about a
	// billion positions whole (Quixo 4x4, xiangqi; not Connect Four
	// 6x5): what the server and HTTP cost when no answer reads a file.
	vs = append(vs, harness.Variant{Name: "api-cached", Kind: results.KindSubject,
		Job: harness.NewJob("load", serveLoadArgs{Run: r.name, API: "api", Cache: "2GiB"})})
	if r.universalGame != "" {
		vs = append(vs, harness.Variant{Name: "universal", Kind: results.KindSubject,
			Job: harness.NewJob("load", serveLoadArgs{Run: r.name, API: "universal"})})
	}
	// The latency at the 10,000 answers a second, asked at that
	// rate rather than as fast as the clients can: the run's cache when
	// the run is larger than it (xiangqi, Connect Four 6x5), else the
	// cache that holds it.
	rated := serveLoadArgs{Run: r.name, API: "api", Rate: serveRate}
	name := "api@10k/s"
	if r.heldWhenRated {
		rated.Cache, name = "2GiB", "api-cached@10k/s"
	}
	vs = append(vs, harness.Variant{Name: name, Kind: results.KindSubject, Job: harness.NewJob("load", rated)})
	return harness.Group{ID: "serve/" + r.name, Table: "load",
		Title: fmt.Sprintf("%s %s, --cache %s, %d clients", r.game, r.option, r.cache, serveClients),
		Level: harness.Explicit, Reference: "api", Setup: setup, Variants: vs,
		Estimate: time.Duration(len(vs)) * (serveDuration + serveWarmup + 5*time.Second)}
}

// gamesmanGroup is serve/gamesmanone-quixo-4x4: the same positions asked
// of tierd serve and of GamesmanOne's gamesman query; skipped without
// --gamesman and --gamesman-data.
func gamesmanGroup(cfg harness.Config) harness.Group {
	skip := ""
	switch {
	case cfg.Gamesman == "":
		skip = "no GamesmanOne binary (give --gamesman PATH)"
	case cfg.GamesmanData == "":
		skip = "no GamesmanOne data (give --gamesman-data DIR: where `gamesman solve quixo 1` ran)"
	}
	return harness.Group{ID: "serve/gamesmanone-quixo-4x4", Table: "peer",
		Title: fmt.Sprintf("quixo size=4: the same %d positions, tierd serve (%d clients) against gamesman query (a process each)", gamesmanQueries, serveClients),
		Level: harness.Explicit, Reference: "api", Skip: skip,
		Setup: harness.NewJob("setup", serveSetupArgs{Run: "quixo-4x4"}),
		Variants: []harness.Variant{
			{Name: "api", Kind: results.KindSubject,
				Job: harness.NewJob("load", serveLoadArgs{Run: "quixo-4x4", API: "api", Positions: gamesmanQueries})},
			{Name: "gamesmanone", Kind: results.KindPeer,
				Job: harness.NewJob("gamesman", serveLoadArgs{Run: "quixo-4x4", Positions: gamesmanQueries})},
		},
		Estimate: serveDuration + serveWarmup + 5*time.Second + gamesmanQueries*100*time.Millisecond}
}

// serveRunByName is the serveRun of that name.
func serveRunByName(name string) (serveRun, error) {
	for _, r := range serveRuns {
		if r.name == name {
			return r, nil
		}
	}
	return serveRun{}, fmt.Errorf("no serve run %q", name)
}

// serveSetupArgs name the run a group's Setup finds (or solves) and
// draws positions of.
type serveSetupArgs struct {
	Run string `json:"run"`
}

// serveLoadArgs are a load job's: the run, the API asked ("api":
// /api/v1/runs/{id}/position, "universal": /universal/v1/.../positions/)
// and, when not 0, how many of the drawn positions it cycles through.
type serveLoadArgs struct {
	Run       string `json:"run"`
	API       string `json:"api,omitempty"`
	Positions int    `json:"positions,omitempty"`
	// Cache, when set, is serve's --cache instead of the run's.
	Cache string `json:"cache,omitempty"`
	// Rate, when set, is the requests a second the clients ask between
	// them (loadTest); else each asks again once answered.
	Rate float64 `json:"rate,omitempty"`
}

// findRun looks in dir's sub-folders (and dir itself) for a finished run
// of game and option, not symmetric; "" when there is none.
func findRun(dir, game, option string) (string, error) {
	if dir == "" {
		return "", nil
	}
	g, err := games.New(game, option)
	if err != nil {
		return "", err
	}
	cands := []string{dir}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("--runs: %w", err)
	}
	for _, e := range ents {
		if e.IsDir() {
			cands = append(cands, filepath.Join(dir, e.Name()))
		}
	}
	for _, c := range cands {
		m, err := runfolder.LoadManifest(c)
		if err != nil {
			continue
		}
		if m.Game == g.Name() && m.Option == g.Option() && !m.Symmetry && m.Done() {
			return c, nil
		}
	}
	return "", nil
}

// runServeSetup finds the group's run in --runs (or solves it into the
// shared folder), then draws servePositions random reachable positions
// of it: a tier with the weight of its reachable count, a uniform rank
// in its level file, the game's Format of that member. The seed is
// fixed, so every group of a run asks the same positions.
func runServeSetup(ctx context.Context, env harness.JobEnv, a serveSetupArgs) (harness.Sample, error) {
	r, err := serveRunByName(a.Run)
	if err != nil {
		return harness.Sample{}, err
	}
	dir, err := findRun(env.Config.Runs, r.game, r.option)
	if err != nil {
		return harness.Sample{}, err
	}
	if dir == "" {
		dir = filepath.Join(env.Shared, "run")
		var out bytes.Buffer
		e := &tierdcli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &out,
			Log: slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))}
		args := []string{"solve", "--game", r.game, "--option", r.option, "--out", dir}
		if code := tierdcli.New(games.Default()).Run(e, args); code != 0 {
			return harness.Sample{}, fmt.Errorf("tierd %s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(out.String()))
		}
	}
	ps, err := drawPositions(ctx, dir, servePositions, rand.New(rand.NewPCG(43, uint64(len(r.name)))))
	if err != nil {
		return harness.Sample{}, err
	}
	if err := os.WriteFile(filepath.Join(env.Shared, serveRunFile), []byte(dir+"\n"), 0o644); err != nil {
		return harness.Sample{}, err
	}
	if err := os.WriteFile(filepath.Join(env.Shared, servePositionsFile), []byte(strings.Join(ps, "\n")+"\n"), 0o644); err != nil {
		return harness.Sample{}, err
	}
	return harness.Sample{}, nil
}

// drawPositions draws n random reachable positions of the run in dir
// (with repetition), formatted by the game, in a random order.
func drawPositions(ctx context.Context, dir string, n int, rng *rand.Rand) ([]string, error) {
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	g, err := games.New(m.Game, m.Option)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	if m.Total == 0 {
		return nil, fmt.Errorf("run %s holds no positions", dir)
	}
	// How many positions each tier gives: n draws of a tier by its
	// reachable count, so that the positions are uniform over the run.
	want := make(map[int]int)
	for range n {
		x := rng.Uint64N(m.Total)
		for i, tr := range m.Tiers {
			if x < tr.Reachable {
				want[i]++
				break
			}
			x -= tr.Reachable
		}
	}
	var out []string
	for i, tr := range m.Tiers {
		k := want[i]
		if k == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if tr.Level == nil {
			return nil, fmt.Errorf("run %s: tier %s has no level file", dir, tr.Name)
		}
		t := tiergame.Tier(tr.Tier)
		set, err := reach.LoadLevel(filepath.Join(dir, tr.Level.Path), g, t)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", dir, err)
		}
		ranked := bitarray.NewRanked(set)
		for range k {
			p, ok := ranked.Select(rng.Uint64N(ranked.Total()))
			if !ok {
				return nil, fmt.Errorf("run %s: tier %s: rank out of its %d members", dir, tr.Name, ranked.Total())
			}
			out = append(out, g.Format(t, tiergame.Position(p)))
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, nil
}

// serveJobStart finds what a serve group's job works on: the group's run
// and what the group's Setup wrote.
func serveJobStart(env harness.JobEnv, a serveLoadArgs) (r serveRun, dir string, ps []string, err error) {
	if r, err = serveRunByName(a.Run); err != nil {
		return
	}
	dir, ps, err = loadShared(env.Shared, a.Positions)
	return
}

// loadShared reads what the group's Setup wrote: the run folder and the
// positions (the first limit of them when limit > 0).
func loadShared(shared string, limit int) (dir string, ps []string, err error) {
	b, err := os.ReadFile(filepath.Join(shared, serveRunFile))
	if err != nil {
		return "", nil, fmt.Errorf("the group's setup: %w", err)
	}
	dir = strings.TrimSpace(string(b))
	f, err := os.Open(filepath.Join(shared, servePositionsFile))
	if err != nil {
		return "", nil, fmt.Errorf("the group's setup: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && (limit <= 0 || len(ps) < limit) {
		if s := sc.Text(); s != "" {
			ps = append(ps, s)
		}
	}
	if err := sc.Err(); err != nil {
		return "", nil, err
	}
	if len(ps) == 0 {
		return "", nil, errors.New("the group's setup drew no positions")
	}
	return dir, ps, nil
}

// dbBytes is the size of the run's value databases.
func dbBytes(dir string) (int64, error) {
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, tr := range m.Tiers {
		if tr.DB != nil {
			n += tr.DB.Bytes
		}
		if tr.Planes != nil {
			n += tr.Planes.Bytes
		}
	}
	return n, nil
}

// serverProc is a `tierd serve` process (the harness's executable run as
// tierd) on a free loopback port.
type serverProc struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:PORT
	log  *harness.TailBuffer
}

// startServer starts `tierd serve --db dir --cache cache` and waits until
// /readyz says ready.
func startServer(ctx context.Context, dir, cache string) (*serverProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addrs, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	s := &serverProc{base: "http://" + addrs[0], log: harness.NewTailBuffer(8 << 10)}
	s.cmd = exec.Command(exe, TierdFlag, "serve", "--db", dir, "--http-addr", addrs[0], "--cache", cache)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("tierd serve: %w", err)
	}
	if err := waitReady(ctx, s.base+"/readyz", 2*time.Minute); err != nil {
		s.stop()
		return nil, fmt.Errorf("tierd serve --db %s: %w\n%s", dir, err, s.log)
	}
	return s, nil
}

// stop asks the server to drain (SIGTERM) and waits for it, killing it
// after 30 s.
func (s *serverProc) stop() {
	if s.cmd.Process == nil {
		return
	}
	stopProcess(s.cmd, 30*time.Second)
}

// runID asks the server for the id of its one run.
func runID(ctx context.Context, base string) (string, error) {
	var out struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	if err := getJSON(ctx, http.DefaultClient, base+"/api/v1/runs", &out); err != nil {
		return "", err
	}
	if len(out.Runs) != 1 {
		return "", fmt.Errorf("/api/v1/runs lists %d runs, want 1", len(out.Runs))
	}
	return out.Runs[0].ID, nil
}

// getJSON GETs u and decodes its 200 answer into v.
func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", u, resp.Status, bytes.TrimSpace(body))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// positionURLs are the URLs of the positions ps on the API asked.
func positionURLs(ctx context.Context, base, api string, r serveRun, ps []string) ([]string, error) {
	var urls []string
	switch api {
	case "api":
		id, err := runID(ctx, base)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			urls = append(urls, base+"/api/v1/runs/"+url.PathEscape(id)+"/position?p="+url.QueryEscape(p))
		}
	case "universal":
		for _, p := range ps {
			up, err := universalPosition(r.game, p)
			if err != nil {
				return nil, err
			}
			urls = append(urls, base+"/universal/v1/"+r.universalGame+"/"+r.universalVariant+"/positions/?p="+url.QueryEscape(up))
		}
	default:
		return nil, fmt.Errorf("unknown API %q", api)
	}
	return urls, nil
}

// universalPosition converts a position in our Format to GamesmanOne's
// (and the universal API's) position string. Quixo only: ours is "x:" or
// "o:" and the rows from the top ("x.o./..../..../...."), GamesmanOne's
// the player to move (1 for X, who moves first) and '_' and the cells row
// by row, '-' for an empty one ("1_X-O-------------").
func universalPosition(game, p string) (string, error) {
	if game != "quixo" {
		return "", fmt.Errorf("no universal position string for %s", game)
	}
	turn := map[string]string{"x:": "1_", "o:": "2_"}[p[:min(2, len(p))]]
	if turn == "" {
		return "", fmt.Errorf("quixo position %q: no side to move", p)
	}
	var b strings.Builder
	b.WriteString(turn)
	for _, c := range p[2:] {
		switch c {
		case 'x':
			b.WriteByte('X')
		case 'o':
			b.WriteByte('O')
		case '.':
			b.WriteByte('-')
		case '/':
		default:
			return "", fmt.Errorf("quixo position %q: cell %q", p, c)
		}
	}
	return b.String(), nil
}

// runServeLoad starts tierd serve over the group's run, checks a few of
// its answers against `tierd query --json`, warms it for serveWarmup,
// then runs serveClients clients for serveDuration (or serveMaxAnswers
// answers) and reports the answers a second, latency percentiles,
// errors, and the server's CPU seconds over the load and its peak RSS.
// The time compared is the wall time per answer.
func runServeLoad(ctx context.Context, env harness.JobEnv, a serveLoadArgs) (harness.Sample, error) {
	r, dir, ps, err := serveJobStart(env, a)
	if err != nil {
		return harness.Sample{}, err
	}
	if a.Cache != "" {
		r.cache = a.Cache
	}
	cache, err := memsize.Parse(r.cache)
	if err != nil {
		return harness.Sample{}, err
	}
	dbs, err := dbBytes(dir)
	if err != nil {
		return harness.Sample{}, err
	}
	srv, err := startServer(ctx, dir, r.cache)
	if err != nil {
		return harness.Sample{}, err
	}
	defer srv.stop()
	urls, err := positionURLs(ctx, srv.base, a.API, r, ps)
	if err != nil {
		return harness.Sample{}, err
	}
	if a.API == "api" {
		if err := checkAnswers(ctx, dir, urls, ps, 5); err != nil {
			return harness.Sample{}, err
		}
	}
	res, err := loadTest(ctx, urls, serveClients, a.Rate, serveWarmup, serveDuration, serveMaxAnswers, func() (float64, error) {
		return processCPU(srv.cmd.Process.Pid)
	})
	if err != nil {
		return harness.Sample{}, fmt.Errorf("%w\nserver log:\n%s", err, srv.log)
	}
	// The server's peak resident set (VmHWM), and what the resident set
	// is made of at the end of the load: pages of mapped files (the
	// program, mapped databases) and the rest (the heap).
	now := memsize.ReadResidentOf(srv.cmd.Process.Pid)
	peak := now.Peak
	if peak == 0 {
		return harness.Sample{}, errors.New("no VmHWM in the server's /proc/PID/status")
	}
	met := res.metrics()
	met["server_rss_file_bytes"] = float64(now.File)
	met["server_rss_anon_bytes"] = float64(now.RSS - min(now.File, now.RSS))
	met["cache_bytes"] = float64(cache)
	met["db_bytes"] = float64(dbs)
	met["server_peak_rss_bytes"] = float64(peak)
	met["positions"] = float64(len(ps))
	within := "yes"
	if peak > cache+rssSlack {
		within = fmt.Sprintf("no (%s over)", plan.BytesString(peak-cache-rssSlack))
	}
	// A rated load meets the target when it kept up with its rate (a
	// percent of slack for the requests in flight at the end).
	target := "met"
	if res.answers == 0 || met["answers_per_s"] < 0.99*max(a.Rate, 10000) || met["p99_ms"] >= 10 || res.errors > 0 {
		target = "missed"
	}
	return harness.Sample{Seconds: res.seconds / float64(max(res.answers, 1)), Metrics: met,
		Facts: map[string]string{"within_budget": within, "target": target}}, nil
}

// checkAnswers compares the server's answers to the first n positions
// with `tierd query --db dir --json` (the API promises the same object).
func checkAnswers(ctx context.Context, dir string, urls, ps []string, n int) error {
	for i := range min(n, len(ps)) {
		var got, want any
		if err := getJSON(ctx, http.DefaultClient, urls[i], &got); err != nil {
			return err
		}
		var out, errOut bytes.Buffer
		e := &tierdcli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
			Log: slog.New(slog.NewTextHandler(&errOut, &slog.HandlerOptions{Level: slog.LevelWarn}))}
		if code := tierdcli.New(games.Default()).Run(e, []string{"query", "--db", dir, "--json", ps[i]}); code != 0 {
			return fmt.Errorf("tierd query %q: exit %d: %s", ps[i], code, errOut.String())
		}
		if err := json.Unmarshal(out.Bytes(), &want); err != nil {
			return fmt.Errorf("tierd query %q: %w", ps[i], err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			return fmt.Errorf("position %q: the server answers %s, tierd query %s", ps[i], g, w)
		}
	}
	return nil
}
