package work

import "testing"

// TestMakeApart: the slices are zero, as long as asked, with no room to
// append in place (an append must not write into the padding's line).
func TestMakeApart(t *testing.T) {
	for _, n := range []int{0, 1, 3, 100} {
		s := MakeApart[[]uint64](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("MakeApart(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i, v := range s {
			if v != nil {
				t.Fatalf("MakeApart(%d)[%d] = %v, want nil", n, i, v)
			}
		}
		b := MakeApart[byte](n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("MakeApart[byte](%d): len %d cap %d", n, len(b), cap(b))
		}
	}
	if p := NewApart[struct{ ps, counts []int }](); p.ps != nil || p.counts != nil {
		t.Fatalf("newApart: %+v, want zero", *p)
	}
}
