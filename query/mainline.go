package query

import (
	"fmt"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Step is one ply of a mainline: the best move and the position after it,
// with that position's value and remoteness for the player to move there
// (for a value the rules decided, the plies within the decision, as in
// Result).
type Step struct {
	Move       string `json:"move"`
	Position   string `json:"position"`
	Value      string `json:"value"`
	Remoteness int    `json:"remoteness"`
	// Rule says which rule of play decided the value; nil otherwise.
	Rule *tiergame.RuleInfo `json:"rule,omitempty"`
}

// Line is the line of best play from a position.
type Line struct {
	Position   string `json:"position"`
	Value      string `json:"value"`
	Remoteness int    `json:"remoteness"`
	// Rule says which rule of play decided the value; nil otherwise.
	Rule     *tiergame.RuleInfo `json:"rule,omitempty"`
	Mainline []Step             `json:"mainline"`
	// End says why the line ends: EndGameOver, EndLoop, EndRules or
	// EndMax.
	End string `json:"end"`
}

// Why a mainline ends.
const (
	EndGameOver = "game over"   // a position without moves
	EndLoop     = "draw (loop)" // best play came back to a position of the line
	EndMax      = "max"         // the line reached its most plies
	// EndRules: the line reached a position where the rules of play
	// declare the side to move lost (it broke one, as by checking for
	// ever); best play from there only goes round the cycle again.
	EndRules = "lost by the rules"
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
	rr, _ := g.(tiergame.RuleReader)
	// path is the line's positions, the first one's included, with their
	// records, for the rules' decisions.
	path := []placed{{t, p, rec.Value(), rec.Remoteness()}}
	type key struct {
		t tiergame.Tier
		p tiergame.Position
	}
	seen := map[key]bool{{t, o.Canonical(t, p)}: true}
	for {
		if last := path[len(path)-1]; rr != nil {
			if _, plies, ok := rr.RuleRecord(last.v, last.r); ok && plies == 0 {
				line.End = EndRules
				break
			}
		}
		if len(line.Mainline) >= max {
			line.End = EndMax
			break
		}
		moves, err := o.Moves(t, p)
		if err != nil {
			return nil, fmt.Errorf("mainline after %d plies: %w", len(line.Mainline), err)
		}
		if len(moves) == 0 {
			line.End = EndGameOver
			break
		}
		m := moves[0]
		t, p = m.Tier, m.Pos
		line.Mainline = append(line.Mainline, Step{Move: m.Name, Position: g.Format(t, p), Value: m.Child.Value().String(), Remoteness: m.Child.Remoteness()})
		path = append(path, placed{t, p, m.Child.Value(), m.Child.Remoteness()})
		k := key{t, o.Canonical(t, p)}
		if seen[k] {
			line.End = EndLoop
			break
		}
		seen[k] = true
	}
	if rr != nil {
		lineRules(o, rr, line, path)
	}
	return line, nil
}

// placed is a position with its record.
type placed struct {
	t tiergame.Tier
	p tiergame.Position
	v tiergame.Value
	r int
}

// lineRules says the rules' decisions of a line as RuleOf does, path its
// positions (the first one's included): each one's remoteness becomes its
// plies within the decision, with its rule. The position where the
// rule-breaker is declared lost lies that many plies on along the best
// moves: on the line, or past its end when it stopped at max, where the
// best moves are followed once, as far as the furthest decision needs.
func lineRules(o *oracle.Oracle, rr tiergame.RuleReader, line *Line, path []placed) {
	rules := make([]*tiergame.RuleInfo, len(path))
	need := -1
	for i, x := range path {
		if round, plies, ok := rr.RuleRecord(x.v, x.r); ok {
			rules[i] = &tiergame.RuleInfo{Rule: "unknown", Round: round, Plies: plies}
			need = max(need, i+plies)
		}
	}
	for len(path) <= need {
		last := path[len(path)-1]
		moves, err := o.Moves(last.t, last.p)
		if err != nil || len(moves) == 0 {
			break
		}
		path = append(path, placed{t: moves[0].Tier, p: moves[0].Pos})
	}
	for i, r := range rules {
		if r == nil {
			continue
		}
		if j := i + r.Plies; j < len(path) {
			r.Rule = rr.RuleBroken(path[j].t, path[j].p)
		}
		if i == 0 {
			line.Rule, line.Remoteness = r, r.Plies
		} else {
			line.Mainline[i-1].Rule, line.Mainline[i-1].Remoteness = r, r.Plies
		}
	}
}
