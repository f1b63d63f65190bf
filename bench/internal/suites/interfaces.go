package suites

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/examples/dodgem"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// ifaceGroup is one comparison of the interfaces suite: a game solved
// with and without an optional interface of package tiergame.
type ifaceGroup struct {
	name         string // "quixo-4x4/cursor"
	game, option string
	title        string
	level        harness.Level
	variants     []ifaceVariant // the first is the reference
	// estimate of one round, all variants, on an idle machine.
	estimate time.Duration
}

// ifaceVariant is a contender of an interfaces group.
type ifaceVariant struct {
	name string
	args ifaceArgs // Game, Option and Workers are filled in
}

// The cursor settings of ifaceArgs.Cursor.
const (
	cursorNative  = ""        // the game's own cursor, whatever it implements
	cursorByTier  = "bytier"  // a ByTierCursor, not a CountingCursor
	cursorMoves   = "moves"   // a Cursor with Moves only
	cursorNone    = "none"    // no CursorGame: Game.Moves position by position
	cursorNoCanon = "nocanon" // the cursor without its canonical methods (and no CanonicalUnmover)
)

// The comparisons the groups make, each the interface (the reference)
// against the game without it.
var (
	unmoverVariants  = []ifaceVariant{{"parents", ifaceArgs{}}, {"reverse-index", ifaceArgs{ReverseIndex: true}}}
	symmetryVariants = []ifaceVariant{{"full", ifaceArgs{}}, {"symmetry", ifaceArgs{Symmetry: true}}}
	// cursorVariants: a game whose cursor moves by tier, against a
	// cursor with Moves only and against no cursor.
	cursorVariants = []ifaceVariant{{"bytier", ifaceArgs{}}, {"cursor", ifaceArgs{Cursor: cursorMoves}}, {"moves", ifaceArgs{Cursor: cursorNone}}}
)

var ifaceGroups = []ifaceGroup{
	{name: "dodgem-4x4/unmover", game: "dodgem", option: "size=4", title: "Dodgem 4x4: Parents against the reverse index",
		level: harness.Full, estimate: 3 * time.Second, variants: unmoverVariants},
	{name: "connect4-5x5/cursor", game: "connect4", option: "width=5,height=5", title: "Connect Four 5x5: cursors",
		level: harness.Full, estimate: 20 * time.Second, variants: cursorVariants},
	{name: "connect4-5x5/symmetry", game: "connect4", option: "width=5,height=5", title: "Connect Four 5x5: --symmetry",
		level: harness.Full, estimate: 8 * time.Second, variants: symmetryVariants},
	{name: "xiangqi-KRNvKA/cursor", game: "xiangqi", option: "material=KRNvKA", title: "xiangqi KRNvKA: cursors",
		level: harness.Full, estimate: 60 * time.Second, variants: []ifaceVariant{
			{"counting", ifaceArgs{}}, {"bytier", ifaceArgs{Cursor: cursorByTier}}, {"cursor", ifaceArgs{Cursor: cursorMoves}},
			{"moves", ifaceArgs{Cursor: cursorNone}}}},
	{name: "xiangqi-KRNvKA/unmover", game: "xiangqi", option: "material=KRNvKA", title: "xiangqi KRNvKA: Parents against the reverse index",
		level: harness.Full, estimate: 20 * time.Second, variants: unmoverVariants},
	{name: "xiangqi-KRNvKA/symmetry", game: "xiangqi", option: "material=KRNvKA", title: "xiangqi KRNvKA: --symmetry",
		level: harness.Full, estimate: 15 * time.Second, variants: symmetryVariants},
	{name: "bearoff-6x8/kernel", game: "bearoff", option: "checkers=8,points=6", title: "bearoff 6x8: the chance kernel",
		level: harness.Full, estimate: 30 * time.Second, variants: []ifaceVariant{
			{"kernel", ifaceArgs{}}, {"no-kernel", ifaceArgs{NoKernel: true}}}},
	{name: "bearoff-6x8/exhaustive", game: "bearoff", option: "checkers=8,points=6", title: "bearoff 6x8: Exhaustive against exploring from the start",
		level: harness.Full, estimate: 20 * time.Second, variants: []ifaceVariant{
			{"exhaustive", ifaceArgs{}}, {"explored", ifaceArgs{NotExhaustive: true}}}},
	{name: "quixo-4x4/cursor", game: "quixo", option: "size=4", title: "Quixo 4x4: cursors",
		level: harness.Explicit, estimate: 3 * time.Minute, variants: cursorVariants},
	{name: "quixo-4x4/unmover", game: "quixo", option: "size=4", title: "Quixo 4x4: Parents against the reverse index",
		level: harness.Explicit, estimate: 90 * time.Second, variants: unmoverVariants},
	{name: "quixo-4x4/symmetry", game: "quixo", option: "size=4", title: "Quixo 4x4: --symmetry, with and without the canonical cursor and un-moves",
		level: harness.Explicit, estimate: 90 * time.Second, variants: append(slices.Clone(symmetryVariants),
			ifaceVariant{"symmetry-nocanon", ifaceArgs{Symmetry: true, Cursor: cursorNoCanon}})},
}

