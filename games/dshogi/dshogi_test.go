package dshogi_test

import (
	"testing"

	"github.com/tiersolve/tiersolve/games/dshogi"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// TestConformance checks the small variants with the kit: every
// position and every hash of each. Under the race detector, the lions
// alone whole and the others from their first reachable positions and
// random ones (.ci/run checks them whole without it).
func TestConformance(t *testing.T) {
	for _, pieces := range []string{"L", "LC", "LG", "LE"} {
		t.Run(pieces, func(t *testing.T) {
			g, err := dshogi.NewPieces(pieces)
			if err != nil {
				t.Fatal(err)
			}
			opts := tiergametest.Options{MaxPositions: 1 << 20, Hashes: 1 << 20, New: dshogi.New}
			if raceEnabled && pieces != "L" {
				opts = tiergametest.Options{MaxPositions: 3000, Samples: 300, Hashes: 3000, New: dshogi.New}
			}
			tiergametest.Check(t, g, opts)
		})
	}
}

// TestConformanceFull checks the whole game with the kit, from the
// start's first 20,000 positions and random ones (a tenth of them under
// the race detector).
func TestConformanceFull(t *testing.T) {
	g, err := dshogi.NewPieces(dshogi.DefaultPieces)
	if err != nil {
		t.Fatal(err)
	}
	opts := tiergametest.Options{MaxPositions: 20000, Samples: 2000, Hashes: 20000, New: dshogi.New}
	if raceEnabled {
		opts = tiergametest.Options{MaxPositions: 2000, Samples: 200, Hashes: 2000, New: dshogi.New}
	}
	tiergametest.Check(t, g, opts)
}

// TestHashSpace ties the hash to GamesmanOne's: its hash holds every board
// with at least one lion and every forest hand, both sides to move,
// 2*(132*R(10) + 24*R(11)) = 4,234,908,456 positions, of which the legal
// ones are exactly this package's hashes: 150*R(10) in play, 48*R(10) in
// try, 24*R(11) in capture.
func TestHashSpace(t *testing.T) {
	g := mustGame(t, "LGEC")
	play, try, capture := g.TierSize(0), g.TierSize(1), g.TierSize(2)
	r10, r11 := play/150, capture/24
	if play != 150*r10 || try != 48*r10 || capture != 24*r11 {
		t.Fatalf("tier sizes %d %d %d are not 150, 48 and 24 times R(10) and R(11)", play, try, capture)
	}
	if r10 != 11878227 || r11 != 22897011 {
		t.Errorf("R(10) = %d, R(11) = %d", r10, r11)
	}
	if gm := 2 * (132*r10 + 24*r11); gm != 4234908456 {
		t.Errorf("GamesmanOne's hash space from R: %d, want 4234908456", gm)
	}
	legal := play + try + capture
	t.Logf("legal positions %d (every hash), %.1f%% of GamesmanOne's hash space", legal, 100*float64(legal)/4234908456)
	if g.TierSize(3) != 0 {
		t.Error("a fourth tier")
	}
}

// TestHashesStable pins a few hashes: level files and databases are
// indexed by them, so a change would make every solved run unreadable.
func TestHashesStable(t *testing.T) {
	g := mustGame(t, "LGEC")
	for _, tc := range []struct {
		pos  string
		tier tiergame.Tier
		hash tiergame.Position
	}{
		{"F:gle/.c./.C./ELG:-", 0, 697887879},
		{"S:gle/.C./.../ELG:C", 0, 1588312204},
		{"S:gle/.c./LC./E.G:-", 0, 1196773198},
	} {
		tier, h, err := g.Parse(tc.pos)
		if err != nil || tier != tc.tier || h != tc.hash {
			t.Errorf("%s: tier %d hash %d, %v; want tier %d hash %d", tc.pos, tier, h, err, tc.tier, tc.hash)
		}
	}
}
