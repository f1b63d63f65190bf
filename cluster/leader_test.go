package cluster

import "testing"

// TestNamesAll: a premerged set is kept only if the state names every
// partial in it (premerger.early merges partials before their completion
// is committed).
func TestNamesAll(t *testing.T) {
	blobs := []Blob{{SHA256: "a"}, {SHA256: "b"}}
	for _, tc := range []struct {
		names map[string]bool
		want  bool
	}{
		{nil, true},
		{map[string]bool{"a": true}, true},
		{map[string]bool{"a": true, "b": true}, true},
		{map[string]bool{"a": true, "c": true}, false},
		{map[string]bool{"c": true}, false},
	} {
		if got := namesAll(blobs, tc.names); got != tc.want {
			t.Errorf("namesAll(a b, %v) = %v, want %v", tc.names, got, tc.want)
		}
	}
}

// TestFreeUnits: the units a spare lease may take are those neither
// leased nor done, in running runs.
func TestFreeUnits(t *testing.T) {
	units := func() []*Unit {
		return []*Unit{{}, {Lease: &Lease{Token: 7}}, {Done: &Completion{Token: 5}}, {}}
	}
	s := &State{Runs: []*Run{
		{ID: "r1", State: Running, Tiers: []*Tier{{Reach: units()}, {Solve: units()}}},
		{ID: "r2", State: Done, Tiers: []*Tier{{Reach: units()}}},
	}}
	if got := freeUnits(s); got != 4 {
		t.Errorf("freeUnits = %d, want 4", got)
	}
}