// Interfaces is the suite of the optional interfaces of package
// tiergame: each group solves a game with an interface and without it
// (the game wrapped so that the solver does not find it, or
// solver.Config.ReverseIndex), interleaved in every round, with all
// cores. Its time is the CPU time (user + system) of the run, not the
// wall time: the figures are meant for a shared, busy machine, where CPU
// time is the steadier measure of work; the wall time is a column.
func Interfaces() harness.Suite {
	return harness.Suite{
		Name:   "interfaces",
		Doc:    "what each optional tiergame interface buys: a game solved with and without it, in CPU seconds (user+sys), all cores",
		Groups: groupEach(ifaceGroups, interfacesGroup),
		Jobs:   map[string]harness.JobFunc{"solve": harness.JobOf(runIface)},
		Columns: []harness.Column{
			{Key: "reach_cpu_s", Header: "reach CPU s", Format: "%.3g"},
			{Key: "solve_cpu_s", Header: "solve CPU s", Format: "%.3g"},
			{Key: "wall_s", Header: "wall s", Format: "%.3g"},
			colPositions, colPeakRSS, colStart,
		},
	}
}

// interfacesGroup is interfaces/NAME: the comparison's variants, all cores.
func interfacesGroup(s ifaceGroup, cfg harness.Config) harness.Group {
	g := harness.Group{ID: "interfaces/" + s.name, Table: "interfaces", Title: s.title, Level: s.level,
		Reference: s.variants[0].name, Estimate: s.estimate}
	for _, v := range s.variants {
		a := v.args
		a.Game, a.Option, a.Workers = s.game, s.option, cfg.Cores
		g.Variants = append(g.Variants, workersVariant(v.name, results.KindSubject, cfg.Cores, harness.NewJob("solve", a)))
		g.Estimate += childStart
	}
	return g
}

// ifaceArgs: reach then solve Game with Option in a fresh folder, with
// the game's optional interfaces as they are or some of them hidden.
type ifaceArgs struct {
	Game    string `json:"game"`
	Option  string `json:"option"`
	Workers int    `json:"workers"`
	// Cursor is one of the cursor settings (cursorNative, ...).
	Cursor        string `json:"cursor,omitempty"`
	ReverseIndex  bool   `json:"reverse_index,omitempty"`
	Symmetry      bool   `json:"symmetry,omitempty"`
	NoKernel      bool   `json:"no_kernel,omitempty"`      // hide tiergame.ChanceKernel
	NotExhaustive bool   `json:"not_exhaustive,omitempty"` // hide tiergame.Exhaustive: explore from the start
}

// ifaceGames are the bundled games and the guide's example.
var ifaceGames = games.Default().With(dodgem.Spec)

func runIface(ctx context.Context, env harness.JobEnv, a ifaceArgs) (harness.Sample, error) {
	g, err := ifaceGames.New(a.Game, a.Option)
	if err != nil {
		return harness.Sample{}, err
	}
	if g, err = hide(g, a); err != nil {
		return harness.Sample{}, err
	}
	run, err := solver.Open(solver.Config{Game: g, Dir: env.Dir, Workers: a.Workers, Symmetry: a.Symmetry, ReverseIndex: a.ReverseIndex})
	if err != nil {
		return harness.Sample{}, err
	}
	defer run.Close()
	t0, cpu0 := time.Now(), harness.CPUSeconds()
	if err := run.Reach(ctx); err != nil {
		return harness.Sample{}, err
	}
	cpu1 := harness.CPUSeconds()
	if err := run.Solve(ctx); err != nil {
		return harness.Sample{}, err
	}
	wall, cpu2 := time.Since(t0).Seconds(), harness.CPUSeconds()
	m := run.Manifest
	start := ""
	switch {
	case m.Start != nil && m.Start.Win != nil:
		start = fmt.Sprintf("win %.6f", *m.Start.Win)
	case m.Start != nil:
		start = m.Start.String()
	}
	return harness.Sample{Seconds: cpu2 - cpu0,
		Metrics: map[string]float64{"reach_cpu_s": cpu1 - cpu0, "solve_cpu_s": cpu2 - cpu1, "wall_s": wall, "positions": float64(m.Total)},
		Facts:   map[string]string{"start": start}}, nil
}

