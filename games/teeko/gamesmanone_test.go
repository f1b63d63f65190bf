package teeko_test

import (
	"bufio"
	"context"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games/teeko"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
	"github.com/tiersolve/tiersolve/valuedb"
)

// What GamesmanOne 1.3.0 (github.com/GamesCrafters/GamesmanOne at commit
// 1969986, built with OpenMP, 2 threads) says of Teeko's variant 0,
// "Standard", after `gamesman solve teeko 0`, in two files of testdata:
//
//   - gamesmanone-analyze.txt is what `gamesman analyze teeko 0` prints
//     for tiers 0 to 6 (it was stopped there: tiers 7 and 8 take it an
//     hour and more of CPU). Its analyzer walks the positions reachable
//     from the start (never past a primitive one) and counts them by
//     value and remoteness, over all of them and over the canonical ones:
//     those whose hash is the smallest of their images under the 8
//     symmetries of the square, one per orbit (the start is symmetric),
//     as a symmetric run of ours keeps them.
//   - gamesmanone-db.txt counts its solved database by tier, value and
//     remoteness: over the canonical positions it stores (every legal
//     one, reachable or not: "canonical" lines) and over every legal
//     position, each looked up by its canonical one ("all" lines); read
//     with its own database code by a program linked against its build,
//     one line "tier all|canonical value remoteness count" each.
//
// Every legal position of tiers 0 to 7 can be reached, so there the
// database's counts are the analyzer's (the test checks it for tiers 0
// to 6). In tier 8 the legal positions also hold the ones where the side
// to move already has a pattern (a primitive loss for it): none can be
// reached, since the side that made it moved last. The test counts them
// and takes them out of the database's losses of remoteness 0.

// summary counts positions by value and remoteness.
type summary struct {
	win, lose []uint64 // by remoteness
	draw      uint64
}

func (s *summary) add(v tiergame.Value, r int, n uint64) {
	grow := func(xs []uint64) []uint64 {
		for len(xs) <= r {
			xs = append(xs, 0)
		}
		return xs
	}
	switch v {
	case tiergame.Win:
		s.win = grow(s.win)
		s.win[r] += n
	case tiergame.Lose:
		s.lose = grow(s.lose)
		s.lose[r] += n
	case tiergame.Draw:
		s.draw += n
	default:
		panic(fmt.Sprintf("value %v", v))
	}
}

func (s *summary) total() uint64 {
	n := s.draw
	for _, k := range append(s.win, s.lose...) {
		n += k
	}
	return n
}

// String lists the counts, without the zeros at the end of the lists, so
// equal summaries are equal strings.
func (s summary) String() string {
	trim := func(xs []uint64) []uint64 {
		for len(xs) > 0 && xs[len(xs)-1] == 0 {
			xs = xs[:len(xs)-1]
		}
		return xs
	}
	return fmt.Sprintf("%d positions: win by remoteness %v, lose by remoteness %v, draw %d", s.total(), trim(s.win), trim(s.lose), s.draw)
}

// g1Tier is GamesmanOne's counts of one tier.
type g1Tier struct{ all, canonical summary }

