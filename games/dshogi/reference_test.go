package dshogi_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games/dshogi"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// The reference: the rules as GamesmanOne's dshogi.c plays and scores
// them, written again as simply as possible on text boards, and a naive
// solver (value iteration, as GamesmanOne's: level after level over an
// explicit map of every reachable position, tiergametest.BruteForce)
// whose every value and remoteness the tier solver's must equal.

// refPos is a position: 12 squares row by row from the top ('.' empty),
// each side's hand as counts of G, E, C, and the side to move (0 forest,
// upper case; 1 sky).
type refPos struct {
	board [12]byte
	hand  [2][3]int
	turn  int
}

func (p refPos) text() string {
	var b strings.Builder
	b.WriteString([]string{"F:", "S:"}[p.turn])
	for r := 0; r < 4; r++ {
		if r > 0 {
			b.WriteByte('/')
		}
		b.Write(p.board[3*r : 3*r+3])
	}
	b.WriteByte(':')
	hands := ""
	for side, letters := range []string{"GEC", "gec"} {
		for i := range 3 {
			hands += strings.Repeat(letters[i:i+1], p.hand[side][i])
		}
	}
	if hands == "" {
		hands = "-"
	}
	b.WriteString(hands)
	return b.String()
}

func isForest(c byte) bool { return c >= 'A' && c <= 'Z' }

func owner(c byte) int {
	if isForest(c) {
		return 0
	}
	return 1
}

// refSteps are the forest's moves (row, column offsets, row 0 at the top,
// so forward is -1); the sky's have the row negated.
var refSteps = map[byte][][2]int{
	'L': {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}},
	'G': {{-1, 0}, {1, 0}, {0, -1}, {0, 1}},
	'E': {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}},
	'C': {{-1, 0}},
	'H': {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, 0}},
}

// steps returns the board moves of the side to move as (from, to).
func (p refPos) steps() [][2]int {
	var out [][2]int
	for from, c := range p.board {
		if c == '.' || owner(c) != p.turn {
			continue
		}
		dr := 1
		if p.turn == 1 {
			dr = -1
		}
		for _, st := range refSteps[strings.ToUpper(string(c))[0]] {
			r, col := from/3+dr*st[0], from%3+st[1]
			if r < 0 || r > 3 || col < 0 || col > 2 {
				continue
			}
			to := 3*r + col
			if d := p.board[to]; d == '.' || owner(d) != p.turn {
				out = append(out, [2]int{from, to})
			}
		}
	}
	return out
}

// primitive is DobutsuShogiPrimitive: a missing lion loses; a lion on its
// far rank wins for the side to move if it can capture it, else loses.
func (p refPos) primitive() tiergame.Value {
	b := string(p.board[:])
	if !strings.Contains(b, "L") || !strings.Contains(b, "l") {
		return tiergame.Lose
	}
	lion := strings.IndexByte(b[:3], 'L')
	if i := strings.IndexByte(b[9:], 'l'); i >= 0 {
		lion = 9 + i
	}
	if lion < 0 {
		return tiergame.Undecided
	}
	for _, m := range p.steps() {
		if m[1] == lion {
			return tiergame.Win
		}
	}
	return tiergame.Lose
}

// children plays every move: steps (a capture sends the piece to the
// captor's hand, a hen as a chick, a lion nowhere; a chick stepping onto
// the far rank promotes), then drops on every empty square.
func (p refPos) children() []refPos {
	var out []refPos
	for _, m := range p.steps() {
		q := p
		q.turn = 1 - p.turn
		if d := p.board[m[1]]; d != '.' {
			if i := strings.IndexByte("GECH", strings.ToUpper(string(d))[0]); i >= 0 {
				q.hand[p.turn][min(i, 2)]++
			}
		}
		c := p.board[m[0]]
		if (c == 'C' && m[1] < 3) || (c == 'c' && m[1] >= 9) {
			c += 'H' - 'C'
		}
		q.board[m[0]], q.board[m[1]] = '.', c
		out = append(out, q)
	}
	for i := range 3 {
		if p.hand[p.turn][i] == 0 {
			continue
		}
		for s := range 12 {
			if p.board[s] != '.' {
				continue
			}
			q := p
			q.turn = 1 - p.turn
			q.hand[p.turn][i]--
			q.board[s] = "GEC"[i]
			if p.turn == 1 {
				q.board[s] = "gec"[i]
			}
			out = append(out, q)
		}
	}
	return out
}

