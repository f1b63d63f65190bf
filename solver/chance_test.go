package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/solver/chance"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// diceRace is a small game with chance for the solver's own tests: each of
// two players has a distance left to go; the player to move rolls a die
// of sides faces (weights 1, 2, 3, ...) and walks either the roll or one
// step; whoever reaches 0 first wins. Tier = both distances in all,
// position = the mover's distance; every position with both distances in
// 1..max is a position (distance 0 is never to move: the game is over).
type diceRace struct {
	max, sides int
	loopy      bool // a broken variant whose moves may stay in their tier
}

func (g *diceRace) Name() string   { return "race" }
func (g *diceRace) Option() string { return fmt.Sprintf("max=%d,sides=%d", g.max, g.sides) }
func (g *diceRace) Start() (tiergame.Tier, tiergame.Position) {
	return tiergame.Tier(2 * g.max), tiergame.Position(g.max)
}

// TierSize: a position is the mover's distance itself (the opponent's is
// the tier minus it).
func (g *diceRace) TierSize(t tiergame.Tier) uint64 { return uint64(g.max + 1) }

func (g *diceRace) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	var out []tiergame.Tier
	if g.loopy {
		out = append(out, t)
	}
	for d := 1; d <= g.sides && int(t)-d >= 0; d++ {
		out = append(out, t-tiergame.Tier(d))
	}
	return out
}

func (g *diceRace) TierName(t tiergame.Tier) string { return fmt.Sprintf("%d to go", t) }
func (g *diceRace) Format(t tiergame.Tier, p tiergame.Position) string {
	return fmt.Sprintf("%d:%d", t, p)
}
func (g *diceRace) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	var t, p uint64
	_, err := fmt.Sscanf(s, "%d:%d", &t, &p)
	return tiergame.Tier(t), tiergame.Position(p), err
}

func (g *diceRace) Outcomes() []tiergame.Outcome {
	out := make([]tiergame.Outcome, g.sides)
	for k := range out {
		out[k] = tiergame.Outcome{Name: fmt.Sprint(k + 1), Weight: uint32(k + 1)}
	}
	return out
}

func (g *diceRace) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	v, dst, _ := g.ChanceMoves(t, p, dst, nil)
	return v, dst
}

func (g *diceRace) ChanceMoves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child, ends []int) (tiergame.Value, []tiergame.Child, []int) {
	a, b := int(p), int(t)-int(p) // mover, opponent
	if b <= 0 || a <= 0 {
		return tiergame.Lose, dst, ends // the opponent got home with its last move
	}
	for d := 1; d <= g.sides; d++ {
		for _, step := range []int{d, 1} {
			to := max(0, a-step)
			if g.loopy && step == 1 {
				to = a // stand still: the child stays in the tier
			}
			// The child: the opponent moves, our distance is to.
			dst = append(dst, tiergame.Child{Tier: tiergame.Tier(b + to), Pos: tiergame.Position(b)})
		}
		ends = append(ends, len(dst))
	}
	return tiergame.Undecided, dst, ends
}

// reference is the chance that the mover wins from distances (a, b), in
// float64.
func (g *diceRace) reference(a, b int, memo map[[2]int]float64) float64 {
	if b <= 0 {
		return 0
	}
	if v, ok := memo[[2]int{a, b}]; ok {
		return v
	}
	total, v := 0.0, 0.0
	for d := 1; d <= g.sides; d++ {
		best := 0.0
		for _, step := range []int{d, 1} {
			best = max(best, 1-g.reference(b, max(0, a-step), memo))
		}
		v += float64(d) * best
		total += float64(d)
	}
	memo[[2]int{a, b}] = v / total
	return v / total
}

