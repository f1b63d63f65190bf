package solver

import (
	"context"
	"fmt"
	"iter"
	"os"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// The tests in this file and in connect4_oracle_test.go and
// quixo_oracle_test.go check solved runs against reference solvers written
// here from the rules of each game. The references share no code with the
// games or the solver: their own boards, move generation and line
// detection, and their own application of the value and remoteness rules
// of solve.go. They meet the project only through the text form of a
// position, which the game's Parse turns into a tier and hash.

// longTests reports whether the heavy tests run: TIERSOLVE_LONG=1 and not
// -short.
func longTests() bool {
	return os.Getenv("TIERSOLVE_LONG") == "1" && !testing.Short()
}

// refRec is a value and remoteness found by a reference solver.
type refRec struct {
	v   tiergame.Value
	rem int
}

func (r refRec) String() string {
	if r.v == tiergame.Draw {
		return "draw"
	}
	return fmt.Sprintf("%v in %d", r.v, r.rem)
}

// refCombine is the record of a position that is not primitive, from its
// children's records (all known): Win by the quickest losing child, else
// Lose by the slowest winning child when every child wins, else Tie by the
// quickest tying child, else Draw.
func refCombine(kids []refRec) refRec {
	if len(kids) == 0 {
		panic("refCombine: no children")
	}
	var win, tie *refRec
	allWin, slowest := true, 0
	for i := range kids {
		k := &kids[i]
		switch k.v {
		case tiergame.Lose:
			if win == nil || k.rem < win.rem {
				win = k
			}
		case tiergame.Tie:
			if tie == nil || k.rem < tie.rem {
				tie = k
			}
		case tiergame.Win:
			slowest = max(slowest, k.rem)
			continue
		}
		allWin = false
	}
	switch {
	case win != nil:
		return refRec{tiergame.Win, win.rem + 1}
	case allWin:
		return refRec{tiergame.Lose, slowest + 1}
	case tie != nil:
		return refRec{tiergame.Tie, tie.rem + 1}
	}
	return refRec{tiergame.Draw, 0}
}

// refGraph is an explicit game graph for the retrograde reference solver:
// node i is primitive with value prim[i] (Undecided when it has moves) and
// moves to the nodes kids[i].
type refGraph struct {
	prim []tiergame.Value
	kids [][]int32
}

// exploreRef numbers every state reachable from start, in the order found,
// and builds their graph: prim gives a state's primitive value, kids the
// children of a state that is not primitive.
func exploreRef[S comparable](start S, prim func(S) tiergame.Value, kids func(S) []S) ([]S, *refGraph) {
	states := []S{start}
	index := map[S]int32{start: 0}
	g := &refGraph{}
	for i := 0; i < len(states); i++ {
		v := prim(states[i])
		var ks []int32
		if v == tiergame.Undecided {
			for _, k := range kids(states[i]) {
				j, ok := index[k]
				if !ok {
					j = int32(len(states))
					index[k] = j
					states = append(states, k)
				}
				ks = append(ks, j)
			}
		}
		g.prim = append(g.prim, v)
		g.kids = append(g.kids, ks)
	}
	return states, g
}

// solve computes every node's record in rounds: round k gives the records
// of remoteness k, reading only records of smaller remoteness, so each
// node is decided at the smallest remoteness its value allows. Wins and
// losses first, then ties; what is left is a draw. It works on graphs with
// cycles.
func (g *refGraph) solve() []refRec {
	out := make([]refRec, len(g.prim))
	for i, v := range g.prim {
		out[i] = refRec{v, 0}
	}
	// known reports whether node c was decided before round k.
	known := func(c int32, k int) bool { return out[c].v != tiergame.Undecided && out[c].rem < k }
	for k := 1; ; k++ {
		changed := false
		for i := range out {
			if out[i].v != tiergame.Undecided {
				continue
			}
			win, allWin, slowest := false, true, 0
			for _, c := range g.kids[i] {
				if !known(c, k) {
					allWin = false
					continue
				}
				switch out[c].v {
				case tiergame.Lose:
					win = win || out[c].rem == k-1
					allWin = false
				case tiergame.Win:
					slowest = max(slowest, out[c].rem)
				default:
					allWin = false
				}
			}
			switch {
			case win:
				out[i], changed = refRec{tiergame.Win, k}, true
			case allWin:
				out[i], changed = refRec{tiergame.Lose, slowest + 1}, true
			}
		}
		if !changed {
			break
		}
	}
	for k := 1; ; k++ {
		changed := false
		for i := range out {
			if out[i].v != tiergame.Undecided {
				continue
			}
			for _, c := range g.kids[i] {
				if known(c, k) && out[c].v == tiergame.Tie && out[c].rem == k-1 {
					out[i], changed = refRec{tiergame.Tie, k}, true
					break
				}
			}
		}
		if !changed {
			break
		}
	}
	for i := range out {
		if out[i].v == tiergame.Undecided {
			out[i] = refRec{tiergame.Draw, 0}
		}
	}
	return out
}

// refPos is a reachable position of a reference solver: its text form,
// the tier the game must put it in, and its record.
type refPos struct {
	text string
	tier tiergame.Tier
	rec  refRec
}

// solveRun opens a run of game with cfg and reaches and solves it.
func solveRun(t testing.TB, game, option string, cfg Config) *Run {
	t.Helper()
	return solvedRun(t, newRun(t, game, option, cfg))
}

// solved reaches and solves r, and returns it.
func solvedRun(t testing.TB, r *Run) *Run {
	t.Helper()
	if err := r.Reach(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkAgainstRef checks a solved run against a reference: every reference
// position parses to its tier, formats back to its text, has a hash of its
// own, and has the reference's record in the run's database; and each
// tier's reachable count and value counts in the manifest are the
// reference's. Together these make the run's reachable sets exactly the
// reference's.
func checkAgainstRef(t *testing.T, r *Run, positions iter.Seq[refPos]) {
	t.Helper()
	g := r.Game
	o, err := oracle.Open(r.Dir, g)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	type counts struct{ n, win, lose, tie, draw uint64 }
	want := map[tiergame.Tier]*counts{}
	seen := map[tiergame.Tier][]uint64{} // a bit per hash, for uniqueness
	bad := 0
	report := func(format string, args ...any) {
		t.Helper()
		if bad++; bad <= 10 {
			t.Errorf(format, args...)
		}
	}
	for p := range positions {
		c := want[p.tier]
		if c == nil {
			c = &counts{}
			want[p.tier] = c
		}
		c.n++
		switch p.rec.v {
		case tiergame.Win:
			c.win++
		case tiergame.Lose:
			c.lose++
		case tiergame.Tie:
			c.tie++
		case tiergame.Draw:
			c.draw++
		}
		tier, pos, err := g.Parse(p.text)
		if err != nil {
			report("Parse(%q): %v", p.text, err)
			continue
		}
		if tier != p.tier {
			report("Parse(%q): tier %s, want %s", p.text, g.TierName(tier), g.TierName(p.tier))
			continue
		}
		if s := g.Format(tier, pos); s != p.text {
			report("Format(Parse(%q)) = %q", p.text, s)
		}
		bits := seen[tier]
		if bits == nil {
			bits = make([]uint64, g.TierSize(tier)/64+1)
			seen[tier] = bits
		}
		if bits[pos/64]>>(pos%64)&1 != 0 {
			report("%q: hash %d of tier %s is another position's too", p.text, pos, g.TierName(tier))
		}
		bits[pos/64] |= 1 << (pos % 64)
		rec, err := o.Lookup(tier, pos)
		if err != nil {
			report("Lookup(%q): %v", p.text, err)
			continue
		}
		if rec.Value() != p.rec.v || rec.Remoteness() != p.rec.rem {
			report("%q (tier %s, hash %d): solver says %v, reference %v", p.text, g.TierName(tier), pos, rec, p.rec)
		}
	}
	for _, tr := range r.Manifest.Tiers {
		c := want[tiergame.Tier(tr.Tier)]
		if c == nil {
			c = &counts{}
		}
		delete(want, tiergame.Tier(tr.Tier))
		got := counts{tr.Reachable, tr.Win, tr.Lose, tr.Tie, tr.Draw}
		if got != *c {
			report("tier %s: manifest has reachable/win/lose/tie/draw %v, reference %v", tr.Name, got, *c)
		}
	}
	for tier := range want {
		report("tier %s has reference positions but no manifest record", g.TierName(tier))
	}
	if bad > 0 {
		t.Fatalf("%d disagreements with the reference", bad)
	}
}

// recEqual reports whether a stored record is the reference's.
func recEqual(r valuedb.Record, ref refRec) bool {
	return r.Value() == ref.v && r.Remoteness() == ref.rem
}

// Tic-tac-toe reference: a board is 9 bytes, row by row from the top left,
// ' ' for empty, 'x' or 'o'.

type tttBoard [9]byte

var tttLines = [8][3]int{
	{0, 1, 2}, {3, 4, 5}, {6, 7, 8},
	{0, 3, 6}, {1, 4, 7}, {2, 5, 8},
	{0, 4, 8}, {2, 4, 6},
}

func (b *tttBoard) line(who byte) bool {
	for _, l := range tttLines {
		if b[l[0]] == who && b[l[1]] == who && b[l[2]] == who {
			return true
		}
	}
	return false
}

func (b *tttBoard) pieces() int {
	n := 0
	for _, c := range b {
		if c != ' ' {
			n++
		}
	}
	return n
}

// toMove is 'x' on an even number of pieces.
func (b *tttBoard) toMove() byte {
	if b.pieces()%2 == 0 {
		return 'x'
	}
	return 'o'
}

// primitive: a line (necessarily the last mover's) loses for the player
// to move; a full board is a tie.
func (b *tttBoard) primitive() tiergame.Value {
	switch {
	case b.line('x') || b.line('o'):
		return tiergame.Lose
	case b.pieces() == 9:
		return tiergame.Tie
	}
	return tiergame.Undecided
}

func (b *tttBoard) children() []tttBoard {
	var out []tttBoard
	for i, c := range b {
		if c == ' ' {
			k := *b
			k[i] = b.toMove()
			out = append(out, k)
		}
	}
	return out
}

func (b *tttBoard) text() string {
	var s strings.Builder
	for i, c := range b {
		if i > 0 && i%3 == 0 {
			s.WriteByte('/')
		}
		if c == ' ' {
			c = '-'
		}
		s.WriteByte(c)
	}
	return s.String()
}

// tttSolve solves every position reachable from the empty board by
// memoized recursion.
func tttSolve() map[tttBoard]refRec {
	memo := map[tttBoard]refRec{}
	var solve func(b tttBoard) refRec
	solve = func(b tttBoard) refRec {
		if r, ok := memo[b]; ok {
			return r
		}
		r := refRec{b.primitive(), 0}
		if r.v == tiergame.Undecided {
			var kids []refRec
			for _, k := range b.children() {
				kids = append(kids, solve(k))
			}
			r = refCombine(kids)
		}
		memo[b] = r
		return r
	}
	solve(tttBoard{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '})
	return memo
}

// tttGraph builds the explicit graph of the positions of memo.
func tttGraph(memo map[tttBoard]refRec) (*refGraph, []tttBoard) {
	var boards []tttBoard
	index := map[tttBoard]int32{}
	for b := range memo {
		index[b] = int32(len(boards))
		boards = append(boards, b)
	}
	g := &refGraph{prim: make([]tiergame.Value, len(boards)), kids: make([][]int32, len(boards))}
	for i, b := range boards {
		g.prim[i] = b.primitive()
		if g.prim[i] == tiergame.Undecided {
			for _, k := range b.children() {
				g.kids[i] = append(g.kids[i], index[k])
			}
		}
	}
	return g, boards
}

func TestTicTacToeAgainstReference(t *testing.T) {
	memo := tttSolve()
	if len(memo) != 5478 {
		t.Fatalf("reference reaches %d positions, want 5478", len(memo))
	}
	// The two reference solvers agree (a check of the retrograde one,
	// which the loopy games rely on).
	g, boards := tttGraph(memo)
	for i, r := range g.solve() {
		if r != memo[boards[i]] {
			t.Fatalf("%s: retrograde %v, recursion %v", boards[i].text(), r, memo[boards[i]])
		}
	}
	start := memo[tttBoard{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}]
	if start != (refRec{tiergame.Tie, 9}) {
		t.Fatalf("reference start %v, want tie in 9", start)
	}

	r := solveRun(t, "tictactoe", "", Config{})
	if s := r.Manifest.Start; s == nil || s.Value != "tie" || s.Remoteness != 9 || s.Position != "---/---/---" {
		t.Fatalf("start %+v, want ---/---/--- tie in 9", s)
	}
	checkAgainstRef(t, r, func(yield func(refPos) bool) {
		for b, rec := range memo {
			if !yield(refPos{b.text(), tiergame.Tier(b.pieces()), rec}) {
				return
			}
		}
	})

	// Oracle.Moves lists every move, best first: the first move's child
	// record is the one the position's record was made from.
	o, err := oracle.Open(r.Dir, r.Game)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for b, rec := range memo {
		tier, pos, err := r.Game.Parse(b.text())
		if err != nil {
			t.Fatal(err)
		}
		moves, err := o.Moves(tier, pos)
		if err != nil {
			t.Fatal(err)
		}
		if rec.rem == 0 {
			if len(moves) != 0 {
				t.Errorf("%s is primitive but has %d moves", b.text(), len(moves))
			}
			continue
		}
		if len(moves) != len(b.children()) {
			t.Fatalf("%s: %d moves, want %d", b.text(), len(moves), len(b.children()))
		}
		best := moves[0].Child
		want := map[tiergame.Value]tiergame.Value{tiergame.Win: tiergame.Lose, tiergame.Lose: tiergame.Win, tiergame.Tie: tiergame.Tie}[rec.v]
		if best.Value() != want || best.Remoteness() != rec.rem-1 {
			t.Errorf("%s (%v): best move %s leads to %v", b.text(), rec, moves[0].Name, best)
		}
		for i := 1; i < len(moves); i++ {
			if refMoveOrder(moves[i-1].Child) > refMoveOrder(moves[i].Child) {
				t.Errorf("%s: moves not best first: %s (%v) before %s (%v)", b.text(), moves[i-1].Name, moves[i-1].Child, moves[i].Name, moves[i].Child)
			}
		}
	}
}

// refMoveOrder orders moves by the record of the child they lead to, best
// first for the player making them: to a lost child (quickest first), to a
// tied child (quickest first), to a drawn child, to a won child (slowest
// first).
func refMoveOrder(child valuedb.Record) int {
	switch child.Value() {
	case tiergame.Lose:
		return child.Remoteness()
	case tiergame.Tie:
		return 100000 + child.Remoteness()
	case tiergame.Draw:
		return 200000
	}
	return 400000 - child.Remoteness()
}
