package solver

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/tiergame"
)

// c4Ref is a reference Connect Four solver for a board of w columns and h
// rows. A board is a byte per cell, column by column from the left and
// bottom up in each column: 0 empty, 1 X, 2 O. Its key is the base-3
// number with one digit per cell in that order.
type c4Ref struct {
	w, h int
	pow  []uint64 // pow[i] = 3^i
	memo map[uint64]refRec
}

func newC4Ref(w, h int) *c4Ref {
	s := &c4Ref{w: w, h: h, memo: map[uint64]refRec{}}
	p := uint64(1)
	for range w * h {
		s.pow = append(s.pow, p)
		p *= 3
	}
	return s
}

// four reports whether player who has four in a row anywhere.
func (s *c4Ref) four(cells []byte, who byte) bool {
	dirs := [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} // (column, row) steps
	for c := 0; c < s.w; c++ {
		for r := 0; r < s.h; r++ {
			for _, d := range dirs {
				k := 0
				for ; k < 4; k++ {
					cc, rr := c+k*d[0], r+k*d[1]
					if cc < 0 || cc >= s.w || rr < 0 || rr >= s.h || cells[cc*s.h+rr] != who {
						break
					}
				}
				if k == 4 {
					return true
				}
			}
		}
	}
	return false
}

// solve returns the record of the board cells with n pieces and key key,
// solving its descendants on the way.
func (s *c4Ref) solve(cells []byte, n int, key uint64) refRec {
	if r, ok := s.memo[key]; ok {
		return r
	}
	last := byte(2) // the player who just moved: X after an odd count
	if n%2 == 1 {
		last = 1
	}
	var r refRec
	switch {
	case s.four(cells, last):
		r = refRec{tiergame.Lose, 0}
	case n == s.w*s.h:
		r = refRec{tiergame.Tie, 0}
	default:
		mover := 3 - last
		kids := make([]refRec, 0, s.w)
		for c := 0; c < s.w; c++ {
			row := 0
			for row < s.h && cells[c*s.h+row] != 0 {
				row++
			}
			if row == s.h {
				continue
			}
			i := c*s.h + row
			cells[i] = mover
			kids = append(kids, s.solve(cells, n+1, key+uint64(mover)*s.pow[i]))
			cells[i] = 0
		}
		r = refCombine(kids)
	}
	s.memo[key] = r
	return r
}

// run solves the game from the empty board.
func (s *c4Ref) run() refRec {
	return s.solve(make([]byte, s.w*s.h), 0, 0)
}

// text renders the board of a key as rows from the top separated by '/',
// and counts its pieces.
func (s *c4Ref) text(key uint64) (string, int) {
	cells := make([]byte, s.w*s.h)
	for i := range cells {
		cells[i] = byte(key % 3)
		key /= 3
	}
	var b strings.Builder
	n := 0
	for r := s.h - 1; r >= 0; r-- {
		for c := 0; c < s.w; c++ {
			b.WriteByte(".xo"[cells[c*s.h+r]])
			if cells[c*s.h+r] != 0 {
				n++
			}
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	return b.String(), n
}

func (s *c4Ref) positions(yield func(refPos) bool) {
	for key, rec := range s.memo {
		text, n := s.text(key)
		if !yield(refPos{text, tiergame.Tier(n), rec}) {
			return
		}
	}
}

// testConnect4AgainstReference solves w x h Connect Four both ways and
// compares every reachable position.
func testConnect4AgainstReference(t *testing.T, w, h int, wantStart refRec) {
	t0 := time.Now()
	ref := newC4Ref(w, h)
	start := ref.run()
	if start != wantStart {
		t.Errorf("reference start %v, want %v", start, wantStart)
	}
	t1 := time.Now()
	r := solveRun(t, "connect4", fmt.Sprintf("width=%d,height=%d", w, h), Config{})
	t2 := time.Now()
	if s := r.Manifest.Start; s == nil || s.Value != start.v.String() || s.Remoteness != start.rem {
		t.Errorf("manifest start %+v, reference %v", s, start)
	}
	if r.Manifest.Total != uint64(len(ref.memo)) {
		t.Errorf("manifest total %d, reference %d positions", r.Manifest.Total, len(ref.memo))
	}
	checkAgainstRef(t, r, ref.positions)
	checkVerifies(t, r, uint64(len(ref.memo)))
	t.Logf("%dx%d: %d positions; reference %v, run %v, comparison %v", w, h, len(ref.memo),
		t1.Sub(t0).Round(time.Millisecond), t2.Sub(t1).Round(time.Millisecond), time.Since(t2).Round(time.Millisecond))
}

func TestConnect4AgainstReference(t *testing.T) {
	// The starts: no line fits on 3x3, so it is a tie on a full board;
	// the others are ties too (values checked by the references, which
	// must agree with each other and with the solver on every position).
	for _, tc := range []struct {
		w, h  int
		start refRec
	}{
		{3, 3, refRec{tiergame.Tie, 9}},
		{4, 3, refRec{tiergame.Tie, 12}},
		{3, 4, refRec{tiergame.Tie, 12}},
		{4, 4, refRec{tiergame.Tie, 16}},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			testConnect4AgainstReference(t, tc.w, tc.h, tc.start)
		})
	}
}

