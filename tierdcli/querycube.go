package tierdcli

import (
	"flag"
	"github.com/tiersolve/tiersolve/internal/cli"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/query"
)

// cubeFlags are query's flags of the doubling cube, for bearoff runs
// (query.Options).
type cubeFlags struct {
	cube      *string
	cubeValue *int
	match     *int
	score     *string
	crawford  *bool
	metFile   *string
	memory    *string
}

// addCubeFlags registers the cube flags on fs.
func addCubeFlags(fs *flag.FlagSet) *cubeFlags {
	return &cubeFlags{
		cube:      fs.String("cube", "", "bearoff: where the cube is, seen from the player on roll: centered, owned or opponent (default centered)"),
		cubeValue: fs.Int("cube-value", 1, "bearoff match play: the cube's value (1, 2, 4, ...)"),
		match:     fs.Int("match", 0, "bearoff: the match's length in points, for match play (with --score)"),
		score:     fs.String("score", "", "bearoff match play: A-B, the points the player on roll and the opponent still need"),
		crawford:  fs.Bool("crawford", false, "bearoff match play: this game is the Crawford game (a player needs 1 point; without it such a game is post-Crawford)"),
		metFile:   fs.String("met", met.DefaultFile, "bearoff match play: gnubg's match equity table (XML)"),
		memory:    fs.String("memory", "", "bearoff match play: most memory the match winning chances may take (default 4GiB)"),
	}
}

// options are the cube flags given on the command line as query.Options:
// a flag left out is the zero value, so that a run without a cube refuses
// only the flags given. A --cube-value below 1 is refused here, since
// query.Options reads 0 as a value not given.
func (c *cubeFlags) options(fs *flag.FlagSet) (query.Options, error) {
	var o query.Options
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "cube", "cube-value", "match", "score", "crawford", "met", "memory":
			o.CubeAsked = true
		}
		switch f.Name {
		case "cube":
			o.Cube = *c.cube
		case "cube-value":
			o.CubeValue = *c.cubeValue
		case "match":
			o.Match = *c.match
		case "score":
			o.Score = *c.score
		case "crawford":
			o.Crawford = *c.crawford
		case "met":
			o.MetFile = *c.metFile
		case "memory":
			o.Memory = *c.memory
		}
	})
	if o.CubeAsked && *c.cubeValue < 1 {
		return o, cli.UsageError("--cube-value %d: want a power of two, and 1 for a centered cube", *c.cubeValue)
	}
	return o, nil
}
