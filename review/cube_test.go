package review

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/gamecodecs/xg"
	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/internal/testrun"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
)

// solved solves g into a temporary folder and returns an oracle on it.
func solved(t *testing.T, g *bearoff.Game) *oracle.Oracle {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	testrun.SolveConfig(t, solver.Config{Game: g, Dir: dir})
	return testrun.Oracle(t, dir, g)
}

// checkCube checks what holds of every reviewed cube decision: the right
// action follows from the values, an action that is right loses nothing
// and one that is not loses what the values say.
func checkCube(t *testing.T, name string, d CubeDecision) {
	t.Helper()
	right := bearoff.Decide(d.NoDouble, d.DoubleTake, d.DoublePass)
	doubled := d.Action != "no double"
	chosen := d.NoDouble
	if doubled {
		chosen = right.Double()
	}
	if right.Action.String() != d.Right || math.Abs(d.Lost-(right.Optimal-chosen)) > 1e-12 || d.Lost < 0 || d.TakeLost < 0 ||
		!doubled && d.TakeLost != 0 || d.Action == d.Right && d.Lost != 0 {
		t.Errorf("%s: %+v (right %+v)", name, d, right)
	}
}

// totals checks the report's totals against its decisions.
func totals(t *testing.T, name string, rep *Report) {
	t.Helper()
	var lost, lostMWC, cube, cubeMWC [2]float64
	var n, nc [2]int
	for _, d := range rep.Decisions {
		n[d.Player-1]++
		if d.Measure == MWC {
			lostMWC[d.Player-1] += d.Lost
		} else {
			lost[d.Player-1] += d.Lost
		}
	}
	for _, d := range rep.CubeDecisions {
		p := d.Player - 1
		nc[p]++
		into := &cube
		if d.Measure == MWC {
			into = &cubeMWC
		}
		into[p] += d.Lost
		if d.Action != "no double" {
			nc[1-p]++
			into[1-p] += d.TakeLost
		}
	}
	for p, tot := range rep.Totals {
		if tot.Decisions != n[p] || tot.CubeDecisions != nc[p] || math.Abs(tot.Lost-lost[p]) > 1e-9 || math.Abs(tot.LostMWC-lostMWC[p]) > 1e-9 ||
			math.Abs(tot.CubeLost-cube[p]) > 1e-9 || math.Abs(tot.CubeLostMWC-cubeMWC[p]) > 1e-9 {
			t.Errorf("%s: player %d totals %+v; the decisions give %d plays (lost %v, %v), %d cube decisions (lost %v, %v)",
				name, p+1, tot, n[p], lost[p], lostMWC[p], nc[p], cube[p], cubeMWC[p])
		}
	}
}

// TestCubeReviewMatch reviews every corpus match against a 6-checker run
// with gnubg's default match equity table: each cube decision and checker
// play is judged by match winning chance, and each cube decision's values
// are those of an evaluation of its position alone.
func TestCubeReviewMatch(t *testing.T) {
	if race.Enabled {
		t.Skip("slow with the race detector; .ci/run runs it without")
	}
	table, err := met.ReadFile(met.DefaultFile)
	if err != nil {
		t.Skip(err)
	}
	g, _ := bearoff.NewGame(6, 6)
	o := solved(t, g)
	var cubes, plays int
	for _, name := range corpus(t) {
		f, err := xg.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Match(f, g, o, &Options{Table: table})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base := filepath.Base(name)
		totals(t, base, rep)
		for _, d := range rep.Decisions {
			if d.Measure != MWC || d.Lost < 0 || d.BestEquity < d.Equity || d.Equity < 0 || d.BestEquity > 1 {
				t.Errorf("%s: %+v", base, d)
			}
		}
		for _, d := range rep.CubeDecisions {
			if d.Measure != MWC {
				t.Errorf("%s: %+v", base, d)
			}
			checkCube(t, base, d)
			// The same decision from an evaluation of this position alone.
			b, _ := xgBoard(d.Position)
			i, j, _ := g.FromBoard(b)
			p := d.Player - 1
			var score bearoff.Score
			score.Length, score.Crawford = rep.Length, d.Crawford
			score.Away[p], score.Away[1-p] = d.Score[0], d.Score[1]
			boards := [2][]int{}
			boards[p], boards[1-p] = []int{i}, []int{j}
			owner := map[string]int{"centered": -1, "owned": p, "opponent": 1 - p}[d.CubeState]
			c := bearoff.MatchCube{Value: d.Cube, Owner: owner}
			e, err := g.NewMatchEval(context.Background(), bearoff.MatchOptions{Table: table, Score: score, Boards: boards, Cubes: []bearoff.MatchCube{c}})
			if err != nil {
				t.Fatal(err)
			}
			want, err := e.Decision(p, i, j, c)
			if err != nil || want.NoDouble != d.NoDouble || want.DoubleTake != d.DoubleTake || want.DoublePass != d.DoublePass {
				t.Errorf("%s: %+v; alone %+v (%v)", base, d, want, err)
			}
		}
		cubes += len(rep.CubeDecisions)
		plays += len(rep.Decisions)
		t.Logf("%s: %d cube decisions and %d checker plays reviewed by match winning chance", base, len(rep.CubeDecisions), len(rep.Decisions))
	}
	if cubes == 0 || plays == 0 {
		t.Errorf("%d cube decisions, %d plays reviewed", cubes, plays)
	}
}

// TestCubeReviewMoney reviews the corpus matches as money sessions (their
// length set to none) against a 6-checker run with cube=money: cube
// decisions and checker plays are judged by cubeful equity, the values of
// a cube decision are those of its position's planes.
func TestCubeReviewMoney(t *testing.T) {
	if race.Enabled {
		t.Skip("slow with the race detector; .ci/run runs it without")
	}
	g, err := bearoff.NewVariant(6, 6, bearoff.CubeMoney)
	if err != nil {
		t.Fatal(err)
	}
	o := solved(t, g)
	var cubes int
	for _, name := range corpus(t) {
		f, err := xg.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		f.MatchHeader().MatchLength = 99999 // a money session
		rep, err := Match(f, g, o, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base := filepath.Base(name)
		if !rep.Money {
			t.Fatalf("%s: not reviewed as money", base)
		}
		totals(t, base, rep)
		for _, d := range rep.Decisions {
			if d.Measure != Cubeful || d.Lost < 0 {
				t.Errorf("%s: %+v", base, d)
			}
		}
		for _, d := range rep.CubeDecisions {
			checkCube(t, base, d)
			b, _ := xgBoard(d.Position)
			i, j, _ := g.FromBoard(b)
			tier, pos := g.Position(i, j)
			planes, err := o.Planes(tier, pos)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := bearoff.ParseCubeState(d.CubeState)
			want, _ := bearoff.MoneyDecision(planes, s)
			if d.Measure != Cubeful || want.NoDouble != d.NoDouble || want.DoubleTake != d.DoubleTake {
				t.Errorf("%s: %+v, planes %+v", base, d, want)
			}
		}
		cubes += len(rep.CubeDecisions)
	}
	if cubes == 0 {
		t.Error("no cube decision reviewed")
	}
}

// xgBoard decodes a Position ID of a review.
func xgBoard(id string) (gnubgid.Board, error) { return gnubgid.DecodePosition(id) }
