package runfolder_test

import (
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/games/connect4"
	"github.com/tiersolve/tiersolve/games/tictactoe"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestLevelFileAgrees checks the run folder's level-file names against
// the level-file format's own.
func TestLevelFileAgrees(t *testing.T) {
	c4, err := connect4.NewSize(5, 4)
	if err != nil {
		t.Fatal(err)
	}
	ttt, err := tictactoe.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []tiergame.Game{ttt, c4} {
		for _, tier := range []tiergame.Tier{0, 7, 1 << 40} {
			want := filepath.Join("levels", levelfile.FullName(g.Name(), g.Option(), uint64(tier)))
			if got := runfolder.LevelFile(g, tier); got != want {
				t.Errorf("%s %s tier %d: LevelFile %q, levelfile.FullName %q", g.Name(), g.Option(), tier, got, want)
			}
		}
	}
	if got, want := runfolder.DBFile(c4, 3), "db/mconnect4_width5-height4_3.vdb"; got != want {
		t.Errorf("DBFile %q, want %q", got, want)
	}
	if got, want := runfolder.PlanesFile(c4, 3), "db/mconnect4_width5-height4_3.planes.vdb"; got != want {
		t.Errorf("PlanesFile %q, want %q", got, want)
	}
}
