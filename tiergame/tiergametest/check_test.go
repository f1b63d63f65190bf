package tiergametest_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tiersolve/tiersolve/games/tictactoe"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// recorder is a testing.TB that records the failures Check reports
// instead of failing the test. Check reports from several goroutines.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any)   { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fail()               { r.Errorf("Fail") }
func (r *recorder) Failed() bool        { r.mu.Lock(); defer r.mu.Unlock(); return len(r.errs) > 0 }
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Helper()             {}

// Fatalf fails the real test: Check must not stop its caller.
func (r *recorder) Fatalf(format string, args ...any) {
	r.TB.Fatalf("Check called Fatalf: "+format, args...)
}

// check runs Check on g and returns the messages it reported.
func check(t *testing.T, g tiergame.Game, opts tiergametest.Options) []string {
	r := &recorder{TB: t}
	tiergametest.Check(r, g, opts)
	return r.errs
}

// rule returns the rule a message of Check names: "game option: rule: ...".
func rule(msg string) string {
	parts := strings.SplitN(msg, ": ", 3)
	if len(parts) < 3 {
		return ""
	}
	return parts[1]
}

// TestCorrectGamesPass checks that Check finds nothing wrong with correct
// games: the toys of toys_test.go and tic-tac-toe.
func TestCorrectGamesPass(t *testing.T) {
	for _, g := range []tiergame.Game{ring{}, dice{2}, dice{6}, tictactoe.Game{}} {
		for _, opts := range []tiergametest.Options{
			{Hashes: 1 << 20},
			{MaxPositions: 3, Samples: 10, Hashes: 10, Seed: 7},
		} {
			if errs := check(t, g, opts); len(errs) > 0 {
				t.Errorf("%s with %+v: %d failures:\n%s", g.Name(), opts, len(errs), strings.Join(errs, "\n"))
			}
		}
	}
}

// patched is tic-tac-toe without its optional interfaces, some of its
// methods replaced.
type patched struct {
	tiergame.Game
	moves      func(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child)
	parse      func(s string) (tiergame.Tier, tiergame.Position, error)
	childTiers func(t tiergame.Tier) []tiergame.Tier
	name       func() string
	start      func() (tiergame.Tier, tiergame.Position)
}

func ttt() *patched { return &patched{Game: tictactoe.Game{}} }

func (g *patched) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if g.moves != nil {
		return g.moves(t, p, dst)
	}
	return g.Game.Moves(t, p, dst)
}

func (g *patched) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	if g.parse != nil {
		return g.parse(s)
	}
	return g.Game.Parse(s)
}

func (g *patched) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	if g.childTiers != nil {
		return g.childTiers(t)
	}
	return g.Game.ChildTiers(t)
}

func (g *patched) Name() string {
	if g.name != nil {
		return g.name()
	}
	return g.Game.Name()
}

func (g *patched) Start() (tiergame.Tier, tiergame.Position) {
	if g.start != nil {
		return g.start()
	}
	return g.Game.Start()
}

// named is patched tic-tac-toe with move names.
type named struct {
	*patched
	names func(t tiergame.Tier, p tiergame.Position) []string
}

func (g named) MoveNames(t tiergame.Tier, p tiergame.Position) []string { return g.names(t, p) }

// pos returns the tier and hash of a tic-tac-toe position.
func pos(s string) (tiergame.Tier, tiergame.Position) {
	t, p, err := tictactoe.Game{}.Parse(s)
	if err != nil {
		panic(err)
	}
	return t, p
}

// movesAt replaces tic-tac-toe's Moves at position s by f.
func movesAt(s string, f func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child)) *patched {
	g := ttt()
	bt, bp := pos(s)
	g.moves = func(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
		n := len(dst)
		v, dst := tictactoe.Game{}.Moves(t, p, dst)
		if t == bt && p == bp {
			return f(v, dst, n)
		}
		return v, dst
	}
	return g
}

// Variants of ring and dice that break one rule each.

// ringCursors gives ring a cursor made by f.
type ringCursors struct {
	ring
	cursor func(t tiergame.Tier) tiergame.Cursor
}

