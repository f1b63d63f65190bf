package suites

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	gplot "gonum.org/v1/plot"

	"github.com/tiersolve/tiersolve/bench/internal/chart"
	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/bench/internal/workload"
	"github.com/tiersolve/tiersolve/bench/naive"
	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/levelfile"
)

// Level-file tiers: 2^levelBits positions at levelDensities.
var (
	levelBits      = []int{20, 22, 24, 26, 28}
	levelDensities = []float64{0.001, 0.01, 0.1, 0.5}
)

// levelLevel: the smallest tier runs in --quick, the largest naive
// baseline only when named.
func levelLevel(bits int) harness.Level {
	if bits <= 20 {
		return harness.Quick
	}
	return harness.Full
}

// mergeParts is the number of partial files a merge reads.
const mergeParts = 8

// writeAt24 are the measured times of one write at 2^24 positions on the
// reference machine, by variant and density, for estimates only.
var writeAt24 = map[string][4]float64{
	"auto":  {0.02, 0.07, 0.08, 0.02},
	"type0": {0.01, 0.02, 0.07, 0.28},
	"type1": {0.05, 0.02, 0.02, 0.07},
	"type2": {0.33, 0.23, 0.12, 0.05},
	"type3": {0.03, 0.09, 0.08, 0.02},
	"naive": {1.2, 2.3, 3.3, 6.8},
}

// Level is the level-file suite: writing a random tier with levelfile's
// race (auto) against each single type and the naive baseline, reading
// each type, and merging partial files.
func Level() harness.Suite {
	return harness.Suite{
		Name: "level",
		Doc:  "level files: write (auto vs each type vs naive), read, merge; 2^20..2^28 positions at 0.1%..50%",
		Groups: func(cfg harness.Config) []harness.Group {
			var gs []harness.Group
			for _, bits := range levelBits {
				for di, d := range levelDensities {
					gs = append(gs, levelWrite(bits, di, d), levelNaive(bits, di, d), levelRead(bits, di, d),
						levelMerge(bits, d, cfg.Cores, levelLevel(bits)))
				}
			}
			return gs
		},
		Jobs: map[string]harness.JobFunc{
			"write":         harness.JobOf(runWrite),
			"prepare-read":  harness.JobOf(prepareRead),
			"read":          harness.JobOf(runRead),
			"prepare-merge": harness.JobOf(prepareMerge),
			"merge":         harness.JobOf(runMerge),
		},
		Columns: []harness.Column{
			colMposPerS,
			{Key: "mb_per_s", Header: "MB/s", Format: "%.0f"},
			{Key: "bytes", Header: "file", Format: "bytes"},
			{Key: "fact:type", Header: "type"},
		},
		Charts: levelCharts,
	}
}

// tierArgs name a random tier.
type tierArgs struct {
	Bits    int     `json:"bits"`
	Density float64 `json:"density"`
}

func (t tierArgs) set() *bitarray.Set { return workload.RandomSet(1<<t.Bits, t.Density, 1) }

func (t tierArgs) params() map[string]float64 {
	return map[string]float64{"bits": float64(t.Bits), "positions": float64(uint64(1) << t.Bits), "density": t.Density}
}

// writeArgs: Types empty is levelfile's race; Naive the baseline.
type writeArgs struct {
	tierArgs
	Types []int `json:"types,omitempty"`
	Naive bool  `json:"naive,omitempty"`
}

func levelWrite(bits, di int, d float64) harness.Group {
	t := tierArgs{bits, d}
	g := harness.Group{ID: fmt.Sprintf("level/write/%s/%s", pow2(bits), pct(d)), Table: "write",
		Title: fmt.Sprintf("write %s positions, %s", pow2(bits), pct(d)), Level: levelLevel(bits),
		Params: t.params(), Reference: "auto"}
	g.Variants = append(g.Variants, harness.Variant{Name: "auto", Kind: results.KindSubject,
		Job: harness.NewJob("write", writeArgs{tierArgs: t})})
	for typ := range 4 {
		name := fmt.Sprintf("type%d", typ)
		g.Variants = append(g.Variants, harness.Variant{Name: name, Kind: results.KindSubject,
			Params: map[string]float64{"type": float64(typ)},
			Job:    harness.NewJob("write", writeArgs{tierArgs: t, Types: []int{typ}})})
	}
	for _, v := range g.Variants {
		g.Estimate += sampleCost(scale(bits, writeAt24[v.Name][di]), scale(bits, 0.02), 200*time.Millisecond)
	}
	return g
}

func levelNaive(bits, di int, d float64) harness.Group {
	t := tierArgs{bits, d}
	lv := levelLevel(bits)
	if bits >= 28 {
		lv = harness.Explicit
	}
	g := harness.Group{ID: fmt.Sprintf("level/naive/%s/%s", pow2(bits), pct(d)), Table: "naive",
		Title: fmt.Sprintf("write %s positions, %s, against the naive baseline", pow2(bits), pct(d)), Level: lv,
		Params: t.params(), Reference: "auto",
		Variants: []harness.Variant{
			{Name: "auto", Kind: results.KindSubject, Job: harness.NewJob("write", writeArgs{tierArgs: t})},
			{Name: "naive", Kind: results.KindBaseline, Job: harness.NewJob("write", writeArgs{tierArgs: t, Naive: true})},
		}}
	for _, v := range g.Variants {
		g.Estimate += sampleCost(scale(bits, writeAt24[v.Name][di]), scale(bits, 0.02), 200*time.Millisecond)
	}
	return g
}

