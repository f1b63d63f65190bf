package query

import (
	"bytes"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// TestResultRuleJSON: the rule that decided a value, the position's and
// a move's child's, is written as encoding/json writes it, and left out
// when there is none.
func TestResultRuleJSON(t *testing.T) {
	for _, r := range []*Result{
		{Position: "p", TierName: "KRvKN", Value: "win", Remoteness: 4097, Moves: []Move{},
			Rule: &tiergame.RuleInfo{Rule: "perpetual check", Round: 1, Plies: 1}},
		{Position: "p", TierName: "KRvKN", Value: "lose", Remoteness: 4096, Moves: []Move{},
			Rule: &tiergame.RuleInfo{Rule: "<&\u2028>", Round: -2, Plies: 0}},
		{Position: "p", TierName: "KRvKN", Value: "draw", Moves: []Move{}},
		{Position: "p", TierName: "KRvKN", Value: "win", Remoteness: 3, Moves: []Move{
			{Move: "a0a5", MoverValue: "win", MoverRemoteness: 1, ChildValue: "lose", ChildRemoteness: 0, Value: "win",
				ChildRule: &tiergame.RuleInfo{Rule: "perpetual chase", Round: 2, Plies: 0}},
			{Move: "a0e0", MoverValue: "win", MoverRemoteness: 3, ChildValue: "lose", ChildRemoteness: 2, Value: "win", Remoteness: 2},
			{Move: "a0a1", ChildRule: &tiergame.RuleInfo{Rule: "\xff\"<\u2029", Round: 16, Plies: 255}},
		}},
	} {
		got, want := r.AppendJSON(nil), encodeStd(t, r)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
		}
		if (r.Rule != nil) != bytes.Contains(got, []byte(`,"rule":`)) {
			t.Errorf("rule %v, JSON %s", r.Rule, got)
		}
		childRules := 0
		for _, m := range r.Moves {
			if m.ChildRule != nil {
				childRules++
			}
		}
		if n := bytes.Count(got, []byte(`,"child_rule":{"rule":`)); n != childRules {
			t.Errorf("%d child rules, %d in JSON %s", childRules, n, got)
		}
	}
}
