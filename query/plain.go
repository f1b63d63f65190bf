package query

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Move is one move of a position, from both views, each named: the
// mover's (the result of making the move, as the position's own value and
// remoteness read: the best move's are the position's) and the child's
// (the position it leads to, for the player to move there, as the text
// form's "(win in 3 to move there)").
//
// When the rules of play decided the child (ChildRule set), the
// remoteness fields count plies within that decision, as the position's
// own Remoteness does with Rule: child_remoteness is ChildRule.Plies,
// mover_remoteness one more. The stored remoteness (4096 and up in
// xiangqi) encodes round and plies and is never shown as a count.
type Move struct {
	Move            string `json:"move"`
	Position        string `json:"position"`
	MoverValue      string `json:"mover_value"`
	MoverRemoteness int    `json:"mover_remoteness"` // counted from the position before the move, the move included
	ChildValue      string `json:"child_value"`
	ChildRemoteness int    `json:"child_remoteness"`
	// ChildRule says which rule of play decided the child's value, as
	// Result.Rule does for the position; nil (and left out of the JSON)
	// for a child the rules did not decide.
	ChildRule *tiergame.RuleInfo `json:"child_rule,omitempty"`
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
	Canonical string `json:"canonical,omitempty"`
	Tier      uint64 `json:"tier"`
	TierName  string `json:"tier_name"`
	Value     string `json:"value"`
	// Remoteness is the plies to the end of the game; for a value the
	// rules decided (Rule set), the plies to the position where the side
	// that broke the rule is declared lost (Rule.Plies).
	Remoteness int `json:"remoteness"`
	// Rule says which rule of play decided the value (xiangqi's perpetual
	// check or chase), for a game whose rules decide some (a run with
	// them on); nil otherwise.
	Rule  *tiergame.RuleInfo `json:"rule,omitempty"`
	Moves []Move             `json:"moves"` // best first
}

// Plain answers position (t, p) of run o, a game without chance: its
// value and remoteness and every move's, best first.
func Plain(o *oracle.Oracle, t tiergame.Tier, p tiergame.Position) (*Result, error) {
	res := new(Result)
	if err := PlainInto(res, o, t, p); err != nil {
		return nil, err
	}
	return res, nil
}

// PlainInto is Plain answering into res, whose room for moves it reuses
// (every other field is set anew): a server that keeps its Results makes
// less garbage an answer.
func PlainInto(res *Result, o *oracle.Oracle, t tiergame.Tier, p tiergame.Position) error {
	g := o.Game
	rec, err := o.Lookup(t, p)
	if err != nil {
		return lookupErr(err, "position %q (tier %s, hash %d) is not reachable from the start, so it was not solved", g.Format(t, p), g.TierName(t), p)
	}
	mb := moveBufs.Get().(*[]oracle.Move)
	defer moveBufs.Put(mb)
	moves, err := o.AppendMoves((*mb)[:0], t, p)
	*mb = moves
	if err != nil {
		return err
	}
	*res = Result{Position: g.Format(t, p), Tier: uint64(t), TierName: g.TierName(t), Value: rec.Value().String(), Remoteness: rec.Remoteness(), Moves: res.Moves[:0]}
	if res.Moves == nil {
		res.Moves = make([]Move, 0, len(moves)) // "moves": [] for a primitive position, not null
	}
	if c := o.Canonical(t, p); c != p {
		res.Canonical = g.Format(t, c)
	}
	if res.Rule = RuleOf(o, t, p, rec.Value(), rec.Remoteness()); res.Rule != nil {
		res.Remoteness = res.Rule.Plies
	}
	for _, m := range moves {
		mv := Move{Move: m.Name, Position: g.Format(m.Tier, m.Pos),
			MoverValue: m.Outcome().String(), MoverRemoteness: m.Remoteness(),
			ChildValue: m.Child.Value().String(), ChildRemoteness: m.Child.Remoteness(),
			Value: m.Outcome().String(), Remoteness: m.Child.Remoteness()}
		if mv.ChildRule = RuleOf(o, m.Tier, m.Pos, m.Child.Value(), m.Child.Remoteness()); mv.ChildRule != nil {
			// A rule decision is a win or a loss, so the mover's view is
			// one ply more, as for any decided child.
			mv.ChildRemoteness, mv.Remoteness = mv.ChildRule.Plies, mv.ChildRule.Plies
			mv.MoverRemoteness = mv.ChildRule.Plies + 1
		}
		res.Moves = append(res.Moves, mv)
	}
	return nil
}

// moveBufs are PlainInto's rooms for the oracle's moves.
var moveBufs = sync.Pool{New: func() any { return new([]oracle.Move) }}

