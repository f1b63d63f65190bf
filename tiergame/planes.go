package tiergame

// Planes is implemented by chance games whose positions hold further
// values beside the chance that the player to move wins: planes, each
// computed from the children's planes the way the chance is computed from
// the children's chances, in the same sweep over the tiers. The bearoff
// with option cube=money holds three, the cubeful money equities of the
// player on roll with the cube centered, owned by them, and owned by the
// opponent. A plane value is a Prob, a uint32 in [0, ProbOne], whose
// meaning the game defines; the solver stores a tier's planes in a
// database of their own beside its probabilities, and verifies them as it
// verifies those, position by position with PlaneValues.
type Planes interface {
	// PlaneNames names the planes, in the order of their values; none
	// when the variant holds none (an option turned them off), and the
	// game is solved as a plain chance game.
	PlaneNames() []string
	// PlaneValues computes the planes of position p of tier t into out
	// (one value per name) from its children's: kid returns a child's
	// planes (a slice the caller must not keep), false when the child is
	// not solved.
	PlaneValues(t Tier, p Position, kid func(Tier, Position) ([]Prob, bool), out []Prob) error
}

// PlaneKernel is implemented by games with planes that solve a run of
// consecutive positions at once, as ChanceKernel does for the chance; the
// solver uses it where it uses ChanceKernel, and its results must equal
// PlaneValues position by position.
type PlaneKernel interface {
	// SolvePlanes computes the planes of positions [lo, hi) of tier t
	// into out, K = len(PlaneNames()) values a position (out[K*k+n] is
	// plane n of position lo+k); vals returns a child tier's planes
	// indexed the same way by position.
	SolvePlanes(t Tier, lo, hi Position, vals func(Tier) []Prob, out []Prob) error
}

// PlaneCount returns the number of planes of g: 0 for a game without.
func PlaneCount(g Game) int {
	if p, ok := g.(Planes); ok {
		return len(p.PlaneNames())
	}
	return 0
}
