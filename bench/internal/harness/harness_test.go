package harness

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// fakeSuites are what the tests run; their jobs report times given in
// their arguments, so every summary is known exactly.
var fakeSuites = []Suite{{
	Name: "fake",
	Groups: func(cfg Config) []Group {
		return []Group{
			{ID: "fake/quick", Level: Quick},
			{ID: "fake/full/a", Level: Full},
			{ID: "fake/full/b", Level: Full},
			{ID: "fake/long", Level: Explicit, Estimate: time.Hour},
		}
	},
	Jobs: map[string]JobFunc{
		"fixed": JobOf(func(_ context.Context, env JobEnv, a fixedArgs) (Sample, error) {
			if a.NeedShared {
				if _, err := os.Stat(filepath.Join(env.Shared, "input")); err != nil {
					return Sample{}, err
				}
			}
			if entries, _ := os.ReadDir(env.Dir); len(entries) > 0 {
				return Sample{}, errors.New("the run's folder is not empty")
			}
			return Sample{Seconds: a.Seconds, Metrics: map[string]float64{"m": a.Seconds * 10}, Facts: map[string]string{"f": "x"}}, nil
		}),
		"setup": func(_ context.Context, env JobEnv, _ json.RawMessage) (Sample, error) {
			return Sample{}, os.WriteFile(filepath.Join(env.Shared, "input"), nil, 0o644)
		},
		"alloc": JobOf(func(_ context.Context, _ JobEnv, mib int) (Sample, error) {
			touch(mib)
			return Sample{Seconds: 1}, nil
		}),
		"wait": JobOf(func(ctx context.Context, _ JobEnv, marker string) (Sample, error) {
			if err := os.WriteFile(marker+".started", nil, 0o644); err != nil {
				return Sample{}, err
			}
			<-ctx.Done() // as a job that started processes stops them
			return Sample{}, os.WriteFile(marker, nil, 0o644)
		}),
		"fail": func(context.Context, JobEnv, json.RawMessage) (Sample, error) {
			return Sample{}, errors.New("this job always fails")
		},
	},
}}

// touched keeps what touch allocated reachable.
var touched []byte

// touch allocates mib MiB and writes every page of it, so that it is
// resident.
func touch(mib int) {
	touched = make([]byte, mib<<20)
	for i := 0; i < len(touched); i += 4096 {
		touched[i] = 1
	}
}

type fixedArgs struct {
	Seconds    float64 `json:"seconds"`
	NeedShared bool    `json:"need_shared"`
}

