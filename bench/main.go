// Command bench runs the project's benchmark suites and writes a report a
// person reads at a glance and a machine diffs:
//
//	go run ./bench [--quick] [--suite NAMES] [--out DIR] [--compare OLD.json] [--peer NAME[@GROUP]=COMMAND]
//
// It writes results.json, REPORT.md and SVG charts into DIR (default
// bench/results). The folder also holds the project's Go benchmarks
// (go test -bench . ./bench/), the naive baselines (naive/,
// baseline/connect4memo/) and the harness's packages (internal/).
// README.md in this folder says what every suite measures, what every
// number means and how to add a suite.
package main

import (
	"os"

	"github.com/tiersolve/tiersolve/bench/internal/benchcmd"
	"github.com/tiersolve/tiersolve/bench/internal/suites"
)

func main() {
	suites.RunAsTierd(os.Args[1:]) // the cluster suite's coordinators and workers
	os.Exit(benchcmd.Main(os.Args[1:], suites.All(), os.Stdout, os.Stderr))
}
