package dodgem_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/examples/dodgem"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// TestConformance runs the kit: on 3x3 every reachable position and
// every hash of every tier; on 4x4 and 5x5 the first positions breadth
// first, positions of random games and random hashes. Under the race
// detector a fifth of them on 5x5 (half a minute with it; .ci/run runs
// them all without it).
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		size string
		opts tiergametest.Options
	}{
		{"3", tiergametest.Options{Hashes: 1 << 20}},
		{"4", tiergametest.Options{}},
		{"5", tiergametest.Options{}},
	} {
		if tc.size == "5" && raceEnabled {
			tc.opts = tiergametest.Options{MaxPositions: 2000, Samples: 200, Hashes: 200}
		}
		t.Run("size="+tc.size, func(t *testing.T) {
			tc.opts.New = dodgem.New // the game a registry builds from the options is this one
			tiergametest.Check(t, newGame(t, tc.size), tc.opts)
		})
	}
}

// FuzzParse checks every position Parse accepts with the kit.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"b:b../b../.rr", "r:.b./.../r.r", "r:.../.../.r.", "b:b.../..../.b../.rrr", "b:bbb/.../...", "x:...", "b:b../b../.rr/"} {
		f.Add(s)
	}
	games := map[int]tiergame.Game{3: newGame(f, "3"), 4: newGame(f, "4")}
	f.Fuzz(func(t *testing.T, s string) {
		for _, g := range games {
			tier, p, err := g.Parse(s)
			if err != nil {
				continue
			}
			if back := g.Format(tier, p); back != s {
				t.Fatalf("Parse(%q) gives %q back", s, back)
			}
			tiergametest.CheckPosition(t, g, tier, p)
		}
	})
}

// TestParseErrors: text that is no position is refused, saying why.
func TestParseErrors(t *testing.T) {
	g := newGame(t, "3")
	for _, tc := range []struct{ in, want string }{
		{"", "want the side to move"},
		{"x:b../b../.rr", "want the side to move"},
		{"b:b../b..", "3 rows"},
		{"b:b../b../.rr/...", "3 rows"},
		{"b:b../b.../.rr", "row 2 has 4 cells"},
		{"b:b../b../.rx", "not b, r or '.'"},
		{"b:bbb/.../.rr", "3 blue and 2 red cars"},
		{"b:.../.../...", "no cars"},
		{"b:.../.../.rr", "the side to move has no car left"},
	} {
		if _, _, err := g.Parse(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): %v; want an error with %q", tc.in, err, tc.want)
		}
	}
}

// TestMoveNames names the start's moves.
func TestMoveNames(t *testing.T) {
	g := newGame(t, "3")
	tier, p := g.Start()
	got := strings.Join(g.(tiergame.MoveNamer).MoveNames(tier, p), " ")
	if want := "a3-b3 a2-b2 a2-a1"; got != want {
		t.Errorf("the start's moves are %q, want %q", got, want)
	}
	tier, p, err := g.Parse("r:..b/.r./r..")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(g.(tiergame.MoveNamer).MoveNames(tier, p), " "), "b2-b3 b2-a2 b2-c2 a1-a2 a1-b1"; got != want {
		t.Errorf("moves %q, want %q", got, want)
	}
}