// hide returns g with the interfaces a asks to hide hidden: a wrapper
// that keeps what the solver needs of g to solve the same positions
// (its un-moves, legality, exhaustiveness, chance) and drops the rest.
func hide(g tiergame.Game, a ifaceArgs) (tiergame.Game, error) {
	if a.Cursor == cursorNative && !a.NoKernel && !a.NotExhaustive {
		return g, nil
	}
	var cur func(tiergame.Tier) tiergame.Cursor // nil: no CursorGame
	if cg, ok := g.(tiergame.CursorGame); ok {
		switch a.Cursor {
		case cursorNative:
			cur = cg.Cursor
		case cursorByTier, cursorNoCanon:
			cur = func(t tiergame.Tier) tiergame.Cursor { return byTierOnly{cg.Cursor(t).(tiergame.ByTierCursor)} }
		case cursorMoves:
			cur = func(t tiergame.Tier) tiergame.Cursor { return movesOnly{cg.Cursor(t)} }
		case cursorNone:
		default:
			return nil, fmt.Errorf("cursor %q: want one of bytier, moves, none, nocanon", a.Cursor)
		}
	}
	um, unmoves := g.(tiergame.Unmover)
	sym, symmetric := g.(tiergame.Symmetric)
	ch, chance := g.(tiergame.Chance)
	lg, legality := g.(tiergame.Legality)
	switch {
	case chance && a.NoKernel:
		return chanceGame{g, ch}, nil
	case chance && a.NotExhaustive:
		return kernelGame{g, ch, g.(tiergame.ChanceKernel)}, nil
	case chance:
		return nil, fmt.Errorf("%s: only the kernel or exhaustiveness can be hidden", g.Name())
	case a.NoKernel || a.NotExhaustive:
		return nil, fmt.Errorf("%s has no chance", g.Name())
	case tiergame.IsExhaustive(g) && legality && unmoves && tiergame.HasWholeTiers(g):
		return tableGame{g, um, lg, cur}, nil
	case tiergame.IsExhaustive(g):
		return nil, fmt.Errorf("%s: no wrapper for this exhaustive game", g.Name())
	case a.Symmetry && symmetric && unmoves:
		return symmetricUnmover{g, um, sym, cur}, nil
	case a.Symmetry:
		return nil, fmt.Errorf("%s: no wrapper for this symmetric game", g.Name())
	case unmoves:
		return unmover{g, um, cur}, nil
	}
	return plain{g, cur}, nil
}

// movesOnly is a cursor with its Moves only.
type movesOnly struct{ c tiergame.Cursor }

func (c movesOnly) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	return c.c.Moves(p, dst)
}

// byTierOnly is a ByTierCursor that counts nothing and has no canonical
// moves.
type byTierOnly struct{ c tiergame.ByTierCursor }

func (c byTierOnly) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	return c.c.Moves(p, dst)
}

func (c byTierOnly) MovesByTier(p tiergame.Position, dst [][]tiergame.Position) tiergame.Value {
	return c.c.MovesByTier(p, dst)
}

// plain is a game with its Moves and, if cur is set, a cursor.
type plain struct {
	tiergame.Game
	cur func(tiergame.Tier) tiergame.Cursor
}

// unmover is a game with its un-moves.
type unmover struct {
	tiergame.Game
	tiergame.Unmover
	cur func(tiergame.Tier) tiergame.Cursor
}

// symmetricUnmover is a symmetric game with its un-moves, without
// CanonicalUnmover.
type symmetricUnmover struct {
	tiergame.Game
	tiergame.Unmover
	tiergame.Symmetric
	cur func(tiergame.Tier) tiergame.Cursor
}

// tableGame is an exhaustive game of whole tiers (xiangqi's endgames).
type tableGame struct {
	tiergame.Game
	tiergame.Unmover
	tiergame.Legality
	cur func(tiergame.Tier) tiergame.Cursor
}

func (tableGame) Exhaustive() bool { return true }
func (tableGame) WholeTiers() bool { return true }

// chanceGame is an exhaustive chance game without its kernel.
type chanceGame struct {
	tiergame.Game
	tiergame.Chance
}

func (chanceGame) Exhaustive() bool { return true }

// kernelGame is a chance game with its kernel, not exhaustive.
type kernelGame struct {
	tiergame.Game
	tiergame.Chance
	tiergame.ChanceKernel
}

// The wrappers are CursorGames: their cursor is the game's as hide
// wrapped it, or with a nil cur one that calls Game.Moves, which is what
// the solver does for a game without cursors (tiergame.NewCursor).
func (g plain) Cursor(t tiergame.Tier) tiergame.Cursor            { return cursorOf(g.Game, g.cur, t) }
func (g unmover) Cursor(t tiergame.Tier) tiergame.Cursor          { return cursorOf(g.Game, g.cur, t) }
func (g symmetricUnmover) Cursor(t tiergame.Tier) tiergame.Cursor { return cursorOf(g.Game, g.cur, t) }
func (g tableGame) Cursor(t tiergame.Tier) tiergame.Cursor        { return cursorOf(g.Game, g.cur, t) }

// cursorOf is cur's cursor over t, or one that calls g.Moves.
func cursorOf(g tiergame.Game, cur func(tiergame.Tier) tiergame.Cursor, t tiergame.Tier) tiergame.Cursor {
	if cur == nil {
		return gameMoves{g, t}
	}
	return cur(t)
}

// gameMoves is a cursor that calls Game.Moves, as the solver's own
// fallback for a game without cursors does.
type gameMoves struct {
	g tiergame.Game
	t tiergame.Tier
}

func (c gameMoves) Moves(p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	return c.g.Moves(c.t, p, dst)
}
