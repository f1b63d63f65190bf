package review

import (
	"errors"
	"fmt"

	"github.com/tiersolve/tiersolve/gamecodecs/egf"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Outcome is a value and its distance in plies, from one side's view:
// "win" in 7 is mate in 7 plies at best, "lose" in 8 mated in 8 at worst.
type Outcome struct {
	Value      string `json:"value"` // win, lose or draw
	Remoteness int    `json:"remoteness"`
	// Rules is set for an outcome the rules of play decide (a run with
	// xiangqi's rules=chessdb): "round N", Remoteness then the plies to
	// the position where the side that broke a rule is declared lost.
	Rules string `json:"rules,omitempty"`
	// raw is the stored remoteness, which orders outcomes of either
	// kind (a rule win is slower than every mate).
	raw int
}

func (o Outcome) String() string {
	switch {
	case o.Value == "draw":
		return "draw"
	case o.Rules != "":
		return fmt.Sprintf("%s by the rules (%s, %d plies)", o.Value, o.Rules, o.Remoteness)
	}
	return fmt.Sprintf("%s in %d", o.Value, o.Remoteness)
}

// Errors a xiangqi move can make, worst first.
const (
	WinToLoss  = "win thrown to a loss"
	WinToDraw  = "win thrown to a draw"
	DrawToLoss = "draw thrown to a loss"
	SlowerWin  = "plies lost in a won position"
	// MateToRule: a win by mate thrown to a win the rules of play decide
	// (the other side must break a rule to hold).
	MateToRule = "a mate thrown to a win by the rules"
)

// XiangqiMove is one reviewed move of a xiangqi game.
type XiangqiMove struct {
	Ply      int    `json:"ply"`      // 1 for the game's first move
	Side     string `json:"side"`     // red or black, the mover
	Position string `json:"position"` // FEN before the move
	Move     string `json:"move"`     // ICCS
	// Before is the position's outcome for the mover (what the best move
	// keeps), After what the move played leaves the mover.
	Before Outcome `json:"before"`
	After  Outcome `json:"after"`
	Best   string  `json:"best"` // a best move
	// Error is what the move threw away ("" for a best move, or a loss no
	// slower than the best); PliesLost how much longer the win got.
	Error     string `json:"error,omitempty"`
	PliesLost int    `json:"plies_lost,omitempty"`
}

// XiangqiTotal sums one side's reviewed moves.
type XiangqiTotal struct {
	Side       string `json:"side"`
	Moves      int    `json:"moves"`
	Errors     int    `json:"errors"`
	WinToLoss  int    `json:"win_to_loss"`
	WinToDraw  int    `json:"win_to_draw"`
	DrawToLoss int    `json:"draw_to_loss"`
	SlowerWins int    `json:"slower_wins"`
	PliesLost  int    `json:"plies_lost"`
	MateToRule int    `json:"mate_to_rule,omitempty"`
}

// XiangqiReport is the review of a xiangqi game.
type XiangqiReport struct {
	Moves  []XiangqiMove   `json:"moves"`
	Totals [2]XiangqiTotal `json:"totals"` // red, black
	// NotCovered counts the moves played from positions the run does not
	// cover, by reason.
	NotCovered int            `json:"not_covered"`
	Reasons    map[string]int `json:"not_covered_by_reason"`
}

// ErrIllegalMove marks a move of the game that the rules do not list
// from its position.
var ErrIllegalMove = errors.New("the move played is not a legal move")

// Xiangqi reviews every move of game played from a position that o, a
// solved run of game g (the xiangqi game), covers.
func Xiangqi(game *egf.Game, g tiergame.Game, o *oracle.Oracle) (*XiangqiReport, error) {
	positions, err := game.Positions()
	if err != nil {
		return nil, err
	}
	rr, _ := g.(tiergame.RuleReader)
	rep := &XiangqiReport{Reasons: map[string]int{},
		Totals: [2]XiangqiTotal{{Side: egf.Red.String()}, {Side: egf.Black.String()}}}
	for i, m := range game.Moves {
		before := &positions[i]
		fen := before.FEN()
		move := iccs(m.From) + iccs(m.To)
		t, p, err := g.Parse(fen)
		if err != nil {
			rep.skip(fmt.Sprintf("not an endgame of the run: %v", rootCause(err)))
			continue
		}
		rec, err := o.Lookup(t, p)
		if errors.Is(err, oracle.ErrTierNotSolved) || errors.Is(err, oracle.ErrUnreachable) {
			rep.skip(fmt.Sprintf("endgame %s not in the run", g.TierName(t)))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("move %d (%s): %w", i+1, move, err)
		}
		moves, err := o.Moves(t, p)
		if err != nil {
			return nil, fmt.Errorf("move %d (%s): %w", i+1, move, err)
		}
		rm := XiangqiMove{Ply: i + 1, Side: before.ToMove.String(), Position: fen, Move: move, Before: outcome(rr, rec.Value(), rec.Remoteness())}
		found := false
		for k, mv := range moves {
			if k == 0 {
				rm.Best = mv.Name
			}
			if mv.Name == move {
				// counted from before the move
				rm.After, found = outcome(rr, mv.Outcome(), mv.Child.Remoteness()+1), true
			}
		}
		if !found {
			return nil, fmt.Errorf("move %d (%s from %s): %w", i+1, move, fen, ErrIllegalMove)
		}
		rm.judge()
		rep.Moves = append(rep.Moves, rm)
		tot := &rep.Totals[before.ToMove]
		tot.Moves++
		if rm.Error != "" {
			tot.Errors++
		}
		switch rm.Error {
		case WinToLoss:
			tot.WinToLoss++
		case WinToDraw:
			tot.WinToDraw++
		case DrawToLoss:
			tot.DrawToLoss++
		case SlowerWin:
			tot.SlowerWins++
			tot.PliesLost += rm.PliesLost
		case MateToRule:
			tot.MateToRule++
		}
	}
	return rep, nil
}

// judge names what the move threw away.
func (m *XiangqiMove) judge() {
	switch b, a := m.Before.Value, m.After.Value; {
	case b == "win" && a == "lose":
		m.Error = WinToLoss
	case b == "win" && a == "draw":
		m.Error = WinToDraw
	case b == "draw" && a == "lose":
		m.Error = DrawToLoss
	case b == "win" && m.Before.Rules == "" && m.After.Rules != "":
		m.Error = MateToRule
	case b == "win" && m.After.raw > m.Before.raw:
		m.Error, m.PliesLost = SlowerWin, m.After.raw-m.Before.raw
	}
}

func (rep *XiangqiReport) skip(reason string) {
	rep.NotCovered++
	rep.Reasons[reason]++
}

// outcome is value v (already from the mover's view) with its stored
// remoteness r, read through the game's rules when it has them (rr).
func outcome(rr tiergame.RuleReader, v tiergame.Value, r int) Outcome {
	if v == tiergame.Draw {
		return Outcome{Value: "draw"}
	}
	o := Outcome{Value: v.String(), Remoteness: r, raw: r}
	if rr != nil {
		if round, plies, ok := rr.RuleRecord(v, r); ok {
			o.Rules, o.Remoteness = fmt.Sprintf("round %d", round), plies
		}
	}
	return o
}

// iccs names an EGF square in ICCS (ranks from 0).
func iccs(s egf.Square) string {
	return string([]byte{byte('a' + s.File()), byte('0' + s.Rank() - 1)})
}

// rootCause is the innermost error's message.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