// readAnalyzer parses the analyzer's output: per tier (its number after
// '#'), the tables "Summary of all positions" and "Summary of canonical
// positions", a line per remoteness ("Inf" for the draws) with the counts
// of win, lose, tie and draw.
func readAnalyzer(t testing.TB) map[tiergame.Tier]*g1Tier {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "gamesmanone-analyze.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tierLine := regexp.MustCompile(`^--- Tier \[.*\] \(#(\d+)\) analyzed ---$`)
	out := map[tiergame.Tier]*g1Tier{}
	var cur *g1Tier
	var table *summary
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := tierLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			cur, table = &g1Tier{}, nil
			out[tiergame.Tier(n)] = cur
			continue
		}
		switch {
		case cur == nil:
		case line == "Summary of all positions:":
			table = &cur.all
		case line == "Summary of canonical positions:":
			table = &cur.canonical
		case strings.HasPrefix(line, "Totals"):
			table = nil
		case table != nil:
			f := strings.Fields(line)
			if len(f) != 6 || f[0] == "Remoteness" {
				continue
			}
			var c [4]uint64
			for i := range c {
				if c[i], err = strconv.ParseUint(f[i+1], 10, 64); err != nil {
					t.Fatalf("GamesmanOne's analysis: %q: %v", line, err)
				}
			}
			if c[2] != 0 {
				t.Fatalf("GamesmanOne's analysis: %q: ties", line)
			}
			if f[0] == "Inf" {
				table.add(tiergame.Draw, 0, c[3])
				continue
			}
			r, err := strconv.Atoi(f[0])
			if err != nil || c[3] != 0 {
				t.Fatalf("GamesmanOne's analysis: %q: want a remoteness and no draws", line)
			}
			table.add(tiergame.Win, r, c[0])
			table.add(tiergame.Lose, r, c[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for u := tiergame.Tier(0); u <= 6; u++ {
		if out[u] == nil || out[u].all.total() == 0 || out[u].canonical.total() == 0 {
			t.Fatalf("GamesmanOne's analysis: no tier %d", u)
		}
	}
	return out
}

// readDB parses gamesmanone-db.txt.
func readDB(t testing.TB) map[tiergame.Tier]*g1Tier {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "gamesmanone-db.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[tiergame.Tier]*g1Tier{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		var tier, r int
		var kind, value string
		var n uint64
		if _, err := fmt.Sscanf(line, "%d %s %s %d %d", &tier, &kind, &value, &r, &n); err != nil {
			t.Fatalf("GamesmanOne's database: %q: %v", line, err)
		}
		v, err := tiergame.ParseValue(value)
		if err != nil || (kind != "all" && kind != "canonical") {
			t.Fatalf("GamesmanOne's database: %q", line)
		}
		u := tiergame.Tier(tier)
		if out[u] == nil {
			out[u] = &g1Tier{}
		}
		s := &out[u].all
		if kind == "canonical" {
			s = &out[u].canonical
		}
		s.add(v, r, n)
	}
	for u := tiergame.Tier(0); u <= teeko.MovingTier; u++ {
		if out[u] == nil || out[u].all.total() == 0 || out[u].canonical.total() == 0 {
			t.Fatalf("GamesmanOne's database: no tier %d", u)
		}
	}
	return out
}

// ownPatterns counts the positions of the moving tier in which the side
// to move has a pattern: legal for GamesmanOne when the other side has
// none, never reachable. It returns how many there are, how many of them
// are legal, and how many of those are canonical.
func ownPatterns(t testing.TB) (all, legal, canonical uint64) {
	g := teeko.Game{}
	var board [25]byte
	for _, p := range teeko.Patterns() {
		for o := uint32(0xf); o < 1<<25; o = nextSet(o) { // every set of four cells
			if o&p != 0 {
				continue
			}
			for _, mover := range "xo" {
				all++
				other := byte('x' + 'o' - mover)
				for c := range board {
					board[c] = '.'
					if p>>c&1 != 0 {
						board[c] = byte(mover)
					} else if o>>c&1 != 0 {
						board[c] = other
					}
				}
				s := fmt.Sprintf("%c:%s/%s/%s/%s/%s", mover, board[0:5], board[5:10], board[10:15], board[15:20], board[20:25])
				tier, pos, err := g.Parse(s)
				if err != nil { // both sides have a pattern: illegal
					continue
				}
				legal++
				if g.Canonical(tier, pos) == pos {
					canonical++
				}
			}
		}
	}
	return all, legal, canonical
}

// nextSet returns the next larger set with as many cells as m (Gosper's
// hack).
func nextSet(m uint32) uint32 {
	c := m & -m
	r := m + c
	return r | (r^m)>>(2+uint(bits.TrailingZeros32(c)))
}

// TestGamesmanOneData checks the two sources against each other: where
// both count, in tiers 0 to 6, the analyzer's reachable positions are the
// database's legal ones.
func TestGamesmanOneData(t *testing.T) {
	an, db := readAnalyzer(t), readDB(t)
	for u := tiergame.Tier(0); u <= 6; u++ {
		if an[u].all.String() != db[u].all.String() || an[u].canonical.String() != db[u].canonical.String() {
			t.Errorf("tier %d: the analyzer's\n%s\n%s\nthe database's\n%s\n%s", u, an[u].all, an[u].canonical, db[u].all, db[u].canonical)
		}
	}
}

// wantGamesmanOne returns GamesmanOne's counts of the positions reachable
// from the start, per tier, all or canonical: the analyzer's where it
// counted, else the database's, without the unreachable positions.
func wantGamesmanOne(t *testing.T, canonical bool) map[tiergame.Tier]summary {
	an, db := readAnalyzer(t), readDB(t)
	_, legal, canon := ownPatterns(t)
	out := map[tiergame.Tier]summary{}
	for u := tiergame.Tier(0); u <= teeko.MovingTier; u++ {
		src := db[u]
		if an[u] != nil {
			src = an[u]
		}
		s := src.all
		if canonical {
			s = src.canonical
		}
		s.win, s.lose = append([]uint64(nil), s.win...), append([]uint64(nil), s.lose...)
		if u == teeko.MovingTier {
			n := legal
			if canonical {
				n = canon
			}
			if len(s.lose) == 0 || s.lose[0] < n {
				t.Fatalf("GamesmanOne's database: %d losses in 0 in tier 8, fewer than the %d unreachable", s.lose[0], n)
			}
			s.lose[0] -= n
		}
		out[u] = s
	}
	return out
}

// TestDropTiersAgainstGamesmanOne compares the reachable positions of the
// drop phase up to tier 6 (4.1M positions; tier 5 under -short, as
// .ci/run runs it, and tier 4 under the race detector, which made tier 5
// a minute long), in all and canonical (one per orbit, as a symmetric run
// keeps them), with what GamesmanOne's analyzer counts.
func TestDropTiersAgainstGamesmanOne(t *testing.T) {
	an := readAnalyzer(t)
	last := tiergame.Tier(6)
	switch {
	case race.Enabled:
		last = 4
	case testing.Short():
		last = 5
	}
	in := func(u tiergame.Tier) bool { return u <= last }
	quotient, err := quotient.Reduce(teeko.Game{}, true)
	if err != nil {
		t.Fatal(err)
	}
	all := tiergametest.Reach(t, teeko.Game{}, in, nil)
	canonical := tiergametest.Reach(t, quotient, in, nil)
	for u := tiergame.Tier(0); u <= last; u++ {
		if n := an[u].all.total(); all[u] != n {
			t.Errorf("tier %d: %d positions reachable, GamesmanOne %d", u, all[u], n)
		}
		if n := an[u].canonical.total(); canonical[u] != n {
			t.Errorf("tier %d: %d canonical positions reachable, GamesmanOne %d", u, canonical[u], n)
		}
	}
}

// TestSymmetricAgainstGamesmanOne solves Teeko with symmetry (21.5M
// canonical positions, half a minute of CPU) and compares the start's
// value and every tier's canonical positions by value and remoteness with
// GamesmanOne's. Not under the race detector or -short (.ci/run runs it
// without the race detector).
func TestSymmetricAgainstGamesmanOne(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("half a minute of CPU: not with -short or the race detector")
	}
	compareWithGamesmanOne(t, true)
}

