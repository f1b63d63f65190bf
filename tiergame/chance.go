package tiergame

import "fmt"

// Games with chance (dice) declare it by implementing Chance. Their values
// are probabilities rather than Value and remoteness: the chance that the
// player to move wins, the player to move drawing one outcome (a roll of
// the dice) and then choosing the move that outcome allows which leaves
// the opponent the smallest chance. Players alternate, so the value of a
// position is
//
//	ProbOne - Σ_k weight_k * min(children of outcome k) / Σ_k weight_k
//
// computed in integers by ChanceValue, so every solver and kernel gets the
// same bits. A primitive position's value is ProbOf(its Value). Chance games
// have no loopy tiers.

// Prob is a probability in fixed point: ProbOne is certainty. Its 31 bits
// keep far more than the 16 bits of gnubg's bearoff databases, and leave
// the values above ProbOne free for a solver's own markers.
type Prob uint32

// ProbOne is the probability 1.
const ProbOne Prob = 1 << 31

// Float returns p as a float64 in [0, 1].
func (p Prob) Float() float64 { return float64(p) / float64(ProbOne) }

// Equity returns 2p-1: the expected result of a single game won (+1) or
// lost (-1), as backgammon programs report it (cubeless equity).
func (p Prob) Equity() float64 { return 2*p.Float() - 1 }

// String prints p with 6 decimals.
func (p Prob) String() string { return fmt.Sprintf("%.6f", p.Float()) }

// ProbOf returns the value of a primitive position: Win 1, Lose 0, Tie 1/2.
func ProbOf(v Value) Prob {
	switch v {
	case Win:
		return ProbOne
	case Tie:
		return ProbOne / 2
	}
	return 0
}

// ChanceValue returns the value of a position from acc, the sum over the
// outcomes of weight times the smallest value of the outcome's children,
// and total, the sum of the weights: ProbOne minus their ratio, rounded to
// nearest.
func ChanceValue(acc, total uint64) Prob { return ProbOne - Prob((acc+total/2)/total) }

// Outcome is a possible result of the draw before a move, such as a roll
// of two dice, with its weight: outcome k happens with probability
// Weight_k / Σ Weight.
type Outcome struct {
	Name   string // "21" for a roll of 2 and 1
	Weight uint32
}

// Chance is implemented by games whose player draws an outcome before
// each move. Their Moves lists the children of every outcome (for
// reachability).
type Chance interface {
	// Outcomes returns the outcomes, in a fixed order.
	Outcomes() []Outcome
	// ChanceMoves is Moves grouped by outcome: for a position that is not
	// primitive it appends the children of each outcome in turn to dst and
	// the length of dst after outcome k to ends (so outcome k's children
	// are dst[ends[k-1]:ends[k]]). Every outcome has at least one child.
	ChanceMoves(t Tier, p Position, dst []Child, ends []int) (Value, []Child, []int)
}

// ChanceMoveNamer is implemented by chance games that can name their
// moves.
type ChanceMoveNamer interface {
	// ChanceMoveNames returns a name for each child of outcome k of p, in
	// the order of ChanceMoves.
	ChanceMoveNames(t Tier, p Position, k int) []string
}

// ChanceKernel is implemented by chance games that solve a run of
// consecutive positions at once, faster than one at a time (a bearoff
// shares one side's move lists among every opponent). The solver uses it
// only where every position of the run, and so every child, is reachable;
// its results must equal ChanceValue position by position.
type ChanceKernel interface {
	// SolveChance computes out[k], the value of position lo+k of tier t,
	// for every position in [lo, hi). vals returns the values of a child
	// tier of t indexed by position.
	SolveChance(t Tier, lo, hi Position, vals func(Tier) []Prob, out []Prob) error
}
