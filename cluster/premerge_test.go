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
