package solver

import (
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/solved"
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

// TestJudgeTierSetAside: a tier set aside on disk through its rule pass
// (the decisions waiting in a file beside it) comes back with the records
// of a tier held in memory through the pass (its scratch folder missing:
// a warning, and the pass as before), and leaves nothing in its folder.
func TestJudgeTierSetAside(t *testing.T) {
	if race.Enabled && testing.Short() {
		t.Skip("a few seconds of solving; skipped under -race -short")
	}
	r := solveRun(t, "xiangqi", "material=KRvKN,rules=chessdb", Config{})
	var tier tiergame.Tier
	for _, tt := range r.Graph.Tiers {
		if r.Game.TierName(tt) == "KRvKN" {
			tier = tt
		}
	}
	cache := map[tiergame.Tier]*solved.Tier{}
	kids, err := r.childTiers(tier, nil, cache)
	if err != nil {
		t.Fatal(err)
	}
	load := r.loadLevelAsync(tier)
	<-load.done
	if load.err != nil {
		t.Fatal(load.err)
	}
	scratch := t.TempDir()
	solve := func(dir string) []valuedb.Record {
		st, err := SolveTier(t.Context(), r.Game, tier, load.set, kids, Shape{Loopy: r.Graph.Loopy[tier]}, work.Effort{Workers: 2, Scratch: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Free()
		recs := make([]valuedb.Record, st.Len())
		st.Records(recs, 0)
		return recs
	}
	aside := solve(scratch)
	held := solve(filepath.Join(scratch, "missing"))
	if !slices.Equal(aside, held) {
		t.Fatal("the tier set aside through its rule pass has other records than the tier held")
	}
	stored, _ := readDB(t, r, tier)
	if !slices.Equal(aside, stored) {
		t.Fatal("SolveTier's records are not the run's")
	}
	if es, _ := os.ReadDir(scratch); len(es) != 0 {
		t.Errorf("left in the scratch folder: %v", es)
	}
}
