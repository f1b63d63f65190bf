package query

import (
	"bytes"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// TestResultRuleJSON: the rule that decided a value is written as
// encoding/json writes it, and left out when there is none.
func TestResultRuleJSON(t *testing.T) {
	for _, r := range []*Result{
		{Position: "p", TierName: "KRvKN", Value: "win", Remoteness: 4097, Moves: []Move{},
			Rule: &tiergame.RuleInfo{Rule: "perpetual check", Round: 1, Plies: 1}},
		{Position: "p", TierName: "KRvKN", Value: "lose", Remoteness: 4096, Moves: []Move{},
			Rule: &tiergame.RuleInfo{Rule: "<&\u2028>", Round: -2, Plies: 0}},
		{Position: "p", TierName: "KRvKN", Value: "draw", Moves: []Move{}},
	} {
		got, want := r.AppendJSON(nil), encodeStd(t, r)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
		}
		if (r.Rule != nil) != bytes.Contains(got, []byte(`"rule":`)) {
			t.Errorf("rule %v, JSON %s", r.Rule, got)
		}
	}
}
