package tiergametest_test

import (
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// TestBruteForce solves small graphs whose outcomes are known: a
// subtraction game (take one or two of n stones; who cannot take loses),
// a cycle that nothing decides, a cycle with a way out, a position with
// no moves that is not primitive, and primitive wins and ties.
func TestBruteForce(t *testing.T) {
	// subtract: a loss in 2k at n = 3k, a win in 2k+1 at 3k+1 and 3k+2.
	subtract := func(n int) (tiergame.Value, []int) {
		if n == 0 {
			return tiergame.Lose, nil
		}
		if n == 1 {
			return tiergame.Undecided, []int{0}
		}
		return tiergame.Undecided, []int{n - 1, n - 2}
	}
	got := tiergametest.BruteForce(20, subtract)
	if len(got) != 21 {
		t.Errorf("subtraction game: %d positions, want 21", len(got))
	}
	for n := 0; n <= 20; n++ {
		want := tiergametest.Outcome{Value: tiergame.Win, Remoteness: 2*(n/3) + 1}
		if n%3 == 0 {
			want = tiergametest.Outcome{Value: tiergame.Lose, Remoteness: 2 * (n / 3)}
		}
		if got[n] != want {
			t.Errorf("subtraction game, %d stones: %+v, want %+v", n, got[n], want)
		}
	}

	// A graph by name: each position's moves, or its primitive value.
	graph := map[string][]string{
		"loop": {"pool"}, "pool": {"loop"}, // decided by nothing: draws
		"way": {"out", "loop"}, "out": nil, // out is a primitive loss: way wins in 1
		"stuck":   nil,             // no moves, not primitive: a draw
		"back":    {"way", "loop"}, // a child wins, the other draws: a draw
		"forced":  {"way", "won"},  // every child wins, the slowest in 1: a loss in 2
		"won":     nil,             // a primitive win
		"tie":     nil,             // a primitive tie
		"tied":    {"tie"},         // its only child ties: undecided, so a draw here
		"root":    {"loop", "way", "stuck", "back", "forced", "tied"},
		"unknown": nil,
	}
	primitive := map[string]tiergame.Value{"out": tiergame.Lose, "won": tiergame.Win, "tie": tiergame.Tie}
	moves := func(p string) (tiergame.Value, []string) {
		if v, ok := primitive[p]; ok {
			return v, nil
		}
		return tiergame.Undecided, graph[p]
	}
	want := map[string]tiergametest.Outcome{
		"root":   {tiergame.Win, 3},
		"loop":   {tiergame.Draw, 0},
		"pool":   {tiergame.Draw, 0},
		"way":    {tiergame.Win, 1},
		"out":    {tiergame.Lose, 0},
		"stuck":  {tiergame.Draw, 0},
		"back":   {tiergame.Draw, 0},
		"forced": {tiergame.Lose, 2},
		"won":    {tiergame.Win, 0},
		"tied":   {tiergame.Draw, 0},
		"tie":    {tiergame.Tie, 0},
	}
	got2 := tiergametest.BruteForce("root", moves)
	if len(got2) != len(want) {
		t.Errorf("graph: %d positions %v, want %d (unknown is not reachable)", len(got2), got2, len(want))
	}
	for p, w := range want {
		if got2[p] != w {
			t.Errorf("graph, %s: %+v, want %+v", p, got2[p], w)
		}
	}
}
