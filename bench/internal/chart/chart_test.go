package chart

import (
	"bytes"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/tiersolve/tiersolve/bench/internal/results"
)

func labels(ticks []plot.Tick) string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return strings.Join(out, " ")
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		ticker plot.Ticker
		lo, hi float64
		want   string
	}{
		{logTicks{}, 0.15, 60, "0.2 0.5 1 2 5 10 20 50"},
		{logTicks{}, 3, 2000, "5 10 20 50 100 200 500 1k 2k"},
		{logTicks{}, 3, 2e6, "10 100 1k 10k 100k 1M"},
		{logTicks{}, 3, 2e8, "10 100 1k 10k 100k 1M 10M 100M"},
		{pow2Ticks{}, 1 << 20, 1 << 28, "2^20 2^22 2^24 2^26 2^28"},
		{pow2Ticks{}, 1 << 20, 1 << 24, "2^20 2^21 2^22 2^23 2^24"},
		{pow2Ticks{}, 1 << 10, 1 << 30, "2^10 2^12 2^14 2^16 2^18 2^20 2^22 2^24 2^26 2^28 2^30"},
		{logTicks{}, -1, 1, ""},
	} {
		if got := labels(tc.ticker.Ticks(tc.lo, tc.hi)); got != tc.want {
			t.Errorf("%T(%v, %v) = %q, want %q", tc.ticker, tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestHuman(t *testing.T) {
	for x, want := range map[float64]string{0.002: "0.002", 20: "20", 1500: "1.5k", 2e7: "20M", 3e9: "3G", 512: "512"} {
		if got := Human(x); got != want {
			t.Errorf("Human(%v) = %q, want %q", x, got, want)
		}
	}
}

// TestWriteSVG: one legend for a grid, drawn beside the plots.
func TestWriteSVG(t *testing.T) {
	st := func(x float64) results.Stat { return results.Summarize([]float64{x, x * 1.1}) }
	s := []Series{{Name: "alpha", X: []float64{1, 2}, Y: []results.Stat{st(1), st(2)}}, {Name: "beta", X: []float64{1, 2}, Y: []results.Stat{st(3), st(0)}}}
	p1 := Lines(Axes{Title: "one", LogY: true}, s)
	p2 := Lines(Axes{Title: "two"}, s)
	var b bytes.Buffer
	if err := (Chart{Name: "x", Plots: [][]*plot.Plot{{p1, p2}}}).WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), ">alpha<"); n != 1 {
		t.Errorf("legend entry drawn %d times", n)
	}
	if err := (Chart{Name: "bad", Plots: [][]*plot.Plot{{p1}, {p1, p2}}}).WriteSVG(&b); err == nil {
		t.Error("ragged grid: no error")
	}
	if err := (Chart{Name: "empty"}).WriteSVG(&b); err == nil {
		t.Error("no plots: no error")
	}
}

func TestSeriesSet(t *testing.T) {
	var s SeriesSet
	st := results.Summarize([]float64{1})
	s.Add("b", 1, st)
	s.Add("a", 2, st)
	s.Add("b", 3, st)
	if got := s.Series(nil); len(got) != 2 || got[0].Name != "b" || len(got[0].X) != 2 || got[0].X[1] != 3 {
		t.Errorf("first-seen order: %+v", got)
	}
	if got := s.Series(strings.Compare); got[0].Name != "a" || got[1].Name != "b" {
		t.Errorf("sorted: %+v", got)
	}
}