// refStart is the start of a variant: the full start without the piece
// types not in play.
func refStart(pieces string) refPos {
	p := refPos{}
	copy(p.board[:], "gle.c..C.ELG")
	for i, c := range p.board {
		if c != '.' && !strings.ContainsRune(pieces, rune(strings.ToUpper(string(c))[0])) {
			p.board[i] = '.'
		}
	}
	return p
}

// refSolve finds every position reachable from start (primitive ones are
// not expanded) and solves them by value iteration.
func refSolve(start refPos) map[refPos]tiergametest.Outcome {
	return tiergametest.BruteForce(start, func(p refPos) (tiergame.Value, []refPos) {
		if v := p.primitive(); v != tiergame.Undecided {
			return v, nil
		}
		return tiergame.Undecided, p.children()
	})
}

// TestAgainstReference solves the small variants, with and without
// symmetry, and checks every position against the reference. Under the
// race detector the lions alone and with the elephants only (.ci/run
// runs them all without it).
func TestAgainstReference(t *testing.T) {
	variants := []string{"L", "LC", "LG", "LE"}
	if raceEnabled {
		variants = []string{"L", "LE"}
	}
	if os.Getenv("TIERSOLVE_LONG") != "" {
		variants = append(variants, "LGE")
	}
	for _, pieces := range variants {
		t.Run(pieces, func(t *testing.T) {
			g, err := dshogi.NewPieces(pieces)
			if err != nil {
				t.Fatal(err)
			}
			start := refStart(pieces)
			ref := refSolve(start)
			var draws, noMoves int
			for p, o := range ref {
				if o.Value == tiergame.Draw {
					draws++
					if len(p.children()) == 0 {
						noMoves++
					}
				}
			}
			t.Logf("reference: %d positions, %d draws (%d without a move); start %v in %d", len(ref), draws, noMoves, ref[start].Value, ref[start].Remoteness)
			for _, symmetry := range []bool{false, true} {
				dir := t.TempDir()
				r, err := solver.Open(solver.Config{Game: g, Dir: dir, Workers: 2, Symmetry: symmetry})
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Reach(context.Background()); err != nil {
					t.Fatal(err)
				}
				if err := r.Solve(context.Background()); err != nil {
					t.Fatal(err)
				}
				r.Close()
				compareRun(t, g, dir, symmetry, ref)
			}
		})
	}
}

// compareRun checks a solved run folder against the reference: every
// reference position has the reference's value and remoteness, and in a
// full run each tier holds exactly the reference's positions.
func compareRun(t *testing.T, g *dshogi.Game, dir string, symmetry bool, ref map[refPos]tiergametest.Outcome) {
	t.Helper()
	o, err := oracle.Open(dir, g)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	perTier := map[tiergame.Tier]uint64{}
	orbits := map[tiergame.Tier]map[tiergame.Position]bool{}
	bad := 0
	for p, w := range ref {
		tier, h, err := g.Parse(p.text())
		if err != nil {
			t.Fatalf("reference position %s: %v", p.text(), err)
		}
		perTier[tier]++
		if orbits[tier] == nil {
			orbits[tier] = map[tiergame.Position]bool{}
		}
		orbits[tier][g.Canonical(tier, h)] = true
		rec, err := o.Lookup(tier, h)
		if err != nil {
			t.Fatalf("%s: %v", p.text(), err)
		}
		want := w.Remoteness
		if w.Value == tiergame.Draw {
			want = rec.Remoteness()
		}
		if rec.Value() != w.Value || rec.Remoteness() != want {
			if bad++; bad <= 10 {
				t.Errorf("symmetry %v: %s is %v in %d, the reference says %v in %d", symmetry, p.text(), rec.Value(), rec.Remoteness(), w.Value, w.Remoteness)
			}
		}
	}
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range m.Tiers {
		want := perTier[tiergame.Tier(tr.Tier)]
		if symmetry {
			want = uint64(len(orbits[tiergame.Tier(tr.Tier)]))
		}
		if tr.Reachable != want {
			t.Errorf("symmetry %v: tier %s holds %d positions, the reference %d", symmetry, tr.Name, tr.Reachable, want)
		}
	}
	if symmetry {
		return
	}
	st, sp := g.Start()
	rec, _ := o.Lookup(st, sp)
	t.Logf("solver: start %v in %d; tiers %v", rec.Value(), rec.Remoteness(), perTier)
}
