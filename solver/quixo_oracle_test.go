package solver

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// qxState is a reference Quixo position on an n x n board: cells row by
// row from the top left, '.' blank, 'x' or 'o', and the side to move.
type qxState struct {
	cells string
	turn  byte // 'x' or 'o'
}

func (s qxState) text(n int) string {
	var b strings.Builder
	b.WriteByte(s.turn)
	b.WriteByte(':')
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteByte('/')
		}
		b.WriteString(s.cells[r*n : (r+1)*n])
	}
	return b.String()
}

// tier is X cubes << 8 | O cubes, as the game numbers tiers.
func (s qxState) tier() tiergame.Tier {
	return tiergame.Tier(strings.Count(s.cells, "x")<<8 | strings.Count(s.cells, "o"))
}

// qxLine reports whether who has a full row, column or diagonal.
func qxLine(cells string, n int, who byte) bool {
	at := func(r, c int) bool { return cells[r*n+c] == who }
	d1, d2 := true, true
	for i := 0; i < n; i++ {
		row, col := true, true
		for j := 0; j < n; j++ {
			row = row && at(i, j)
			col = col && at(j, i)
		}
		if row || col {
			return true
		}
		d1 = d1 && at(i, i)
		d2 = d2 && at(i, n-1-i)
	}
	return d1 || d2
}

func qxOther(p byte) byte {
	if p == 'x' {
		return 'o'
	}
	return 'x'
}

// primitive: the player to move wins with a line of their own, else loses
// to a line of the opponent's.
func (s qxState) primitive(n int) tiergame.Value {
	switch {
	case qxLine(s.cells, n, s.turn):
		return tiergame.Win
	case qxLine(s.cells, n, qxOther(s.turn)):
		return tiergame.Lose
	}
	return tiergame.Undecided
}

// children lists the positions after each move: take a border cube that
// is blank or the mover's, and push it back in, marked with the mover's
// symbol, at an end of its row or column other than where it came from,
// the cubes in between moving one step toward the gap.
func (s qxState) children(n int) []qxState {
	var out []qxState
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			if r != 0 && r != n-1 && c != 0 && c != n-1 {
				continue
			}
			if cube := s.cells[r*n+c]; cube != '.' && cube != s.turn {
				continue
			}
			for _, end := range [4][2]int{{r, 0}, {r, n - 1}, {0, c}, {n - 1, c}} {
				if end == [2]int{r, c} {
					continue
				}
				b := []byte(s.cells)
				// Walk from the gap to the end, pulling each cube in.
				dr, dc := cmp.Compare(end[0], r), cmp.Compare(end[1], c)
				rr, cc := r, c
				for rr != end[0] || cc != end[1] {
					b[rr*n+cc] = b[(rr+dr)*n+cc+dc]
					rr, cc = rr+dr, cc+dc
				}
				b[end[0]*n+end[1]] = s.turn
				out = append(out, qxState{string(b), qxOther(s.turn)})
			}
		}
	}
	return out
}

// qxSolve finds every position reachable from the empty board with X to
// move, builds the explicit game graph, and solves it by retrograde
// analysis (refGraph handles the cycles).
func qxSolve(n int) ([]qxState, []refRec) {
	start := qxState{strings.Repeat(".", n*n), 'x'}
	states, g := exploreRef(start,
		func(s qxState) tiergame.Value { return s.primitive(n) },
		func(s qxState) []qxState { return s.children(n) })
	return states, g.solve()
}

func qxPositions(n int, states []qxState, recs []refRec) func(func(refPos) bool) {
	return func(yield func(refPos) bool) {
		for i, s := range states {
			if !yield(refPos{s.text(n), s.tier(), recs[i]}) {
				return
			}
		}
	}
}

