// Package review reviews the bearoff decisions of a backgammon match
// against an exact bearoff database: for every checker play made in a
// bearoff (both sides, every game), the roll, the play made, the best
// play, and what the play lost, and for every cube decision taken in a
// bearoff, the action taken, the right action and what the doubler and the
// opponent lost, with totals per player. Decisions the database does not
// cover are counted with the reason, not guessed.
//
// Matches come from eXtreme Gammon files (package xg); the database is a
// solved run of the bearoff game (package bearoff), queried through a
// oracle.Oracle. What a decision is judged by is its measure:
//
//   - in a match (with a match equity table, Options.Table), the chance of
//     winning the match at the score of the game, cube as it stood, every
//     cube state solved exactly (bearoff.MatchEval);
//   - in a money session, with a run of cube=money, the cubeful money
//     equity for a cube of value 1 (the errors are per unit of the cube),
//     cube as it stood;
//   - else the cubeless equity, for checker plays only: cube decisions
//     are then not covered.
//
// The databases count no gammons (as gnubg's two-sided ones), so a
// decision in a position where a side still has all 15 checkers (which
// could lose a gammon) is not covered.
package review

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/gamecodecs/xg"
	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Measures a decision is judged by.
const (
	Cubeless = "cubeless equity"
	Cubeful  = "cubeful equity"       // money, per unit of the cube
	MWC      = "match winning chance" // at the game's score
)

// Decision is one reviewed bearoff play.
type Decision struct {
	Game     int    `json:"game"`     // game number in the match, from 1
	Player   int    `json:"player"`   // XG's player: 1 or 2
	Position string `json:"position"` // gnubg Position ID before the play, the player on roll
	Roll     string `json:"roll"`     // "21"
	Played   string `json:"played"`   // the play made, in gnubg's notation
	Best     string `json:"best"`     // a best play
	// Measure is what Equity, BestEquity and Lost are in: Cubeless,
	// Cubeful or MWC.
	Measure    string  `json:"measure"`
	Equity     float64 `json:"equity"` // after the play made
	BestEquity float64 `json:"best_equity"`
	Lost       float64 `json:"lost"` // BestEquity - Equity, >= 0
}

// CubeDecision is one reviewed cube decision: the player on roll's
// double or not, and if they doubled the opponent's take or pass.
type CubeDecision struct {
	Game      int    `json:"game"`
	Player    int    `json:"player"` // XG's player on roll: 1 or 2
	Position  string `json:"position"`
	Cube      int    `json:"cube"`       // the cube's value
	CubeState string `json:"cube_state"` // centered, owned (by the player on roll) or opponent
	Score     [2]int `json:"score,omitempty"`
	// Score is, in a match, the points the player on roll and the
	// opponent need.
	Crawford bool   `json:"crawford,omitempty"`
	Action   string `json:"action"` // taken: no double, double/take, double/pass (a beaver is a take)
	Right    string `json:"right"`  // no double, double/take, double/pass, too good
	// The values of the actions to the player on roll, in Measure
	// (Cubeful or MWC).
	Measure    string  `json:"measure"`
	NoDouble   float64 `json:"no_double"`
	DoubleTake float64 `json:"double_take"`
	DoublePass float64 `json:"double_pass"`
	// Lost is what the player on roll's double or no double lost (the
	// opponent answering right), TakeLost what the opponent's take or
	// pass lost, both >= 0.
	Lost     float64 `json:"lost"`
	TakeLost float64 `json:"take_lost"`
}

// Skipped is a bearoff decision the database does not cover.
type Skipped struct {
	Game     int    `json:"game"`
	Player   int    `json:"player"`
	Position string `json:"position"`
	Cube     bool   `json:"cube,omitempty"` // a cube decision, else a checker play
	Reason   string `json:"reason"`
}

// Total sums one player's reviewed decisions. Lost is in equity (cubeful
// in a money session with a cube=money run, else cubeless), LostMWC in
// match winning chance; CubeDecisions counts the player's doubles or not
// and takes or passes.
type Total struct {
	Player        int     `json:"player"`
	Name          string  `json:"name"`
	Decisions     int     `json:"decisions"`
	Errors        int     `json:"errors"` // plays that lost something
	Lost          float64 `json:"lost"`
	LostMWC       float64 `json:"lost_mwc"`
	CubeDecisions int     `json:"cube_decisions"`
	CubeErrors    int     `json:"cube_errors"`
	CubeLost      float64 `json:"cube_lost"`
	CubeLostMWC   float64 `json:"cube_lost_mwc"`
}

