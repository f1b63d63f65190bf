package xiangqi

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/tiergame"
)

// A plain win/lose/draw solver for the rule tests: counters over every
// legal position of a tier, children from Moves, child tiers solved
// first (under the same rules), then the rule pass. It shares no code
// with the solver packages.

// wdlTables solves material top and every endgame below it, children
// first, and returns the values by tier (Undecided for hashes that are
// no legal position), with the rule decisions of each tier.
func wdlTables(t testing.TB, g *Game) (map[tiergame.Tier][]tiergame.Value, map[tiergame.Tier][]RuleDecision) {
	t.Helper()
	vals := map[tiergame.Tier][]tiergame.Value{}
	decs := map[tiergame.Tier][]RuleDecision{}
	var solve func(tt tiergame.Tier)
	solve = func(tt tiergame.Tier) {
		if _, ok := vals[tt]; ok {
			return
		}
		for _, c := range g.ChildTiers(tt) {
			if c != tt {
				solve(c)
			}
		}
		v := wdlTier(g, tt, vals)
		child := func(c tiergame.Child) tiergame.Value { return vals[c.Tier][c.Pos] }
		d, err := g.JudgeTier(tt, func(p tiergame.Position) tiergame.Value { return v[p] }, child)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range d {
			v[x.Pos] = x.Value
		}
		vals[tt], decs[tt] = v, d
	}
	solve(g.top.Tier())
	return vals, decs
}

// wdlTier solves tier tt by counting down each position's children in
// the tier, its child tiers' values given.
func wdlTier(g *Game, tt tiergame.Tier, vals map[tiergame.Tier][]tiergame.Value) []tiergame.Value {
	n := g.TierSize(tt)
	v := make([]tiergame.Value, n)
	left := make([]int32, n)
	var queue []uint64
	var kids []tiergame.Child
	for h := uint64(0); h < n; h++ {
		if !g.Legal(tt, tiergame.Position(h)) {
			continue
		}
		var prim tiergame.Value
		prim, kids = g.Moves(tt, tiergame.Position(h), kids[:0])
		if prim != tiergame.Undecided {
			v[h] = prim
			queue = append(queue, h)
			continue
		}
		v[h] = tiergame.Draw
		win := false
		for _, c := range kids {
			switch {
			case c.Tier == tt:
				left[h]++
			case vals[c.Tier][c.Pos] == tiergame.Lose:
				win = true
			case vals[c.Tier][c.Pos] != tiergame.Win:
				left[h] = -1 << 30 // a child elsewhere that is no win: cannot lose
			}
		}
		if win {
			v[h] = tiergame.Win
			queue = append(queue, h)
		} else if left[h] == 0 {
			v[h] = tiergame.Lose
			queue = append(queue, h)
		}
	}
	var parents []tiergame.Position
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		parents = g.Parents(tt, tiergame.Position(h), tt, parents[:0])
		for _, p := range parents {
			if v[p] != tiergame.Draw {
				continue
			}
			if v[h] == tiergame.Lose {
				v[p] = tiergame.Win
				queue = append(queue, uint64(p))
				continue
			}
			if left[p]--; left[p] == 0 {
				v[p] = tiergame.Lose
				queue = append(queue, uint64(p))
			}
		}
	}
	return v
}

func newRulesGame(t testing.TB, material string) *Game {
	t.Helper()
	g, err := New(tiergame.Options{"material": material, "rules": "chessdb"})
	if err != nil {
		t.Fatal(err)
	}
	return g.(*Game)
}

