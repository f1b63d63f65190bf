package suites

import (
	"context"
	"runtime"
	"strings"
	"time"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/tiersolve/tiersolve/bench/baseline/connect4memo"
	"github.com/tiersolve/tiersolve/bench/internal/chart"
	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/bench/internal/workload"
)

// gameSize is one bundled game variant the games suite solves.
type gameSize struct {
	game, option string
	name         string // in the group ID: "connect4-5x4"
	level        harness.Level
	// onlySymmetry: solve with one position per symmetry class only
	// (the game does not fit this machine in full).
	onlySymmetry bool
	// memo: also time the memoized Connect Four baseline (width, height).
	memo bool
	// symmetry: also time tiersolve with --symmetry (one position per
	// symmetry class) in the group's rounds, as "tiersolve-symmetry", for
	// peers that solve canonical positions only.
	symmetry bool
	// rules: also time tiersolve with option rules=chessdb (xiangqi's
	// perpetual check and chase) in the group's rounds, as
	// "tiersolve-rules", beside the same run without the rules.
	rules         bool
	width, height int
	// estimate of tiersolve's reach+solve with 2 workers, and of the
	// memo baseline, on the reference machine (measured 2026-11-23, after
	// the game kernels' cursors).
	tier, memoTime time.Duration
}

var gameSizes = []gameSize{
	{game: "tictactoe", name: "tictactoe", level: harness.Quick, tier: 50 * time.Millisecond},
	{game: "connect4", option: "width=4,height=4", name: "connect4-4x4", level: harness.Quick,
		memo: true, width: 4, height: 4, tier: 100 * time.Millisecond, memoTime: 200 * time.Millisecond},
	{game: "connect4", option: "width=5,height=4", name: "connect4-5x4", level: harness.Quick,
		memo: true, width: 5, height: 4, tier: 500 * time.Millisecond, memoTime: 2500 * time.Millisecond},
	{game: "connect4", option: "width=5,height=5", name: "connect4-5x5", level: harness.Full,
		memo: true, width: 5, height: 5, tier: 6 * time.Second, memoTime: 70 * time.Second},
	{game: "connect4", option: "width=6,height=4", name: "connect4-6x4", level: harness.Full,
		tier: 8 * time.Second},
	{game: "connect4", option: "width=6,height=5", name: "connect4-6x5", level: harness.Explicit,
		tier: 150 * time.Second},
	{game: "quixo", option: "size=3", name: "quixo-3x3", level: harness.Quick, tier: 500 * time.Millisecond},
	{game: "quixo", option: "size=4", name: "quixo-4x4", level: harness.Full, tier: 30 * time.Second},
	// Xiangqi endgames, each with its sub-endgames; Felicity EGTB's
	// generator is the peer (--peer felicity@games/xiangqi-KRNvKAABB=...).
	{game: "xiangqi", option: "material=KRvKAB", name: "xiangqi-KRvKAB", level: harness.Quick, tier: 300 * time.Millisecond},
	{game: "xiangqi", option: "material=KRNvKA", name: "xiangqi-KRNvKA", level: harness.Full, tier: 5 * time.Second},
	{game: "xiangqi", option: "material=KRNvKAABB", name: "xiangqi-KRNvKAABB", level: harness.Explicit, tier: 4 * time.Minute},
	// Under the rules and without them; xiangqitb (ChessDB's generator,
	// its sub-tables included) is the peer:
	// --peer 'xiangqitb@games/xiangqi-KRNvKRA=sh /path/to/tools/xiangqitb-dump/gen.sh KRNKRA'.
	{game: "xiangqi", option: "material=KRvKNN", name: "xiangqi-KRvKNN", level: harness.Explicit, rules: true, tier: 40 * time.Second},
	{game: "xiangqi", option: "material=KRNvKRA", name: "xiangqi-KRNvKRA", level: harness.Explicit, rules: true, tier: 4 * time.Minute},
	// Teeko, in full and with --symmetry; GamesmanOne 1.3.0 is the peer
	// (--peer 'gamesmanone@games/teeko=gamesman --force solve teeko 0'),
	// which always solves canonical positions only.
	{game: "teeko", name: "teeko", level: harness.Explicit, symmetry: true, tier: 70 * time.Second},
	// Dōbutsu shōgi: smaller variants, and the full game with --symmetry
	// (about 14 GiB; in full it needs about 30); GamesmanOne 1.3.0 is its
	// peer (--peer 'gamesmanone@games/dshogi=gamesman --force solve dshogi 0',
	// value iteration over every legal hash: a day or more here).
	{game: "dshogi", option: "pieces=LC", name: "dshogi-LC", level: harness.Full, tier: 200 * time.Millisecond},
	{game: "dshogi", option: "pieces=LGE", name: "dshogi-LGE", level: harness.Full, tier: 4 * time.Second},
	{game: "dshogi", name: "dshogi", level: harness.Explicit, onlySymmetry: true, tier: 2 * time.Hour},
}

// solve is the solve job of the game size with w workers.
func (s gameSize) solve(w int, symmetry bool) solveArgs {
	return solveArgs{Game: s.game, Option: s.option, Workers: w, Symmetry: symmetry}
}

