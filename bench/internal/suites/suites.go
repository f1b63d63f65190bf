// Package suites holds the harness's benchmark suites, one file each, and
// the registry of them (All). See bench/README.md, "Adding a suite".
package suites

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
)

// All returns the suites in the order they run and are reported.
func All() []harness.Suite {
	return []harness.Suite{Level(), Games(), Symmetry(), Scaling(), Codecs(), Bearoff(), Cluster(), Interfaces(), Serve()}
}

// Columns that several suites show, named once so that a metric has the
// same header and format in every table.
var (
	colPositions     = harness.Column{Key: "positions", Header: "positions", Format: "%.0f"}
	colPositionsPerS = harness.Column{Key: "positions_per_s", Header: "positions/s", Format: "si"}
	colMposPerS      = harness.Column{Key: "mpos_per_s", Header: "Mpos/s", Format: "%.3g"}
	colReachS        = harness.Column{Key: "reach_s", Header: "reach s", Format: "%.3g"}
	colSolveS        = harness.Column{Key: "solve_s", Header: "solve s", Format: "%.3g"}
	colCPUS          = harness.Column{Key: "cpu_s", Header: "CPU s", Format: "%.3g"}
	colDBBytes       = harness.Column{Key: "db_bytes", Header: "databases", Format: "bytes"}
	colPeakRSS       = harness.Column{Key: "peak_rss_bytes", Header: "peak RSS", Format: "bytes"}
	colStart         = harness.Column{Key: "fact:start", Header: "start"}
)

// childStart is the cost of starting a child process, for estimates.
const childStart = 60 * time.Millisecond

// groupEach is the Groups of a suite that makes one group of each item,
// in the items' order.
func groupEach[T any](items []T, group func(item T, cfg harness.Config) harness.Group) func(harness.Config) []harness.Group {
	return func(cfg harness.Config) []harness.Group {
		var gs []harness.Group
		for _, it := range items {
			gs = append(gs, group(it, cfg))
		}
		return gs
	}
}

// workersVariant is a variant that runs job with w workers; its
// "workers" param, which the tables and the charts read, says so.
func workersVariant(name, kind string, w int, job *harness.Job) harness.Variant {
	return harness.Variant{Name: name, Kind: kind, Params: map[string]float64{"workers": float64(w)}, Job: job}
}

// solveVariant is a variant of the solve job (runSolve) with a.
func solveVariant(name, kind string, a solveArgs) harness.Variant {
	return workersVariant(name, kind, a.Workers, harness.NewJob("solve", a))
}

// sampleCost estimates one run of a job whose operation takes op, with
// min the least time a sample takes (harness.Repeat) and setup the
// untimed preparation in the child.
func sampleCost(op, setup, min time.Duration) time.Duration {
	return childStart + setup + max(op, min)
}

// secs converts seconds to a Duration.
func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// pct prints a density as a percentage: 0.001 -> "0.1%".
func pct(d float64) string { return strconv.FormatFloat(d*100, 'g', -1, 64) + "%" }

// pow2 prints 2^b.
func pow2(b int) string { return fmt.Sprintf("2^%d", b) }

// perSecond is n per second, 0 for a zero time.
func perSecond(n float64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return n / seconds
}

// workerCounts are 1, 2, 4, ... up to cores, and cores itself.
func workerCounts(cores int) []int {
	var ws []int
	for w := 1; w < cores; w *= 2 {
		ws = append(ws, w)
	}
	return append(ws, max(cores, 1))
}

// scale estimates an operation at 2^bits positions from its time at 2^24.
func scale(bits int, at24 float64) time.Duration {
	return secs(at24 * math.Ldexp(1, bits-24))
}