func (g ringCursors) Cursor(t tiergame.Tier) tiergame.Cursor { return g.cursor(t) }

// dropLast drops the last move of position 5 of tier 1.
type dropLast struct{ ringCursor }

func (c *dropLast) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	v, dst := c.ringCursor.Moves(p, dst)
	if c.t == 1 && p == 5 {
		dst = dst[:len(dst)-1]
	}
	return v, dst
}

// stale repeats the moves of the last position when asked for an earlier
// one: only a cursor visiting in random order shows it.
type stale struct {
	ringCursor
	last tiergame.Position
	kids []tiergame.Child
	v    tiergame.Value
}

func (c *stale) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if c.kids == nil || p > c.last {
		c.last = p
		c.v, c.kids = c.ringCursor.Moves(p, nil)
	}
	return c.v, append(dst, c.kids...)
}

// oneList puts every child of tier 0's positions in the first list.
type oneList struct{ ringCursor }

func (c *oneList) MovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	if c.t != 0 {
		return c.ringCursor.MovesByTier(p, dst)
	}
	v, cs := c.g.Moves(c.t, p, nil)
	for _, ch := range cs {
		if dst[0] != nil {
			dst[0] = append(dst[0], ch.Pos)
		}
	}
	return v
}

// fillsNil fills the lists it was not asked for, at position 2 of tier 1.
type fillsNil struct{ ringCursor }

func (c *fillsNil) MovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	if c.t != 1 || p != 2 {
		return c.ringCursor.MovesByTier(p, dst)
	}
	v, cs := c.g.Moves(c.t, p, nil)
	for _, ch := range cs {
		i := slices.Index(c.g.ChildTiers(c.t), ch.Tier)
		dst[i] = append(dst[i], ch.Pos)
	}
	return v
}

// miscount counts one child too many in tier 1's own list at position 3.
type miscount struct{ ringCursor }

func (c *miscount) CountInTier(p tiergame.Position, i int) int {
	lists := make([][]tiergame.Position, len(c.g.ChildTiers(c.t)))
	lists[i] = []tiergame.Position{}
	c.ringCursor.MovesByTier(p, lists)
	n := len(slices.Compact(slices.Sorted(slices.Values(lists[i]))))
	if c.t == 1 && p == 3 && c.g.ChildTiers(c.t)[i] == c.t {
		n++
	}
	return n
}

// notCanonical gives a child that is not canonical at position 5 of tier 2.
type notCanonical struct{ ringCursor }

func (c *notCanonical) CanonicalMoves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if c.t == 2 && p == 5 {
		return c.ringCursor.Moves(p, dst)
	}
	return c.ringCursor.CanonicalMoves(p, dst)
}

type ringImagesReversed struct{ ring }

func (ringImagesReversed) Images(t tiergame.Tier, p tiergame.Position, dst []tiergame.Position) []tiergame.Position {
	return append(dst, mirror(p), p)
}

// shift, half the ring round, is no symmetry: it maps the primitive
// position 0 onto 4, which is not.
func shift(p tiergame.Position) tiergame.Position { return (p + ringSize/2) % ringSize }

// swap12 swaps positions 1 and 2, which is no symmetry either: it keeps
// primitive values (neither is primitive) but not moves (1 moves to 0, 2
// does not).
func swap12(p tiergame.Position) tiergame.Position {
	switch p {
	case 1:
		return 2
	case 2:
		return 1
	}
	return p
}

type ringCanonicalParentsTwice struct{ ring }

func (g ringCanonicalParentsTwice) CanonicalParents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	n := len(dst)
	dst = g.ring.CanonicalParents(t, p, pt, dst)
	if t == 1 && p == 6 && pt == 0 {
		dst = append(dst, dst[n:]...)
	}
	return dst
}

// diceMissing gives no moves for the last outcome at distance 4.
type diceMissing struct{ dice }

