package teeko_test

import (
	"fmt"
	"slices"

	"github.com/tiersolve/tiersolve/games/teeko"
)

// A position of the moving phase: O to move can complete the 2x2 square
// b2 c2 b3 c3 by moving its piece on d4 to c3, after which X, to move,
// has lost.
func Example() {
	g := teeko.Game{}
	t, p, err := g.Parse("o:xx.../.oo../.o..x/...o./x....")
	if err != nil {
		panic(err)
	}
	v, children := g.Moves(t, p, nil)
	names := g.MoveNames(t, p)
	fmt.Println(g.TierName(t), v, len(children), "moves:", names[:4], "...")

	i := slices.Index(names, "d4-c3")
	c := children[i]
	cv, _ := g.Moves(c.Tier, c.Pos, nil)
	fmt.Println("d4-c3 ->", g.Format(c.Tier, c.Pos), cv)
	// Output:
	// moving undecided 22 moves: [b2-c1 b2-a2 b2-a3 b2-c3] ...
	// d4-c3 -> x:xx.../.oo../.oo.x/...../x.... lose
}

// The drop phase: tier t holds the positions with t pieces on the board.
func Example_drops() {
	g := teeko.Game{}
	t, p := g.Start()
	fmt.Println(g.TierName(t), g.Format(t, p))
	_, children := g.Moves(t, p, nil)
	c := children[12] // X on the centre point
	fmt.Println(g.MoveNames(t, p)[12], "->", g.TierName(c.Tier), g.Format(c.Tier, c.Pos))
	// Output:
	// x0o0 x:...../...../...../...../.....
	// c3 -> x1o0 o:...../...../..x../...../.....
}
