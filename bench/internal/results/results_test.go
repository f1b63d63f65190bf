package results

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		in                         []float64
		n                          int
		median, min, max, p25, p75 float64
	}{
		{[]float64{3}, 1, 3, 3, 3, 3, 3},
		{[]float64{3, 1, 2}, 3, 2, 1, 3, 1.5, 2.5},
		{[]float64{4, 1, 3, 2}, 4, 2.5, 1, 4, 1.75, 3.25},
		{[]float64{5, nan, 1, 3}, 3, 3, 1, 5, 2, 4},
		{[]float64{1, 2, 3, 4, 100}, 5, 3, 1, 100, 2, 4},
	} {
		s := Summarize(tc.in)
		if s.N != tc.n || s.Median != tc.median || s.Min != tc.min || s.Max != tc.max || s.P25 != tc.p25 || s.P75 != tc.p75 {
			t.Errorf("Summarize(%v) = %+v", tc.in, s)
		}
		if len(s.Samples) != tc.n {
			t.Errorf("Summarize(%v) kept samples %v", tc.in, s.Samples)
		}
	}
	if s := Summarize([]float64{nan}); s.N != 0 || s.Samples != nil {
		t.Errorf("all NaN: %+v", s)
	}
	if s := Summarize(nil); s.N != 0 {
		t.Errorf("nil: %+v", s)
	}
}

func TestSummarizeProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		xs := make([]float64, 1+r.IntN(9))
		for i := range xs {
			xs[i] = r.Float64() * 100
		}
		s := Summarize(xs)
		if !(s.Min <= s.P25 && s.P25 <= s.Median && s.Median <= s.P75 && s.P75 <= s.Max) {
			t.Fatalf("%v: quantiles out of order: %+v", xs, s)
		}
		sorted := slices.Sorted(slices.Values(xs))
		if len(xs)%2 == 1 && s.Median != sorted[len(xs)/2] {
			t.Fatalf("%v: median %v", xs, s.Median)
		}
		if !slices.Equal(s.Samples, xs) {
			t.Fatalf("samples reordered: %v", s.Samples)
		}
	}
}

func TestRatiosAndSpread(t *testing.T) {
	got := Ratios([]float64{2, 3, math.NaN(), 4}, []float64{1, 0, 2, 2, 9})
	if len(got) != 4 || got[0] != 2 || !math.IsNaN(got[1]) || !math.IsNaN(got[2]) || got[3] != 2 {
		t.Fatalf("Ratios = %v", got)
	}
	if s := Summarize([]float64{9, 10, 11}).Spread(); math.Abs(s-0.1) > 1e-12 {
		t.Fatalf("spread %v, want 0.1", s)
	}
}

// TestFitAmdahlKnownModel: speed-ups computed from Amdahl's law give back
// its serial fraction, whatever the worker counts.
func TestFitAmdahlKnownModel(t *testing.T) {
	for _, tc := range []struct {
		s       float64
		workers []int
	}{
		{0, []int{1, 2}},
		{0.25, []int{1, 2}},
		{0.1, []int{1, 2, 4, 8}},
		{0.5, []int{2, 3, 16}},
		{1, []int{1, 4}},
	} {
		sp := make([]float64, len(tc.workers))
		for i, n := range tc.workers {
			sp[i] = AmdahlSpeedup(tc.s, float64(n))
		}
		got, ok := FitAmdahl(tc.workers, sp)
		if !ok || math.Abs(got-tc.s) > 1e-12 {
			t.Errorf("s=%v workers %v: fit %v, %v", tc.s, tc.workers, got, ok)
		}
	}
	// Random models and noise-free points: exact; with ±1% noise: close.
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		s := r.Float64()
		ws := []int{1, 2, 4, 8, 16}
		sp := make([]float64, len(ws))
		noisy := make([]float64, len(ws))
		for i, n := range ws {
			sp[i] = AmdahlSpeedup(s, float64(n))
			noisy[i] = sp[i] * (1 + 0.01*(2*r.Float64()-1))
		}
		if got, _ := FitAmdahl(ws, sp); math.Abs(got-s) > 1e-9 {
			t.Fatalf("s=%v: fit %v", s, got)
		}
		if got, _ := FitAmdahl(ws, noisy); math.Abs(got-s) > 0.03 {
			t.Fatalf("s=%v with 1%% noise: fit %v", s, got)
		}
	}
	if _, ok := FitAmdahl([]int{1}, []float64{1}); ok {
		t.Error("one worker only: ok")
	}
	if got, ok := FitAmdahl([]int{2}, []float64{2.5}); !ok || got >= 0 {
		t.Errorf("superlinear speed-up: s=%v, want < 0", got)
	}
}

func stat(xs ...float64) Stat { return Summarize(xs) }

