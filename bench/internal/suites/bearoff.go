package suites

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/games/bearoff"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// bearoffSize is one two-sided bearoff the bearoff suite solves: checkers
// on 6 points.
type bearoffSize struct {
	checkers int
	level    harness.Level
	// peer: also time gnubg's makebearoff on the same database.
	peer bool
	// estimates on the reference machine: tiersolve with 2 workers, and
	// makebearoff (cubeful, its default; cubeless-only takes about as
	// long); tiersolve with cube=money takes about 3 times tier.
	tier, gnubg time.Duration
}

var bearoffSizes = []bearoffSize{
	{checkers: 3, level: harness.Quick, peer: true, tier: 50 * time.Millisecond, gnubg: 800 * time.Millisecond},
	{checkers: 4, level: harness.Full, peer: true, tier: 100 * time.Millisecond, gnubg: 600 * time.Millisecond},
	{checkers: 5, level: harness.Full, peer: true, tier: 200 * time.Millisecond, gnubg: 3 * time.Second},
	{checkers: 6, level: harness.Full, peer: true, tier: 400 * time.Millisecond, gnubg: 20 * time.Second},
	{checkers: 8, level: harness.Full, tier: 3 * time.Second},
	{checkers: 10, level: harness.Full, tier: 15 * time.Second},
	{checkers: 12, level: harness.Explicit, tier: 90 * time.Second},
	{checkers: 15, level: harness.Explicit, tier: 20 * time.Minute},
}

