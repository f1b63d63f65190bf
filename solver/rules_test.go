package solver

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// TestXiangqiRules solves K+R v K+N under the rules of ChessDB's tables
// (rules=chessdb): the rules decide 3194 positions of it the rule-tolerant
// run calls draws (1597 mirror pairs, the count of xiangqitb's table);
// a symmetric run holds the same records and the same full-game counts; a
// run in parts and one cut otherwise write the same files; every run
// verifies, the declared losses counted apart.
func TestXiangqiRules(t *testing.T) {
	if race.Enabled && testing.Short() {
		t.Skip("a few seconds of solving; skipped under -race -short")
	}
	const option = "material=KRvKN,rules=chessdb"
	plain := solveRun(t, "xiangqi", "material=KRvKN", Config{})
	full := solveRun(t, "xiangqi", option, Config{})
	tier := uint64(full.Graph.Tiers[len(full.Graph.Tiers)-1])
	for _, tt := range full.Graph.Tiers {
		if full.Game.TierName(tt) == "KRvKN" {
			tier = uint64(tt)
		}
	}
	p, r := plain.Manifest.Tier(tier), full.Manifest.Tier(tier)
	if p.Draw-r.Draw != 3194 || r.Win+r.Lose-p.Win-p.Lose != 3194 {
		t.Errorf("draws %d without the rules, %d with them: want 3194 fewer", p.Draw, r.Draw)
	}
	rep, err := full.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.RuleDeclared != 630 || rep.RuleRederived != 3194 {
		t.Errorf("Verify: ok %v, %d rule records given again (want 3194), %d declared losses (want 630), %d mismatches %v",
			rep.OK(), rep.RuleRederived, rep.RuleDeclared, rep.Mismatches, rep.Examples)
	}
	// A rule record turned back into the draw the rule-tolerant run
	// stores, its file's checksum fixed: only the rule pass run again
	// can tell.
	rr := full.Game.(tiergame.RuleReader)
	recs, _ := readDB(t, full, tiergame.Tier(tier))
	i := slices.IndexFunc(recs, func(rec valuedb.Record) bool {
		_, plies, ok := rr.RuleRecord(rec.Value(), rec.Remoteness())
		return ok && plies > 0
	})
	if i < 0 {
		t.Fatal("no rule record but declared ones")
	}
	dir := copyDir(t, full.Dir)
	rewriteRecord(t, dir, tiergame.Tier(tier), uint64(i), valuedb.Make(tiergame.Draw, 0))
	if rep := verifyDir(t, full.Game, dir); rep.Mismatches != 1 || len(rep.Examples) != 1 || !rep.Examples[0].Again {
		t.Errorf("a rule record made a draw: %d mismatches %v, want 1 found by the tier solved again", rep.Mismatches, rep.Examples)
	}
	sym := solveRun(t, "xiangqi", option, Config{Symmetry: true})
	compareSymmetric(t, full, sym, false)
	checkFullCounts(t, full, sym)
	var notes atomic.Int64
	compareRuns(t, full, solveRun(t, "xiangqi", option, Config{Workers: 2, Ranges: 7, ReverseIndex: true}))
	compareRuns(t, full, solveRun(t, "xiangqi", option, Config{Workers: 2, Paths: &work.Paths{Parts: 3, Notes: &notes}}))
}