func (g diceMissing) ChanceMoves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child, ends []int) (tiergame.Value, []tiergame.Child, []int) {
	v, dst, ends := g.dice.ChanceMoves(t, p, dst, ends)
	if t == 4 {
		dst, ends = dst[:ends[len(ends)-2]], ends[:len(ends)-1]
	}
	return v, dst, ends
}

type diceZeroWeight struct{ dice }

func (g diceZeroWeight) Outcomes() []tiergame.Outcome {
	out := g.dice.Outcomes()
	out[1].Weight = 0
	return out
}

// diceKernelOff is wrong by one at distance 3.
type diceKernelOff struct{ dice }

func (g diceKernelOff) SolveChance(t tiergame.Tier, lo, hi tiergame.Position, vals func(tiergame.Tier) []tiergame.Prob, out []tiergame.Prob) error {
	err := g.dice.SolveChance(t, lo, hi, vals, out)
	if t == 3 {
		out[0]++
	}
	return err
}

// diceMovesShort lists one move fewer in Moves than in ChanceMoves at
// distance 5.
type diceMovesShort struct{ dice }

func (g diceMovesShort) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	v, dst := g.dice.Moves(t, p, dst)
	if t == 5 {
		dst = slices.DeleteFunc(dst, func(c tiergame.Child) bool { return c.Tier == 5-2 })
	}
	return v, dst
}

// diceTwoHashes has a second hash per tier without a text form of its
// own, which an exhaustive game cannot have.
type diceTwoHashes struct{ dice }

func (g diceTwoHashes) TierSize(t tiergame.Tier) uint64 { return 2 * g.dice.TierSize(t) }

// diceLoopy declares its tiers loopy, which a chance game cannot be.
type diceLoopy struct{ dice }

func (g diceLoopy) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	return append(g.dice.ChildTiers(t), t)
}

// diceNamesShort names one play too few at distance 6.
type diceNamesShort struct{ dice }

func (g diceNamesShort) ChanceMoveNames(t tiergame.Tier, p tiergame.Position, k int) []string {
	names := g.dice.ChanceMoveNames(t, p, k)
	if t == 6 && k == 1 {
		names = names[1:]
	}
	return names
}