// readArgs read the file of one type that prepare-read wrote.
type readArgs struct {
	tierArgs
	Type int `json:"type"`
}

func levelRead(bits, di int, d float64) harness.Group {
	t := tierArgs{bits, d}
	g := harness.Group{ID: fmt.Sprintf("level/read/%s/%s", pow2(bits), pct(d)), Table: "read",
		Title: fmt.Sprintf("read %s positions, %s", pow2(bits), pct(d)), Level: levelLevel(bits),
		Params: t.params(), Reference: "type3", Setup: harness.NewJob("prepare-read", t)}
	for typ := range 4 {
		name := fmt.Sprintf("type%d", typ)
		g.Variants = append(g.Variants, harness.Variant{Name: name, Kind: results.KindSubject,
			Params: map[string]float64{"type": float64(typ)}, Job: harness.NewJob("read", readArgs{t, typ})})
		g.Estimate += sampleCost(scale(bits, writeAt24[name][di]), 0, 200*time.Millisecond)
		g.Estimate += scale(bits, writeAt24[name][di]) / 4 // the setup, spread over the rounds
	}
	return g
}

// mergeArgs merge the partial files that prepare-merge wrote.
type mergeArgs struct {
	tierArgs
	Workers int `json:"workers"`
}

func levelMerge(bits int, d float64, cores int, lv harness.Level) harness.Group {
	t := tierArgs{bits, d}
	return harness.Group{ID: fmt.Sprintf("level/merge/%s/%s", pow2(bits), pct(d)), Table: "merge",
		Title: fmt.Sprintf("merge %d partial files of %s positions, %s", mergeParts, pow2(bits), pct(d)), Level: lv,
		Params: t.params(), Reference: "merge", Setup: harness.NewJob("prepare-merge", t),
		Variants: []harness.Variant{workersVariant("merge", results.KindSubject, cores, harness.NewJob("merge", mergeArgs{t, cores}))},
		Estimate: sampleCost(scale(bits, 0.1), 0, 200*time.Millisecond) + scale(bits, 0.1)}
}

func runWrite(_ context.Context, env harness.JobEnv, a writeArgs) (harness.Sample, error) {
	s := a.set()
	name := filepath.Join(env.Dir, levelfile.FullName("bench", "random", 0))
	var types levelfile.TypeSet // zero: all four
	if len(a.Types) > 0 {
		ts := make([]levelfile.Type, len(a.Types))
		for i, t := range a.Types {
			ts[i] = levelfile.Type(t)
		}
		types = levelfile.Types(ts...)
	}
	var bytes int64
	var typ levelfile.Type
	write := func() error {
		if a.Naive {
			r, err := naive.WriteFile(name, s)
			bytes, typ = r.Bytes, r.Type
			return err
		}
		r, err := levelfile.WriteFile(name, s, &levelfile.WriteOptions{Types: types})
		bytes, typ = r.Bytes, r.Header.Type
		return err
	}
	sec, _, err := harness.Repeat(env.MinSample, write)
	if err != nil {
		return harness.Sample{}, err
	}
	n := float64(s.Count())
	return harness.Sample{Seconds: sec,
		Metrics: map[string]float64{"mpos_per_s": perSecond(n, sec) / 1e6, "bytes": float64(bytes), "members": n},
		Facts:   map[string]string{"type": fmt.Sprint(int(typ))}}, nil
}

func typeFile(dir string, t int) string { return filepath.Join(dir, fmt.Sprintf("type%d.dat.gz", t)) }

func prepareRead(_ context.Context, env harness.JobEnv, a tierArgs) (harness.Sample, error) {
	s := a.set()
	for t := levelfile.Type0; t <= levelfile.Type3; t++ {
		opts := &levelfile.WriteOptions{Types: levelfile.Types(t), NoSync: true}
		if _, err := levelfile.WriteFile(typeFile(env.Shared, int(t)), s, opts); err != nil {
			return harness.Sample{}, err
		}
	}
	return harness.Sample{}, nil
}

func runRead(_ context.Context, env harness.JobEnv, a readArgs) (harness.Sample, error) {
	name := typeFile(env.Shared, a.Type)
	st, err := os.Stat(name)
	if err != nil {
		return harness.Sample{}, err
	}
	dst := bitarray.New(0, 1<<a.Bits)
	sec, _, err := harness.Repeat(env.MinSample, func() error {
		f, err := levelfile.Open(name, nil)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.ReadInto(dst)
	})
	if err != nil {
		return harness.Sample{}, err
	}
	n := float64(dst.Count())
	return harness.Sample{Seconds: sec, Metrics: map[string]float64{
		"mpos_per_s": perSecond(n, sec) / 1e6, "mb_per_s": perSecond(float64(st.Size()), sec) / 1e6,
		"bytes": float64(st.Size()), "members": n}}, nil
}

