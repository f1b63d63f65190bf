package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
)

// randGame is a random tier game for testing the solver on what the
// bundled games lack: Quixo 3x3 has no ties and no draws, Connect Four
// and tic-tac-toe have no loopy tiers. Each tier has a random hash space;
// each position is primitive (a win, loss or tie) or has a few random
// moves, some repeated, into its own tier when the tier is loopy and into
// later tiers. Format and Parse use "tier:hash".
type randGame struct {
	option   string
	start    tiergame.Position // in tier 0
	sizes    []uint64
	loopy    []bool
	childT   [][]tiergame.Tier // ChildTiers, without the tier itself
	prim     [][]tiergame.Value
	kids     [][][]tiergame.Child
	parentsO map[tiergame.Child][]tiergame.Child // reverse moves, for Parents
}

var _ tiergame.Game = (*randGame)(nil)

func newRandGame(seed uint64) *randGame {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	nt := 2 + rng.IntN(5)
	g := &randGame{option: fmt.Sprintf("seed=%d", seed)}
	primP := 0.05 + 0.35*rng.Float64() // how often a position is primitive
	for t := 0; t < nt; t++ {
		g.sizes = append(g.sizes, uint64(20+rng.IntN(300)))
		g.loopy = append(g.loopy, rng.Float64() < 0.7)
		var cs []tiergame.Tier
		for c := t + 1; c < nt; c++ {
			if rng.Float64() < 0.5 {
				cs = append(cs, tiergame.Tier(c))
			}
		}
		g.childT = append(g.childT, cs)
	}
	for t := 0; t < nt; t++ {
		targets := slices.Clone(g.childT[t])
		if g.loopy[t] {
			targets = append(targets, tiergame.Tier(t))
		}
		prim := make([]tiergame.Value, g.sizes[t])
		kids := make([][]tiergame.Child, g.sizes[t])
		for p := range prim {
			if len(targets) == 0 || rng.Float64() < primP {
				prim[p] = []tiergame.Value{tiergame.Win, tiergame.Lose, tiergame.Lose, tiergame.Tie}[rng.IntN(4)]
				continue
			}
			for range 1 + rng.IntN(4) {
				ct := targets[rng.IntN(len(targets))]
				c := tiergame.Child{Tier: ct, Pos: tiergame.Position(rng.Uint64N(g.sizes[ct]))}
				if rng.Float64() < 0.1 && len(kids[p]) > 0 {
					c = kids[p][0] // a repeated move
				}
				kids[p] = append(kids[p], c)
			}
		}
		g.prim = append(g.prim, prim)
		g.kids = append(g.kids, kids)
	}
	g.indexParents()
	return g
}

// indexParents fills parentsO from the moves.
func (g *randGame) indexParents() {
	g.parentsO = map[tiergame.Child][]tiergame.Child{}
	for t, kids := range g.kids {
		for p, cs := range kids {
			q := tiergame.Child{Tier: tiergame.Tier(t), Pos: tiergame.Position(p)}
			for _, c := range cs {
				if !slices.Contains(g.parentsO[c], q) {
					g.parentsO[c] = append(g.parentsO[c], q)
				}
			}
		}
	}
}

func (g *randGame) Name() string                              { return "randgame" }
func (g *randGame) Option() string                            { return g.option }
func (g *randGame) Start() (tiergame.Tier, tiergame.Position) { return 0, g.start }
func (g *randGame) TierName(t tiergame.Tier) string           { return fmt.Sprintf("t%d", t) }
func (g *randGame) Format(t tiergame.Tier, p tiergame.Position) string {
	return fmt.Sprintf("%d:%d", t, p)
}

func (g *randGame) TierSize(t tiergame.Tier) uint64 {
	if int(t) >= len(g.sizes) {
		return 0
	}
	return g.sizes[t]
}

func (g *randGame) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	cs := slices.Clone(g.childT[t])
	if g.loopy[t] {
		cs = append(cs, t)
	}
	return cs
}

func (g *randGame) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if v := g.prim[t][p]; v != tiergame.Undecided {
		return v, dst
	}
	return tiergame.Undecided, append(dst, g.kids[t][p]...)
}

func (g *randGame) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	var t, p uint64
	if _, err := fmt.Sscanf(s, "%d:%d", &t, &p); err != nil {
		return 0, 0, err
	}
	if t >= uint64(len(g.sizes)) || p >= g.sizes[t] {
		return 0, 0, fmt.Errorf("randgame: %q out of range", s)
	}
	return tiergame.Tier(t), tiergame.Position(p), nil
}

// randUnmover is randGame with tiergame.Unmover. Its Parents lists parents
// whether or not they are reachable, as the interface allows.
type randUnmover struct{ *randGame }

func (g randUnmover) Parents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	for _, q := range g.parentsO[tiergame.Child{Tier: t, Pos: p}] {
		if q.Tier == pt {
			dst = append(dst, q.Pos)
		}
	}
	return dst
}

// reference solves the positions reachable from the start with refGraph.
func (g *randGame) reference() []refPos {
	nodes, rg := exploreRef(tiergame.Child{Pos: g.start},
		func(n tiergame.Child) tiergame.Value { return g.prim[n.Tier][n.Pos] },
		func(n tiergame.Child) []tiergame.Child { return g.kids[n.Tier][n.Pos] })
	recs := rg.solve()
	out := make([]refPos, len(nodes))
	for i, n := range nodes {
		out[i] = refPos{g.Format(n.Tier, n.Pos), n.Tier, recs[i]}
	}
	return out
}

