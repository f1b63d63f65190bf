package tiergame

// Exhaustive is implemented by games whose every hash is a position to
// solve: without seeds, a run marks every position of every tier reachable
// instead of exploring from Start (a bearoff database covers every pair of
// sides, reachable in play or not). With seeds, a run solves what the
// seeds reach, unless the game is also a WholeTiers game.
type Exhaustive interface {
	Exhaustive() bool
}

// Legality is implemented by exhaustive games whose hash spaces also hold
// hashes that are no position (two pieces on one point, a side in check
// that is not to move): an exhaustive run solves the legal hashes only.
type Legality interface {
	// LegalWords sets bit i%64 of words[i/64] exactly when hash lo+i of
	// tier t is a legal position, for every i < 64*len(words), and clears
	// the others; lo is a multiple of 64, and hashes at or past
	// TierSize(t) are not legal.
	LegalWords(t Tier, lo Position, words []uint64)
}

// WholeTiers is implemented by exhaustive games whose tiers are of use
// only whole, as endgame tables are: a run from seeds solves every
// position of the tiers the seeds lie in and of every tier below them,
// not only what the seeds reach.
type WholeTiers interface {
	WholeTiers() bool
}

// SeedsOnly is implemented by game variants that have no start position a
// run can solve from (every xiangqi endgame at once): a run of one must
// start from seeds, and is refused without them.
type SeedsOnly interface {
	// NeedsSeeds returns nil when the variant can run from its start, and
	// otherwise the error that explains how to run it.
	NeedsSeeds() error
}

// IsExhaustive reports whether g is an exhaustive game.
func IsExhaustive(g Game) bool {
	e, ok := g.(Exhaustive)
	return ok && e.Exhaustive()
}

// HasWholeTiers reports whether g is an exhaustive game whose runs from
// seeds solve whole tiers.
func HasWholeTiers(g Game) bool {
	w, ok := g.(WholeTiers)
	return ok && w.WholeTiers() && IsExhaustive(g)
}
