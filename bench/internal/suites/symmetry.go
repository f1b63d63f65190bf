package suites

import (
	"strings"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// symmetryGames are the game sizes the symmetry suite solves both ways;
// the level of each is its games-suite level.
var symmetryGames = []string{"tictactoe", "connect4-5x4", "quixo-3x3", "connect4-5x5", "connect4-6x4", "quixo-4x4", "connect4-6x5", "dshogi-LGE"}

// Symmetry is the suite of symmetric runs: every game that declares
// symmetries solved with all cores, in full and with one position per
// symmetry class (tierd solve --symmetry), interleaved in each round. The
// ratio is the full run's time over the symmetric one's; positions are
// what each run stores.
func Symmetry() harness.Suite {
	return harness.Suite{
		Name:   "symmetry",
		Doc:    "reach and solve each game with symmetries in full and with --symmetry (canonical positions only), all cores",
		Groups: groupEach(symmetryGames, symmetryGroup),
		Jobs:   map[string]harness.JobFunc{"solve": harness.JobOf(runSolve)},
		Columns: []harness.Column{colReachS, colSolveS, colPositions, colPositionsPerS,
			{Key: "level_bytes", Header: "level files", Format: "bytes"}, colDBBytes, colPeakRSS, colStart},
	}
}

// symmetryGroup is symmetry/SIZE: the game size in full against it with
// --symmetry, all cores.
func symmetryGroup(size string, cfg harness.Config) harness.Group {
	s := gameByName(size)
	g := harness.Group{ID: "symmetry/" + s.name, Table: "symmetry", Title: strings.TrimSpace(s.game + " " + s.option),
		Level: s.level, Reference: "full",
		// The symmetric run stores about a half (Connect Four) or an
		// eighth (the square boards) of the positions.
		Estimate: 2*childStart + s.tier + s.tier/2}
	for _, sym := range []bool{false, true} {
		name := "full"
		if sym {
			name = "symmetry"
		}
		g.Variants = append(g.Variants, solveVariant(name, results.KindSubject, s.solve(cfg.Cores, sym)))
	}
	return g
}