// Report is the review of a match.
type Report struct {
	Decisions     []Decision     `json:"decisions"`
	CubeDecisions []CubeDecision `json:"cube_decisions"`
	Totals        [2]Total       `json:"totals"`
	NotCovered    []Skipped      `json:"not_covered"`
	Reasons       map[string]int `json:"not_covered_by_reason"`
	// Other counts the decisions that are not in a bearoff (contact
	// positions).
	Other int `json:"other_decisions"`
	// Money is set for a money session, else Length is the match's.
	Money  bool `json:"money"`
	Length int  `json:"match_length,omitempty"`
	// Table names the match equity table matches were judged by.
	Table string `json:"table,omitempty"`
}

// Reasons a bearoff decision is not covered.
const (
	ReasonVariant     = "outside the database's variant"
	ReasonUnreachable = "not reached by the database's run"
	ReasonGammon      = "a side has borne off no checker: a gammon is possible, which the database does not count"
	ReasonNoPlanes    = "a money cube decision, and the run has no cubeful equities (solve it with cube=money)"
	ReasonNoTable     = "a match cube decision, and no match equity table was given"
	ReasonTooLarge    = "the exact match evaluation of this game's bearoff is too large"
	ReasonScore       = "a match score the match equity table does not cover"
	ReasonDeadCube    = "a double of a cube already worth the match to the doubler"
)

// ErrIllegal marks a played move that is not among the legal plays of its
// roll: a corrupt file, or a bug in the move generator.
var ErrIllegal = errors.New("the play made is not among the legal plays")

// Options adjust a review.
type Options struct {
	// Table is the match equity table matches are judged by; without
	// one, their checker plays are judged cubeless and their cube
	// decisions not covered.
	Table *met.Table
	// MaxMemory bounds the memory of one game's match evaluation (0:
	// bearoff.MaxMatchMemory); a game beyond it is judged as without a
	// table.
	MaxMemory uint64
}

// Match reviews the bearoff decisions of f with the database o of game g.
func Match(f *xg.File, g *bearoff.Game, o *oracle.Oracle, opts *Options) (*Report, error) {
	if opts == nil {
		opts = &Options{}
	}
	ds, err := f.Decisions()
	if err != nil {
		return nil, err
	}
	h := f.MatchHeader()
	rep := &Report{Reasons: map[string]int{}, Money: h.Unlimited()}
	if !rep.Money {
		rep.Length = h.MatchLength
		if opts.Table != nil {
			rep.Table = opts.Table.Name
		}
	}
	for n := range rep.Totals {
		rep.Totals[n] = Total{Player: n + 1, Name: h.PlayerName(n + 1)}
	}
	r := &reviewer{g: g, o: o, opts: opts, rep: rep, evals: map[int]*gameEval{}}
	if !rep.Money && opts.Table != nil {
		r.prepareMatch(ds)
	}
	for _, d := range ds {
		i, j, err := g.FromBoard(d.Board)
		switch {
		case errors.Is(err, bearoff.ErrNotBearoff):
			rep.Other++
			continue
		case errors.Is(err, bearoff.ErrVariant):
			rep.skip(d, ReasonVariant)
			continue
		case err != nil:
			return nil, fmt.Errorf("game %d, record %d: %w", d.Game, d.Record, err)
		case g.Board(i).Checkers() == 15 || g.Board(j).Checkers() == 15:
			rep.skip(d, ReasonGammon)
			continue
		}
		if d.Kind == xg.TypeCube {
			err = r.cube(d, i, j)
		} else {
			err = r.play(d, i, j)
		}
		switch {
		case errors.Is(err, oracle.ErrUnreachable):
			rep.skip(d, ReasonUnreachable)
		case err != nil:
			return nil, fmt.Errorf("game %d, record %d (%s, %s): %w", d.Game, d.Record, d.PositionID, describe(d), err)
		}
	}
	return rep, nil
}

// describe names a decision in errors.
func describe(d xg.Decision) string {
	if d.Kind == xg.TypeCube {
		return "cube: " + d.Action
	}
	return fmt.Sprintf("roll %d%d, %s", d.Dice[0], d.Dice[1], d.Move)
}

func (rep *Report) skip(d xg.Decision, reason string) {
	rep.NotCovered = append(rep.NotCovered, Skipped{Game: d.Game, Player: d.Player, Position: d.PositionID, Cube: d.Kind == xg.TypeCube, Reason: reason})
	rep.Reasons[reason]++
}

// reviewer holds what a review keeps from decision to decision.
type reviewer struct {
	g     *bearoff.Game
	o     *oracle.Oracle
	opts  *Options
	rep   *Report
	evals map[int]*gameEval // by game number, in a match
}

