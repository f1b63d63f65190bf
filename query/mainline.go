package query

import (
	"fmt"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Step is one ply of a mainline: the best move and the position after it,
// with that position's value and remoteness for the player to move there.
type Step struct {
	Move       string `json:"move"`
	Position   string `json:"position"`
	Value      string `json:"value"`
	Remoteness int    `json:"remoteness"`
}

// Line is the line of best play from a position.
type Line struct {
	Position   string `json:"position"`
	Value      string `json:"value"`
	Remoteness int    `json:"remoteness"`
	Mainline   []Step `json:"mainline"`
	// End says why the line ends: EndGameOver, EndLoop or EndMax.
	End string `json:"end"`
}

// Why a mainline ends.
const (
	EndGameOver = "game over"   // a position without moves
	EndLoop     = "draw (loop)" // best play came back to a position of the line
	EndMax      = "max"         // the line reached its most plies
)

// MaxMainline is the most plies Mainline follows.
const MaxMainline = 1000

// Mainline follows the best move (the first of oracle.Oracle.Moves) from
// position (t, p) of run o, a game without chance, for at most max plies
// (at most MaxMainline): until the game ends, or, in a drawn line, until
// it comes back to a position it passed or reaches max.
func Mainline(o *oracle.Oracle, t tiergame.Tier, p tiergame.Position, max int) (*Line, error) {
	if _, ok := o.Game.(tiergame.Chance); ok {
		return nil, tagf(ErrBadOption, "mainline: %s has dice; a line of best play depends on the rolls", o.Game.Name())
	}
	if max < 0 || max > MaxMainline {
		return nil, tagf(ErrBadOption, "mainline: max %d: want 0 to %d plies", max, MaxMainline)
	}
	g := o.Game
	rec, err := o.Lookup(t, p)
	if err != nil {
		return nil, lookupErr(err, "position %q (tier %s, hash %d) is not reachable from the start, so it was not solved", g.Format(t, p), g.TierName(t), p)
	}
	line := &Line{Position: g.Format(t, p), Value: rec.Value().String(), Remoteness: rec.Remoteness(), Mainline: []Step{}}
	type key struct {
		t tiergame.Tier
		p tiergame.Position
	}
	seen := map[key]bool{{t, o.Canonical(t, p)}: true}
	for {
		if len(line.Mainline) >= max {
			line.End = EndMax
			return line, nil
		}
		moves, err := o.Moves(t, p)
		if err != nil {
			return nil, fmt.Errorf("mainline after %d plies: %w", len(line.Mainline), err)
		}
		if len(moves) == 0 {
			line.End = EndGameOver
			return line, nil
		}
		m := moves[0]
		t, p = m.Tier, m.Pos
		line.Mainline = append(line.Mainline, Step{Move: m.Name, Position: g.Format(t, p), Value: m.Child.Value().String(), Remoteness: m.Child.Remoteness()})
		k := key{t, o.Canonical(t, p)}
		if seen[k] {
			line.End = EndLoop
			return line, nil
		}
		seen[k] = true
	}
}
