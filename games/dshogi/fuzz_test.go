package dshogi_test

import (
	"testing"

	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// FuzzParse: Parse either rejects a text or gives a position that formats
// back to a text it reads as the same position, and that keeps every rule
// the kit checks.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"F:gle/.c./.C./ELG:-", "S:gle/.C./.../ELG:C", "F:GE./LGE/CCl/...:-", "S:.Ll/.../.../...:-",
		"F:gle/.c./.../E.G:C", "S:gLe/.c./.C./E.G:-", "F:...:-", "F:gle/.c./.C./ELG:Gg", "",
	} {
		f.Add(s)
	}
	g := mustGame(f, "LGEC")
	f.Fuzz(func(t *testing.T, s string) {
		tier, h, err := g.Parse(s)
		if err != nil {
			return
		}
		s2 := g.Format(tier, h)
		tier2, h2, err := g.Parse(s2)
		if err != nil || tier2 != tier || h2 != h {
			t.Fatalf("Parse(%q) = %d/%d, formatted %q, parsed again %d/%d, %v", s, tier, h, s2, tier2, h2, err)
		}
		tiergametest.CheckPosition(t, g, tier, h)
	})
}