// gameEval is a game's match evaluation, or why there is none.
type gameEval struct {
	eval   *bearoff.MatchEval
	reason string
}

// prepareMatch solves, for every game of the match, the match winning
// chances of the bearoff positions its decisions reach, at its score: one
// evaluation a game, from the boards of its decisions.
func (r *reviewer) prepareMatch(ds []xg.Decision) {
	type gameBoards struct {
		score  bearoff.Score
		boards [2][]int
		cubes  []bearoff.MatchCube
	}
	games := map[int]*gameBoards{}
	for _, d := range ds {
		i, j, err := r.g.FromBoard(d.Board)
		if err != nil || r.g.Board(i).Checkers() == 15 || r.g.Board(j).Checkers() == 15 {
			continue
		}
		gb := games[d.Game]
		if gb == nil {
			m := d.Match
			gb = &gameBoards{score: bearoff.Score{Length: m.MatchLength, Away: [2]int{m.MatchLength - m.Score[0], m.MatchLength - m.Score[1]}, Crawford: m.Crawford}}
			games[d.Game] = gb
		}
		p := d.Player - 1
		gb.boards[p] = append(gb.boards[p], i)
		gb.boards[1-p] = append(gb.boards[1-p], j)
		gb.cubes = append(gb.cubes, bearoff.MatchCube{Value: d.Match.Cube, Owner: d.Match.CubeOwner})
	}
	for n, gb := range games {
		e, err := r.g.NewMatchEval(context.Background(), bearoff.MatchOptions{Table: r.opts.Table, Score: gb.score,
			Boards: gb.boards, Cubes: gb.cubes, MaxMemory: r.opts.MaxMemory})
		switch {
		case err == nil:
			r.evals[n] = &gameEval{eval: e}
		case errors.Is(err, bearoff.ErrTooLarge):
			r.evals[n] = &gameEval{reason: ReasonTooLarge}
		default:
			r.evals[n] = &gameEval{reason: ReasonScore}
		}
	}
}

// matchEval returns the match evaluation of d's game, or the reason there
// is none ("" in a money session).
func (r *reviewer) matchEval(d xg.Decision) (*bearoff.MatchEval, string) {
	if r.rep.Money {
		return nil, ""
	}
	if r.opts.Table == nil {
		return nil, ReasonNoTable
	}
	ge := r.evals[d.Game]
	if ge == nil {
		return nil, ReasonScore
	}
	return ge.eval, ge.reason
}

// cubeState is the cube of d seen from the player on roll.
func cubeState(d xg.Decision) bearoff.CubeState {
	switch d.Match.CubeOwner {
	case -1:
		return bearoff.Centered
	case d.Player - 1:
		return bearoff.Owned
	}
	return bearoff.OpponentOwns
}

// cube reviews the cube decision d of mover i against opponent j.
func (r *reviewer) cube(d xg.Decision, i, j int) error {
	p := d.Player - 1
	cd := CubeDecision{Game: d.Game, Player: d.Player, Position: d.PositionID, Cube: d.Match.Cube, CubeState: cubeState(d).String(), Action: d.Action}
	if cd.Action == "double/beaver" {
		cd.Action = "double/take"
	}
	var dec bearoff.CubeDecision
	e, reason := r.matchEval(d)
	switch {
	case reason != "":
		r.rep.skip(d, reason)
		return nil
	case e != nil:
		var err error
		if dec, err = e.Decision(p, i, j, bearoff.MatchCube{Value: d.Match.Cube, Owner: d.Match.CubeOwner}); err != nil {
			return err
		}
		s := e.Score()
		cd.Measure, cd.Score, cd.Crawford = MWC, [2]int{s.Away[p], s.Away[1-p]}, s.Crawford
	case r.g.Cube() != bearoff.CubeMoney:
		r.rep.skip(d, ReasonNoPlanes)
		return nil
	default:
		t, pos := r.g.Position(i, j)
		planes, err := r.o.Planes(t, pos)
		if err != nil {
			return err
		}
		if dec, err = bearoff.MoneyDecision(planes, cubeState(d)); err != nil {
			return err
		}
		cd.Measure = Cubeful
	}
	doubled := cd.Action != "no double"
	if dec.Action == bearoff.NoCube {
		if doubled {
			r.rep.skip(d, ReasonDeadCube)
			return nil
		}
		dec.Action = bearoff.NoDouble
	}
	cd.Right, cd.NoDouble, cd.DoubleTake, cd.DoublePass = dec.Action.String(), dec.NoDouble, dec.DoubleTake, dec.DoublePass
	chosen := dec.NoDouble
	if doubled {
		chosen = dec.Double()
	}
	cd.Lost = max(0, dec.Optimal-chosen)
	if doubled {
		if cd.Action == "double/take" {
			cd.TakeLost = max(0, dec.DoubleTake-dec.DoublePass)
		} else {
			cd.TakeLost = max(0, dec.DoublePass-dec.DoubleTake)
		}
	}
	r.rep.CubeDecisions = append(r.rep.CubeDecisions, cd)
	r.rep.Totals[p].addCube(cd.Lost, cd.Measure)
	if doubled {
		r.rep.Totals[1-p].addCube(cd.TakeLost, cd.Measure)
	}
	return nil
}

