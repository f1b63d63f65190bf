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
	if raceEnabled {
		t.Skip("slow with the race detector; .ci/run runs it without")
	}
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

// gnubgOneSided is the one-sided database gnubg ships.
const gnubgOneSided = "/usr/share/gnubg/gnubg_os0.bd"

// gnubgChoice returns, for roll k of board i, the children gnubg may
// choose in its one-sided database: those whose stored distribution dist
// has the smallest sum of n*d[n] (its RollsOS).
func gnubgChoice(g *Game, dist func(int) [32]uint16, i, k int) []int {
	var best []int
	bestRolls := 0
	for _, c := range g.moveLists().moves(i, k) {
		r := 0
		for n, p := range dist(int(c)) {
			r += n * int(p)
		}
		switch {
		case len(best) == 0 || r < bestRolls:
			best, bestRolls = []int{int(c)}, r
		case r == bestRolls && dist(int(c)) != dist(best[0]):
			best = append(best, int(c))
		}
	}
	return best
}

// gnubgDist recomputes a stored distribution from the children chosen for
// each roll, with makebearoff's integer arithmetic: the weighted sum of
// the children's stored distributions shifted by one roll, (x+18)/36 per
// slot, and the excess over 65535 taken off the largest slot.
func gnubgDist(dist func(int) [32]uint16, chosen []int) [32]uint16 {
	var sum [32]int
	for k, c := range chosen {
		d := dist(c)
		for n := range 31 {
			sum[n+1] += int(rollWeight(k)) * int(d[n])
		}
	}
	var out [32]uint16
	total, mode := 0, 0
	for n := range out {
		out[n] = uint16((sum[n] + 18) / 36)
		total += int(out[n])
		if out[n] > out[mode] {
			mode = n
		}
	}
	out[mode] -= uint16(total - 0xFFFF)
	return out
}

// reproduces reports whether some choice among gnubg's tied children
// gives board i's stored distribution.
func reproduces(choices [][]int, dist func(int) [32]uint16, want [32]uint16) bool {
	chosen := make([]int, len(choices))
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(choices) {
			return gnubgDist(dist, chosen) == want
		}
		for _, c := range choices[k] {
			chosen[k] = c
			if try(k + 1) {
				return true
			}
		}
		return false
	}
	return try(0)
}

// TestGnubgOneSided compares our one-sided distributions (bear-off and
// first checker off, 15 checkers on 6 points) with gnubg's shipped
// database gnubg_os0.bd:
//
//   - gnubg's stored distribution of every board must follow from its
//     stored children over our plays, with its arithmetic (choosing for
//     each roll the child of smallest mean, by its own rounded values);
//   - where gnubg's choices are ours (for every roll, recursively), our
//     exact distribution must be gnubg's up to its rounding; elsewhere
//     gnubg chose, between moves of (nearly) equal mean, another than the
//     exactly best, and only the means, the quantity both minimise, are
//     compared.
func TestGnubgOneSided(t *testing.T) {
	if raceEnabled {
		t.Skip("slow with the race detector; .ci/run runs it without")
	}
	f, err := os.Open(gnubgOneSided)
	if err != nil {
		t.Skipf("%s: %v (Debian package gnubg)", gnubgOneSided, err)
	}
	defer f.Close()
	st, _ := f.Stat()
	gdb, err := gnubgbd.ReadOneSided(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGame(15, 6)
	if err != nil {
		t.Fatal(err)
	}
	if gdb.N != g.n || !gdb.Gammon {
		t.Fatalf("gnubg's database has %d positions (gammon %v), we have %d", gdb.N, gdb.Gammon, g.n)
	}
	off, first := g.OneSided()
	s := g.moveLists()
	for _, kind := range []struct {
		name   string
		gammon bool
		ours   []Distribution
	}{{"bear-off", false, off}, {"first checker off", true, first}} {
		dist := func(c int) [32]uint16 {
			o, fi := gdb.Dist(c)
			if kind.gammon {
				return fi
			}
			return o
		}
		same := make([]bool, g.n) // gnubg's choices are ours, recursively
		var inconsistent, tied, sameCount, n int
		var worst, sum, worstMean float64
		for i := range g.n {
			stored := dist(i)
			var gd Distribution
			for k, v := range stored {
				gd[k] = float64(v) / 65535
			}
			worstMean = max(worstMean, math.Abs(kind.ours[i].Mean()-gd.Mean()))
			if i == 0 || kind.gammon && g.sides.boards[i].Checkers() < 15 {
				same[i] = true
			} else {
				choices := make([][]int, len(rolls))
				same[i] = true
				for k := range rolls {
					choices[k] = gnubgChoice(g, dist, i, k)
					if len(choices[k]) > 1 {
						tied++
					}
					mine := -1 // our exact choice: the first child of smallest mean
					for _, c := range s.moves(i, k) {
						if mine < 0 || kind.ours[c].Mean() < kind.ours[mine].Mean() {
							mine = int(c)
						}
					}
					same[i] = same[i] && len(choices[k]) == 1 && dist(choices[k][0]) == dist(mine) && same[mine]
				}
				if !reproduces(choices, dist, stored) {
					if inconsistent++; inconsistent <= 3 {
						t.Errorf("%s distribution of board %d: gnubg stores %v, which no choice of its children over our plays gives", kind.name, i, stored)
					}
				}
			}
			if !same[i] {
				continue
			}
			sameCount++
			for k := range stored {
				d := math.Abs(kind.ours[i][k] - gd[k])
				worst = max(worst, d)
				sum += d
				n++
			}
		}
		t.Logf("%s: %d boards; gnubg's distributions follow from its children over our plays in %d (%d rolls with tied choices); "+
			"%d boards where gnubg's choices are ours: exact minus gnubg's probability per slot worst %.3g (%.1f units of 1/65535), mean %.3g; "+
			"expected rolls, every board: worst difference %.3g",
			kind.name, g.n, g.n-inconsistent, tied, sameCount, worst, worst*65535, sum/float64(n), worstMean)
		if worst > 16.0/65535 || worstMean > 0.001 {
			t.Errorf("%s: our distributions differ from gnubg's more than its rounding explains", kind.name)
		}
	}
}
