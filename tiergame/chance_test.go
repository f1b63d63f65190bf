package tiergame

import "testing"

func TestProb(t *testing.T) {
	if ProbOf(Win) != ProbOne || ProbOf(Lose) != 0 || ProbOf(Tie) != ProbOne/2 {
		t.Errorf("ProbOf: %v %v %v", ProbOf(Win), ProbOf(Lose), ProbOf(Tie))
	}
	if ProbOne.Float() != 1 || ProbOne.Equity() != 1 || Prob(0).Equity() != -1 || (ProbOne/4).Float() != 0.25 {
		t.Error("Float or Equity")
	}
	for _, tc := range []struct {
		acc, total uint64
		want       Prob
	}{
		{0, 36, ProbOne},                              // every roll leaves the opponent nothing
		{36 * uint64(ProbOne), 36, 0},                 // every roll leaves the opponent a sure win
		{18 * uint64(ProbOne), 36, ProbOne / 2},       // half
		{uint64(ProbOne), 3, ProbOne - 715827883},     // 2^31/3 = 715827882.67 rounds up
		{uint64(ProbOne) + 1, 2, ProbOne - 1<<30 - 1}, // (2^31+1)/2 = 2^30+0.5 rounds up
	} {
		if got := ChanceValue(tc.acc, tc.total); got != tc.want {
			t.Errorf("ChanceValue(%d, %d) = %d, want %d", tc.acc, tc.total, got, tc.want)
		}
	}
}
