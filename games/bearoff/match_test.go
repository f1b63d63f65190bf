package bearoff

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
)

// testTable returns a match equity table of length points by a formula
// (no gnubg needed), asymmetric between the players so that mixing them
// up shows: player 0 is a little stronger.
func testTable(t testing.TB, length int) *met.Table {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "<met><info><name>test</name><description>by formula</description><length>%d</length></info>\n<pre-crawford-table>\n", length)
	for i := 1; i <= length; i++ {
		b.WriteString("<row>")
		for j := 1; j <= length; j++ {
			w := 0.5 + 0.5*math.Tanh(float64(j-i)/(1.5*math.Sqrt(float64(i+j))))
			fmt.Fprintf(&b, "<me>%.6f</me>", min(1, w+0.01))
		}
		b.WriteString("</row>\n")
	}
	b.WriteString("</pre-crawford-table>\n")
	for p, bias := range []float64{0.02, -0.01} {
		fmt.Fprintf(&b, `<post-crawford-table player="%d"><row>`, p)
		for n := 1; n < length; n++ {
			fmt.Fprintf(&b, "<me>%.6f</me>", max(0, 0.5*math.Pow(0.62, float64(n-1))+bias))
		}
		b.WriteString("</row></post-crawford-table>\n")
	}
	b.WriteString("</met>")
	tb, err := met.Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// matchReference solves match play in a bearoff with a plain memoized
// recursion over positions, players on roll, cubes and scores, with the
// recursive play generator: value is the chance that player p, on roll
// with board i against board j, wins the match, after their own cube
// decision.
type matchReference struct {
	g     *Game
	table *met.Table
	memo  map[matchKey]float64
}

type matchKey struct {
	i, j, p int
	cube    MatchCube
	score   Score
}

// chance is player p's chance to win the match after player winner wins
// a game worth points at score s.
func (m *matchReference) chance(s Score, p, winner, points int) float64 {
	away := s.Away
	away[winner] -= points
	next := s.Crawford || s.Away[0] == 1 || s.Away[1] == 1
	w, err := m.table.Win(away[0], away[1], next)
	if err != nil {
		panic(err)
	}
	if p == 1 {
		return 1 - w
	}
	return w
}

// mayDouble reports whether player p may double cube c at score s.
func mayDouble(s Score, p int, c MatchCube) bool {
	return !s.Crawford && (c.Owner == -1 || c.Owner == p) && c.Value < s.Away[p]
}

func (m *matchReference) value(i, j, p int, c MatchCube, s Score) float64 {
	nd := m.noDouble(i, j, p, c, s)
	if !mayDouble(s, p, c) {
		return nd
	}
	take := m.noDouble(i, j, p, MatchCube{2 * c.Value, 1 - p}, s)
	pass := m.chance(s, p, p, c.Value)
	return math.Max(nd, math.Min(take, pass))
}

func (m *matchReference) noDouble(i, j, p int, c MatchCube, s Score) float64 {
	switch {
	case i == 0:
		return m.chance(s, p, p, c.Value)
	case j == 0:
		return m.chance(s, p, 1-p, c.Value)
	}
	key := matchKey{i, j, p, c, s}
	if v, ok := m.memo[key]; ok {
		return v
	}
	v := bestPlays(m.g, i, func(after int) float64 { return 1 - m.value(j, after, 1-p, c, s) })
	m.memo[key] = v
	return v
}

// TestMatchAgainstReference compares MatchEval with the reference on every
// position of 3 checkers on 3 points (and a few of 4 on 4), both players
// on roll, in every cube state, at scores before, at and after the
// Crawford game, in short and long matches.
func TestMatchAgainstReference(t *testing.T) {
	table := testTable(t, 25)
	g, _ := NewGame(3, 3)
	ref := &matchReference{g: g, table: table, memo: map[matchKey]float64{}}
	all := make([]int, g.n)
	for b := range all {
		all[b] = b
	}
	scores := []Score{
		{Length: 7, Away: [2]int{5, 3}}, {Length: 7, Away: [2]int{3, 5}}, {Length: 7, Away: [2]int{2, 2}},
		{Length: 7, Away: [2]int{7, 7}}, {Length: 7, Away: [2]int{4, 2}},
		{Length: 7, Away: [2]int{1, 3}, Crawford: true}, {Length: 7, Away: [2]int{1, 3}}, {Length: 7, Away: [2]int{4, 1}},
		{Length: 7, Away: [2]int{1, 1}}, {Length: 2, Away: [2]int{2, 2}}, {Length: 1, Away: [2]int{1, 1}},
		{Length: 25, Away: [2]int{25, 25}}, {Length: 25, Away: [2]int{17, 9}},
	}
	for _, s := range scores {
		e, err := g.NewMatchEval(context.Background(), MatchOptions{Table: table, Score: s, Boards: [2][]int{all, all},
			Cubes: []MatchCube{{1, 0}, {1, 1}, {4, 0}}})
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		worst, n := 0.0, 0
		for p := range 2 {
			for i := range g.n {
				for j := range g.n {
					b0, b1 := i, j
					if p == 1 {
						b0, b1 = j, i
					}
					if !e.Covers(b0, b1) {
						t.Fatalf("%v: (%d, %d) not covered", s, b0, b1)
					}
					for _, c := range e.States() {
						d, err := e.Decision(p, i, j, c)
						if err != nil {
							t.Fatal(err)
						}
						want := ref.value(i, j, p, c, s)
						worst = max(worst, math.Abs(d.Optimal-want))
						worst = max(worst, math.Abs(d.NoDouble-ref.noDouble(i, j, p, c, s)))
						n++
					}
				}
			}
		}
		t.Logf("%v: %d cube states, %d values, worst difference from the reference %.3g", s, len(e.States()), n, worst)
		if worst > 1e-8 { // 31-bit fixed point, rounded at every level
			t.Errorf("%v: match winning chances differ from the reference by up to %g", s, worst)
		}
	}
}

