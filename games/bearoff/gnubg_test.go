package bearoff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/tiersolve/tiersolve/games/bearoff/internal/gnubgbd"
	"github.com/tiersolve/tiersolve/solver"
)

// FullEnv enables the comparison with gnubg's 6-point 6-checker two-sided
// database (853,776 positions; makebearoff takes about 20 s).
const FullEnv = "TIERSOLVE_GNUBG_FULL"

// gnubgTool finds one of gnubg's programs: on PATH, or where Debian's
// package puts them (/usr/games is not on every PATH).
func gnubgTool(t testing.TB, name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p := "/usr/games/" + name; fileExists(p) {
		return p
	}
	t.Skipf("%s not installed (Debian package gnubg)", name)
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// makeTwoSided runs gnubg's makebearoff for a two-sided database.
func makeTwoSided(t testing.TB, points, checkers int) (string, *gnubgbd.TwoSided) {
	bin := gnubgTool(t, "makebearoff")
	path := filepath.Join(t.TempDir(), fmt.Sprintf("ts%dx%d.bd", points, checkers))
	cmd := exec.Command(bin, "-t", fmt.Sprintf("%dx%d", points, checkers), "-f", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd, err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	db, err := gnubgbd.ReadTwoSided(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return path, db
}

// gnubgValue recomputes gnubg's stored value of mover i against opponent
// j from the stored values of its children, with makebearoff's integer
// arithmetic (gnubg 1.07): equities are int16 e = stored-0x8000, a child's
// equity e seen from the mover is ^e = -e-1, a roll takes the best child,
// and the weighted sum over the 36 rolls is divided by 36 truncating
// toward zero.
func gnubgValue(g *Game, raw func(i, j int) uint16, i, j int) uint16 {
	switch {
	case i == 0:
		return 0xFFFF
	case j == 0:
		return 0
	}
	s := g.moveLists()
	total := 0
	for k := range rolls {
		best := math.MinInt
		for _, c := range s.moves(i, k) {
			best = max(best, ^(int(raw(j, int(c))) - 0x8000))
		}
		total += int(rollWeight(k)) * best
	}
	return uint16(total/totalWeight + 0x8000)
}

// TestGnubgTwoSided compares a variant with gnubg's two-sided database, in
// two ways:
//
//   - Every stored gnubg value must follow from gnubg's own stored values
//     of its children over our legal plays, with gnubg's arithmetic
//     (gnubgValue): an exact check of our move generator and index
//     against every position of gnubg's table.
//   - Our exact equities against gnubg's: gnubg truncates to 16 bits at
//     every level, so its values drift from the exact ones by a few units
//     of 1/32767.5; the test reports the worst and mean difference.
//
// CI compares 6 points with 5 checkers (213,444 positions) and 4 with 6;
// TIERSOLVE_GNUBG_FULL=1 also 6 with 6 (853,776).
func TestGnubgTwoSided(t *testing.T) {
	variants := [][2]int{{6, 5}, {4, 6}}
	if os.Getenv(FullEnv) == "1" {
		variants = append(variants, [2]int{6, 6})
	}
	for _, v := range variants {
		points, checkers := v[0], v[1]
		t.Run(fmt.Sprintf("%dx%d", points, checkers), func(t *testing.T) {
			path, gdb := makeTwoSided(t, points, checkers)
			g, err := NewGame(checkers, points)
			if err != nil {
				t.Fatal(err)
			}
			if gdb.N != g.n {
				t.Fatalf("gnubg has %d one-sided positions, we have %d", gdb.N, g.n)
			}
			o := solveRun(t, g, solver.Config{})
			const unit = 1 / 32767.5
			var worst, sum float64
			var inconsistent, n int
			for i := range g.n {
				for j := range g.n {
					if want, got := gdb.Raw(i, j), gnubgValue(g, gdb.Raw, i, j); got != want {
						if inconsistent++; inconsistent <= 5 {
							t.Errorf("mover %d, opponent %d: gnubg stores %d, its children give %d over our plays", i, j, want, got)
						}
					}
					tier, pos := g.Position(i, j)
					p, err := o.Win(tier, pos)
					if err != nil {
						t.Fatal(err)
					}
					d := math.Abs(p.Equity() - gdb.Equity(i, j))
					worst = max(worst, d)
					sum += d
					n++
				}
			}
			t.Logf("%d positions: gnubg's values follow from its children over our plays in %d; "+
				"exact equity minus gnubg's: worst %.3g (%.2f units of 1/32767.5), mean %.3g (%.2f units)",
				n, n-inconsistent, worst, worst/unit, sum/float64(n), sum/float64(n)/unit)
			if worst > 16*unit {
				t.Errorf("our equities differ from gnubg's by up to %.2f units, more than its truncation explains", worst/unit)
			}
			checkBearoffdump(t, g, path, o, 20)
		})
	}
}

var (
	dumpID     = regexp.MustCompile(`Position ID: ([A-Za-z0-9+/]{14})`)
	dumpSides  = regexp.MustCompile(`Position\s+(\d+)\s+(\d+)`)
	dumpEquity = regexp.MustCompile(`Cubeless equity\s*:\s*([+-][0-9.]+)`)
)

// checkBearoffdump asks gnubg's bearoffdump for n random positions of the
// database at path: its Position ID must be our position with that index,
// and its printed equity (4 decimals) ours. This checks our reading of the
// file and our one-sided index against gnubg itself.
func checkBearoffdump(t *testing.T, g *Game, path string, o *solver.Oracle, n int) {
	bin := gnubgTool(t, "bearoffdump")
	r := rand.New(rand.NewPCG(1, uint64(g.n)))
	for range n {
		key := 1 + r.IntN(g.n*g.n-1) // bearoffdump takes 0 for "no index"
		out, err := exec.Command(bin, path, "-n", strconv.Itoa(key)).CombinedOutput()
		if err != nil {
			t.Fatalf("bearoffdump -n %d: %v\n%s", key, err, out)
		}
		id, sides, eq := dumpID.FindSubmatch(out), dumpSides.FindSubmatch(out), dumpEquity.FindSubmatch(out)
		if id == nil || sides == nil || eq == nil {
			t.Fatalf("bearoffdump -n %d: unexpected output:\n%s", key, out)
		}
		tier, pos, err := g.Parse(string(id[1]))
		if err != nil {
			t.Fatal(err)
		}
		i, j := g.SidesOf(tier, pos)
		if fmt.Sprint(i) != string(sides[1]) || fmt.Sprint(j) != string(sides[2]) || uint64(i)*uint64(g.n)+uint64(j) != uint64(key) {
			t.Errorf("bearoffdump -n %d: %s is (%s, %s) for gnubg, (%d, %d) for us", key, id[1], sides[1], sides[2], i, j)
		}
		want, _ := strconv.ParseFloat(string(eq[1]), 64)
		p, err := o.Win(tier, pos)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Equity()-want) > 0.00005+16/32767.5 {
			t.Errorf("bearoffdump -n %d (%s): equity %+.4f, ours %+.7f", key, id[1], want, p.Equity())
		}
	}
}