func twoRuns(old, cur Stat, oldRatio, curRatio *Stat) (*Results, *Results) {
	mk := func(s Stat, r *Stat) *Results {
		return &Results{Schema: Schema, Groups: []Group{{ID: "s/g", Reference: "ref", Variants: []Variant{
			{Name: "ref", Seconds: stat(1, 1, 1)},
			{Name: "v", Seconds: s, Ratio: r},
		}}}}
	}
	return mk(old, oldRatio), mk(cur, curRatio)
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, cur Stat
		want     Verdict
	}{
		{"disjoint, faster", stat(1.0, 1.05, 1.1), stat(0.7, 0.75, 0.8), Faster},
		{"disjoint, slower", stat(1.0, 1.05, 1.1), stat(1.3, 1.4, 1.5), Slower},
		{"overlapping", stat(1.0, 1.2, 1.4), stat(1.3, 1.5, 1.6), Same},
		{"tight but within the floor", stat(1, 1, 1), stat(1.05, 1.05, 1.05), Same},
		{"tight and beyond the floor", stat(1, 1, 1), stat(1.07, 1.07, 1.07), Slower},
		{"noisy run hides a change", stat(0.5, 1, 2), stat(0.6, 0.7, 0.8), Same},
	} {
		old, cur := twoRuns(tc.old, tc.cur, nil, nil)
		changes := Compare(old, cur)
		var got *Change
		for i := range changes {
			if changes[i].Variant == "v" {
				got = &changes[i]
			}
		}
		if got == nil || got.Verdict != tc.want || got.Figure != "seconds" {
			t.Errorf("%s: %+v, want %s", tc.name, got, tc.want)
			continue
		}
		if math.Abs(got.Factor-tc.cur.Median/tc.old.Median) > 1e-12 {
			t.Errorf("%s: factor %v", tc.name, got.Factor)
		}
	}
	// Ratios are compared too, and changes come first.
	r1, r2 := stat(2, 2.1, 2.2), stat(1, 1.1, 1.2)
	old, cur := twoRuns(stat(1, 1, 1), stat(1, 1, 1), &r1, &r2)
	changes := Compare(old, cur)
	if len(changes) != 3 || changes[0].Figure != "ratio" || changes[0].Verdict != Faster {
		t.Fatalf("changes %+v", changes)
	}
	// Groups or variants missing from either run are left out.
	cur.Groups[0].ID = "s/other"
	if c := Compare(old, cur); len(c) != 0 {
		t.Fatalf("unmatched groups compared: %+v", c)
	}
	var b strings.Builder
	if err := WriteChanges(&b, changes); err != nil || !strings.Contains(b.String(), "faster s/g v ratio") ||
		!strings.Contains(b.String(), "3 figure(s) compared, 2 within the noise band") {
		t.Fatalf("WriteChanges: %v\n%s", err, b.String())
	}
}

// keys lists every JSON key path of v ("a.b", arrays as "a[]").
func keys(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			keys(p, e, out)
		}
	case []any:
		for _, e := range x {
			keys(prefix+"[]", e, out)
		}
	}
}

// TestJSONKeys pins the keys of results.json: renaming one breaks every
// stored file, so it must change Schema and bench/README.md.
func TestJSONKeys(t *testing.T) {
	st := stat(1, 2, 3)
	r := Results{Schema: Schema, Command: "go run ./bench", Started: time.Unix(0, 0), Interrupted: true,
		Machine:  Machine{Commit: "abc", Dirty: true},
		Settings: Settings{Rounds: 3, WarmupRounds: 1, MinSampleSeconds: 0.1},
		Groups: []Group{{ID: "s/g", Suite: "s", Table: "t", Title: "g", Params: map[string]float64{"bits": 20},
			Reference: "a", Command: "c", Skipped: "x", Error: "e",
			Amdahl: &Amdahl{SerialFraction: st, MaxSpeedup: 2},
			Variants: []Variant{{Name: "a", Kind: KindSubject, Params: map[string]float64{"workers": 1}, Seconds: st,
				Ratio: &st, Metrics: map[string]Stat{"m": st}, Facts: map[string]string{"f": "x"}, Error: "e"}}}},
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	keys("", v, got)
	stats := func(p string) []string {
		var out []string
		for _, k := range []string{"n", "median", "min", "max", "p25", "p75", "samples"} {
			out = append(out, p+"."+k)
		}
		return append(out, p)
	}
	want := []string{"schema", "command", "quick", "started", "wall_s", "interrupted", "machine", "settings", "groups",
		"machine.cpu_model", "machine.cores", "machine.memory_bytes", "machine.os", "machine.arch", "machine.go_version",
		"machine.commit", "machine.dirty", "machine.load_start", "machine.load_end",
		"settings.warmup_rounds", "settings.rounds", "settings.min_sample_s",
		"groups[].id", "groups[].suite", "groups[].table", "groups[].title", "groups[].params", "groups[].params.bits",
		"groups[].reference", "groups[].command", "groups[].variants", "groups[].amdahl", "groups[].amdahl.max_speedup",
		"groups[].skipped", "groups[].error",
		"groups[].variants[].name", "groups[].variants[].kind", "groups[].variants[].params",
		"groups[].variants[].params.workers", "groups[].variants[].metrics", "groups[].variants[].facts",
		"groups[].variants[].facts.f", "groups[].variants[].error"}
	want = append(want, stats("groups[].amdahl.serial_fraction")...)
	want = append(want, stats("groups[].variants[].seconds")...)
	want = append(want, stats("groups[].variants[].ratio_to_reference")...)
	want = append(want, stats("groups[].variants[].metrics.m")...)
	var gotList []string
	for k := range got {
		gotList = append(gotList, k)
	}
	sort.Strings(gotList)
	sort.Strings(want)
	if !reflect.DeepEqual(gotList, want) {
		t.Fatalf("keys changed:\n got %q\nwant %q", gotList, want)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	data, _ := json.Marshal(Results{Schema: Schema, Groups: []Group{{ID: "a/b"}}})
	os.WriteFile(good, data, 0o644)
	r, err := Read(good)
	if err != nil || r.Group("a/b") == nil || r.Group("a/c") != nil {
		t.Fatalf("Read: %+v, %v", r, err)
	}
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(`{"schema":"something-else"}`), 0o644)
	if _, err := Read(other); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Fatalf("other schema: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing.json")); err == nil {
		t.Fatal("missing file: no error")
	}
}
