package suites

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	gplot "gonum.org/v1/plot"

	"github.com/tiersolve/tiersolve/bench/internal/chart"
	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// scalingGame is a game the scaling suite solves with 1, 2, ... workers.
type scalingGame struct {
	size  string // a gameSizes name
	level harness.Level
}

// scalingGames: Connect Four 6x4 and Quixo 4x4 are the measures
// of 1 -> 2 workers; Quixo 4x4 takes minutes, so it runs when named.
var scalingGames = []scalingGame{{"connect4-5x4", harness.Quick}, {"connect4-5x5", harness.Full},
	{"quixo-3x3", harness.Full}, {"connect4-6x4", harness.Full}, {"quixo-4x4", harness.Explicit}}

// scalingMerge is a merge of partial files the scaling suite runs with 1,
// 2, ... workers: of 2^bits positions at a density of 50%.
type scalingMerge struct {
	bits  int
	level harness.Level
}

var scalingMerges = []scalingMerge{{22, harness.Quick}, {26, harness.Full}}

// Scaling is the suite of speed-ups: the same job with 1, 2, 4, ... up to
// all cores, the speed-up of each round over its one-worker run, and the
// serial fraction of Amdahl's law fitted to them.
func Scaling() harness.Suite {
	return harness.Suite{
		Name:   "scaling",
		Doc:    "speed-up with 1, 2, ... cores and the serial fraction (Amdahl fit): reach+solve, level-file merge",
		Groups: scalingGroups,
		Jobs:   map[string]harness.JobFunc{"solve": harness.JobOf(runSolve), "merge": harness.JobOf(runMerge), "prepare-merge": harness.JobOf(prepareMerge)},
		Columns: []harness.Column{
			{Key: "speedup", Header: "speed-up", Format: "%.2fx"},
			colPositionsPerS, colMposPerS, colPeakRSS,
		},
		Charts: scalingCharts,
	}
}

// scalingGroups are scaling/SIZE for each game, then scaling/merge/... for
// each merge.
func scalingGroups(cfg harness.Config) []harness.Group {
	var gs []harness.Group
	for _, sg := range scalingGames {
		gs = append(gs, scalingSolveGroup(sg, cfg.Cores))
	}
	for _, m := range scalingMerges {
		gs = append(gs, scalingMergeGroup(m, cfg.Cores))
	}
	return gs
}

// scalingSolveGroup is scaling/SIZE: reach and solve with each worker
// count up to cores, each child held to as many cores as workers.
func scalingSolveGroup(sg scalingGame, cores int) harness.Group {
	s := gameByName(sg.size)
	g := harness.Group{ID: "scaling/" + s.name, Table: "scaling", Title: strings.TrimSpace(s.game + " " + s.option + " reach+solve"),
		Level: sg.level, Reference: "workers=1", Amdahl: true}
	for _, w := range workerCounts(cores) {
		g.Variants = append(g.Variants, solveVariant(fmt.Sprintf("workers=%d", w), results.KindSubject,
			solveArgs{Game: s.game, Option: s.option, Workers: w, Cores: w}))
		g.Estimate += childStart + s.tier*2/time.Duration(w)
	}
	return g
}

// scalingMergeGroup is scaling/merge/2^BITS/50%: the merge with each
// worker count up to cores.
func scalingMergeGroup(m scalingMerge, cores int) harness.Group {
	t := tierArgs{m.bits, 0.5}
	g := harness.Group{ID: fmt.Sprintf("scaling/merge/%s/%s", pow2(m.bits), pct(t.Density)), Table: "scaling",
		Title: fmt.Sprintf("merge %d partial files of %s positions, %s", mergeParts, pow2(m.bits), pct(t.Density)),
		Level: m.level, Params: t.params(), Reference: "workers=1", Amdahl: true,
		Setup: harness.NewJob("prepare-merge", t)}
	for _, w := range workerCounts(cores) {
		g.Variants = append(g.Variants, workersVariant(fmt.Sprintf("workers=%d", w), results.KindSubject, w, harness.NewJob("merge", mergeArgs{t, w})))
		g.Estimate += sampleCost(scale(m.bits, 0.2)/time.Duration(w), 0, 200*time.Millisecond)
	}
	return g
}

func gameByName(name string) gameSize {
	for _, s := range gameSizes {
		if s.name == name {
			return s
		}
	}
	panic("suites: no game size " + name)
}

// scalingCharts: speed-up against workers for every scaling group, with
// the ideal line.
func scalingCharts(groups []results.Group) []chart.Chart {
	var series []chart.Series
	maxW := 1.0
	for _, g := range groups {
		if g.Skipped != "" {
			continue
		}
		s := chart.Series{Name: strings.TrimPrefix(g.ID, "scaling/")}
		if g.Amdahl != nil {
			s.Name += fmt.Sprintf(" (serial %.2f)", g.Amdahl.SerialFraction.Median)
		}
		for _, v := range g.Variants {
			if st, ok := v.Metrics["speedup"]; ok {
				s.X = append(s.X, v.Params["workers"])
				s.Y = append(s.Y, st)
				maxW = max(maxW, v.Params["workers"])
			}
		}
		if len(s.X) > 0 {
			series = append(series, s)
		}
	}
	if len(series) == 0 {
		return nil
	}
	// Nudge the series apart a little so that their bars do not hide
	// each other at the same worker count.
	for i := range series {
		for k := range series[i].X {
			series[i].X[k] += 0.015 * (float64(i) - float64(len(series)-1)/2)
		}
	}
	p := chart.Lines(chart.Axes{Title: "speed-up over one worker (median; bars: min–max)", X: "workers", Y: "speed-up", YFrom0: true}, series)
	chart.AddFunc(p, "ideal (linear)", color.Gray{Y: 120}, func(x float64) float64 { return x })
	p.X.Min, p.X.Max = 0.9, maxW+0.1
	p.Y.Min, p.Y.Max = 0, maxW*1.15
	ticks := make([]gplot.Tick, 0, int(maxW))
	for w := 1.0; w <= maxW; w++ {
		ticks = append(ticks, gplot.Tick{Value: w, Label: fmt.Sprint(w)})
	}
	p.X.Tick.Marker = gplot.ConstantTicks(ticks)
	return []chart.Chart{{Name: "scaling", Title: "speed-up against workers, with the serial fraction of the Amdahl fit",
		Plots: [][]*gplot.Plot{{p}}}}
}