// TestRandomGamesAgainstReference solves random tier games with loopy and
// loop-free tiers, ties and draws, with and without the game's parents,
// on one and on two workers, and compares every reachable position with
// the reference; Verify must find the runs clean. TIERSOLVE_LONG=1 runs
// 300 games.
func TestRandomGamesAgainstReference(t *testing.T) {
	seeds := 20
	switch {
	case longTests():
		seeds = 300
	case testing.Short() || race.Enabled:
		seeds = 8
	}
	var byValue [5]int
	var loopyTies, loopyDraws, loopyLoses int
	for seed := range uint64(seeds) {
		g := newRandGame(seed)
		ref := g.reference()
		for _, p := range ref {
			byValue[p.rec.v]++
			if g.loopy[p.tier] {
				switch p.rec.v {
				case tiergame.Tie:
					loopyTies++
				case tiergame.Draw:
					loopyDraws++
				case tiergame.Lose:
					loopyLoses++
				}
			}
		}
		for i, cfg := range []Config{
			{Workers: 1, Ranges: 1},
			{Workers: 2, Ranges: 5},
			{Workers: 2, Ranges: 3, ReverseIndex: true},
		} {
			var game tiergame.Game = g
			if i != 1 {
				game = randUnmover{g}
			}
			t.Run(fmt.Sprintf("seed%d/cfg%d", seed, i), func(t *testing.T) {
				r := solvedRun(t, reopen(t, game, t.TempDir(), cfg))
				checkVerifies(t, r, uint64(len(ref)))
				checkAgainstRef(t, r, slices.Values(ref))
			})
		}
	}
	t.Logf("%d games: %d win, %d lose, %d tie, %d draw; in loopy tiers %d lose, %d tie, %d draw",
		seeds, byValue[tiergame.Win], byValue[tiergame.Lose], byValue[tiergame.Tie], byValue[tiergame.Draw], loopyLoses, loopyTies, loopyDraws)
	if loopyTies == 0 || loopyDraws == 0 || loopyLoses == 0 {
		t.Errorf("the random games do not cover loopy ties, draws and losses")
	}
}

// TestLoopySameLevelCandidates is the smallest case of a bug the random
// games found. Tier 0 is loopy, tier 1 holds primitive positions. P (the
// start, hash 1) has a move to a primitive position of tier 1 and a move
// to Q (hash 0) in its own tier:
//
//   - win: P's tier-1 child is lost (remoteness 0), so P is a win in 1;
//     Q's only move reaches a primitive win, so Q is a loss in 1.
//   - tie: P's and Q's tier-1 children are primitive ties, so both are
//     ties in 1.
//
// The retrograde solver queues P as a candidate at level 1 and Q as a
// decided position at level 1, Q first (rank order). Processing Q gives
// its parent P a value at level 2 before P's candidate entry is reached,
// so P is stored as a win (tie) in 2 instead of 1.
func TestLoopySameLevelCandidates(t *testing.T) {
	for _, tc := range []struct {
		name           string
		pChild, qChild tiergame.Value // primitive values in tier 1
		wantP, wantQ   refRec
	}{
		{"win", tiergame.Lose, tiergame.Win, refRec{tiergame.Win, 1}, refRec{tiergame.Lose, 1}},
		{"tie", tiergame.Tie, tiergame.Tie, refRec{tiergame.Tie, 1}, refRec{tiergame.Tie, 1}},
	} {
		g := &randGame{
			option: "case=" + tc.name,
			start:  1,
			sizes:  []uint64{2, 2},
			loopy:  []bool{true, false},
			childT: [][]tiergame.Tier{{1}, nil},
			prim: [][]tiergame.Value{
				{tiergame.Undecided, tiergame.Undecided},
				{tc.pChild, tc.qChild},
			},
			kids: [][][]tiergame.Child{
				{
					{{Tier: 1, Pos: 1}},                    // Q
					{{Tier: 1, Pos: 0}, {Tier: 0, Pos: 0}}, // P
				},
				{nil, nil},
			},
		}
		g.indexParents()
		ref := g.reference()
		if ref[0].rec != tc.wantP || ref[2].rec != tc.wantQ {
			t.Fatalf("%s: reference P %v, Q %v", tc.name, ref[0].rec, ref[2].rec)
		}
		for _, game := range []tiergame.Game{g, randUnmover{g}} {
			_, unmover := game.(tiergame.Unmover)
			t.Run(fmt.Sprintf("%s/unmover=%v", tc.name, unmover), func(t *testing.T) {
				r := solvedRun(t, reopen(t, game, t.TempDir(), Config{Workers: 1}))
				checkVerifies(t, r, uint64(len(ref)))
				checkAgainstRef(t, r, slices.Values(ref))
			})
		}
	}
}

// checkVerifies checks that Verify finds a solved run of n positions
// clean: a correct solution is a fixed point of the rules.
func checkVerifies(t *testing.T, r *Run, n uint64) {
	t.Helper()
	rep, err := r.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Positions != n {
		t.Errorf("Verify: %d positions (want %d), %d mismatches %v, file errors %v", rep.Positions, n, rep.Mismatches, rep.Examples, rep.FileErrors)
	}
}