// TestAgainstGamesmanOne is TestSymmetricAgainstGamesmanOne in full: 172M
// positions, two minutes of CPU and 2.5 GB. Only with TIERSOLVE_LONG=1.
func TestAgainstGamesmanOne(t *testing.T) {
	if os.Getenv("TIERSOLVE_LONG") == "" {
		t.Skip("solves all of Teeko (minutes): set TIERSOLVE_LONG=1")
	}
	compareWithGamesmanOne(t, false)
}

// compareWithGamesmanOne solves Teeko, in full or with symmetry, and
// compares it with GamesmanOne.
func compareWithGamesmanOne(t *testing.T, symmetry bool) {
	want := wantGamesmanOne(t, symmetry)
	dir := filepath.Join(t.TempDir(), "run")
	run, err := solver.Open(solver.Config{Game: teeko.Game{}, Dir: dir, Symmetry: symmetry})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Reach(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := run.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := run.Manifest
	// `gamesman query teeko 0 1_-------------------------` answers a draw
	// (remoteness 0), and so for every first move.
	if m.Start == nil || m.Start.Value != "draw" || m.Start.Remoteness != 0 {
		t.Errorf("start %v, GamesmanOne says a draw", m.Start)
	}
	if len(m.Tiers) != int(teeko.MovingTier)+1 {
		t.Fatalf("%d tiers", len(m.Tiers))
	}
	var total uint64
	for _, rec := range m.Tiers {
		got := tierSummary(t, dir, rec)
		w := want[tiergame.Tier(rec.Tier)]
		if got.String() != w.String() || got.total() != rec.Reachable {
			t.Errorf("tier %s:\n%s\nGamesmanOne:\n%s", rec.Name, got, w)
		}
		total += rec.Reachable
	}
	if !symmetry {
		// Every position of the moving tier is reachable but those where
		// the side to move has a pattern, legal or not.
		all, _, _ := ownPatterns(t)
		if rec := m.Tiers[teeko.MovingTier]; rec.Reachable+all != rec.TierSize {
			t.Errorf("moving tier: %d reachable and %d with a pattern of the side to move, of %d", rec.Reachable, all, rec.TierSize)
		}
	}
	t.Logf("symmetry %v: %d positions; start %s", symmetry, total, m.Start)
}

// tierSummary reads the value database of a solved tier.
func tierSummary(t *testing.T, dir string, rec *runfolder.TierRecord) summary {
	t.Helper()
	db, err := valuedb.Open(filepath.Join(dir, rec.DB.Path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recs, err := db.ReadAll(2)
	if err != nil {
		t.Fatal(err)
	}
	var s summary
	for _, r := range recs {
		s.add(r.Value(), r.Remoteness(), 1)
	}
	return s
}
