// Package review reviews the bearoff decisions of a backgammon match
// against an exact bearoff database: for every checker play made in a
// bearoff (both sides, every game), the roll, the play made, the best
// play, and the equity the play lost, with a total per player. Decisions
// the database does not cover are counted with the reason, not guessed.
//
// Matches come from eXtreme Gammon files (package xg); the database is a
// solved run of the bearoff game (package bearoff), queried through a
// solver.Oracle. Equities are cubeless, for the player making the play.
package review

import (
	"errors"
	"fmt"
	"sort"

	"github.com/tiersolve/tiersolve/gamecodecs/xg"
	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/solver"
)

// Decision is one reviewed bearoff play.
type Decision struct {
	Game       int     `json:"game"`     // game number in the match, from 1
	Player     int     `json:"player"`   // XG's player: 1 or 2
	Position   string  `json:"position"` // gnubg Position ID before the play, the player on roll
	Roll       string  `json:"roll"`     // "21"
	Played     string  `json:"played"`   // the play made, in gnubg's notation
	Best       string  `json:"best"`     // a best play
	Equity     float64 `json:"equity"`   // after the play made
	BestEquity float64 `json:"best_equity"`
	Lost       float64 `json:"lost"` // BestEquity - Equity, >= 0
}

// Skipped is a bearoff decision the database does not cover.
type Skipped struct {
	Game     int    `json:"game"`
	Player   int    `json:"player"`
	Position string `json:"position"`
	Reason   string `json:"reason"`
}

// Total sums one player's reviewed decisions.
type Total struct {
	Player    int     `json:"player"`
	Name      string  `json:"name"`
	Decisions int     `json:"decisions"`
	Errors    int     `json:"errors"` // plays that lost equity
	Lost      float64 `json:"lost"`   // equity lost in all
}

// Report is the review of a match.
type Report struct {
	Decisions  []Decision     `json:"decisions"`
	Totals     [2]Total       `json:"totals"`
	NotCovered []Skipped      `json:"not_covered"`
	Reasons    map[string]int `json:"not_covered_by_reason"`
	// Other counts the decisions that are not bearoff plays (contact
	// positions, cube decisions).
	Other int `json:"other_decisions"`
}

// Reasons a bearoff decision is not covered.
const (
	ReasonVariant     = "outside the database's variant"
	ReasonUnreachable = "not reached by the database's run"
)

// ErrIllegal marks a played move that is not among the legal plays of its
// roll: a corrupt file, or a bug in the move generator.
var ErrIllegal = errors.New("the play made is not among the legal plays")

// Match reviews the bearoff plays of f with the database o of game g.
func Match(f *xg.File, g *bearoff.Game, o *solver.Oracle) (*Report, error) {
	ds, err := f.Decisions()
	if err != nil {
		return nil, err
	}
	rep := &Report{Reasons: map[string]int{}}
	if h := f.MatchHeader(); h != nil {
		for n := range rep.Totals {
			rep.Totals[n] = Total{Player: n + 1, Name: h.PlayerName(n + 1)}
		}
	}
	for _, d := range ds {
		if d.Kind != xg.TypeMove {
			rep.Other++
			continue
		}
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
		}
		rd, err := decide(g, o, d, i, j)
		switch {
		case errors.Is(err, solver.ErrUnreachable):
			rep.skip(d, ReasonUnreachable)
			continue
		case err != nil:
			return nil, fmt.Errorf("game %d, record %d (%s, roll %d%d, %s): %w", d.Game, d.Record, d.PositionID, d.Dice[0], d.Dice[1], d.Move, err)
		}
		rep.Decisions = append(rep.Decisions, rd)
		tot := &rep.Totals[d.Player-1]
		tot.Decisions++
		tot.Lost += rd.Lost
		if rd.Lost > 0 {
			tot.Errors++
		}
	}
	return rep, nil
}

func (rep *Report) skip(d xg.Decision, reason string) {
	rep.NotCovered = append(rep.NotCovered, Skipped{Game: d.Game, Player: d.Player, Position: d.PositionID, Reason: reason})
	rep.Reasons[reason]++
}

// decide reviews one play of mover i against opponent j.
func decide(g *bearoff.Game, o *solver.Oracle, d xg.Decision, i, j int) (Decision, error) {
	k, err := bearoff.Roll(d.Dice[0], d.Dice[1])
	if err != nil {
		return Decision{}, err
	}
	after, err := PlayedIndex(g, d)
	if err != nil {
		return Decision{}, err
	}
	t, p := g.Position(i, j)
	plays, err := o.Plays(t, p, k)
	if err != nil {
		return Decision{}, err
	}
	ct, cp := g.Position(j, after)
	rd := Decision{Game: d.Game, Player: d.Player, Position: d.PositionID, Roll: g.Outcomes()[k].Name, Played: d.Move}
	found := false
	for n, pl := range plays {
		eq := pl.Win().Equity()
		if n == 0 {
			rd.Best, rd.BestEquity = pl.Name, eq
		}
		if pl.Tier == ct && pl.Pos == cp {
			rd.Equity, found = eq, true
		}
	}
	if !found {
		return Decision{}, ErrIllegal
	}
	rd.Lost = max(0, rd.BestEquity-rd.Equity)
	return rd, nil
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