// TestRulesOption checks the option's values and that the option string
// names the rules only when they are on.
func TestRulesOption(t *testing.T) {
	for _, c := range []struct {
		rules, option string
		bad           bool
	}{
		{"", "material=KRvKN", false},
		{"none", "material=KRvKN", false},
		{"chessdb", "material=KRvKN,rules=chessdb", false},
		{"asian", "", true},
	} {
		opts := tiergame.Options{"material": "KRvKN"}
		if c.rules != "" {
			opts["rules"] = c.rules
		}
		g, err := New(opts)
		if c.bad {
			if err == nil {
				t.Errorf("rules=%s: no error", c.rules)
			}
			continue
		}
		if err != nil {
			t.Fatalf("rules=%s: %v", c.rules, err)
		}
		if g.Option() != c.option {
			t.Errorf("rules=%s: option %q, want %q", c.rules, g.Option(), c.option)
		}
	}
}

// TestRulesApply: only where both sides have an attacking piece.
func TestRulesApply(t *testing.T) {
	g := newRulesGame(t, "KRvKN")
	for _, c := range []struct {
		m    string
		want bool
	}{{"KRvKN", true}, {"KRvK", false}, {"KNvK", false}, {"KRvKA", false}, {"KPvKP", true}} {
		m, err := ParseMaterial(c.m)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.RulesApply(m.Tier()); got != c.want {
			t.Errorf("%s: RulesApply %v, want %v", c.m, got, c.want)
		}
	}
	off := newGame(t, "KRvKN")
	if off.RulesApply(off.top.Tier()) {
		t.Error("RulesApply true without the rules")
	}
}

// peerDump is where tools/xiangqitb-dump writes xiangqitb's values of
// K+R v K+N (see docs/xiangqi-rules.md); the comparison skips without it.
const peerDumpEnv = "XIANGQITB_KRKN"

