package results

import (
	"math"
	"slices"
)

// Stat summarizes the samples of one figure: its median and spread.
type Stat struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// P25 and P75 are the quartiles (linear interpolation between the
	// sorted samples), so P75-P25 is the interquartile range.
	P25     float64   `json:"p25"`
	P75     float64   `json:"p75"`
	Samples []float64 `json:"samples"`
}

// Summarize returns the Stat of samples (in the order given, which is kept
// in Samples). NaNs are dropped; no samples give the zero Stat.
func Summarize(samples []float64) Stat {
	kept := make([]float64, 0, len(samples))
	for _, x := range samples {
		if !math.IsNaN(x) {
			kept = append(kept, x)
		}
	}
	if len(kept) == 0 {
		return Stat{}
	}
	sorted := slices.Clone(kept)
	slices.Sort(sorted)
	return Stat{
		N:       len(sorted),
		Median:  quantile(sorted, 0.5),
		Min:     sorted[0],
		Max:     sorted[len(sorted)-1],
		P25:     quantile(sorted, 0.25),
		P75:     quantile(sorted, 0.75),
		Samples: kept,
	}
}

// quantile of sorted samples, interpolating linearly between the two
// nearest (the usual "type 7" definition; the median of an even count is
// the mean of the middle two).
func quantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Spread is the half-width of [Min, Max] relative to the median: 0.05
// means the samples lie within about ±5% of it. 0 for an empty Stat.
func (s Stat) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return (s.Max - s.Min) / 2 / math.Abs(s.Median)
}

// Ratios divides a by b element by element: the pair-by-pair ratios of
// two variants measured in the same rounds. A round where either is
// missing (NaN) or b is 0 gives NaN.
func Ratios(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		if b[i] == 0 {
			out[i] = math.NaN()
			continue
		}
		out[i] = a[i] / b[i]
	}
	return out
}