// TestBrokenGames checks that Check reports a game that breaks one rule,
// with that rule alone, naming the position.
func TestBrokenGames(t *testing.T) {
	var calls atomic.Int64
	// Every position of the toys; tic-tac-toe's up to 5 pieces (2350
	// positions), where its broken positions are.
	// Every failure shown: the workers report in any order.
	opts := tiergametest.Options{MaxPositions: 3000, Samples: -1, Hashes: 1 << 10, MaxFailures: 1000}
	for _, tc := range []struct {
		name string
		game tiergame.Game
		rule string
		at   string // in a message: the position or what is wrong
	}{
		{"a hash out of range", movesAt("x--/---/---", func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child) {
			dst[n+2].Pos = tiergame.Position(tictactoe.Game{}.TierSize(2))
			return v, dst
		}), "hash range", `x--/---/--- (tier 1 "1 piece", hash 0)`},
		{"a child in an undeclared tier", movesAt("x--/-o-/---", func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child) {
			dst[n].Tier = 4
			return v, dst
		}), "child tier", `x--/-o-/--- (tier 2 "2 pieces"`},
		{"a move from a primitive position", movesAt("xxx/oo-/---", func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child) {
			return v, append(dst, tiergame.Child{Tier: 6, Pos: 0})
		}), "primitive", "xxx/oo-/---"},
		{"no move from a position that is not primitive", movesAt("xo-/---/---", func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child) {
			return v, dst[:n]
		}), "no moves", "xo-/---/---"},
		{"a value that is none", movesAt("xo-/x--/---", func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child) {
			return 9, dst
		}), "value", "xo-/x--/---"},
		{"nondeterministic Moves", movesAt("x--/-o-/--x", func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child) {
			if calls.Add(1)%2 == 0 {
				slices.Reverse(dst[n:])
			}
			return v, dst
		}), "deterministic", "x--/-o-/--x"},
		{"Moves overwriting dst", movesAt("-x-/---/---", func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child) {
			return v, append(dst[:0], dst[n:]...)
		}), "appends", "-x-/---/---"},
		{"Parse(Format(p)) is another position", func() tiergame.Game {
			g := ttt()
			g.parse = func(s string) (tiergame.Tier, tiergame.Position, error) {
				if s == "-x-/-o-/---" {
					s = "--x/-o-/---"
				}
				return tictactoe.Game{}.Parse(s)
			}
			return g
		}(), "round trip", "-x-/-o-/---"},
		{"a name with '_'", func() tiergame.Game {
			g := ttt()
			g.name = func() string { return "tic_tac_toe" }
			return g
		}(), "name", `"tic_tac_toe"`},
		{"a name that changes", func() tiergame.Game {
			g := ttt()
			g.name = func() string { return fmt.Sprint("ttt", calls.Add(1)) }
			return g
		}(), "name", "Name returns"},
		{"a start outside its tier", func() tiergame.Game {
			g := ttt()
			g.start = func() (tiergame.Tier, tiergame.Position) { return 0, 1 }
			return g
		}(), "start", "start hash 1"},
		{"a cycle of tiers", func() tiergame.Game {
			g := ttt()
			g.childTiers = func(t tiergame.Tier) []tiergame.Tier {
				if t == 9 {
					return []tiergame.Tier{0}
				}
				return tictactoe.Game{}.ChildTiers(t)
			}
			return g
		}(), "tier graph", `0 "0 pieces" -> 1 "1 piece"`},
		{"move names that repeat", named{ttt(), func(t tiergame.Tier, p tiergame.Position) []string {
			names := tictactoe.Game{}.MoveNames(t, p)
			if bt, bp := pos("xo-/-x-/---"); t == bt && p == bp {
				names[1] = names[0]
			}
			return names
		}}, "move names", "xo-/-x-/---"},
		{"Parents missing a parent", ring{parents: func(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, ps []tiergame.Position) []tiergame.Position {
			if t == 1 && p == 3 && pt == 1 {
				ps = slices.DeleteFunc(ps, func(q tiergame.Position) bool { return q == 4 })
			}
			return ps
		}}, "parents", "r1.4 (tier 1"},
		{"Parents listing a position that has no move to it", ring{parents: func(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, ps []tiergame.Position) []tiergame.Position {
			if t == 1 && p == 3 && pt == 1 {
				ps = append(ps, 6)
			}
			return ps
		}}, "parents", "r1.3 (tier 1"},
		{"Parents listing a parent twice", ring{parents: func(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, ps []tiergame.Position) []tiergame.Position {
			if t == 2 && p == 5 && pt == 1 {
				ps = append(ps, 5)
			}
			return ps
		}}, "parents", "r2.5 (tier 2"},
		{"a cursor missing a move", ringCursors{cursor: func(t tiergame.Tier) tiergame.Cursor { return &dropLast{ringCursor{t: t}} }}, "cursor", "r1.5 (tier 1"},
		{"a cursor that cannot go back", ringCursors{cursor: func(t tiergame.Tier) tiergame.Cursor { return &stale{ringCursor: ringCursor{t: t}} }}, "cursor", "(tier"},
		{"MovesByTier in the wrong list", ringCursors{cursor: func(t tiergame.Tier) tiergame.Cursor { return &oneList{ringCursor{t: t}} }}, "by tier", "(tier 0"},
		{"MovesByTier filling a nil list", ringCursors{cursor: func(t tiergame.Tier) tiergame.Cursor { return &fillsNil{ringCursor{t: t}} }}, "by tier", "r1.2 (tier 1"},
		{"CountInTier counting one child too many", ringCursors{cursor: func(t tiergame.Tier) tiergame.Cursor { return &miscount{ringCursor{t: t}} }}, "by tier", "r1.3 (tier 1"},
		{"a canonical cursor giving a position that is not canonical", ringCursors{cursor: func(t tiergame.Tier) tiergame.Cursor { return &notCanonical{ringCursor{t: t}} }}, "canonical cursor", "r2.5 (tier 2"},
		{"Canonical not idempotent", ring{canonical: mirror}, "canonical", "(tier"},
		{"Images not starting with the identity", ringImagesReversed{}, "images", "(tier"},
		{"a symmetry that maps a primitive position onto one that is not", ring{image: shift}, "symmetry", "r0.4 (tier 0"},
		{"a symmetry that does not map moves onto moves", ring{image: swap12}, "symmetry", "r1.1 (tier 1"},
		{"CanonicalParents listing a parent twice", ringCanonicalParentsTwice{}, "canonical parents", "r1.6 (tier 1"},
		{"outcomes whose probabilities sum to 0.9", diceMissing{dice{10}}, "chance", "d4 (tier 4"},
		{"an outcome of weight 0", diceZeroWeight{dice{3}}, "chance", `outcome 1 ("2") has weight 0`},
		{"a kernel off by one", diceKernelOff{dice{3}}, "kernel", "d3 (tier 3"},
		{"Moves and ChanceMoves with different children", diceMovesShort{dice{3}}, "chance", "d5 (tier 5"},
		{"an exhaustive game with a hash that is no position", diceTwoHashes{dice{2}}, "exhaustive", "hash 1"},
		{"a loopy chance game", diceLoopy{dice{2}}, "chance", "is loopy"},
		{"chance move names missing", diceNamesShort{dice{3}}, "move names", "d6 (tier 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := check(t, tc.game, opts)
			if len(errs) == 0 {
				t.Fatalf("no failure reported, want %q", tc.rule)
			}
			found := false
			for _, e := range errs {
				if rule(e) != tc.rule {
					t.Errorf("failure of another rule than %q: %s", tc.rule, e)
				}
				found = found || strings.Contains(e, tc.at)
			}
			if !found {
				t.Errorf("no failure names %q:\n%s", tc.at, strings.Join(errs, "\n"))
			}
			if testing.Verbose() {
				t.Logf("%d failures; the first: %s", len(errs), errs[0])
			}
		})
	}
}

