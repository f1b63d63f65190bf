package review

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/xg"
	"github.com/tiersolve/tiersolve/games/bearoff"
)

// xgCorpus holds real XG matches, read in place.
const xgCorpus = "../../../shared/corpus/xg"

func corpus(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(xgCorpus, "*.xg"))
	if len(files) == 0 {
		t.Skipf("corpus %s not present", xgCorpus)
	}
	return files
}

// TestCorpusPlaysAreLegal checks the move generator against real play:
// every checker play of the corpus made in a bearoff (15 checkers on 6
// points covers them all) is among our legal plays of its roll.
func TestCorpusPlaysAreLegal(t *testing.T) {
	g, err := bearoff.NewGame(15, 6)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, name := range corpus(t) {
		f, err := xg.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := f.Decisions()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range ds {
			if d.Kind != xg.TypeMove {
				continue
			}
			if _, _, err := g.FromBoard(d.Board); errors.Is(err, bearoff.ErrNotBearoff) {
				continue
			}
			if _, err := PlayedIndex(g, d); err != nil {
				t.Errorf("%s game %d record %d: %s roll %v played %s: %v", filepath.Base(name), d.Game, d.Record, d.PositionID, d.Dice, d.Move, err)
			}
			n++
		}
		t.Logf("%s: %d bearoff plays", filepath.Base(name), n)
		total += n
	}
	if total == 0 {
		t.Fatal("no bearoff play in the corpus")
	}
	t.Logf("%d bearoff plays in all, every one among our legal plays", total)
}

// TestReview reviews every corpus match with a 5-checker database: the
// reviewed plays lose no equity when they are a best play, totals add up,
// and bearoffs of more checkers are counted as not covered.
func TestReview(t *testing.T) {
	g, err := bearoff.NewGame(5, 6)
	if err != nil {
		t.Fatal(err)
	}
	o := solved(t, g)
	reviewed, skipped := 0, 0
	for _, name := range corpus(t) {
		f, err := xg.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Match(f, g, o, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var lost [2]float64
		for _, d := range rep.Decisions {
			if d.Lost < 0 || d.BestEquity < d.Equity || (d.Lost == 0) != (d.Equity == d.BestEquity) {
				t.Errorf("%s: %+v", name, d)
			}
			lost[d.Player-1] += d.Lost
		}
		for p, tot := range rep.Totals {
			if diff := tot.Lost - lost[p]; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("%s: player %d total %v, decisions add to %v", name, p+1, tot.Lost, lost[p])
			}
		}
		for _, s := range rep.NotCovered {
			if s.Reason != ReasonVariant && (s.Reason != ReasonNoTable || !s.Cube) {
				t.Errorf("%s: %+v", name, s)
			}
		}
		reviewed += len(rep.Decisions)
		skipped += len(rep.NotCovered)
	}
	t.Logf("%d bearoff plays reviewed, %d not covered by the 5-checker database", reviewed, skipped)
	if reviewed == 0 || skipped == 0 {
		t.Errorf("%d reviewed, %d not covered: the corpus should have both", reviewed, skipped)
	}
}
