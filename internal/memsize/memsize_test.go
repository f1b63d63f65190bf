package memsize

import "testing"

func TestParseFormat(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want uint64
	}{{"", 0}, {"123", 123}, {"16GiB", 16 << 30}, {"512MB", 512e6}, {"2G", 2 << 30}, {"1.5KiB", 1536}} {
		if got, err := Parse(tt.s); err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tt.s, got, err, tt.want)
		}
	}
	for _, bad := range []string{"x", "-1G", "0", "GiB", "1e30T"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if Format(3<<30) != "3.0 GiB" || Format(5<<20) != "5.0 MiB" || Format(10) != "10 bytes" {
		t.Error("Format")
	}
	if DefaultBudget() == 0 {
		t.Error("DefaultBudget is 0")
	}
}
