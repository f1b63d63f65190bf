package grid

import (
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	x, o, err := Parse("x-o/-x-/--o", 3, 3, '-')
	if err != nil || x != 1|1<<4 || o != 1<<2|1<<8 {
		t.Fatalf("Parse: %b %b %v", x, o, err)
	}
	var b strings.Builder
	Format(&b, x, o, 3, 9, '-')
	if b.String() != "x-o/-x-/--o" {
		t.Fatalf("Format: %q", b.String())
	}
	for _, bad := range []string{"x-o/-x-", "x-o/-x-/--", "x-o/-x-/--z", "x.o/-x-/--o"} {
		if _, _, err := Parse(bad, 3, 3, '-'); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
