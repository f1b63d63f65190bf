package query

import (
	"fmt"
	"io"

	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Move is one move of a position, from both views, each named: the
// mover's (the result of making the move, as the position's own value and
// remoteness read: the best move's are the position's) and the child's
// (the position it leads to, for the player to move there, as the text
// form's "(win in 3 to move there)").
type Move struct {
	Move            string `json:"move"`
	Position        string `json:"position"`
	MoverValue      string `json:"mover_value"`
	MoverRemoteness int    `json:"mover_remoteness"` // counted from the position before the move, the move included
	ChildValue      string `json:"child_value"`
	ChildRemoteness int    `json:"child_remoteness"`
	// Deprecated, kept for one release: value is mover_value, remoteness
	// is child_remoteness (two views in one object).
	Value      string `json:"value"`
	Remoteness int    `json:"remoteness"`
}

// Result is the answer to a position of a game without chance.
type Result struct {
	Position string `json:"position"`
	// Canonical is the form a symmetric run looked the position up by,
	// when it differs.
	Canonical  string `json:"canonical,omitempty"`
	Tier       uint64 `json:"tier"`
	TierName   string `json:"tier_name"`
	Value      string `json:"value"`
	Remoteness int    `json:"remoteness"`
	Moves      []Move `json:"moves"` // best first
}

// Plain answers position (t, p) of run o, a game without chance: its
// value and remoteness and every move's, best first.
func Plain(o *solver.Oracle, t tiergame.Tier, p tiergame.Position) (*Result, error) {
	g := o.Game
	rec, err := o.Lookup(t, p)
	if err != nil {
		return nil, lookupErr(err, "position %q (tier %s, hash %d) is not reachable from the start, so it was not solved", g.Format(t, p), g.TierName(t), p)
	}
	moves, err := o.Moves(t, p)
	if err != nil {
		return nil, err
	}
	res := &Result{Position: g.Format(t, p), Tier: uint64(t), TierName: g.TierName(t), Value: rec.Value().String(), Remoteness: rec.Remoteness(), Moves: make([]Move, 0, len(moves))}
	if c := o.Canonical(t, p); c != p {
		res.Canonical = g.Format(t, c)
	}
	for _, m := range moves {
		res.Moves = append(res.Moves, Move{Move: m.Name, Position: g.Format(m.Tier, m.Pos),
			MoverValue: m.Outcome().String(), MoverRemoteness: m.Remoteness(),
			ChildValue: m.Child.Value().String(), ChildRemoteness: m.Child.Remoteness(),
			Value: m.Outcome().String(), Remoteness: m.Child.Remoteness()})
	}
	return res, nil
}

// WriteText writes the answer as tierd query prints it.
func (r *Result) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s (tier %s): %s\n", r.Position, r.TierName, Describe(r.Value, r.Remoteness)); err != nil {
		return err
	}
	if r.Canonical != "" {
		fmt.Fprintf(w, "  (a symmetric run: looked up as its canonical form %s)\n", r.Canonical)
	}
	for _, m := range r.Moves {
		fmt.Fprintf(w, "  %-8s %-6s -> %s (%s to move there)\n", m.Move, m.MoverValue, m.Position, Describe(m.ChildValue, m.ChildRemoteness))
	}
	return nil
}

// Describe says a value and remoteness as the text answers do: "draw",
// "lose (game over)", "win in 3".
func Describe(value string, remoteness int) string {
	switch {
	case value == tiergame.Draw.String():
		return "draw"
	case remoteness == 0:
		return value + " (game over)"
	}
	return fmt.Sprintf("%s in %d", value, remoteness)
}
