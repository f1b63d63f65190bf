package solver

import (
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// TestLoadSolvedRange: a range of ranks of a solved tier, loaded from
// the blocks that hold it, has the whole tier's records and lookups, at
// ranges that start and end inside blocks and on their edges, with cells
// by position and by rank. The tier is the largest of Connect Four 5x4,
// 3.9M positions; under the race detector, which makes solving them
// minutes long, that of 4x4, its database written again in blocks of 2^10
// records so that the ranges cross several (.ci/run runs 5x4 without it).
func TestLoadSolvedRange(t *testing.T) {
	option := "width=5,height=4"
	if race.Enabled {
		option = "width=4,height=4"
	}
	r := solveRun(t, "connect4", option, Config{Dir: t.TempDir()})
	tier := tiergame.Tier(biggestTier(r.Manifest).Tier)
	if race.Enabled {
		st, err := solved.Load(r.Game, tier, r.levelPath(tier), r.dbPath(tier), 2)
		if err != nil {
			t.Fatal(err)
		}
		recs := make([]valuedb.Record, st.Len())
		st.Records(recs, 0)
		st.Free()
		if _, err := solved.WriteDB(r.dbPath(tier), r.Game, tier, recs, &valuedb.WriteOptions{BlockRecords: 1 << 10}); err != nil {
			t.Fatal(err)
		}
	}
	for _, byRank := range []bool{false, true} {
		checkLoadSolvedRange(t, r, tier, byRank)
	}
}

func checkLoadSolvedRange(t *testing.T, r *Run, tier tiergame.Tier, byRank bool) {
	whole, err := solved.Load(r.Game, tier, r.levelPath(tier), r.dbPath(tier), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Free()
	n := whole.Len()
	all := make([]valuedb.Record, n)
	whole.Records(all, 0)
	b := uint64(dbBlockRecords(t, r.dbPath(tier)))
	if n < 3*b+7 {
		t.Fatalf("tier %s: %d positions, fewer than 3 blocks of %d", r.Game.TierName(tier), n, b)
	}
	rd, err := solved.Open(r.Game, tier, r.levelPath(tier), r.dbPath(tier))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.ByRank = byRank
	if _, err := rd.Range(n, n+1, 2); err == nil {
		t.Error("ranks past the tier's end: no error")
	}
	for i, rg := range [][2]uint64{{0, n}, {0, 1}, {b, 2 * b}, {b - 5, 3*b + 7}, {n - 3, n}, {n / 2, n / 2}, {n, n}} {
		load := rd.Range // a reader, its level file loaded once, or every time
		if i%2 == 1 && !byRank {
			load = func(lo, hi uint64, workers int) (*solved.Tier, error) {
				return solved.LoadRange(r.Game, tier, r.levelPath(tier), r.dbPath(tier), lo, hi, workers)
			}
		}
		st, err := load(rg[0], rg[1], 2)
		if err != nil {
			t.Fatal(err)
		}
		if cells := st.Bytes() - plan.BitsetBytes(st.Set().Len()); rg[0] == rg[1] && cells > 64 {
			t.Errorf("ranks %v: an empty range holds %d bytes of cells", rg, cells)
		}
		got := make([]valuedb.Record, st.Len())
		st.Records(got, 0)
		if !slices.Equal(got, all[rg[0]:rg[1]]) {
			t.Errorf("ranks %v: records differ from the whole tier's", rg)
		}
		for i := rg[0]; i < rg[1]; i += max(1, (rg[1]-rg[0])/50) {
			p, _ := whole.Set().Select(i)
			if rec, ok := st.Lookup(tiergame.Position(p)); !ok || rec != all[i] {
				t.Errorf("ranks %v: Lookup of rank %d: %v %v, want %v", rg, i, rec, ok, all[i])
			}
		}
		if rg[0] > 0 {
			p, _ := whole.Set().Select(rg[0] - 1)
			if _, ok := st.Lookup(tiergame.Position(p)); ok {
				t.Errorf("ranks %v: the position before the range is found", rg)
			}
		}
		st.Free()
	}
}

// dbBlockRecords reads the records per block of the value database path.
func dbBlockRecords(t *testing.T, path string) int {
	t.Helper()
	db, err := valuedb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return db.Header().BlockRecords
}