// Games is the reach-and-solve suite: every bundled game and size, solved
// by tiersolve with all cores, against the memoized baseline where there
// is one, and against the peers given with --peer NAME@games/SIZE=COMMAND.
func Games() harness.Suite {
	return harness.Suite{
		Name:    "games",
		Doc:     "reach and solve every bundled game and size, against the memoized Connect Four baseline and --peer programs",
		Groups:  groupEach(gameSizes, gamesGroup),
		Jobs:    map[string]harness.JobFunc{"solve": harness.JobOf(runSolve), "memo": harness.JobOf(runMemo)},
		Columns: []harness.Column{colReachS, colSolveS, colPositions, colPositionsPerS, colCPUS, colPeakRSS, colStart},
		Charts:  gamesCharts,
	}
}

// gamesGroup is games/SIZE: the game size solved by tiersolve with all
// cores, against the baselines it has.
func gamesGroup(s gameSize, cfg harness.Config) harness.Group {
	title := strings.TrimSpace(s.game + " " + s.option)
	if s.onlySymmetry {
		title += " --symmetry"
	}
	g := harness.Group{ID: "games/" + s.name, Table: "solve", Title: title,
		Level: s.level, Reference: "tiersolve",
		Variants: []harness.Variant{solveVariant("tiersolve", results.KindSubject, s.solve(cfg.Cores, s.onlySymmetry))},
		Estimate: childStart + s.tier}
	if s.symmetry {
		g.Variants = append(g.Variants, solveVariant("tiersolve-symmetry", results.KindSubject, s.solve(cfg.Cores, true)))
		g.Estimate += childStart + s.tier/2
	}
	if s.rules {
		r := s.solve(cfg.Cores, false)
		r.Option += ",rules=chessdb"
		g.Variants = append(g.Variants, solveVariant("tiersolve-rules", results.KindSubject, r))
		g.Estimate += childStart + 3*s.tier
	}
	if s.memo {
		g.Variants = append(g.Variants, workersVariant("memo", results.KindBaseline, 1, harness.NewJob("memo", memoArgs{s.width, s.height})))
		g.Estimate += childStart + s.memoTime
	}
	return g
}

// solveArgs: reach then solve Game with Option in a fresh folder.
type solveArgs struct {
	Game     string `json:"game"`
	Option   string `json:"option"`
	Workers  int    `json:"workers"`
	Symmetry bool   `json:"symmetry,omitempty"`
	// Cores, when set, limits the child process to that many cores
	// (GOMAXPROCS), garbage collector and background writes included:
	// without it one worker still keeps more than one core busy.
	Cores int `json:"cores,omitempty"`
}

// memoArgs: the memoized baseline on a Width x Height board.
type memoArgs struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

func runSolve(ctx context.Context, env harness.JobEnv, a solveArgs) (harness.Sample, error) {
	if a.Cores > 0 {
		runtime.GOMAXPROCS(a.Cores) // the job runs in a child process of its own
	}
	cpu0 := harness.CPUSeconds()
	st, err := workload.Run(ctx, workload.Spec{Game: a.Game, Option: a.Option, Workers: a.Workers, Symmetry: a.Symmetry}, env.Dir, true)
	if err != nil {
		return harness.Sample{}, err
	}
	cpu := harness.CPUSeconds() - cpu0
	total := (st.Reach + st.Solve).Seconds()
	n := float64(st.Positions)
	return harness.Sample{Seconds: total,
		Metrics: map[string]float64{"reach_s": st.Reach.Seconds(), "solve_s": st.Solve.Seconds(), "positions": n,
			"positions_per_s": perSecond(n, total), "level_bytes": float64(st.LevelBytes), "db_bytes": float64(st.DBBytes), "cpu_s": cpu},
		Facts: map[string]string{"start": st.Start}}, nil
}

func runMemo(_ context.Context, _ harness.JobEnv, a memoArgs) (harness.Sample, error) {
	t0 := time.Now()
	r, err := connect4memo.Solve(a.Width, a.Height)
	if err != nil {
		return harness.Sample{}, err
	}
	sec := time.Since(t0).Seconds()
	n := float64(r.Positions)
	return harness.Sample{Seconds: sec,
		Metrics: map[string]float64{"solve_s": sec, "positions": n, "positions_per_s": perSecond(n, sec)},
		Facts:   map[string]string{"start": r.Start.String()}}, nil
}

// gamesCharts: the time of each game size by solver, peers included.
func gamesCharts(groups []results.Group) []chart.Chart {
	var cats []string
	var set chart.SeriesSet
	for _, g := range groups {
		if g.Skipped != "" || len(g.Variants) == 0 {
			continue
		}
		x := float64(len(cats))
		cats = append(cats, strings.Replace(strings.TrimPrefix(g.ID, "games/"), "-", "\n", 1))
		for _, v := range g.Variants {
			if v.Seconds.N > 0 {
				set.Add(v.Name, x, v.Seconds)
			}
		}
	}
	if len(cats) == 0 {
		return nil
	}
	// tiersolve first, then the baselines and peers by name.
	series := set.Series(func(a, b string) int {
		if (a == "tiersolve") != (b == "tiersolve") {
			if a == "tiersolve" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	p := chart.Dots(chart.Axes{Title: "reach + solve, wall time per game (median; bars: min–max)", Y: "seconds", LogY: true},
		cats, series)
	return []chart.Chart{{Name: "games-time", Title: "time per game and size: tiersolve against the baselines and peers",
		Plots: [][]*gplot.Plot{{p}}, Width: vg.Length(max(5, 0.8*float64(len(cats)))) * vg.Inch}}
}
