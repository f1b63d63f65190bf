package dshogi_test

import (
	"testing"

	"github.com/tiersolve/tiersolve/games/dshogi"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

func TestConformance(t *testing.T) {
	for _, pieces := range []string{"L", "LC", "LG", "LE"} {
		t.Run(pieces, func(t *testing.T) {
			g, err := dshogi.NewPieces(pieces)
			if err != nil {
				t.Fatal(err)
			}
			tiergametest.Check(t, g, tiergametest.Options{MaxPositions: 1 << 20, Hashes: 1 << 20, New: dshogi.New})
		})
	}
}

func TestConformanceFull(t *testing.T) {
	g, err := dshogi.NewPieces(dshogi.DefaultPieces)
	if err != nil {
		t.Fatal(err)
	}
	tiergametest.Check(t, g, tiergametest.Options{MaxPositions: 20000, Samples: 2000, Hashes: 20000, New: dshogi.New})
}