// TestRulesMatchXiangqitb compares the rule pass with ChessDB's
// generator on every legal position of K+R v K+N, when its values are
// at hand (XIANGQITB_KRKN names a dump: FEN, side, W/L/D a line).
func TestRulesMatchXiangqitb(t *testing.T) {
	path := os.Getenv(peerDumpEnv)
	if path == "" {
		t.Skip("set " + peerDumpEnv + " to xiangqitb's K+R v K+N values (docs/xiangqi-rules.md)")
	}
	g := newRulesGame(t, "KRvKN")
	vals, decs := wdlTables(t, g)
	tt := g.top.Tier()
	v := vals[tt]
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := make([]bool, len(v))
	letters := map[string]tiergame.Value{"W": tiergame.Win, "L": tiergame.Lose, "D": tiergame.Draw}
	var lines, diffs int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			t.Fatalf("line %q", sc.Text())
		}
		b, side, err := xq.ParseFEN(fields[0] + " " + fields[1])
		if err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		want := letters[fields[2]]
		for _, bb := range []xq.Board{b, b.Mirror()} {
			h := g.mustLayout(tt).encode(&bb, side)
			lines++
			seen[h] = true
			if v[h] != want {
				diffs++
				if diffs <= 10 {
					t.Errorf("%s: %v, xiangqitb %v", g.Format(tt, tiergame.Position(h)), v[h], want)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	missing := 0
	for h, x := range v {
		if x != tiergame.Undecided && !seen[h] {
			missing++
		}
	}
	byRule := map[Rule]int{}
	for _, d := range decs[tt] {
		byRule[d.Rule]++
	}
	t.Logf("K+R v K+N: %d positions compared, %d differ, %d of ours not in the dump; rule decisions: %d by check, %d by chase",
		lines, diffs, missing, byRule[RuleCheck], byRule[RuleChase])
	if diffs != 0 || missing != 0 {
		t.Errorf("%d differ, %d missing", diffs, missing)
	}
}

// TestRulesNoneIsIdentity: without the rules the pass decides nothing.
func TestRulesNoneIsIdentity(t *testing.T) {
	g := newGame(t, "KRvKN")
	d, err := g.JudgeTier(g.top.Tier(), func(tiergame.Position) tiergame.Value { return tiergame.Draw }, nil)
	if err != nil || d != nil {
		t.Fatalf("JudgeTier without rules: %v, %v", d, err)
	}
}

// checkCycles is a brute-force reading of the perpetual check rule,
// written apart from the pass: among the drawn positions, the largest
// sets S (a side to move not in check, reached by an answer to a check
// from T, every move that does not lose checking into T, at least one)
// and T (a side in check with an answer into S). A position of S without a capture into a drawn smaller
// endgame is one where its side can hold only by checking for ever: the
// rule declares it lost.
func checkCycles(g *Game, tt tiergame.Tier, v []tiergame.Value, vals map[tiergame.Tier][]tiergame.Value) map[uint64]bool {
	l := g.mustLayout(tt)
	inS, inT := map[uint64]bool{}, map[uint64]bool{}
	var st state
	for h := uint64(0); h < l.size; h++ {
		if v[h] != tiergame.Draw {
			continue
		}
		l.load(h, &st)
		if st.b.Attacked(st.pl.side) {
			inT[h] = true
			continue
		}
		// A capture into a drawn smaller endgame is a move that neither
		// loses nor checks: such a side is never forced to check.
		capDraw := false
		for _, m := range st.b.LegalMoves(st.pl.side, nil) {
			if st.b.At(m.To) == xq.NoPiece {
				continue
			}
			if c := g.child(&st, h, tt, m); vals[c.Tier][c.Pos] == tiergame.Draw {
				capDraw = true
			}
		}
		if !capDraw {
			inS[h] = true
		}
	}
	// drawn quiet children of h
	kids := func(h uint64) []uint64 {
		var st state
		l.load(h, &st)
		var out []uint64
		for _, m := range st.b.LegalMoves(st.pl.side, nil) {
			if st.b.At(m.To) != xq.NoPiece {
				continue
			}
			if c := st.moved(h, m); v[c] == tiergame.Draw {
				out = append(out, c)
			}
		}
		return out
	}
	for changed := true; changed; {
		changed = false
		reached := map[uint64]bool{} // S positions some T position answers into: on a cycle's path
		for h := range inT {
			for _, c := range kids(h) {
				reached[c] = true
			}
		}
		for h := range inS {
			ks := kids(h)
			ok := len(ks) > 0 && reached[h]
			for _, c := range ks {
				if !inT[c] {
					ok = false
				}
			}
			if !ok {
				delete(inS, h)
				changed = true
			}
		}
		for h := range inT {
			ok := false
			for _, c := range kids(h) {
				if inS[c] {
					ok = true
				}
			}
			if !ok {
				delete(inT, h)
				changed = true
			}
		}
	}
	out := map[uint64]bool{}
	for h := range inS {
		out[h] = true
	}
	return out
}

// TestRulesCheckBruteForce checks the pass's first round against the
// brute-force cycles on endgames where only checks make cycles: the
// positions it declares lost by perpetual check are the cycles' S.
func TestRulesCheckBruteForce(t *testing.T) {
	for _, material := range []string{"KRvKN"} {
		t.Run(material, func(t *testing.T) {
			plain := newGame(t, material)
			pv, _ := wdlTables(t, plain)
			g := newRulesGame(t, material)
			_, decs := wdlTables(t, g)
			tt := g.top.Tier()
			want := checkCycles(plain, tt, pv[tt], pv)
			got := map[uint64]bool{}
			for _, d := range decs[tt] {
				if d.Round == 1 && d.Plies == 0 {
					if d.Rule != RuleCheck {
						t.Fatalf("%s: declared by %v", g.Format(tt, d.Pos), d.Rule)
					}
					got[uint64(d.Pos)] = true
				}
			}
			for h := range want {
				if !got[h] {
					t.Errorf("%s: a perpetual check cycle, not declared", g.Format(tt, tiergame.Position(h)))
				}
			}
			for h := range got {
				if !want[h] {
					t.Errorf("%s: declared, no cycle", g.Format(tt, tiergame.Position(h)))
				}
			}
			t.Logf("%s: %d positions declared lost by perpetual check, %d decided in all", material, len(got), len(decs[tt]))
			if len(want) == 0 {
				t.Error("no cycle: the test proves nothing here")
			}
		})
	}
}

// FuzzRulesOption: any value of option rules is accepted only as one of
// the rule sets, whose name reads back to it, or refused with an error.
func FuzzRulesOption(f *testing.F) {
	for _, s := range []string{"", "none", "chessdb", "asian", "CHESSDB", "chessdb,", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRules(s)
		if err != nil {
			return
		}
		if back, err := ParseRules(r.String()); err != nil || back != r {
			t.Fatalf("%q: %v reads back as %v, %v", s, r, back, err)
		}
		g, err := New(tiergame.Options{"material": "KRvKN", "rules": s})
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if g.(*Game).Rules() != r {
			t.Fatalf("%q: game rules %v, want %v", s, g.(*Game).Rules(), r)
		}
	})
}

// topJudge solves material's endgames below its top tier and the top
// tier without the rules (wdlTables, wdlTier), and returns the rule
// pass over the top tier as cfg runs it.
func topJudge(t *testing.T, material string) func(cfg judgeConfig) []RuleDecision {
	g := newRulesGame(t, material)
	vals, _ := wdlTables(t, g)
	tt := g.top.Tier()
	v := wdlTier(g, tt, vals) // the top tier before the pass
	child := func(c tiergame.Child) tiergame.Value { return vals[c.Tier][c.Pos] }
	return func(cfg judgeConfig) []RuleDecision {
		var out []RuleDecision
		err := g.judgeTier(tt, cfg, func(p tiergame.Position) tiergame.Value { return v[p] }, child, nil, func(d RuleDecision) error {
			out = append(out, d)
			return nil
		})
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		return out
	}
}

// TestRulesSameOnWorkers: the pass decides the same positions, with the
// same rounds, rules and plies, on one goroutine and on several, with
// build's retrograde levels cut into chunks of a few positions so that
// the workers share out even the small levels (a win's rule is the one
// of the first position of the level that reaches it, whatever worker
// finds it first). K+R v K+N's decisions are 2 plies deep at most,
// K+N v K+C+A's 9 (a minute's test, not under the race detector).
func TestRulesSameOnWorkers(t *testing.T) {
	for _, tc := range []struct {
		material string
		long     bool
	}{
		{"KRvKN", false},
		{"KNvKCA", true},
	} {
		material := tc.material
		t.Run(material, func(t *testing.T) {
			if tc.long && (testing.Short() || race.Enabled) {
				t.Skip("a minute's solve: not with -short or -race")
			}
			run := topJudge(t, material)
			want := run(judgeConfig{workers: 1})
			if len(want) == 0 {
				t.Fatal("no decision: the test proves nothing here")
			}
			byRule, deepest := map[Rule]int{}, 0
			for _, d := range want {
				byRule[d.Rule]++
				deepest = max(deepest, d.Plies)
			}
			t.Logf("%s: %d decisions (%d by check, %d by chase), up to %d plies", material, len(want), byRule[RuleCheck], byRule[RuleChase], deepest)
			for _, cfg := range []judgeConfig{{workers: 2}, {workers: 2, spreadChunk: 3}, {workers: 5, spreadChunk: 1}} {
				got := run(cfg)
				sameDecisions(t, cfg, got, want, "on one goroutine")
			}
		})
	}
}

// TestRulesStaleSweeps: the sweeps that check only the positions the
// last changes can reach (sweepsStale, as often as the changes are
// logged; sweepsAuto, when it pays) decide what the sweeps that check
// every listed position decide, on one goroutine and on two.
func TestRulesStaleSweeps(t *testing.T) {
	eachRulesFamily(t, func(t *testing.T, material string, run func(judgeConfig) []RuleDecision) {
		var full [2]int
		want := run(judgeConfig{workers: 1, sweeps: sweepsFull, halves: &full})
		if len(want) == 0 || full[1] != 0 {
			t.Fatalf("%d decisions, %d stale halves with sweepsFull", len(want), full[1])
		}
		byRule := map[Rule]int{}
		for _, d := range want {
			byRule[d.Rule]++
		}
		for _, cfg := range []judgeConfig{{workers: 1, sweeps: sweepsStale}, {workers: 2, sweeps: sweepsStale}, {workers: 2}} {
			var halves [2]int
			cfg.halves = &halves
			got := run(cfg)
			if cfg.sweeps == sweepsStale && halves[1] == 0 {
				t.Fatalf("%+v: no half checked only the stale positions", cfg)
			}
			t.Logf("%s, %d workers, sweeps %d: %d decisions (%d by check, %d by chase); halves: %d full, %d stale (full sweeps: %d)",
				material, cfg.workers, cfg.sweeps, len(got), byRule[RuleCheck], byRule[RuleChase], halves[0], halves[1], full[0])
			sameDecisions(t, cfg, got, want, "with full sweeps")
		}
	})
}

// TestRulesCarriedSweeps: rounds that start step 1 from the last
// round's first two sweeps (the default) leave, after those sweeps, the
// flags, listed positions, log and answer that full sweeps from the
// labels leave (checkCarry compares them in every such round), and
// decide what rounds running step 1 in full decide, on one goroutine
// and on two, with the stale halves after them as often as they can.
func TestRulesCarriedSweeps(t *testing.T) {
	eachRulesFamily(t, func(t *testing.T, material string, run func(judgeConfig) []RuleDecision) {
		want := run(judgeConfig{workers: 1, fullStep1: true})
		if len(want) == 0 {
			t.Fatal("no decision: the test proves nothing here")
		}
		for _, cfg := range []judgeConfig{{workers: 1}, {workers: 2, checkCarry: true}, {workers: 2, sweeps: sweepsStale, checkCarry: true}} {
			var carried int
			cfg.carried = &carried
			got := run(cfg)
			if carried == 0 {
				t.Fatalf("%+v: no round carried step 1", cfg)
			}
			t.Logf("%s, %d workers, sweeps %d: %d decisions, %d rounds carried step 1", material, cfg.workers, cfg.sweeps, len(got), carried)
			sameDecisions(t, cfg, got, want, "with step 1 in full")
		}
	})
}

// eachRulesFamily runs test on K+R v K+N (perpetual check only) and
// K+P+P v K+N (a quarter of its decisions by perpetual chase; minutes of
// solving, so not with -short or -race), with topJudge's run of each.
func eachRulesFamily(t *testing.T, test func(t *testing.T, material string, run func(judgeConfig) []RuleDecision)) {
	for _, tc := range []struct {
		material string
		long     bool
	}{
		{"KRvKN", false},
		{"KPPvKN", true},
	} {
		t.Run(tc.material, func(t *testing.T) {
			if tc.long && (testing.Short() || race.Enabled) {
				t.Skip("minutes of solving: not with -short or -race")
			}
			test(t, tc.material, topJudge(t, tc.material))
		})
	}
}

// TestJudgeChildrenDone: Judge tells its caller, once and before the
// first decision, that it reads the children no more, and then reads
// none; the decisions are JudgeTier's.
func TestJudgeChildrenDone(t *testing.T) {
	g := newRulesGame(t, "KRvKN")
	vals, decs := wdlTables(t, g)
	tt := g.top.Tier()
	v := wdlTier(g, tt, vals)          // the top tier before the pass
	var done, reads, late atomic.Int64 // Child runs on the judge's workers
	var got []tiergame.Judged
	err := g.Judge(tt, tiergame.Judging{
		Value: func(p tiergame.Position) tiergame.Value { return v[p] },
		Child: func(c tiergame.Child) tiergame.Value {
			reads.Add(1)
			if done.Load() > 0 {
				late.Add(1)
			}
			return vals[c.Tier][c.Pos]
		},
		ChildrenDone: func() { done.Add(1) },
		Yield: func(d tiergame.Judged) error {
			if done.Load() != 1 {
				t.Fatalf("a decision with ChildrenDone called %d times", done.Load())
			}
			got = append(got, d)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if done.Load() != 1 || late.Load() != 0 || reads.Load() == 0 {
		t.Errorf("ChildrenDone called %d times, %d children read after it, %d in all", done.Load(), late.Load(), reads.Load())
	}
	if len(got) != len(decs[tt]) || len(got) == 0 {
		t.Fatalf("%d decisions, JudgeTier %d", len(got), len(decs[tt]))
	}
	for i, d := range decs[tt] {
		if got[i].Pos != d.Pos || got[i].Value != d.Value {
			t.Fatalf("decision %d: %+v, JudgeTier %+v", i, got[i], d)
		}
	}
}

// TestRulesMirrorImages: a pass that checks one image of each mirror
// pair and gives the other its flags and decisions (the default) decides
// what a pass over both images decides, with the same rounds and plies,
// on one goroutine and on two, with stale halves as often as they can
// and with each carried step 1 compared with full sweeps; a position's
// value, round and plies are its mirror image's in both, and in the
// default its rule too.
func TestRulesMirrorImages(t *testing.T) {
	eachRulesFamily(t, func(t *testing.T, material string, run func(judgeConfig) []RuleDecision) {
		g := newRulesGame(t, material)
		tt := g.top.Tier()
		// mirrored checks that each decision's mirror image is decided
		// alike, but for the rule unless withRule, and returns how many
		// have a larger image.
		mirrored := func(ds []RuleDecision, withRule bool) (shadows int) {
			byPos := map[tiergame.Position]RuleDecision{}
			for _, d := range ds {
				byPos[d.Pos] = d
			}
			for _, d := range ds {
				m := g.mirror(tt, d.Pos)
				if m > d.Pos {
					shadows++
				}
				e, ok := byPos[m]
				if e.Pos = d.Pos; !withRule {
					e.Rule = d.Rule
				}
				if !ok || e != d {
					t.Fatalf("%s decided %+v, its mirror image %s %+v", g.Format(tt, d.Pos), d, g.Format(tt, m), byPos[m])
				}
			}
			return shadows
		}
		// A win takes the rule of the first position of its level that
		// reaches it. Over both images, that may differ between the
		// images; the record does not hold the rule.
		want := withoutRules(run(judgeConfig{workers: 1, bothImages: true}))
		if len(want) == 0 {
			t.Fatal("no decision: the test proves nothing here")
		}
		shadows := mirrored(want, false)
		if shadows == 0 {
			t.Fatal("no decision has a larger mirror image: the test proves nothing here")
		}
		for _, cfg := range []judgeConfig{{workers: 1}, {workers: 2, checkCarry: true}, {workers: 2, sweeps: sweepsStale, checkCarry: true}} {
			got := run(cfg)
			t.Logf("%s, %d workers, sweeps %d: %d decisions (%d with a larger image)", material, cfg.workers, cfg.sweeps, len(got), shadows)
			mirrored(got, true)
			sameDecisions(t, cfg, withoutRules(got), want, "checking both images")
		}
	})
}

// withoutRules returns ds with every rule set to RuleNone.
func withoutRules(ds []RuleDecision) []RuleDecision {
	out := slices.Clone(ds)
	for i := range out {
		out[i].Rule = RuleNone
	}
	return out
}

// sameDecisions fails the test unless got, the decisions of the pass as
// cfg runs it, are want, those of the pass it is compared with (named by
// with: "on one goroutine"), one for one in order.
func sameDecisions(t *testing.T, cfg judgeConfig, got, want []RuleDecision, with string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%+v: %d decisions, %d %s", cfg, len(got), len(want), with)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%+v: %+v, %s %+v", cfg, got[i], with, want[i])
		}
	}
}
