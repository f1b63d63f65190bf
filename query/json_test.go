package query

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// encodeStd is what encoding/json's Encoder writes for v.
func encodeStd(t testing.TB, v any) []byte {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestResultAppendJSON checks that Result.AppendJSON writes what
// encoding/json writes, for answers of every shape and strings that need
// escaping.
func TestResultAppendJSON(t *testing.T) {
	strs := []string{"", "x:..../..../..../....", `a"b\c`, "<script>&</script>", "tab\there\nnl\r\b\f\x00\x1f\x7f",
		"\u2028\u2029é中😀", "\xff\xfe bad utf8 \xc3", "\xed\xa0\x80"}
	cases := []*Result{
		{Position: "---", TierName: "0", Value: "win", Moves: nil},
		{Position: "---", TierName: "0", Value: "tie", Moves: []Move{}},
		{Position: "p", Canonical: "c", Tier: 1<<64 - 1, TierName: "t", Value: "lose", Remoteness: -3,
			Moves: []Move{{Move: "a1", Position: "q", MoverValue: "win", MoverRemoteness: 3, ChildValue: "lose", ChildRemoteness: 2, Value: "win", Remoteness: 2}}},
	}
	for i, s := range strs {
		cases = append(cases, &Result{Position: s, Canonical: s, Tier: uint64(i), TierName: s, Value: s, Remoteness: i,
			Moves: []Move{{Move: s, Position: s, MoverValue: s, ChildValue: s, Value: s, MoverRemoteness: -i}, {Move: "m"}}})
	}
	for _, r := range cases {
		if got, want := r.AppendJSON(nil), encodeStd(t, r); !bytes.Equal(got, want) {
			t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	}
}

// FuzzResultAppendJSON compares Result.AppendJSON with encoding/json on
// any strings and numbers; an odd n adds rules (the position's and a
// move's child's).
func FuzzResultAppendJSON(f *testing.F) {
	f.Add("x:..../....", "", "win", "a1", -1, uint64(3))
	f.Add("<&>\u2028", "\xff", "\"\\", "\x00\t", 1<<40, uint64(1<<63))
	f.Fuzz(func(t *testing.T, pos, canon, value, move string, n int, tier uint64) {
		r := &Result{Position: pos, Canonical: canon, Tier: tier, TierName: move, Value: value, Remoteness: n,
			Moves: []Move{{Move: move, Position: canon, MoverValue: value, MoverRemoteness: n, ChildValue: pos, ChildRemoteness: -n, Value: value, Remoteness: n}}}
		if n&1 != 0 {
			r.Rule = &tiergame.RuleInfo{Rule: value, Round: n, Plies: -n}
			r.Moves[0].ChildRule = &tiergame.RuleInfo{Rule: move, Round: -n, Plies: n >> 1}
		}
		if got, want := r.AppendJSON(nil), encodeStd(t, r); !bytes.Equal(got, want) {
			t.Errorf("AppendJSON:\n%q\nencoding/json:\n%q", got, want)
		}
	})
}