// TestConnect4AgainstReference5x4 is the same on 5x4 (3.9M positions):
// about 20 s without the race detector, so it runs in the normal run but
// not under -short or -race, unless TIERSOLVE_LONG=1.
func TestConnect4AgainstReference5x4(t *testing.T) {
	if !longTests() && (testing.Short() || race.Enabled) {
		t.Skip("3.9M positions: skipped under -short and -race unless TIERSOLVE_LONG=1")
	}
	testConnect4AgainstReference(t, 5, 4, refRec{tiergame.Tie, 20})
}

// TestConnect4Counts5x5 checks 5x5 Connect Four (70M positions) against
// the per-ply win/draw/loss counts of an independent solver
// (markus7800's): the columns are width, height, ply (pieces on the
// board), and the numbers of positions won, drawn (our ties) and lost for
// the player to move, primitive ones included. TIERSOLVE_LONG=1 only.
func TestConnect4Counts5x5(t *testing.T) {
	if !longTests() {
		t.Skip("70M positions: set TIERSOLVE_LONG=1 (and no -short)")
	}
	const vectors = "../../shared/testvectors/games"
	if _, err := os.Stat(vectors); err != nil {
		t.Skipf("no test vectors: %v", err)
	}
	f, err := os.Open(filepath.Join(vectors, "markus7800_results_solve_w5_h5.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct{ win, draw, lost uint64 }
	want := map[tiergame.Tier]row{}
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			if got := sc.Text(); got != "width,height,ply,wincount,drawcount,lostcount,time" {
				t.Fatalf("header %q", got)
			}
			continue
		}
		var v [6]uint64
		fields := strings.Split(sc.Text(), ",")
		if len(fields) != 7 {
			t.Fatalf("line %d: %q", line+1, sc.Text())
		}
		for i := range v {
			if v[i], err = strconv.ParseUint(strings.TrimSpace(fields[i]), 10, 64); err != nil {
				t.Fatalf("line %d: %v", line+1, err)
			}
		}
		if v[0] != 5 || v[1] != 5 {
			t.Fatalf("line %d: board %dx%d", line+1, v[0], v[1])
		}
		want[tiergame.Tier(v[2])] = row{v[3], v[4], v[5]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != 26 {
		t.Fatalf("%d plies in the file, want 26", len(want))
	}

	t0 := time.Now()
	r := solveRun(t, "connect4", "width=5,height=5", Config{})
	t.Logf("5x5: %d positions reached and solved in %v; start %+v", r.Manifest.Total, time.Since(t0).Round(time.Second), r.Manifest.Start)
	if s := r.Manifest.Start; s == nil || s.Value != "tie" {
		t.Errorf("start %+v, want a tie", s)
	}
	var total uint64
	for _, tr := range r.Manifest.Tiers {
		w, ok := want[tiergame.Tier(tr.Tier)]
		if !ok {
			t.Errorf("tier %d is not in the file", tr.Tier)
			continue
		}
		got := row{tr.Win, tr.Tie, tr.Lose}
		if got != w || tr.Draw != 0 || tr.Reachable != w.win+w.draw+w.lost {
			t.Errorf("ply %d: win/tie/lose %v (reachable %d, draw %d), file says win/draw/lost %v", tr.Tier, got, tr.Reachable, tr.Draw, w)
		}
		total += tr.Reachable
	}
	if len(r.Manifest.Tiers) != len(want) {
		t.Errorf("%d tiers, the file has %d plies", len(r.Manifest.Tiers), len(want))
	}
	t.Logf("5x5: %d tiers, %d positions agree with the file", len(r.Manifest.Tiers), total)
}
