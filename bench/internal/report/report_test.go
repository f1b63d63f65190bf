package report

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gplot "gonum.org/v1/plot"

	"github.com/tiersolve/tiersolve/bench/internal/chart"
	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
)

func st(xs ...float64) results.Stat { return results.Summarize(xs) }

func sample() *results.Results {
	ratio := st(0.5, 0.52, 0.55)
	return &results.Results{Schema: results.Schema, Command: "go run ./bench --quick", Started: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC),
		WallSeconds: 75, Machine: results.Machine{CPUModel: "Test CPU", Cores: 2, MemoryBytes: 24 << 30, GoVersion: "go1.26", Commit: "0123456789abcdef", Dirty: true},
		Settings: results.Settings{WarmupRounds: 1, Rounds: 3, MinSampleSeconds: 0.1},
		Groups: []results.Group{
			{ID: "demo/a", Suite: "demo", Table: "main", Title: "case a", Reference: "ref", Command: "go run ./bench --suite demo/a",
				Variants: []results.Variant{
					{Name: "ref", Kind: results.KindSubject, Seconds: st(2, 2.1, 2.2),
						Metrics: map[string]results.Stat{"bytes": st(2048), "mpos_per_s": st(10, 11, 12)}, Facts: map[string]string{"start": "tie in 20"}},
					{Name: "base", Kind: results.KindBaseline, Seconds: st(1, 1.1, 1.2), Ratio: &ratio},
					{Name: "peer", Kind: results.KindPeer, Error: "exit status 1: | no such file"},
				}},
			{ID: "demo/b", Suite: "demo", Table: "main", Title: "case b", Command: "go run ./bench --suite demo/b", Skipped: "no corpus"},
			{ID: "demo/d", Suite: "demo", Table: "main", Title: "case d", Reference: "ref", Command: "go run ./bench --suite demo/d",
				Variants: []results.Variant{{Name: "ref", Seconds: st(1.5)}}},
			{ID: "demo/c", Suite: "demo", Table: "scaling", Title: "case c", Reference: "w1", Command: "go run ./bench --suite demo/c",
				Amdahl:   &results.Amdahl{SerialFraction: st(0.2, 0.25, 0.3), MaxSpeedup: 4},
				Variants: []results.Variant{{Name: "w1", Seconds: st(0.004)}, {Name: "w2", Seconds: st(0.0025), Ratio: &ratio}}},
			{ID: "other/x", Suite: "other", Table: "t", Title: "not in a known suite", Variants: []results.Variant{{Name: "v", Seconds: st(1)}}},
		}}
}

var demoSuites = []harness.Suite{{Name: "other", Doc: "groups that share no variant"}, {
	Name: "demo", Doc: "a demonstration suite",
	Columns: []harness.Column{
		{Key: "mpos_per_s", Header: "Mpos/s", Format: "%.1f"},
		{Key: "bytes", Header: "file", Format: "bytes"},
		{Key: "fact:start", Header: "start"},
		{Key: "never", Header: "unused column"},
	},
	Charts: func(gs []results.Group) []chart.Chart {
		var s chart.Series
		for i, g := range gs {
			if len(g.Variants) > 0 {
				s.X = append(s.X, float64(i+1))
				s.Y = append(s.Y, g.Variants[0].Seconds)
			}
		}
		s.Name = "first variant"
		p := chart.Lines(chart.Axes{Title: "demo", X: "group", Y: "s", LogY: true}, []chart.Series{s})
		return []chart.Chart{{Name: "demo-time", Title: "demo chart", Plots: [][]*gplot.Plot{{p}}}}
	},
}}

func TestMarkdown(t *testing.T) {
	r := sample()
	var b strings.Builder
	if err := Markdown(&b, r, demoSuites, Charts(r, demoSuites), nil, ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| date | 2026-11-23 12:00 UTC (took 1m15s) |",
		"| machine | Test CPU, 2 cores, 24.0 GiB memory, / |",
		"go1.26, 0123456789ab (uncommitted changes)",
		"**median of 3 runs** after 1 warm-up",
		"## demo\n\na demonstration suite.",
		"![demo chart](charts/demo-time.svg)",
		"### demo: main",
		"| group | **ref** | base | peer |\n| --- | --: | --: | --: |\n| case a | 2.1 s ±5% | 1.1 s ±9% (0.52×) | failed |\n| case b | skipped: no corpus |",
		"| case d | 1.5 s |  |  |",
		"<details><summary>every figure",
		"### other: t\n\n| group | variant |",
		"| group | variant | time | ± | ratio | Mpos/s | file | start | reproduce |",
		"| case a | **ref** | 2.1 s | 5% |  | 11.0 | 2.0 KiB | tie in 20 | `go run ./bench --suite demo/a` |",
		"|  | base (baseline) | 1.1 s | 9% | 0.52× ±5% |  |  |  |  |",
		`|  | peer (peer) | failed: exit status 1: \| no such file |`,
		"| case b | skipped: no corpus |",
		"### demo: scaling",
		"| group | variant | time | ± | ratio | serial fraction | reproduce |",
		"| case c | **w1** | 4 ms |  |  | 0.250 ±0.050 | `go run ./bench --suite demo/c` |",
		"|  | w2 | 2.5 ms |  | 0.52× ±5% |  |  |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, unwanted := range []string{"unused column", "Compared with"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("report has %q", unwanted)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

func TestMarkdownChanges(t *testing.T) {
	r := sample()
	changes := []results.Change{
		{Group: "demo/a", Variant: "ref", Figure: "seconds", Old: st(3), New: st(2.1), Factor: 0.7, Verdict: results.Faster},
		{Group: "demo/a", Variant: "base", Figure: "ratio", Old: st(0.4), New: st(0.52), Factor: 1.3, Verdict: results.Slower},
		{Group: "demo/c", Variant: "w1", Figure: "seconds", Old: st(1), New: st(1), Factor: 1, Verdict: results.Same},
	}
	var b strings.Builder
	if err := Markdown(&b, r, demoSuites, nil, changes, "old/results.json"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Compared with old/results.json",
		"| demo/a | ref | seconds | 3 s | 2.1 s | -30.0% | faster |",
		"| demo/a | base | ratio | 0.4× | 0.52× | +30.0% | slower |",
		"3 figures compared; 1 within the noise band",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := sample()
	if err := Write(dir, r, demoSuites, nil, ""); err != nil {
		t.Fatal(err)
	}
	back, err := results.Read(filepath.Join(dir, JSONFile))
	if err != nil || len(back.Groups) != len(r.Groups) || back.Groups[0].Variants[1].Ratio.Median != 0.52 {
		t.Fatalf("results.json read back: %+v, %v", back, err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, ChartDir, "demo-time.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Errorf("chart is not XML: %v", err)
	}
	if !strings.Contains(string(svg), "first variant") {
		t.Error("chart lacks its legend")
	}
	if _, err := os.Stat(filepath.Join(dir, ReportFile)); err != nil {
		t.Error(err)
	}
}

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Seconds(2.5e-9), "2.5 ns"}, {Seconds(0.000123), "123 µs"}, {Seconds(0.0456), "45.6 ms"}, {Seconds(12.34), "12.3 s"}, {Seconds(0), ""},
		{Bytes(512), "512 B"}, {Bytes(1536), "1.5 KiB"}, {Bytes(3 << 20), "3.0 MiB"}, {Bytes(5 << 30), "5.0 GiB"},
		{duration(0.05), "50ms"}, {Ratio(0.5234), "0.523×"}, {Ratio(1107.4), "1107×"}, {duration(2.345), "2.35s"}, {duration(125.4), "2m5s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
