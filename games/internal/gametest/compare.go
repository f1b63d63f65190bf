package gametest

import (
	"testing"
	"time"
)

// Variant is one of the kernels Compare times: run does the work for
// items i in [0, n).
type Variant struct {
	Name string
	Run  func(n int)
}

// Compare times the variants in turn, each over n items per round, one
// round of all of them per op, and reports the fastest round of each as
// "ns/pos-NAME" and "Mpos/s-NAME". Taking turns within one process keeps
// the comparison fair on a machine whose load changes from one moment to
// the next.
func Compare(b *testing.B, n int, vs ...Variant) {
	best := make([]time.Duration, len(vs))
	for b.Loop() {
		for i, v := range vs {
			start := time.Now()
			v.Run(n)
			if d := time.Since(start); best[i] == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	for i, v := range vs {
		ns := float64(best[i].Nanoseconds()) / float64(n)
		b.ReportMetric(ns, "ns/pos-"+v.Name)
		b.ReportMetric(1e3/ns, "Mpos/s-"+v.Name)
	}
	b.ReportMetric(0, "ns/op")
}