// TestFailureCap checks that a rule broken everywhere is reported
// MaxFailures times, then counted.
func TestFailureCap(t *testing.T) {
	g := ttt()
	g.moves = func(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
		return tictactoe.Game{}.Moves(t, p, nil)
	}
	errs := check(t, g, tiergametest.Options{MaxFailures: 3})
	if len(errs) != 4 || !strings.Contains(errs[3], "appends: 5475 more failures not shown") {
		t.Errorf("%d failures, want 3 and a count of the other 5475:\n%s", len(errs), strings.Join(errs, "\n"))
	}
}

// TestSamples checks that Check on a game larger than MaxPositions
// visits positions of random games and drawn hashes too, deterministically
// for a seed.
func TestSamples(t *testing.T) {
	seen := func(seed uint64) map[tiergame.Child]bool {
		var mu sync.Mutex
		visited := map[tiergame.Child]bool{}
		g := ttt()
		g.moves = func(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
			mu.Lock()
			visited[tiergame.Child{Tier: t, Pos: p}] = true
			mu.Unlock()
			return tictactoe.Game{}.Moves(t, p, dst)
		}
		if errs := check(t, g, tiergametest.Options{MaxPositions: 10, Samples: 50, Hashes: 50, Seed: seed}); len(errs) > 0 {
			t.Fatal(errs)
		}
		return visited
	}
	a, b := seen(1), seen(1)
	deep := 0
	for c := range a {
		if c.Tier >= 5 {
			deep++
		}
	}
	if deep < 20 || len(a) != len(b) {
		t.Errorf("%d positions visited, %d of them with 5 pieces or more; %d with the same seed", len(a), deep, len(b))
	}
}

