package query

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// The doubling cube, for bearoff runs: money play from a run's planes
// (cube=money), and match play computed on demand at the score asked
// (bearoff.MatchEval).

// cubeQuery answers the cube part of a bearoff query: nil when the run
// has no money planes and no match was asked for.
type cubeQuery struct {
	g     *bearoff.Game
	o     *oracle.Oracle
	state bearoff.CubeState
	value int
	eval  *bearoff.MatchEval // match play, else money
	table *met.Table
	i, j  int // the sides of the position: on roll, opponent
}

// newCubeQuery checks the cube options against the run and, for match
// play, solves the match winning chances of the position's cone at the
// score.
func newCubeQuery(ctx context.Context, c *Options, o *oracle.Oracle, t tiergame.Tier, p tiergame.Position) (*cubeQuery, error) {
	g, ok := o.Game.(*bearoff.Game)
	if !ok {
		if c.cubeAsked() {
			return nil, tagf(ErrBadOption, "--cube, --match and --score are for bearoff runs; %s has no cube", o.Game.Name())
		}
		return nil, nil
	}
	money := g.Cube() == bearoff.CubeMoney
	if c.Match == 0 && !money {
		if c.cubeAsked() {
			return nil, tagf(ErrBadOption, "this run has no cubeful money equities (solve it with --option %s,cube=money), and no --match was given", g.Option())
		}
		return nil, nil
	}
	q := &cubeQuery{g: g, o: o, value: c.CubeValue}
	if q.value == 0 {
		q.value = 1
	}
	q.i, q.j = g.SidesOf(t, p)
	if c.Cube != "" {
		var err error
		if q.state, err = bearoff.ParseCubeState(c.Cube); err != nil {
			return nil, tagf(ErrBadOption, "--%v", err)
		}
	}
	if q.value < 1 || bits.OnesCount(uint(q.value)) != 1 || q.state == bearoff.Centered && q.value != 1 {
		return nil, tagf(ErrBadOption, "--cube-value %d: want a power of two, and 1 for a centered cube", q.value)
	}
	if c.Match == 0 {
		if c.Score != "" || c.Crawford || q.value != 1 {
			return nil, tagf(ErrBadOption, "--score, --crawford and --cube-value are for match play: give --match N")
		}
		return q, nil
	}
	if c.Score == "" {
		return nil, tagf(ErrBadOption, "--match %d: give the score as --score A-B, the points the player on roll and the opponent need", c.Match)
	}
	score, err := bearoff.ParseScore(c.Score, c.Match)
	if err != nil {
		return nil, tagf(ErrBadOption, "--score: %v", err)
	}
	score.Crawford = c.Crawford
	if err := score.Check(); err != nil {
		return nil, tagf(ErrBadOption, "--crawford: %v", err)
	}
	var maxMemory uint64
	if c.Memory != "" {
		if maxMemory, err = memsize.Parse(c.Memory); err != nil {
			return nil, tagf(ErrBadOption, "--memory %q: %v", c.Memory, err)
		}
	}
	if q.table = c.Table; q.table == nil {
		file := c.MetFile
		if file == "" {
			file = met.DefaultFile
		}
		if q.table, err = met.ReadFile(file); err != nil {
			return nil, err
		}
	}
	cubes := []bearoff.MatchCube{{Value: 1, Owner: 0}, {Value: 1, Owner: 1}, q.matchCube()}
	q.eval, err = g.NewMatchEval(ctx, bearoff.MatchOptions{Table: q.table, Score: score,
		Boards: [2][]int{{q.i}, {q.j}}, Cubes: cubes, MaxMemory: maxMemory})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// matchCube is the cube asked for, the player on roll being player 0.
func (q *cubeQuery) matchCube() bearoff.MatchCube {
	return matchCubeOf(q.state, q.value)
}

// matchCubeOf is cube state s at value v, the player on roll being
// player 0.
func matchCubeOf(s bearoff.CubeState, v int) bearoff.MatchCube {
	switch s {
	case bearoff.Owned:
		return bearoff.MatchCube{Value: v, Owner: 0}
	case bearoff.OpponentOwns:
		return bearoff.MatchCube{Value: v, Owner: 1}
	}
	return bearoff.MatchCube{Value: 1, Owner: -1}
}

// result computes the cube part of the query's answer.
func (q *cubeQuery) result(t tiergame.Tier, p tiergame.Position) (*CubeResult, error) {
	res := &CubeResult{Cube: q.state.String()}
	var d bearoff.CubeDecision
	if q.g.Cube() == bearoff.CubeMoney {
		planes, err := q.o.Planes(t, p)
		if err != nil {
			return nil, err
		}
		res.Cubeful = &CubeStates{}
		for s := range bearoff.CubeState(3) {
			v, err := bearoff.MoneyAfter(planes, s)
			if err != nil {
				return nil, err
			}
			res.Cubeful.set(s, v)
		}
		if d, err = bearoff.MoneyDecision(planes, q.state); err != nil {
			return nil, err
		}
	}
	if q.eval != nil {
		s := q.eval.Score()
		res.Match = &Match{Length: s.Length, Score: s.Away, Crawford: s.Crawford, Post: !s.Crawford && (s.Away[0] == 1 || s.Away[1] == 1), Table: q.table.Name}
		res.MWC = &CubeStates{}
		for s := range bearoff.CubeState(3) {
			md, err := q.eval.Decision(0, q.i, q.j, matchCubeOf(s, 1))
			if err != nil {
				return nil, err
			}
			res.MWC.set(s, md.Optimal)
		}
		var err error
		if d, err = q.eval.Decision(0, q.i, q.j, q.matchCube()); err != nil {
			return nil, err
		}
		res.CubeValue = q.value
	}
	res.Action = d.Action.String()
	res.NoDouble = &d.NoDouble
	if d.Action != bearoff.NoCube {
		res.DoubleTake, res.DoublePass = &d.DoubleTake, &d.DoublePass
	}
	return res, nil
}

// playValue is the player's value after a play to child (t, p) under the
// cube asked for: money equity or match winning chance.
func (q *cubeQuery) playValue(ct tiergame.Tier, cp tiergame.Position) (float64, error) {
	if q.eval != nil {
		_, to := q.g.SidesOf(ct, cp)
		return q.eval.AfterPlay(0, q.i, to, q.j, q.matchCube())
	}
	planes, err := q.o.Planes(ct, cp)
	if err != nil {
		return 0, err
	}
	v, err := bearoff.MoneyAfter(planes, q.state.Flip())
	return -v, err
}

// sortPlays gives each play its value under the cube and sorts the plays
// best first by it (stable: ties keep their cubeless order).
func (q *cubeQuery) sortPlays(plays []Play, pls []oracle.Play) error {
	for n := range plays {
		v, err := q.playValue(pls[n].Tier, pls[n].Pos)
		if err != nil {
			return err
		}
		if q.eval != nil {
			plays[n].MWC = &v
		} else {
			plays[n].Cubeful = &v
		}
	}
	key := func(p Play) float64 {
		if p.MWC != nil {
			return *p.MWC
		}
		return *p.Cubeful
	}
	slices.SortStableFunc(plays, func(a, b Play) int {
		switch x, y := key(a), key(b); {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	return nil
}

// printCube prints the cube part of a query's answer.
func printCube(w io.Writer, r *CubeResult) {
	if r.Cubeful != nil {
		fmt.Fprintf(w, "  cubeful money equities (cube 1, after the right cube decision): centered %+.6f, owned %+.6f, opponent owns %+.6f\n",
			r.Cubeful.Centered, r.Cubeful.Owned, r.Cubeful.Opponent)
	}
	unit, f := "equity", "%+.6f"
	cube := r.Cube
	if r.Match != nil {
		m := r.Match
		kind := ""
		switch {
		case m.Crawford:
			kind = ", the Crawford game"
		case m.Post:
			kind = ", post-Crawford"
		}
		fmt.Fprintf(w, "  %d-point match, the player on roll needs %d, the opponent %d%s (%s): match winning chance, cube at 1: centered %.6f, owned %.6f, opponent owns %.6f\n",
			m.Length, m.Score[0], m.Score[1], kind, m.Table, r.MWC.Centered, r.MWC.Owned, r.MWC.Opponent)
		unit, f = "match winning chance", "%.6f"
		cube = fmt.Sprintf("%s at %d", r.Cube, r.CubeValue)
	}
	if r.Action == "" {
		fmt.Fprintf(w, "  cube %s: the player on roll may not double; %s "+f+"\n", cube, unit, *r.NoDouble)
		return
	}
	fmt.Fprintf(w, "  cube %s: %s (%s: no double "+f+", double/take "+f+", double/pass "+f+")\n",
		cube, r.Action, unit, *r.NoDouble, *r.DoubleTake, *r.DoublePass)
}

// cubePlay is a play's value under the cube, for the text answer.
func cubePlay(p Play) string {
	switch {
	case p.MWC != nil:
		return fmt.Sprintf("  match winning chance %.6f", *p.MWC)
	case p.Cubeful != nil:
		return fmt.Sprintf("  cubeful %+.6f", *p.Cubeful)
	}
	return ""
}

// CubeStates holds a value for each cube state of the player on roll.
type CubeStates struct {
	Centered float64 `json:"centered"`
	Owned    float64 `json:"owned"`
	Opponent float64 `json:"opponent"`
}

func (c *CubeStates) set(s bearoff.CubeState, v float64) {
	switch s {
	case bearoff.Centered:
		c.Centered = v
	case bearoff.Owned:
		c.Owned = v
	default:
		c.Opponent = v
	}
}

// Match says the match a query is at.
type Match struct {
	Length   int    `json:"length"`
	Score    [2]int `json:"score"` // points the player on roll and the opponent need
	Crawford bool   `json:"crawford"`
	Post     bool   `json:"post_crawford"`
	Table    string `json:"table"`
}

// CubeResult is what query --json adds for the cube. Cubeful holds the
// money equities (cube value 1) of the player on roll after their right
// cube decision, for a run with cube=money; MWC their match winning
// chances (cube at 1) at the score of Match. Cube names the cube state of
// Action and of the values of no double, double/take and double/pass
// (money equities, or match winning chances at a match score), which are
// absent when the player on roll may not double.
type CubeResult struct {
	Cubeful    *CubeStates `json:"cubeful,omitempty"`
	MWC        *CubeStates `json:"mwc,omitempty"`
	Match      *Match      `json:"match,omitempty"`
	Cube       string      `json:"cube,omitempty"`
	CubeValue  int         `json:"cube_value,omitempty"`
	Action     string      `json:"action,omitempty"`
	NoDouble   *float64    `json:"no_double,omitempty"`
	DoubleTake *float64    `json:"double_take,omitempty"`
	DoublePass *float64    `json:"double_pass,omitempty"`
}