// TestMatchCone checks that an evaluation of the boards reachable from a
// position gives the values of a full one.
func TestMatchCone(t *testing.T) {
	table := testTable(t, 25)
	g, _ := NewGame(4, 4)
	all := make([]int, g.n)
	for b := range all {
		all[b] = b
	}
	s := Score{Length: 9, Away: [2]int{6, 4}}
	full, err := g.NewMatchEval(context.Background(), MatchOptions{Table: table, Score: s, Boards: [2][]int{all, all}})
	if err != nil {
		t.Fatal(err)
	}
	x, y := Index(Board{1, 0, 2, 1}, 4), Index(Board{0, 2, 0, 1}, 4)
	part, err := g.NewMatchEval(context.Background(), MatchOptions{Table: table, Score: s, Boards: [2][]int{{x}, {y}}})
	if err != nil {
		t.Fatal(err)
	}
	if part.size() >= full.size() || part.Covers(all[len(all)-1], y) {
		t.Fatalf("the cone holds %d positions, the variant %d", part.size(), full.size())
	}
	for _, c := range part.States() {
		a, err1 := full.Decision(0, x, y, c)
		b, err2 := part.Decision(0, x, y, c)
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("cube %+v: full %+v (%v), cone %+v (%v)", c, a, err1, b, err2)
		}
	}
	// Too little memory is an error, not a crash.
	if _, err := g.NewMatchEval(context.Background(), MatchOptions{Table: table, Score: s, Boards: [2][]int{all, all}, MaxMemory: 1 << 10}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a tiny memory bound: %v, want ErrTooLarge", err)
	}
}

func TestParseScore(t *testing.T) {
	for _, tc := range []struct {
		text   string
		length int
		ok     bool
	}{
		{"5-3", 7, true}, {"7-7", 7, true}, {" 1-3", 7, true}, {"1-1", 7, true}, {"1-1", 1, true},
		{"8-3", 7, false}, {"0-3", 7, false}, {"5", 7, false}, {"5-", 7, false}, {"a-b", 7, false},
		{"5-3-1", 7, false}, {"-5-3", 7, false}, {"+5-3", 7, false}, {"1-7", 7, false}, {"5-3", 0, false},
	} {
		s, err := ParseScore(tc.text, tc.length)
		if (err == nil) != tc.ok {
			t.Errorf("ParseScore(%q, %d) = %v, %v; want ok %v", tc.text, tc.length, s, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrScore) {
			t.Errorf("ParseScore(%q, %d): %v is not ErrScore", tc.text, tc.length, err)
		}
	}
	if err := (Score{Length: 7, Away: [2]int{1, 1}, Crawford: true}).Check(); err == nil {
		t.Error("a Crawford game at 1-away each: no error")
	}
}

func FuzzParseScore(f *testing.F) {
	for _, s := range []string{"5-3", "1-1", "25-25", "-1-3", "3-", "x"} {
		f.Add(s, 7)
	}
	f.Fuzz(func(t *testing.T, text string, length int) {
		s, err := ParseScore(text, length)
		if err != nil {
			return
		}
		if s.Check() != nil || s.Length != length || s.Away[0] < 1 || s.Away[1] < 1 || s.Away[0] > length || s.Away[1] > length {
			t.Fatalf("ParseScore(%q, %d) = %+v", text, length, s)
		}
		if again, err := ParseScore(fmt.Sprintf("%d-%d", s.Away[0], s.Away[1]), length); err != nil || again != s {
			t.Fatalf("ParseScore(%q, %d) = %+v, printed and read again %+v, %v", text, length, s, again, err)
		}
	})
}

// BenchmarkMatchEval evaluates the whole of 6 checkers on 6 points at a
// new score, as a query at a score asked for the first time does.
func BenchmarkMatchEval(b *testing.B) {
	table := testTable(b, 25)
	if tb, err := met.ReadFile(met.DefaultFile); err == nil {
		table = tb // gnubg's default, as the bench harness's bearoff/match/6x6
	}
	g, _ := NewGame(6, 6)
	start := Index(Board{0, 0, 0, 0, 0, 6}, 6)
	for _, s := range []Score{{Length: 7, Away: [2]int{5, 3}}, {Length: 25, Away: [2]int{25, 25}}} {
		b.Run(fmt.Sprintf("%d-%d-of-%d", s.Away[0], s.Away[1], s.Length), func(b *testing.B) {
			for b.Loop() {
				if _, err := g.NewMatchEval(context.Background(), MatchOptions{Table: table, Score: s, Boards: [2][]int{{start}, {start}},
					Cubes: []MatchCube{{1, 0}, {1, 1}}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