// WriteText writes the answer as tierd query prints it.
func (r *Result) WriteText(w io.Writer) error {
	desc := Describe(r.Value, r.Remoteness)
	if r.Rule != nil {
		desc = DescribeRule(r.Value, r.Rule.Round, r.Rule.Plies)
	}
	if _, err := fmt.Fprintf(w, "%s (tier %s): %s\n", r.Position, r.TierName, desc); err != nil {
		return err
	}
	if r.Canonical != "" {
		fmt.Fprintf(w, "  (a symmetric run: looked up as its canonical form %s)\n", r.Canonical)
	}
	if r.Rule != nil {
		fmt.Fprintf(w, "  decided by the rules: %s (round %d, %d plies to the position where the side that broke the rule is declared lost)\n", r.Rule.Rule, r.Rule.Round, r.Rule.Plies)
	}
	for _, m := range r.Moves {
		desc := Describe(m.ChildValue, m.ChildRemoteness)
		if m.ChildRule != nil {
			desc = DescribeRule(m.ChildValue, m.ChildRule.Round, m.ChildRule.Plies)
		}
		fmt.Fprintf(w, "  %-8s %-6s -> %s (%s to move there)\n", m.Move, m.MoverValue, m.Position, desc)
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

// DescribeRule says a value the rules of play decided as the text
// answers do: "win by the rules (round 1, 3 plies)", the plies to the
// position where the side that broke a rule is declared lost (a stored
// remoteness encodes both, and means nothing as a count of plies).
func DescribeRule(value string, round, plies int) string {
	return fmt.Sprintf("%s by the rules (round %d, %d plies)", value, round, plies)
}

// AppendJSON appends the answer's JSON form to b, byte for byte what
// encoding/json's Encoder writes for it (its newline included): a server
// answers it without reflection.
func (r *Result) AppendJSON(b []byte) []byte {
	b = appendStringField(b, `{"position":`, r.Position)
	if r.Canonical != "" {
		b = appendStringField(b, `,"canonical":`, r.Canonical)
	}
	b = append(b, `,"tier":`...)
	b = strconv.AppendUint(b, r.Tier, 10)
	b = appendStringField(b, `,"tier_name":`, r.TierName)
	b = appendStringField(b, `,"value":`, r.Value)
	b = appendIntField(b, `,"remoteness":`, int64(r.Remoteness))
	if r.Rule != nil {
		b = appendRuleField(b, `,"rule":`, r.Rule)
	}
	b = append(b, `,"moves":`...)
	if r.Moves == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Moves {
			m := &r.Moves[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStringField(b, `{"move":`, m.Move)
			b = appendStringField(b, `,"position":`, m.Position)
			b = appendStringField(b, `,"mover_value":`, m.MoverValue)
			b = appendIntField(b, `,"mover_remoteness":`, int64(m.MoverRemoteness))
			b = appendStringField(b, `,"child_value":`, m.ChildValue)
			b = appendIntField(b, `,"child_remoteness":`, int64(m.ChildRemoteness))
			if m.ChildRule != nil {
				b = appendRuleField(b, `,"child_rule":`, m.ChildRule)
			}
			b = appendStringField(b, `,"value":`, m.Value)
			b = appendIntField(b, `,"remoteness":`, int64(m.Remoteness))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}

// appendStringField appends a member of a JSON object: its key with the
// punctuation before it (`,"value":`), and s as a JSON string.
func appendStringField(b []byte, key, s string) []byte {
	return appendJSONString(append(b, key...), s)
}

// appendIntField appends a member of a JSON object: its key with the
// punctuation before it, and n.
func appendIntField(b []byte, key string, n int64) []byte {
	return strconv.AppendInt(append(b, key...), n, 10)
}

// appendRuleField appends a member of a JSON object: its key with the
// punctuation before it, and the rule as encoding/json writes a
// tiergame.RuleInfo.
func appendRuleField(b []byte, key string, r *tiergame.RuleInfo) []byte {
	b = appendStringField(append(b, key...), `{"rule":`, r.Rule)
	b = appendIntField(b, `,"round":`, int64(r.Round))
	b = appendIntField(b, `,"plies":`, int64(r.Plies))
	return append(b, '}')
}

// appendJSONString appends s as encoding/json writes a string with its
// HTML escaping on (its default): <, > and & as \u003c..., U+2028 and
// U+2029 escaped, invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// RuleOf says which rule of play decided record (v, remoteness) of
// position (t, p) of run o, with its round and plies, for a game that
// reads its rule-decided records back (tiergame.RuleReader): it follows
// the best moves for the record's plies to the position where the
// rule-breaker was declared lost and asks the game which rule that side
// broke ("unknown" when the walk cannot get there). Nil for a record the
// rules did not decide, and for every record of a game without rules.
func RuleOf(o *oracle.Oracle, t tiergame.Tier, p tiergame.Position, v tiergame.Value, remoteness int) *tiergame.RuleInfo {
	rr, ok := o.Game.(tiergame.RuleReader)
	if !ok {
		return nil
	}
	round, plies, ok := rr.RuleRecord(v, remoteness)
	if !ok {
		return nil
	}
	info := &tiergame.RuleInfo{Round: round, Plies: plies, Rule: "unknown"}
	for i := 0; i < plies; i++ {
		moves, err := o.Moves(t, p)
		if err != nil || len(moves) == 0 {
			return info
		}
		t, p = moves[0].Tier, moves[0].Pos
	}
	info.Rule = rr.RuleBroken(t, p)
	return info
}
