package race

import (
	"flag"
	"testing"
)

// TestSamples checks both answers: the one for this test run's flags, and
// the other one by setting -test.short the other way (under -race only
// the short answer is possible).
func TestSamples(t *testing.T) {
	short := flag.Lookup("test.short")
	was := short.Value.String()
	defer short.Value.Set(was)
	for _, tc := range []struct {
		short string
		want  int
	}{
		{"true", 2},
		{"false", 1},
	} {
		if err := short.Value.Set(tc.short); err != nil {
			t.Fatal(err)
		}
		want := tc.want
		if Enabled {
			want = 2
		}
		if got := Samples(1, 2); got != want {
			t.Errorf("-test.short=%s, race %v: Samples(1, 2) = %d, want %d", tc.short, Enabled, got, want)
		}
	}
}