// TestChanceAgainstReference solves the race position by position (it
// has no kernel), checks every reachable position against the float64
// reference, verifies the run, and damages a database for verify to find.
func TestChanceAgainstReference(t *testing.T) {
	g := &diceRace{max: 12, sides: 3}
	dir := filepath.Join(t.TempDir(), "run")
	r := solvedRun(t, reopen(t, g, dir, Config{Workers: 2, Ranges: 3}))
	ctx := context.Background()
	if st := r.Manifest.Start; st == nil || st.Win == nil || st.Value != "chance" || !r.Manifest.Done() {
		t.Fatalf("start record %+v", st)
	}
	o, err := oracle.Open(dir, g)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	memo := map[[2]int]float64{}
	checked := 0
	for tier := 2; tier <= 2*g.max; tier++ {
		for a := 1; a <= g.max; a++ {
			b := tier - a
			if b < 1 || b > g.max {
				continue
			}
			p, err := o.Win(tiergame.Tier(tier), tiergame.Position(a))
			if errors.Is(err, oracle.ErrUnreachable) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := g.reference(a, b, memo); math.Abs(p.Float()-want) > 1e-8 {
				t.Fatalf("(%d, %d): %v, reference %v", a, b, p, want)
			}
			checked++
		}
	}
	if checked < g.max*g.max/2 {
		t.Fatalf("only %d positions checked", checked)
	}
	// The best play of each roll comes first.
	st, sp := g.Start()
	for k := range g.Outcomes() {
		ps, err := o.Plays(st, sp, k)
		if err != nil || len(ps) != 2 || ps[0].Child > ps[1].Child {
			t.Fatalf("plays of roll %d: %+v %v", k+1, ps, err)
		}
	}
	rep, err := r.Verify(ctx)
	if err != nil || !rep.OK() || rep.Positions != r.Manifest.Total {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	// A value changed (and the manifest made to agree) is a mismatch.
	tier := tiergame.Tier(g.max)
	cache := map[tiergame.Tier]*chance.Tier{}
	ct, err := r.loadChance(tier, cache)
	if err != nil {
		t.Fatal(err)
	}
	vals := ct.Values()
	vals[len(vals)/2] ^= 1 // a position that is not certain
	h, err := writeProbsForTest(r, tier, vals)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.recordSolved(tier, r.Manifest.Tier(uint64(tier)), h); err != nil {
		t.Fatal(err)
	}
	rep, err = r.Verify(ctx)
	// The damaged position, and its parents, whose values came from the
	// undamaged one.
	if err != nil || rep.Mismatches == 0 || !rep.Examples[0].Chance || rep.Examples[0].Tier != tier {
		t.Fatalf("verify of a damaged run: %+v %v", rep, err)
	}
}

// TestChanceLoopyRefused: a game with chance whose tiers are loopy is
// refused, not solved wrong.
func TestChanceLoopyRefused(t *testing.T) {
	g := &diceRace{max: 4, sides: 2, loopy: true}
	r, err := Open(Config{Game: g, Dir: filepath.Join(t.TempDir(), "run")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Reach(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Solve(context.Background()); err == nil {
		t.Fatal("a loopy game with chance was solved")
	}
}

// TestSeedsMustMatch: a run resumes with its own seeds, and refuses other
// ones.
func TestSeedsMustMatch(t *testing.T) {
	g := &diceRace{max: 6, sides: 2}
	seeds := filepath.Join(t.TempDir(), "seeds")
	if _, err := reach.WriteSeeds(seeds, g, map[tiergame.Tier][]tiergame.Position{7: {3}}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	r := solvedRun(t, reopen(t, g, dir, Config{Seeds: seeds}))
	if r.Manifest.Start != nil || !r.Manifest.Done() || len(r.Manifest.Seeds) != 1 {
		t.Fatalf("manifest %+v", r.Manifest)
	}
	r.Close()
	r2, err := Open(Config{Game: g, Dir: dir})
	if err != nil {
		t.Fatalf("resume without --from: %v", err)
	}
	r2.Close()
	other := filepath.Join(t.TempDir(), "other")
	if _, err := reach.WriteSeeds(other, g, map[tiergame.Tier][]tiergame.Position{8: {3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Config{Game: g, Dir: dir, Seeds: other}); err == nil {
		t.Fatal("a run resumed from other seeds")
	}
	if _, err := Open(Config{Game: g, Dir: filepath.Join(t.TempDir(), "x"), Seeds: t.TempDir()}); err == nil {
		t.Fatal("a run from a folder without seeds")
	}
	os.RemoveAll(other)
}

// writeProbsForTest rewrites tier t's database with vals.
func writeProbsForTest(r *Run, t tiergame.Tier, vals []tiergame.Prob) (valuedb.Header, error) {
	return chance.WriteDB(r.dbPath(t), r.Game, t, vals, nil)
}
