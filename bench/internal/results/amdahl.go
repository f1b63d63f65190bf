package results

import "math"

// FitAmdahl returns the serial fraction s that best fits the measured
// speed-ups (speedup[i] with workers[i] workers) to Amdahl's law,
//
//	1/speedup(n) = s + (1-s)/n,
//
// by least squares on 1/speedup, in which the law is linear: with x = 1/n
// and y = 1/speedup, y - x = s(1 - x). Points with one worker carry no
// information (both sides are 0). ok is false when no point has more than
// one worker. s is not clamped: a value below 0 means the workers did
// better than linear (or noise), above 1 that adding workers slowed the
// job down.
func FitAmdahl(workers []int, speedup []float64) (s float64, ok bool) {
	var num, den float64
	for i, n := range workers {
		if n <= 1 || i >= len(speedup) || speedup[i] <= 0 || math.IsNaN(speedup[i]) {
			continue
		}
		x, y := 1/float64(n), 1/speedup[i]
		num += (1 - x) * (y - x)
		den += (1 - x) * (1 - x)
	}
	if den == 0 {
		return 0, false
	}
	return num / den, true
}

// AmdahlSpeedup is the speed-up Amdahl's law predicts with n workers for
// serial fraction s.
func AmdahlSpeedup(s float64, n float64) float64 {
	return 1 / (s + (1-s)/n)
}
