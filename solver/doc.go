// Package solver runs a tier game's reachability and solving in a run
// folder: Open, then Run.Reach, Run.Solve and Run.Verify, resuming where a
// stopped run left off.
//
// Reachability walks the tiers parents first: the reachable positions of a
// tier (its full level file) are cut into ranges, each range is expanded by
// a worker into one partial level file per child tier (reach.ExpandRange,
// the unit of work a cluster worker also runs), and once every parent of a
// tier is expanded its partials are merged into its full level file. Loopy
// tiers are closed under their own moves first (reach.CloseTier).
//
// Solving walks the tiers children first, over the positions of each
// tier's level file only, and writes one value database per tier (package
// valuedb): loop-free tiers range by range (solved.SolveRange, which states
// the value and remoteness conventions), loopy ones by retrograde analysis
// (loopy.Solve), those of games with chance as probabilities (package
// chance). SolveTier is the unit a cluster worker runs for a whole tier.
//
// The packages below it, each with one role: runfolder (the manifest,
// names, lock and times), tiergraph (the tiers and their order), plan
// (ranges, cuts and memory estimates), work (how a unit spreads over
// goroutines), reach, solved, loopy, chance, and oracle (queries of a
// solved folder); the quotient game of a symmetric run is
// tiergame/quotient. Imports run one way: none of them imports solver, and
// runfolder, tiergraph and plan import no solver.
package solver
