package workload

import (
	"context"
	"math"
	"testing"

	"github.com/tiersolve/tiersolve/levelfile"
)

func TestRandomSet(t *testing.T) {
	const n = 1 << 16
	for _, d := range []float64{0, 0.01, 0.3, 0.5, 1} {
		s := RandomSet(n, d, 1)
		if s.Len() != n {
			t.Fatalf("density %g: range %d", d, s.Len())
		}
		got := float64(s.Count()) / n
		if math.Abs(got-d) > 0.02 {
			t.Errorf("density %g: got %g", d, got)
		}
		if !s.Equal(RandomSet(n, d, 1)) {
			t.Errorf("density %g: not deterministic", d)
		}
	}
	if s := RandomSet(100, 0.5, 1); s.Count() > 0 {
		if max, _ := s.Max(); max >= 100 {
			t.Errorf("member %d past the range", max)
		}
	}
}

func TestPartitionAndMerge(t *testing.T) {
	s := RandomSet(1<<16, 0.2, 3)
	parts := Partition(s, 8, 1)
	names, size, err := WritePartials(t.TempDir(), parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 8 || size <= 0 {
		t.Fatalf("%d files, %d bytes", len(names), size)
	}
	var total uint64
	for _, p := range parts {
		total += p.Count()
	}
	if total != s.Count() {
		t.Fatalf("parts hold %d members, the set %d", total, s.Count())
	}
	merged, err := levelfile.Merge(context.Background(), names, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !merged.SameMembers(s) {
		t.Fatal("merged partials differ from the set")
	}
}

func TestRun(t *testing.T) {
	st, err := Run(context.Background(), Spec{Game: "connect4", Option: "width=4,height=3", Workers: 2}, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if st.Positions == 0 || st.LevelBytes == 0 || st.DBBytes == 0 || st.Start == "" || st.Tiers != 13 {
		t.Fatalf("stats %+v", st)
	}
	if _, err := Run(context.Background(), Spec{Game: "nosuchgame", Workers: 1}, t.TempDir(), false); err == nil {
		t.Fatal("no error for an unknown game")
	}
}
