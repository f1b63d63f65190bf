package bearoff

import (
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// The doubling cube in money play.
//
// With option cube=money a run holds, beside each position's chance to win,
// three planes (tiergame.Planes): the cubeful money equities of the player
// on roll with the cube centered, owned by them, and owned by the
// opponent, for a cube of value 1, both players handling the cube
// optimally from then on. As in gnubg's two-sided bearoff databases (the
// records "Centered cube", "Owned cube" and "Opponent owns cube" that
// makebearoff writes without -C), a plane is the equity of the player on
// roll when they roll without doubling now: their own decision is made
// from the planes of the same position (CubeDecision), the opponent's
// after every roll are inside the value. Writing ND for no double, a
// player who doubles gets min(2 x the take value, +1), the opponent
// choosing between take and pass, so after their cube decision the player
// on roll has
//
//	centered:        max(ND_centered, min(2 x ND_opponent, 1))
//	owned:           max(ND_owned,    min(2 x ND_opponent, 1))
//	opponent owns:   ND_opponent
//
// (the taker owns the cube at twice the value: the doubler's plane is then
// ND_opponent), and a plane is the mean over the 36 rolls of the best play
// by that measure: the play that leaves the opponent, on roll in the same
// cube state seen from their side, the least.
//
// Games end when a side bears off its last checker and count one unit for
// the winner: no gammons, as in gnubg's databases, also for a side that
// still has all 15 checkers (in a real game it could lose a gammon), and
// so the Jacoby rule, which only concerns gammons, changes nothing. A plane
// value is the equity e stored as the Prob (e+1)/2 (Prob.Equity reads it
// back), rounded as tiergame.ChanceValue rounds, so every solver and
// kernel gets the same bits.

// CubeState is where the cube stands, seen from the player on roll.
type CubeState int

// The cube states, in the order of the planes.
const (
	Centered     CubeState = iota // either player may double
	Owned                         // the player on roll owns it: only they may double
	OpponentOwns                  // the opponent owns it: the player on roll may not double
)

// cubeStates is the number of CubeState values.
const cubeStates = 3

var cubeStateNames = [cubeStates]string{"centered", "owned", "opponent"}

// String is "centered", "owned" or "opponent", as the planes are named.
func (s CubeState) String() string {
	if s < 0 || s >= cubeStates {
		return fmt.Sprintf("CubeState(%d)", int(s))
	}
	return cubeStateNames[s]
}

// Flip is the state seen from the other player.
func (s CubeState) Flip() CubeState {
	switch s {
	case Owned:
		return OpponentOwns
	case OpponentOwns:
		return Owned
	}
	return s
}

// ParseCubeState reads "centered", "owned" or "opponent".
func ParseCubeState(s string) (CubeState, error) {
	for k, n := range cubeStateNames {
		if s == n {
			return CubeState(k), nil
		}
	}
	return 0, fmt.Errorf("cube %q: want %s", s, strings.Join(cubeStateNames[:], ", "))
}

// Cube option values.
const (
	CubeNone  = "none"  // cubeless only (the default)
	CubeMoney = "money" // also the cubeful money planes
)

// Cube returns the cube option of the variant: CubeNone or CubeMoney.
func (g *Game) Cube() string {
	if g.money {
		return CubeMoney
	}
	return CubeNone
}

// PlaneNames is "centered", "owned", "opponent" with cube=money, else none.
func (g *Game) PlaneNames() []string {
	if !g.money {
		return nil
	}
	return cubeStateNames[:]
}

// half is the Prob of equity 0.
const half = tiergame.ProbOne / 2

// afterDecision returns what the player on roll has after their cube
// decision, as Probs, from the planes c (centered), o (owned) and x
// (opponent owns) of their position: the values the parent's states
// (centered, owned, opponent owns) take, in that order, the parent's
// owned cube being the child's opponent-owned one and the other way round.
func afterDecision(c, o, x tiergame.Prob) (tiergame.Prob, tiergame.Prob, tiergame.Prob) {
	d := doubled(x)
	return max(c, d), x, max(o, d)
}

// doubled returns the value of doubling for a player whose plane with the
// cube owned by the opponent is x: min(2x, 1) in equity, 2x - 1/2 as a
// Prob, but at least 0 (the player's own plane, which it is compared with,
// is never below 0).
func doubled(x tiergame.Prob) tiergame.Prob {
	d := 2*int64(x) - int64(half)
	return tiergame.Prob(min(max(d, 0), int64(tiergame.ProbOne)))
}

// PlaneValues computes the cubeful money planes of position p of tier t
// from its children's, one position at a time: the rule the kernel
// (SolvePlanes) must match.
func (g *Game) PlaneValues(t tiergame.Tier, p tiergame.Position, kid func(tiergame.Tier, tiergame.Position) ([]tiergame.Prob, bool), out []tiergame.Prob) error {
	if !g.money {
		return fmt.Errorf("bearoff %s: no cube planes (option cube=%s)", g.Option(), CubeMoney)
	}
	if len(out) != cubeStates {
		return fmt.Errorf("bearoff: %d plane values asked for, there are %d", len(out), cubeStates)
	}
	i, j := g.SidesOf(t, p)
	switch primitive(i, j) {
	case tiergame.Win:
		fill(out, tiergame.ProbOne)
		return nil
	case tiergame.Lose:
		fill(out, 0)
		return nil
	}
	s := g.moveLists()
	var acc [cubeStates]uint64
	for k := range rolls {
		best := [cubeStates]tiergame.Prob{tiergame.ProbOne, tiergame.ProbOne, tiergame.ProbOne}
		for _, to := range s.moves(i, k) {
			ct, cp := g.Position(j, int(to))
			v, ok := kid(ct, cp)
			if !ok || len(v) != cubeStates {
				return fmt.Errorf("bearoff: tier %d position %d: child %s (tier %d) has no planes", t, p, g.Format(ct, cp), ct)
			}
			c, o, x := afterDecision(v[Centered], v[Owned], v[OpponentOwns])
			best[Centered], best[Owned], best[OpponentOwns] = min(best[Centered], c), min(best[Owned], o), min(best[OpponentOwns], x)
		}
		w := uint64(rollWeight(k))
		for n := range acc {
			acc[n] += w * uint64(best[n])
		}
	}
	for n := range out {
		out[n] = tiergame.ChanceValue(acc[n], totalWeight)
	}
	return nil
}