func partials(dir string) string { return filepath.Join(dir, "partials") }

func prepareMerge(_ context.Context, env harness.JobEnv, a tierArgs) (harness.Sample, error) {
	if err := os.MkdirAll(partials(env.Shared), 0o755); err != nil {
		return harness.Sample{}, err
	}
	_, _, err := workload.WritePartials(partials(env.Shared), workload.Partition(a.set(), mergeParts, 2))
	return harness.Sample{}, err
}

func runMerge(ctx context.Context, env harness.JobEnv, a mergeArgs) (harness.Sample, error) {
	names, err := filepath.Glob(filepath.Join(partials(env.Shared), "*.dat.gz"))
	if err != nil {
		return harness.Sample{}, err
	}
	if len(names) == 0 {
		return harness.Sample{}, errors.New("no partial files to merge")
	}
	var size int64
	for _, n := range names {
		st, err := os.Stat(n)
		if err != nil {
			return harness.Sample{}, err
		}
		size += st.Size()
	}
	var m *bitarray.Set
	sec, _, err := harness.Repeat(env.MinSample, func() error {
		var err error
		m, err = levelfile.Merge(ctx, names, &levelfile.MergeOptions{Workers: a.Workers})
		return err
	})
	if err != nil {
		return harness.Sample{}, err
	}
	n := float64(m.Count())
	return harness.Sample{Seconds: sec, Metrics: map[string]float64{
		"mpos_per_s": perSecond(n, sec) / 1e6, "mb_per_s": perSecond(float64(size), sec) / 1e6,
		"bytes": float64(size), "members": n}}, nil
}

// levelCharts: throughput against tier size by type (write and read, one
// panel per density) and file size by type against density.
func levelCharts(groups []results.Group) []chart.Chart {
	var out []chart.Chart
	for _, table := range []struct{ name, verb string }{{"write", "write"}, {"read", "read"}} {
		var row1, row2 []*gplot.Plot
		for i, d := range levelDensities {
			p := throughputPlot(groups, table.name, d, table.verb)
			if p == nil {
				continue
			}
			if i < 2 {
				row1 = append(row1, p)
			} else {
				row2 = append(row2, p)
			}
		}
		if len(row1) == 0 {
			continue
		}
		rows := [][]*gplot.Plot{row1}
		if len(row2) == len(row1) {
			rows = append(rows, row2)
		}
		out = append(out, chart.Chart{Name: "level-" + table.name,
			Title: fmt.Sprintf("level files: %s throughput (million positions per second) against tier size, by type", table.verb),
			Plots: rows})
	}
	if p := sizePlot(groups); p != nil {
		out = append(out, chart.Chart{Name: "level-size",
			Title: "level files: file size by type against density", Plots: [][]*gplot.Plot{{p}}})
	}
	return out
}

// throughputPlot draws Mpos/s against positions for each variant of the
// table's groups at density d.
func throughputPlot(groups []results.Group, table string, d float64, verb string) *gplot.Plot {
	var set chart.SeriesSet
	for _, g := range groups {
		// The write chart also shows the naive baseline, from its table.
		naiveRows := table == "write" && g.Table == "naive"
		if (g.Table != table && !naiveRows) || g.Params["density"] != d || g.Skipped != "" {
			continue
		}
		for _, v := range g.Variants {
			st, ok := v.Metrics["mpos_per_s"]
			if ok && (!naiveRows || v.Name == "naive") {
				set.Add(v.Name, g.Params["positions"], st)
			}
		}
	}
	series := set.Series(strings.Compare)
	if len(series) == 0 {
		return nil
	}
	for i := range series {
		series[i].Bold = series[i].Name == "auto"
	}
	return chart.Lines(chart.Axes{Title: fmt.Sprintf("%s, density %s", verb, pct(d)), X: "positions in the tier",
		Y: "million positions / s", LogX: true, Pow2X: true, LogY: true}, series)
}

// sizePlot draws file size per position against density for each single
// type, at the largest tier size written.
func sizePlot(groups []results.Group) *gplot.Plot {
	largest := 0.0
	for _, g := range groups {
		if g.Table == "write" && g.Skipped == "" && len(g.Variants) > 0 {
			largest = max(largest, g.Params["bits"])
		}
	}
	var set chart.SeriesSet
	for _, g := range groups {
		if g.Table != "write" || g.Params["bits"] != largest {
			continue
		}
		for _, v := range g.Variants {
			if st, ok := v.Metrics["bytes"]; ok && v.Name != "auto" {
				set.Add(v.Name, g.Params["density"], st)
			}
		}
	}
	series := set.Series(strings.Compare)
	if len(series) == 0 {
		return nil
	}
	var ticks []gplot.Tick
	for _, d := range levelDensities {
		ticks = append(ticks, gplot.Tick{Value: d, Label: pct(d)})
	}
	return chart.Lines(chart.Axes{Title: fmt.Sprintf("file size by type, tier of 2^%.0f positions", largest),
		X: "density (share of the positions reachable)", Y: "bytes", LogX: true, LogY: true, XTicks: ticks}, series)
}
