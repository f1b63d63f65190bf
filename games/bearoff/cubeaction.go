package bearoff

import (
	"fmt"

	"github.com/tiersolve/tiersolve/tiergame"
)

// CubeAction is the right cube action of the player on roll, or what a
// player did.
type CubeAction int

// Cube actions. TooGood is playing on when not doubling is worth more
// than the opponent's pass (the player should not double, and the
// opponent would pass).
const (
	NoCube     CubeAction = iota // the player on roll may not double
	NoDouble                     // no double (and the opponent would take)
	DoubleTake                   // double, and the opponent takes
	DoublePass                   // double, and the opponent passes
	TooGood                      // too good to double: play on
)

var cubeActionNames = [...]string{NoCube: "", NoDouble: "no double", DoubleTake: "double/take", DoublePass: "double/pass", TooGood: "too good"}

// String is "no double", "double/take", "double/pass", "too good", or ""
// for NoCube.
func (a CubeAction) String() string {
	if a < 0 || int(a) >= len(cubeActionNames) {
		return fmt.Sprintf("CubeAction(%d)", int(a))
	}
	return cubeActionNames[a]
}

// Doubles reports whether the action is a double.
func (a CubeAction) Doubles() bool { return a == DoubleTake || a == DoublePass }

// CubeDecision is a cube decision of the player on roll: the value of each
// action to them (money equities for a cube of value 1, or match winning
// chances) and the right action. Without the cube (Action NoCube) only
// NoDouble is set.
type CubeDecision struct {
	Action     CubeAction
	NoDouble   float64 // rolling without doubling
	DoubleTake float64 // doubling, the opponent taking
	DoublePass float64 // doubling, the opponent passing
	// Optimal is the value after the right action: max(NoDouble,
	// min(DoubleTake, DoublePass)) when the player may double.
	Optimal float64
}

// Double is the value of doubling to the doubler, the opponent choosing
// between take and pass: min(DoubleTake, DoublePass).
func (d CubeDecision) Double() float64 { return min(d.DoubleTake, d.DoublePass) }

// Decide returns the cube decision of a player whose values are nd (no
// double), dt (double/take) and dp (double/pass), with gnubg's rules for
// ties: a double when both double/take and double/pass are worth at least
// no double, then a pass unless double/pass is worth more than
// double/take.
func Decide(nd, dt, dp float64) CubeDecision {
	d := CubeDecision{NoDouble: nd, DoubleTake: dt, DoublePass: dp}
	switch {
	case dt >= nd && dp >= nd && dp > dt:
		d.Action, d.Optimal = DoubleTake, dt
	case dt >= nd && dp >= nd:
		d.Action, d.Optimal = DoublePass, dp
	case nd > dp:
		d.Action, d.Optimal = TooGood, nd
	default:
		d.Action, d.Optimal = NoDouble, nd
	}
	return d
}

// noCube is the decision of a player who may not double.
func noCube(nd float64) CubeDecision {
	return CubeDecision{Action: NoCube, NoDouble: nd, Optimal: nd}
}

// MoneyDecision returns the cube decision in money play of the player on
// roll in cube state s, from the position's three planes (centered,
// owned, opponent owns; Game.PlaneNames), in equities for a cube of value
// 1: no double is the plane of s, double/take twice the plane with the
// cube owned by the opponent, double/pass +1.
func MoneyDecision(planes []tiergame.Prob, s CubeState) (CubeDecision, error) {
	if len(planes) != cubeStates || s < 0 || s >= cubeStates {
		return CubeDecision{}, fmt.Errorf("bearoff: a money decision of cube %v from %d planes", s, len(planes))
	}
	nd := planes[s].Equity()
	if s == OpponentOwns {
		return noCube(nd), nil
	}
	return Decide(nd, 2*planes[OpponentOwns].Equity(), 1), nil
}

// MoneyAfter returns the money equity, for a cube of value 1, of the
// player on roll at a position whose planes are given, in cube state s,
// after their own right cube decision.
func MoneyAfter(planes []tiergame.Prob, s CubeState) (float64, error) {
	d, err := MoneyDecision(planes, s)
	return d.Optimal, err
}
