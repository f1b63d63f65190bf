package runfolder

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// SeedsDir is where a run keeps its copies of the seeds it started from.
const SeedsDir = "seeds"

// LevelFile is the path of tier t's full level file in a run folder,
// relative to the folder: levelfile.FullName under levels/.
func LevelFile(g tiergame.Game, t tiergame.Tier) string {
	return filepath.Join("levels", fmt.Sprintf("m%s_%s_%d.dat.gz", g.Name(), portableOption(g.Option()), uint64(t)))
}

// DBFile is the path of tier t's value database in a run folder, relative
// to the folder.
func DBFile(g tiergame.Game, t tiergame.Tier) string {
	return filepath.Join("db", fmt.Sprintf("m%s_%s_%d.vdb", g.Name(), portableOption(g.Option()), uint64(t)))
}

// PlanesFile is the path of tier t's planes database (a chance game's
// tiergame.Planes) in a run folder, beside its value database.
func PlanesFile(g tiergame.Game, t tiergame.Tier) string { return PlanesPath(DBFile(g, t)) }

// PlanesPath is the planes database beside the value database at dbPath.
func PlanesPath(dbPath string) string { return strings.TrimSuffix(dbPath, ".vdb") + ".planes.vdb" }

// portableOption is levelfile.PortableOption, written here so that the
// run folder's names (which the cluster's protocol uses) do not pull in
// the level-file codec; a test checks that the two agree.
func portableOption(option string) string {
	return strings.NewReplacer("=", "", ",", "-").Replace(option)
}