// TestQuixoAgainstReference solves 3x3 Quixo with Workers 1/Ranges 1,
// Workers 2/Ranges 3 and Workers 2/Ranges 7 using the game's parents
// (tiergame.Unmover), and with Workers 2/Ranges 3 using the reverse
// index; it checks every run against the reference on every reachable
// position, and that all runs are identical (level files, value
// databases, manifest counts). Under -short and -race it runs the first
// configuration and the last one with Ranges 7.
func TestQuixoAgainstReference(t *testing.T) {
	const n = 3
	states, recs := qxSolve(n)
	if recs[0] != (refRec{tiergame.Win, 7}) {
		t.Errorf("reference start %v, want win in 7", recs[0])
	}
	t.Logf("3x3 reference: %d positions, start %v", len(states), recs[0])

	cfgs := []Config{
		{Workers: 1, Ranges: 1},
		{Workers: 2, Ranges: 3},
		{Workers: 2, Ranges: 7},
		{Workers: 2, Ranges: 3, ReverseIndex: true},
	}
	if testing.Short() || race.Enabled {
		// Each run writes and syncs some 200 files; two runs that
		// differ in workers, ranges and parents still compare them.
		cfgs = []Config{{Workers: 1, Ranges: 1}, {Workers: 2, Ranges: 7, ReverseIndex: true}}
	}
	var runs []*Run
	for _, cfg := range cfgs {
		name := fmt.Sprintf("workers%d-ranges%d-reverseindex=%v", cfg.Workers, cfg.Ranges, cfg.ReverseIndex)
		cfg.Dir = t.TempDir() // kept for the comparisons after the subtest
		t.Run(name, func(t *testing.T) {
			r := solveRun(t, "quixo", "size=3", cfg)
			if s := r.Manifest.Start; s == nil || s.Value != recs[0].v.String() || s.Remoteness != recs[0].rem {
				t.Errorf("start %+v, reference %v", s, recs[0])
			}
			checkAgainstRef(t, r, qxPositions(n, states, recs))
			checkVerifies(t, r, uint64(len(states)))
			checkUnreachable(t, r, "x:x../.../...") // X never moves twice in a row
			if len(runs) > 0 {
				compareRuns(t, runs[0], r)
			}
			runs = append(runs, r)
		})
	}
}

// compareDBs checks that two solved runs of a game hold the same records
// in every tier.
func compareDBs(t *testing.T, a, b *Run) {
	t.Helper()
	for _, tier := range a.Graph.Tiers {
		ra, ha := readDB(t, a, tier)
		rb, hb := readDB(t, b, tier)
		if ha != hb {
			t.Errorf("tier %s: headers differ:\n%+v\n%+v", a.Game.TierName(tier), ha, hb)
		}
		if !slices.Equal(ra, rb) {
			for i := range min(len(ra), len(rb)) {
				if ra[i] != rb[i] {
					t.Errorf("tier %s rank %d: %v vs %v", a.Game.TierName(tier), i, ra[i], rb[i])
					break
				}
			}
			t.Errorf("tier %s: records differ (%d and %d records)", a.Game.TierName(tier), len(ra), len(rb))
		}
	}
}

// readDB reads the records and header of a tier's value database.
func readDB(t testing.TB, r *Run, tier tiergame.Tier) ([]valuedb.Record, valuedb.Header) {
	t.Helper()
	db, err := valuedb.Open(r.dbPath(tier))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Verify(); err != nil {
		t.Fatal(err)
	}
	recs, err := db.ReadAll(1)
	if err != nil {
		t.Fatal(err)
	}
	return recs, db.Header()
}

// checkUnreachable checks that the oracle answers ErrUnreachable for a
// position that parses but is not reachable, and an error for a hash
// outside its tier.
func checkUnreachable(t *testing.T, r *Run, text string) {
	t.Helper()
	o, err := oracle.Open(r.Dir, r.Game)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	tier, pos, err := r.Game.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := o.Lookup(tier, pos); !errors.Is(err, oracle.ErrUnreachable) {
		t.Errorf("Lookup(%q) = %v, %v; want ErrUnreachable", text, rec, err)
	}
	if rec, err := o.Lookup(tier, tiergame.Position(r.Game.TierSize(tier))); err == nil {
		t.Errorf("Lookup of hash %d in tier %s of %d hashes = %v, want an error", r.Game.TierSize(tier), r.Game.TierName(tier), r.Game.TierSize(tier), rec)
	}
}
