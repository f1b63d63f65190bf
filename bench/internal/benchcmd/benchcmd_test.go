package benchcmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/report"
	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// testSuites: one group whose job takes the time in the environment
// variable BENCH_TEST_SECONDS (so two runs can differ), and one that
// runs only when named.
var testSuites = []harness.Suite{{
	Name: "t", Doc: "test suite",
	Groups: func(harness.Config) []harness.Group {
		return []harness.Group{
			{ID: "t/a", Table: "main", Title: "a", Level: harness.Quick, Reference: "x", Estimate: time.Second,
				Variants: []harness.Variant{
					{Name: "x", Kind: results.KindSubject, Job: harness.NewJob("env", nil)},
					{Name: "y", Kind: results.KindBaseline, Job: harness.NewJob("env", nil)},
				}},
			{ID: "t/long", Table: "main", Title: "long", Level: harness.Explicit, Estimate: time.Hour,
				Variants: []harness.Variant{{Name: "x", Job: harness.NewJob("env", nil)}}},
		}
	},
	Jobs: map[string]harness.JobFunc{"env": func(context.Context, harness.JobEnv, json.RawMessage) (harness.Sample, error) {
		var secs float64
		json.Unmarshal([]byte(os.Getenv("BENCH_TEST_SECONDS")), &secs)
		return harness.Sample{Seconds: secs}, nil
	}},
}}

func TestMain(m *testing.M) {
	if harness.IsChild(os.Args[1:]) {
		os.Exit(harness.ChildMain(os.Args[1:], testSuites, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	code := Main(args, testSuites, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--nosuchflag"}, {"extra"}, {"--suite", "nosuch"}, {"--rounds", "0"}, {"--peer", "bad"},
		{"--compare", filepath.Join(t.TempDir(), "missing.json")}, {"--suite", ""},
		{"--peer", "p@t/long=true"},
	} {
		if code, _, stderr := runMain(t, args...); code != 2 || !strings.Contains(stderr, "bench") {
			t.Errorf("%q: exit %d, %q", args, code, stderr)
		}
	}
	if code, _, _ := runMain(t, "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
}

func TestList(t *testing.T) {
	code, out, _ := runMain(t, "--list", "--quick")
	if code != 0 || !strings.Contains(out, "t/a") || !strings.Contains(out, "1 groups, 8 runs, estimated 4s") ||
		!strings.Contains(out, "only when named") || !strings.Contains(out, "t/long") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestRunCompareRender runs the command twice, the second time 2x slower
// and compared with the first, then re-renders the report.
func TestRunCompareRender(t *testing.T) {
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	dir := t.TempDir()
	first, second := filepath.Join(dir, "1"), filepath.Join(dir, "2")
	t.Setenv("BENCH_TEST_SECONDS", "0.5")
	code, out, stderr := runMain(t, "--quick", "--out", first, "--rounds", "2", "--tmp", dir)
	if code != 0 || !strings.Contains(out, "wrote REPORT.md") || !strings.Contains(stderr, "1 groups, 6 runs, estimated 3s") ||
		!strings.Contains(stderr, "t/a: x 500 ms ±0%, y 500 ms ±0% (1×)") {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, stderr)
	}
	t.Setenv("BENCH_TEST_SECONDS", "1")
	code, out, stderr = runMain(t, "--suite", "t/a", "--out", second, "--compare", filepath.Join(first, report.JSONFile),
		"--peer", "p@t/a=true")
	if code != 0 || !strings.Contains(out, "slower t/a x seconds: 0.5 → 1 s (+100.0%") ||
		!strings.Contains(out, "within the noise band") {
		t.Fatalf("second run: exit %d\n%s\n%s", code, out, stderr)
	}
	res, err := results.Read(filepath.Join(second, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	g := res.Group("t/a")
	if g == nil || len(g.Variants) != 3 || g.Variants[2].Kind != results.KindPeer || res.Settings.Rounds != 3 ||
		g.Command != "go run ./bench --suite t/a --peer p@t/a=true" || res.Machine.Cores < 1 {
		t.Fatalf("results %+v", res)
	}
	md, _ := os.ReadFile(filepath.Join(second, report.ReportFile))
	if !strings.Contains(string(md), "## Compared with") {
		t.Errorf("report lacks the comparison:\n%s", md)
	}
	third := filepath.Join(dir, "3")
	if code, _, stderr := runMain(t, "--render", filepath.Join(second, report.JSONFile), "--out", third); code != 0 {
		t.Fatalf("render: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(third, report.ReportFile)); err != nil {
		t.Fatal(err)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, "tiersolve-bench-*")); len(entries) != 0 {
		t.Errorf("work folders left: %v", entries)
	}
}

func TestCommandLine(t *testing.T) {
	if got := commandLine([]string{"--suite", "level/write/2^20/1%", "--quick"}); got != "go run ./bench --suite 'level/write/2^20/1%' --quick" {
		t.Errorf("%q", got)
	}
}