func TestCheckPosition(t *testing.T) {
	checkAt := func(g tiergame.Game, tier tiergame.Tier, p tiergame.Position) []string {
		r := &recorder{TB: t}
		tiergametest.CheckPosition(r, g, tier, p)
		return r.errs
	}
	tier, p := pos("xo-/-x-/---")
	if errs := checkAt(tictactoe.Game{}, tier, p); len(errs) > 0 {
		t.Errorf("tic-tac-toe: %q", errs)
	}
	broken := movesAt("xo-/-x-/---", func(v tiergame.Value, dst []tiergame.Child, n int) (tiergame.Value, []tiergame.Child) {
		return v, dst[:n]
	})
	if errs := checkAt(broken, tier, p); len(errs) != 1 || rule(errs[0]) != "no moves" || !strings.Contains(errs[0], "xo-/-x-/---") {
		t.Errorf("no moves at xo-/-x-/---: %q", errs)
	}
	if errs := checkAt(broken, tier, p+1); len(errs) > 0 {
		t.Errorf("the next position: %q", errs)
	}
	if errs := checkAt(tictactoe.Game{}, 10, 0); len(errs) != 1 || rule(errs[0]) != "tier graph" {
		t.Errorf("tier 10: %q", errs)
	}
	if errs := checkAt(ring{}, 1, ringSize); len(errs) != 1 || rule(errs[0]) != "hash range" {
		t.Errorf("a hash outside the tier: %q", errs)
	}
}

func TestWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []uint64{1, 2, 1000, 1 << 40} {
		ps := tiergametest.Walk(rng, size, 1000)
		up := 0
		for i, p := range ps {
			if uint64(p) >= size {
				t.Fatalf("size %d: %d", size, p)
			}
			if i > 0 && p > ps[i-1] && p-ps[i-1] <= 4 {
				up++
			}
		}
		if size > 1000 && up < 600 {
			t.Errorf("size %d: %d steps of 1 to 4 of 1000", size, up)
		}
	}
}

func TestReach(t *testing.T) {
	counts := tiergametest.Reach(t, tictactoe.Game{}, nil, nil)
	if want := []uint64{1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78}; len(counts) != len(want) {
		t.Fatalf("%d tiers", len(counts))
	} else {
		for tier, n := range want {
			if counts[tiergame.Tier(tier)] != n {
				t.Errorf("tier %d: %d, want %d", tier, counts[tiergame.Tier(tier)], n)
			}
		}
	}
	n := 0
	counts = tiergametest.Reach(t, ring{}, func(t tiergame.Tier) bool { return t == 0 }, func(tiergame.Tier, tiergame.Position, tiergame.Value, []tiergame.Child) { n++ })
	if len(counts) != 1 || counts[0] != ringSize || n != ringSize {
		t.Errorf("ring, tier 0 alone: %v, %d visited", counts, n)
	}
}

// TestFailuresPointAtTheCaller: a failure names the line of the author's
// test that called Check, never a line of the kit, though the kit's
// workers found it in other goroutines. The test runs itself again as a
// child process whose Check fails, and reads the child's output.
func TestFailuresPointAtTheCaller(t *testing.T) {
	if os.Getenv("TIERGAMETEST_FAILING_CHILD") == "1" {
		g := ttt()
		g.moves = func(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
			return tictactoe.Game{}.Moves(t, p, nil) // drops dst: the appends rule fails everywhere
		}
		_, _, line, _ := runtime.Caller(0)
		fmt.Printf("Check is called at line %d\n", line+2)
		tiergametest.Check(t, g, tiergametest.Options{MaxFailures: 2})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailuresPointAtTheCaller$", "-test.v")
	cmd.Env = append(os.Environ(), "TIERGAMETEST_FAILING_CHILD=1")
	out, err := cmd.CombinedOutput()
	var line int
	if _, serr := fmt.Sscanf(string(out[bytes.Index(out, []byte("Check is called at line")):]), "Check is called at line %d", &line); err == nil || serr != nil {
		t.Fatalf("the child: %v, %v:\n%s", err, serr, out)
	}
	at := fmt.Sprintf("check_test.go:%d: tictactoe default: appends: ", line)
	if n := strings.Count(string(out), at); n != 3 || strings.Contains(string(out), "report.go") {
		t.Errorf("want 2 failures and a count, each at %q (found %d), none inside the kit:\n%s", at, n, out)
	}
}
