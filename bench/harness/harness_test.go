package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary act as the harness's child process, so
// the tests run jobs through the real re-exec path.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "-child" {
		os.Exit(childMain(os.Args[2]))
	}
	os.Exit(m.Run())
}

func testRunner(t *testing.T) *runner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Under -race every child would sleep a second before exiting.
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return &runner{exe: exe, root: t.TempDir(), log: io.Discard, rep: newReport(config{suite: "test"})}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags(nil, io.Discard)
	if err != nil || cfg.suite != "all" || cfg.large || cfg.json || cfg.reps != 3 || cfg.bits != 26 || len(cfg.workers) != 2 {
		t.Fatalf("defaults: %+v, %v", cfg, err)
	}
	cfg, err = parseFlags([]string{"-suite", "level", "-json", "-large", "-workers", "1, 4", "-reps", "1"}, io.Discard)
	if err != nil || cfg.suite != "level" || !cfg.json || !cfg.large || cfg.workers[1] != 4 || cfg.reps != 1 {
		t.Fatalf("%+v, %v", cfg, err)
	}
	for _, bad := range [][]string{
		{"-suite", "nope"}, {"-reps", "0"}, {"-bits", "60"}, {"-workers", "1,x"}, {"-workers", "0"}, {"extra"}, {"-nosuchflag"},
	} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestLevelSuite runs the level suite on a small tier through child
// processes and checks the rows.
func TestLevelSuite(t *testing.T) {
	r := testRunner(t)
	cfg := config{bits: 14, reps: 1, workers: []int{1, 2}}
	r.levelSuite(context.Background(), cfg, 0.3)
	rep := r.rep
	if len(rep.Failures) > 0 {
		t.Fatalf("failures: %q", rep.Failures)
	}
	if len(rep.Write) != 4 || len(rep.Read) != 4 || len(rep.Merge) != 2 {
		t.Fatalf("%d write, %d read, %d merge rows", len(rep.Write), len(rep.Read), len(rep.Merge))
	}
	auto := rep.Write[0]
	for _, w := range rep.Write {
		if w.Positions != auto.Positions || w.Positions == 0 || w.Bytes <= 0 || w.Seconds <= 0 {
			t.Errorf("write row %+v", w)
		}
	}
	for _, w := range rep.Write[1:3] { // winner-only and exhaustive write auto's file
		if w.Type != auto.Type || w.Bytes != auto.Bytes {
			t.Errorf("%s wrote type %d (%d bytes), auto type %d (%d bytes)", w.Variant, w.Type, w.Bytes, auto.Type, auto.Bytes)
		}
	}
	for _, x := range rep.Read {
		if x.Bytes <= 0 || x.MposPerSec <= 0 {
			t.Errorf("read row %+v", x)
		}
	}
	if rep.Merge[1].Speedup <= 0 {
		t.Errorf("merge row %+v has no speed-up", rep.Merge[1])
	}
	if _, err := os.Stat(filepath.Join(r.root, "level-0.3")); !os.IsNotExist(err) {
		t.Errorf("the level folder was not removed: %v", err)
	}
	var text bytes.Buffer
	if err := rep.writeText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"level-file write", "naive", "level-file read", "level-file merge"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}
}

func TestSolverJobs(t *testing.T) {
	r := testRunner(t)
	ctx := context.Background()
	res, rss, err := r.run(ctx, job{Kind: kindTier, Game: "connect4", Option: "width=4,height=3", Workers: 2, Solve: true, Dir: filepath.Join(r.root, "run")}, "tier")
	if err != nil {
		t.Fatal(err)
	}
	if res.Positions == 0 || res.ReachSec <= 0 || res.SolveSec <= 0 || res.LevelBytes <= 0 || res.DBBytes <= 0 || res.Start == "" {
		t.Errorf("tier result %+v", res)
	}
	if rss <= 0 {
		t.Errorf("peak RSS %d", rss)
	}
	memo, _, err := r.run(ctx, job{Kind: kindMemo, Width: 4, Height: 3}, "memo")
	if err != nil {
		t.Fatal(err)
	}
	if memo.Positions != res.Positions || !strings.HasPrefix(res.Start, memo.Start) {
		t.Errorf("memo %d positions, start %q; solver %d, %q", memo.Positions, memo.Start, res.Positions, res.Start)
	}
}

// TestFailedJob checks that a child's error reaches the report with its
// message.
func TestFailedJob(t *testing.T) {
	r := testRunner(t)
	_, _, err := r.run(context.Background(), job{Kind: kindTier, Game: "nosuchgame", Dir: r.root}, "bad game")
	if err == nil || !strings.Contains(err.Error(), "nosuchgame") {
		t.Fatalf("error %v does not name the game", err)
	}
	_, _, err = r.run(context.Background(), job{Kind: "nosuchkind"}, "bad kind")
	if err == nil || !strings.Contains(err.Error(), "nosuchkind") {
		t.Fatalf("error %v does not name the kind", err)
	}
	if len(r.rep.Failures) != 2 {
		t.Fatalf("failures %q", r.rep.Failures)
	}
}

func TestReportJSON(t *testing.T) {
	rep := newReport(config{suite: "solve", reps: 1, bits: 26})
	row := solverRow{Solver: "tiersolve", Game: "connect4", Option: "width=5,height=4", Workers: 2,
		ReachSec: 1, SolveSec: 1, Positions: 1000, PeakRSS: 4000, DBBytes: 500}
	row.fill(2)
	rep.Solver = append(rep.Solver, row)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	s := back["solver"].([]any)[0].(map[string]any)
	if s["positions_per_s"] != 500.0 || s["positions_per_s_per_worker"] != 250.0 || s["rss_bytes_per_position"] != 4.0 || s["db_bytes_per_position"] != 0.5 {
		t.Fatalf("derived columns %v", s)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 5}
	b.Write([]byte("abc"))
	b.Write([]byte("defgh"))
	if b.String() != "defgh" {
		t.Fatalf("%q", b.String())
	}
}