// makebearoffPath finds gnubg's makebearoff (Debian package gnubg puts it
// in /usr/games), or "".
func makebearoffPath() string {
	if p, err := exec.LookPath("makebearoff"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/games/makebearoff", "/usr/lib/gnubg/makebearoff"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Bearoff is the suite of the two-sided backgammon bearoff (6 points, 3 to
// 15 checkers a side), solved exactly by tiersolve with all cores, against
// gnubg's makebearoff -t 6xC where that is practical (up to 6 checkers),
// each group comparing the same values: bearoff/6xC the cubeless ones
// (tiersolve against makebearoff -C), bearoff/cube/6xC the cubeless and
// cubeful money ones (tiersolve with cube=money against makebearoff, which
// computes both by default).
func Bearoff() harness.Suite {
	return harness.Suite{
		Name: "bearoff",
		Doc:  "the two-sided bearoff on 6 points, 3 to 15 checkers, against gnubg's makebearoff up to 6, cubeless and cubeful",
		Groups: func(cfg harness.Config) []harness.Group {
			bin := makebearoffPath()
			var gs []harness.Group
			for _, s := range bearoffSizes {
				job := func(cube string) *harness.Job {
					return harness.NewJob("bearoff", bearoffArgs{Checkers: s.checkers, Workers: cfg.Cores, Cube: cube})
				}
				g := harness.Group{ID: fmt.Sprintf("bearoff/6x%d", s.checkers), Table: "bearoff",
					Title: fmt.Sprintf("bearoff, %d checkers on 6 points", s.checkers), Level: s.level, Reference: "tiersolve",
					Params:   map[string]float64{"checkers": float64(s.checkers)},
					Variants: []harness.Variant{workersVariant("tiersolve", results.KindSubject, cfg.Cores, job(""))},
					Estimate: childStart + s.tier}
				if !s.peer {
					gs = append(gs, g)
					continue
				}
				cube := harness.Group{ID: fmt.Sprintf("bearoff/cube/6x%d", s.checkers), Table: "bearoff-cube",
					Title: fmt.Sprintf("bearoff with the cube (money), %d checkers on 6 points", s.checkers), Level: s.level, Reference: "tiersolve-cube",
					Params:   map[string]float64{"checkers": float64(s.checkers)},
					Variants: []harness.Variant{workersVariant("tiersolve-cube", results.KindSubject, cfg.Cores, job("money"))},
					Estimate: 2*childStart + 3*s.tier + s.gnubg}
				if bin == "" {
					g.Skip = "gnubg's makebearoff is not installed (Debian package gnubg)"
					cube.Skip = g.Skip
				}
				t := fmt.Sprintf("6x%d", s.checkers)
				g.Variants = append(g.Variants, harness.Variant{Name: "makebearoff-C", Kind: results.KindPeer, Command: []string{bin, "-t", t, "-C", "-f", "ts.bd"}})
				g.Estimate += childStart + s.gnubg
				cube.Variants = append(cube.Variants, harness.Variant{Name: "makebearoff", Kind: results.KindPeer, Command: []string{bin, "-t", t, "-f", "ts.bd"}})
				gs = append(gs, g, cube)
			}
			return append(gs, matchGroup(cfg))
		},
		Jobs: map[string]harness.JobFunc{"bearoff": harness.JobOf(runBearoff), "bearoff-match": harness.JobOf(runBearoffMatch)},
		Columns: []harness.Column{colPositions, colPositionsPerS, colDBBytes, colPeakRSS,
			{Key: "cube_states", Header: "cube states", Format: "%.0f"}, colStart},
	}
}

// bearoffArgs: reach then solve the bearoff of Checkers on 6 points.
type bearoffArgs struct {
	Checkers int    `json:"checkers"`
	Workers  int    `json:"workers"`
	Cube     string `json:"cube,omitempty"` // "money": also the cubeful planes
}

func runBearoff(ctx context.Context, env harness.JobEnv, a bearoffArgs) (harness.Sample, error) {
	option := fmt.Sprintf("checkers=%d,points=6", a.Checkers)
	if a.Cube != "" {
		option += ",cube=" + a.Cube
	}
	return runSolve(ctx, env, solveArgs{Game: "bearoff", Option: option, Workers: a.Workers})
}

// matchGroup is bearoff/match/6x6: a match-play query at a new score, the
// exact match winning chances of every cube state of every position the
// 6-checker start reaches (all 853,776, both players on roll) with gnubg's
// default table, at a 7-point score and at the longest the table covers
// (25-away each, the most cube states), all cores.
func matchGroup(cfg harness.Config) harness.Group {
	g := harness.Group{ID: "bearoff/match/6x6", Table: "bearoff-match", Title: "bearoff, match play at a new score, 6 checkers on 6 points",
		Level: harness.Full, Reference: "5-3-of-7", Estimate: 2 * (childStart + 2*time.Second)}
	for _, v := range []bearoffMatchArgs{{Checkers: 6, Length: 7, Away: [2]int{5, 3}}, {Checkers: 6, Length: 25, Away: [2]int{25, 25}}} {
		g.Variants = append(g.Variants, workersVariant(fmt.Sprintf("%d-%d-of-%d", v.Away[0], v.Away[1], v.Length), results.KindSubject,
			cfg.Cores, harness.NewJob("bearoff-match", v)))
	}
	if _, err := os.Stat(met.DefaultFile); err != nil {
		g.Skip = "gnubg's match equity tables are not installed (Debian package gnubg)"
	}
	return g
}

// bearoffMatchArgs: the match winning chances of the positions the start
// of Checkers on 6 points reaches, at a score.
type bearoffMatchArgs struct {
	Checkers int    `json:"checkers"`
	Length   int    `json:"length"`
	Away     [2]int `json:"away"`
}

func runBearoffMatch(ctx context.Context, _ harness.JobEnv, a bearoffMatchArgs) (harness.Sample, error) {
	table, err := met.ReadFile(met.DefaultFile)
	if err != nil {
		return harness.Sample{}, err
	}
	g, err := bearoff.NewGame(a.Checkers, 6)
	if err != nil {
		return harness.Sample{}, err
	}
	start := bearoff.Index(bearoff.Board{5: uint8(a.Checkers)}, 6)
	t0 := time.Now()
	e, err := g.NewMatchEval(ctx, bearoff.MatchOptions{Table: table, Score: bearoff.Score{Length: a.Length, Away: a.Away},
		Boards: [2][]int{{start}, {start}}, Cubes: []bearoff.MatchCube{{Value: 1, Owner: 0}, {Value: 1, Owner: 1}}})
	if err != nil {
		return harness.Sample{}, err
	}
	secs := time.Since(t0).Seconds()
	d, err := e.Decision(0, start, start, bearoff.MatchCube{Value: 1, Owner: -1})
	if err != nil {
		return harness.Sample{}, err
	}
	n := float64(g.Sides()) * float64(g.Sides())
	return harness.Sample{Seconds: secs,
		Metrics: map[string]float64{"positions": n, "positions_per_s": perSecond(n, secs), "cube_states": float64(len(e.States()))},
		Facts:   map[string]string{"start": fmt.Sprintf("%s, match winning chance %.6f", d.Action, d.Optimal)}}, nil
}