// addCube counts a cube decision that lost lost.
func (t *Total) addCube(lost float64, measure string) {
	t.CubeDecisions++
	if lost > 0 {
		t.CubeErrors++
	}
	if measure == MWC {
		t.CubeLostMWC += lost
	} else {
		t.CubeLost += lost
	}
}

// play reviews the checker play d of mover i against opponent j.
func (r *reviewer) play(d xg.Decision, i, j int) error {
	g := r.g
	k, err := bearoff.Roll(d.Dice[0], d.Dice[1])
	if err != nil {
		return err
	}
	after, err := PlayedIndex(g, d)
	if err != nil {
		return err
	}
	rd := Decision{Game: d.Game, Player: d.Player, Position: d.PositionID, Roll: g.Outcomes()[k].Name, Played: d.Move}
	value, err := r.playMeasure(d, i, j, &rd)
	if err != nil {
		return err
	}
	found, first := false, true
	for _, pl := range g.Plays(i, k) {
		v, err := value(pl.To)
		if err != nil {
			return err
		}
		if first || v > rd.BestEquity {
			rd.Best, rd.BestEquity, first = pl.Name, v, false
		}
		if pl.To == after {
			rd.Equity, found = v, true
		}
	}
	if !found {
		return ErrIllegal
	}
	rd.Lost = max(0, rd.BestEquity-rd.Equity)
	r.rep.Decisions = append(r.rep.Decisions, rd)
	tot := &r.rep.Totals[d.Player-1]
	tot.Decisions++
	if rd.Measure == MWC {
		tot.LostMWC += rd.Lost
	} else {
		tot.Lost += rd.Lost
	}
	if rd.Lost > 0 {
		tot.Errors++
	}
	return nil
}

// playMeasure returns how a play of mover i against j is judged: the
// value to the mover of leaving board to, in the measure it sets in rd.
func (r *reviewer) playMeasure(d xg.Decision, i, j int, rd *Decision) (func(to int) (float64, error), error) {
	g, p := r.g, d.Player-1
	if e, reason := r.matchEval(d); e != nil {
		rd.Measure = MWC
		c := bearoff.MatchCube{Value: d.Match.Cube, Owner: d.Match.CubeOwner}
		return func(to int) (float64, error) { return e.AfterPlay(p, i, to, j, c) }, nil
	} else if reason == "" && g.Cube() == bearoff.CubeMoney { // money, with planes
		rd.Measure = Cubeful
		child := cubeState(d).Flip()
		return func(to int) (float64, error) {
			t, pos := g.Position(j, to)
			planes, err := r.o.Planes(t, pos)
			if err != nil {
				return 0, err
			}
			v, err := bearoff.MoneyAfter(planes, child)
			return -v, err
		}, nil
	}
	rd.Measure = Cubeless
	return func(to int) (float64, error) {
		t, pos := g.Position(j, to)
		w, err := r.o.Win(t, pos)
		return (tiergame.ProbOne - w).Equity(), err
	}, nil
}

// PlayedIndex returns the mover's one-sided index after the play d made,
// checking that it is a legal play of the roll.
func PlayedIndex(g *bearoff.Game, d xg.Decision) (int, error) {
	before, _, err := g.FromBoard(d.Board)
	if err != nil {
		return 0, err
	}
	pos, err := d.Position.Apply(d.Steps)
	if err != nil {
		return 0, err
	}
	b, err := xg.Board(pos)
	if err != nil {
		return 0, err
	}
	after, _, err := g.FromBoard(b)
	if err != nil {
		return 0, err
	}
	k, err := bearoff.Roll(d.Dice[0], d.Dice[1])
	if err != nil {
		return 0, err
	}
	plays := g.Plays(before, k)
	if n := sort.Search(len(plays), func(n int) bool { return plays[n].To >= after }); n == len(plays) || plays[n].To != after {
		return 0, ErrIllegal
	}
	return after, nil
}