// TestAgainstBruteForce solves Dodgem with the solver and with a naive
// solver written from the rules alone (boards as strings in a map,
// retrograde analysis level by level), and compares the number of
// reachable positions and every one's value and remoteness. It also
// checks the known results: the 3x3 game is a first player's win, the
// 4x4 game a draw. 3x3 has no draws among its reachable positions, 4x4
// has 35,281; 4x4 is skipped under -short and -race.
func TestAgainstBruteForce(t *testing.T) {
	sizes := []int{3, 4}
	if testing.Short() || raceEnabled {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			g := newGame(t, fmt.Sprint(n))
			dir := t.TempDir()
			run, err := solver.Open(solver.Config{Game: g, Dir: dir, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if err := run.Reach(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := run.Solve(context.Background()); err != nil {
				t.Fatal(err)
			}
			total, start := run.Manifest.Total, *run.Manifest.Start
			if err := run.Close(); err != nil {
				t.Fatal(err)
			}
			oracle, err := oracle.Open(dir, g)
			if err != nil {
				t.Fatal(err)
			}
			defer oracle.Close()

			want := bruteForce(n)
			if total != uint64(len(want)) {
				t.Errorf("the solver reached %d positions, the naive solver %d", total, len(want))
			}
			bad := 0
			for s, w := range want {
				tier, p, err := g.Parse(s)
				if err != nil {
					t.Fatalf("Parse(%q): %v", s, err)
				}
				rec, err := oracle.Lookup(tier, p)
				if err != nil {
					t.Fatalf("%s: %v", s, err)
				}
				if rec.Value() != w.Value || (w.Value != tiergame.Draw && rec.Remoteness() != w.Remoteness) {
					if bad++; bad <= 5 {
						t.Errorf("%s: the solver says %v in %d, the naive solver %v in %d", s, rec.Value(), rec.Remoteness(), w.Value, w.Remoteness)
					}
				}
			}
			wantStart := map[int]string{3: "win", 4: "draw"}[n]
			if start.Value != wantStart {
				t.Errorf("%dx%d: the start is a %s, want a %s", n, n, start.Value, wantStart)
			}
			t.Logf("%dx%d: %d positions agree; the start %s is a %s in %d", n, n, len(want), start.Position, start.Value, start.Remoteness)
		})
	}
}

// bruteForce solves Dodgem on an n x n board from the rules, with no
// hashing: a position is its text form, its moves come from the board.
// One without moves is decided by naivePrimitive.
func bruteForce(n int) map[string]tiergametest.Outcome {
	start := "b:"
	for row := range n {
		if row > 0 {
			start += "/"
		}
		switch {
		case row < n-1:
			start += "b" + strings.Repeat(".", n-1)
		default:
			start += "." + strings.Repeat("r", n-1)
		}
	}
	return tiergametest.BruteForce(start, func(s string) (tiergame.Value, []string) {
		kids := naiveMoves(n, s)
		if len(kids) == 0 {
			return naivePrimitive(n, s), nil
		}
		return tiergame.Undecided, kids
	})
}

// naiveMoves lists the positions a move of position s leads to.
func naiveMoves(n int, s string) []string {
	side, board := s[0], []byte(strings.ReplaceAll(s[2:], "/", ""))
	other := map[byte]byte{'b': 'r', 'r': 'b'}[side]
	if !strings.ContainsRune(string(board), rune(other)) {
		return nil // the other side has driven every car off
	}
	// Forward first, then the sideways moves, as (row, column) steps.
	dirs := map[byte][3][2]int{'b': {{0, 1}, {-1, 0}, {1, 0}}, 'r': {{-1, 0}, {0, -1}, {0, 1}}}[side]
	var out []string
	for c, car := range board {
		if car != side {
			continue
		}
		for k, d := range dirs {
			row, col := c/n+d[0], c%n+d[1]
			next := append([]byte(nil), board...)
			next[c] = '.'
			switch {
			case row >= 0 && row < n && col >= 0 && col < n && board[row*n+col] == '.':
				next[row*n+col] = side
			case k == 0 && (row < 0 || col >= n): // off the far edge
			default:
				continue
			}
			out = append(out, naiveText(n, other, next))
		}
	}
	return out
}

// naivePrimitive is the value of a position without moves: lost when
// the other side has no car left, won when every car of the side to move
// is blocked.
func naivePrimitive(n int, s string) tiergame.Value {
	other := map[byte]byte{'b': 'r', 'r': 'b'}[s[0]]
	if !strings.ContainsRune(s[2:], rune(other)) {
		return tiergame.Lose
	}
	return tiergame.Win
}

func naiveText(n int, side byte, board []byte) string {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = string(board[i*n : (i+1)*n])
	}
	return string(side) + ":" + strings.Join(rows, "/")
}

func newGame(t testing.TB, size string) tiergame.Game {
	t.Helper()
	g, err := dodgem.New(tiergame.Options{"size": size})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