// TestMain lets the test binary act as the harness's child process, so
// the tests run jobs through the real re-exec path.
func TestMain(m *testing.M) {
	if IsChild(os.Args[1:]) {
		os.Exit(ChildMain(os.Args[1:], fakeSuites, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func testRunner(t *testing.T, rounds int) *Runner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Under -race every child would sleep a second before exiting.
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return &Runner{Exe: exe, Work: t.TempDir(), Config: Config{Cores: 2},
		Settings: results.Settings{WarmupRounds: 1, Rounds: rounds, MinSampleSeconds: 0}}
}

func fixed(name string, secs float64) Variant {
	return Variant{Name: name, Job: NewJob("fixed", fixedArgs{Seconds: secs})}
}

func TestRunGroup(t *testing.T) {
	r := testRunner(t, 3)
	var runs []string
	r.Progress = func(what string) { runs = append(runs, what) }
	g := Group{ID: "fake/g", Reference: "ref", Setup: NewJob("setup", nil), RatioMetrics: []string{"m"},
		Variants: []Variant{
			fixed("ref", 2),
			{Name: "half", Kind: results.KindBaseline, Job: NewJob("fixed", fixedArgs{Seconds: 1, NeedShared: true})},
			{Name: "broken", Job: NewJob("fail", nil)},
			{Name: "shell", Kind: results.KindPeer, Command: []string{"sh", "-c", "test -z \"$(ls)\""}},
			{Name: "shell-fails", Kind: results.KindPeer, Command: []string{"sh", "-c", "echo nope >&2; exit 3"}},
		}}
	out := r.Run(context.Background(), Planned{Suite: &fakeSuites[0], Group: g})
	if out.Error != "" || len(out.Variants) != 5 {
		t.Fatalf("group %+v", out)
	}
	ref, half, broken, shell, shellFails := out.Variants[0], out.Variants[1], out.Variants[2], out.Variants[3], out.Variants[4]
	if ref.Seconds.N != 3 || ref.Seconds.Median != 2 || ref.Ratio != nil || ref.Kind != results.KindSubject {
		t.Errorf("ref %+v", ref)
	}
	if half.Ratio == nil || half.Ratio.Median != 0.5 || half.Ratio.N != 3 || half.Metrics["m"].Median != 10 || half.Facts["f"] != "x" {
		t.Errorf("half %+v", half)
	}
	if half.Metrics["m_ratio"].Median != 0.5 || half.Metrics["m_ratio"].N != 3 || ref.Metrics["m_ratio"].N != 0 {
		t.Errorf("ratio of metric m: half %+v, ref %+v", half.Metrics["m_ratio"], ref.Metrics["m_ratio"])
	}
	if half.Metrics["peak_rss_bytes"].Median <= 0 {
		t.Errorf("no peak RSS: %+v", half.Metrics)
	}
	if !strings.Contains(broken.Error, "this job always fails") || broken.Seconds.N != 0 {
		t.Errorf("broken %+v", broken)
	}
	if shell.Error != "" || shell.Seconds.N != 3 || shell.Seconds.Median <= 0 {
		t.Errorf("shell %+v", shell)
	}
	if !strings.Contains(shellFails.Error, "exit status 3: nope") {
		t.Errorf("shell-fails %+v", shellFails)
	}
	// setup + 1 warm-up round of 5 + 3 rounds of the 3 that did not fail.
	if want := 1 + 5 + 3*3; len(runs) != want {
		t.Errorf("%d runs, want %d: %q", len(runs), want, runs)
	}
	if entries, _ := os.ReadDir(r.Work); len(entries) != 0 {
		t.Errorf("left in the work folder: %v", entries)
	}
}

// TestRunOnce: a group with Once runs one measured round and no warm-up,
// whatever the settings say.
func TestRunOnce(t *testing.T) {
	r := testRunner(t, 3)
	runs := 0
	r.Progress = func(string) { runs++ }
	out := r.Run(context.Background(), Planned{Suite: &fakeSuites[0], Group: Group{ID: "fake/once", Once: true,
		Variants: []Variant{fixed("a", 1), fixed("b", 2)}}})
	if runs != 2 || len(out.Variants) != 2 || out.Variants[0].Seconds.N != 1 || out.Variants[1].Seconds.N != 1 {
		t.Errorf("%d runs: %+v", runs, out)
	}
}

// TestChildPeakIsItsOwn: a job's peak resident set is the child's own
// (its VmHWM), not the rusage's Maxrss, which Linux fills with the
// parent's resident set at the fork.
func TestChildPeakIsItsOwn(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the peak is the rusage's")
	}
	touch(512) // the parent, resident when it starts the child
	defer func() { touched = nil }()
	r := testRunner(t, 1)
	r.Settings.WarmupRounds = 0
	out := r.Run(context.Background(), Planned{Suite: &fakeSuites[0], Group: Group{ID: "fake/peak",
		Variants: []Variant{{Name: "a", Job: NewJob("alloc", 64)}}}})
	peak := out.Variants[0].Metrics["peak_rss_bytes"].Median
	t.Logf("the child's peak: %.1f MiB", peak/(1<<20))
	// 72 MiB here, 154 under -race.
	if peak < 64<<20 || peak > 400<<20 {
		t.Errorf("peak %.1f MiB, want the child's 64 MiB and its runtime, not the parent's 512", peak/(1<<20))
	}
}

// TestInterruptedChildStops: an interrupted run asks its child to stop,
// and the child's job sees its context cancelled (and can stop what it
// started) rather than being killed.
func TestInterruptedChildStops(t *testing.T) {
	r := testRunner(t, 1)
	marker := filepath.Join(t.TempDir(), "stopped")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(marker + ".started"); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	out := r.Run(ctx, Planned{Suite: &fakeSuites[0], Group: Group{ID: "fake/wait", Variants: []Variant{{Name: "a", Job: NewJob("wait", marker)}}}})
	if out.Error != "interrupted" {
		t.Errorf("group %+v", out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the job did not see its context cancelled: %v", err)
	}
}

func TestRunGroupSkipAndSetupFailure(t *testing.T) {
	r := testRunner(t, 1)
	out := r.Run(context.Background(), Planned{Suite: &fakeSuites[0], Group: Group{ID: "fake/s", Skip: "no input", Variants: []Variant{fixed("a", 1)}}})
	if out.Skipped != "no input" || out.Variants != nil {
		t.Errorf("skipped group %+v", out)
	}
	out = r.Run(context.Background(), Planned{Suite: &fakeSuites[0], Group: Group{ID: "fake/f", Setup: NewJob("fail", nil), Variants: []Variant{fixed("a", 1)}}})
	if !strings.Contains(out.Error, "setup: ") || !strings.Contains(out.Error, "always fails") {
		t.Errorf("setup failure %+v", out)
	}
	out = r.Run(context.Background(), Planned{Suite: &fakeSuites[0], Group: Group{ID: "fake/k", Variants: []Variant{{Name: "a", Job: NewJob("nosuchkind", nil)}}}})
	if !strings.Contains(out.Variants[0].Error, "nosuchkind") {
		t.Errorf("unknown kind %+v", out.Variants[0])
	}
}

// TestRunAmdahl: times from Amdahl's law give back its serial fraction
// and the speed-ups.
func TestRunAmdahl(t *testing.T) {
	const s, t1 = 0.2, 1.0
	r := testRunner(t, 2)
	g := Group{ID: "fake/scaling", Reference: "w1", Amdahl: true}
	for _, w := range []int{1, 2, 4} {
		v := fixed("w"+string(rune('0'+w)), t1*(s+(1-s)/float64(w)))
		v.Params = map[string]float64{"workers": float64(w)}
		g.Variants = append(g.Variants, v)
	}
	out := r.Run(context.Background(), Planned{Suite: &fakeSuites[0], Group: g})
	if out.Amdahl == nil || math.Abs(out.Amdahl.SerialFraction.Median-s) > 1e-9 || math.Abs(out.Amdahl.MaxSpeedup-1/s) > 1e-6 {
		t.Fatalf("amdahl %+v", out.Amdahl)
	}
	if sp := out.Variants[2].Metrics["speedup"].Median; math.Abs(sp-1/(s+(1-s)/4)) > 1e-9 {
		t.Errorf("speed-up with 4 workers %v", sp)
	}
}

func TestPlan(t *testing.T) {
	ids := func(plan []Planned) string {
		var out []string
		for _, p := range plan {
			out = append(out, p.Group.ID)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		sel   []string
		quick bool
		want  string
	}{
		{[]string{"fake"}, true, "fake/quick"},
		{[]string{"fake"}, false, "fake/quick fake/full/a fake/full/b"},
		{[]string{"fake/full"}, true, "fake/full/a fake/full/b"},
		{[]string{"fake/full/b", "fake/quick"}, false, "fake/full/b fake/quick"},
		{[]string{"fake/long"}, false, "fake/long"},
		{[]string{"fake/*/a"}, false, "fake/full/a"},
		{[]string{"fake", "fake/quick"}, true, "fake/quick"},
	} {
		plan, err := Plan(fakeSuites, tc.sel, Config{Quick: tc.quick}, nil)
		if err != nil || ids(plan) != tc.want {
			t.Errorf("Plan(%q, quick=%v) = %q, %v; want %q", tc.sel, tc.quick, ids(plan), err, tc.want)
		}
	}
	for _, bad := range [][]string{{"nosuch"}, {"fake/nosuch"}, {"fak"}} {
		if _, err := Plan(fakeSuites, bad, Config{}, nil); err == nil {
			t.Errorf("Plan(%q): no error", bad)
		}
	}
	// --quick over every suite, one of which has no quick group.
	slow := Suite{Name: "slow", Groups: func(Config) []Group { return []Group{{ID: "slow/full", Level: Full}} }}
	if plan, err := Plan(append([]Suite{slow}, fakeSuites...), []string{"slow", "fake"}, Config{Quick: true}, nil); err != nil || ids(plan) != "fake/quick" {
		t.Errorf("quick plan with a suite without quick groups: %q, %v", ids(plan), err)
	}
}

func TestPeers(t *testing.T) {
	for _, tc := range []struct {
		in, name, group, cmd string
	}{
		{"g1=./gamesman --force solve quixo 1", "g1", "", "./gamesman --force solve quixo 1"},
		{"g1@fake/quick=cd x && ./run a=b", "g1", "fake/quick", "cd x && ./run a=b"},
	} {
		p, err := ParsePeer(tc.in)
		if err != nil || p.Name != tc.name || p.Group != tc.group || p.Command != tc.cmd {
			t.Errorf("ParsePeer(%q) = %+v, %v", tc.in, p, err)
		}
	}
	for _, bad := range []string{"noequals", "=cmd", "name=", "a b=cmd", "x/y=cmd", "@g=cmd"} {
		if _, err := ParsePeer(bad); err == nil {
			t.Errorf("ParsePeer(%q): no error", bad)
		}
	}
	mustPeer := func(s string) Peer {
		p, err := ParsePeer(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	fs := []Suite{{Name: "fake", Groups: func(Config) []Group {
		return []Group{{ID: "fake/quick", Level: Quick, Variants: []Variant{fixed("a", 1)}}}
	}}}
	plan, err := Plan(fs, []string{"fake"}, Config{}, []Peer{mustPeer("p@fake/quick=true"), mustPeer("alone=sleep 0")})
	if err != nil || len(plan) != 2 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	if vs := plan[0].Group.Variants; len(vs) != 2 || vs[1].Name != "p" || vs[1].Kind != results.KindPeer || vs[1].Command[2] != "true" {
		t.Errorf("peer variant %+v", vs)
	}
	if got := plan[0].Command(); got != "go run ./bench --suite fake/quick --peer p@fake/quick=true" {
		t.Errorf("command %q", got)
	}
	if plan[1].Group.ID != "peers/alone" || plan[1].Command() != "go run ./bench --peer 'alone=sleep 0'" {
		t.Errorf("own group %+v, %q", plan[1].Group, plan[1].Command())
	}
	for _, bad := range [][]Peer{{mustPeer("p@fake/other=true")}, {mustPeer("a@fake/quick=true")}, {mustPeer("x=1"), mustPeer("x=2")}} {
		if _, err := Plan(fs, []string{"fake"}, Config{}, bad); err == nil {
			t.Errorf("peers %+v: no error", bad)
		}
	}
}

func TestRunsAndEstimate(t *testing.T) {
	plan := []Planned{
		{Group: Group{Setup: NewJob("s", nil), Variants: make([]Variant, 2), Estimate: time.Second}},
		{Group: Group{Skip: "x", Variants: make([]Variant, 5), Estimate: time.Hour}},
	}
	if n := Runs(plan, 1, 3); n != 1+4*2 {
		t.Errorf("runs %d", n)
	}
	if d := Estimate(plan, 1, 3); d != 4*time.Second {
		t.Errorf("estimate %v", d)
	}
	plan[0].Group.Once = true
	if n, d := Runs(plan, 1, 3), Estimate(plan, 1, 3); n != 1+2 || d != time.Second {
		t.Errorf("once: %d runs, estimate %v", n, d)
	}
}

func TestRepeat(t *testing.T) {
	calls := 0
	secs, runs, err := Repeat(20*time.Millisecond, func() error { calls++; time.Sleep(time.Millisecond); return nil })
	if err != nil || runs != calls || runs < 2 || secs <= 0 || secs > 0.02 {
		t.Errorf("Repeat: %v s, %d runs (%d calls), %v", secs, runs, calls, err)
	}
	_, runs, err = Repeat(time.Hour, func() error { return errors.New("x") })
	if err == nil || runs != 0 {
		t.Errorf("failing op: %d runs, %v", runs, err)
	}
}

// TestJobOf: a JobOf job gets its arguments decoded, and arguments that
// do not decode fail the job, naming them, before it runs.
func TestJobOf(t *testing.T) {
	job := JobOf(func(_ context.Context, _ JobEnv, a fixedArgs) (Sample, error) {
		return Sample{Seconds: a.Seconds}, nil
	})
	for _, c := range []struct {
		raw     string
		seconds float64
		err     string
	}{
		{raw: `{"seconds": 2.5}`, seconds: 2.5},
		{raw: `{}`},
		{raw: `{"seconds": "x"}`, err: `job arguments {"seconds": "x"}: `},
		{raw: `[1]`, err: "job arguments [1]: "},
	} {
		s, err := job(context.Background(), JobEnv{}, json.RawMessage(c.raw))
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error starting %q", c.raw, err, c.err)
			}
			continue
		}
		if err != nil || s.Seconds != c.seconds {
			t.Errorf("%s: %v s, %v; want %v s", c.raw, s.Seconds, err, c.seconds)
		}
	}
}

func TestThisMachine(t *testing.T) {
	m := ThisMachine(ModuleRoot())
	if m.Cores < 1 || m.GoVersion == "" || m.CPUModel == "" {
		t.Errorf("%+v", m)
	}
}
