// Package solver finds the reachable positions of a tier game and solves
// them, tier by tier.
//
// Reachability walks the tiers parents first: the reachable positions of a
// tier (its full level file) are cut into ranges, each range is expanded by
// a worker into one partial level file per child tier (reach.ExpandRange, the unit
// of work a cluster worker also runs), and once every parent of a tier is
// expanded its partials are merged into its full level file. Loopy tiers
// are closed under their own moves first.
//
// Solving walks the tiers children first, over the positions of each tier's
// level file only, and writes one value database per tier (package
// valuedb). See solve.go for the value and remoteness conventions.
package solver
