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
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/solver/oracle"
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

// gnubgValues recomputes gnubg's stored records of mover i against
// opponent j (gnubgbd.Values) from the stored records of its children,
// with makebearoff's integer arithmetic (gnubg 1.07): equities are int16
// e = stored-0x8000, a child's equity e seen from the mover is ^e = -e-1,
// a roll takes the best child for each record, and the weighted sum over
// the 36 rolls is divided by 36 truncating toward zero. The cubeful
// records take each child after its own cube decision (gnubgCubeEquity):
// for the mover's owned cube the child's opponent-owned record, for the
// centered cube the child's centered one, for the opponent's cube the
// child's owned one, each against its opponent-owned record doubled.
// Without cubeful records only the first is computed.
func gnubgValues(g *Game, raw func(i, j int) [4]uint16, cubeful bool, i, j int) (out [4]uint16) {
	switch {
	case i == 0:
		return [4]uint16{0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF}
	case j == 0:
		return [4]uint16{}
	}
	const equityOne = 0x7FFF
	s := g.moveLists()
	var total [4]int
	for k := range rolls {
		best := [4]int{math.MinInt, math.MinInt, math.MinInt, math.MinInt}
		for _, c := range s.moves(i, k) {
			var e [4]int
			for n, v := range raw(j, int(c)) {
				e[n] = int(v) - 0x8000
			}
			best[gnubgbd.Cubeless] = max(best[gnubgbd.Cubeless], ^e[gnubgbd.Cubeless])
			best[gnubgbd.OwnedCube] = max(best[gnubgbd.OwnedCube], ^e[gnubgbd.OpponentOwnsCube])
			best[gnubgbd.CenteredCube] = max(best[gnubgbd.CenteredCube], ^gnubgCubeEquity(e[gnubgbd.CenteredCube], e[gnubgbd.OpponentOwnsCube], equityOne))
			best[gnubgbd.OpponentOwnsCube] = max(best[gnubgbd.OpponentOwnsCube], ^gnubgCubeEquity(e[gnubgbd.OwnedCube], e[gnubgbd.OpponentOwnsCube], equityOne))
		}
		for n := range total {
			total[n] += int(rollWeight(k)) * best[n]
		}
	}
	for n := range out {
		if n == 0 || cubeful {
			out[n] = uint16(total[n]/totalWeight + 0x8000)
		}
	}
	return out
}

// gnubgCubeEquity is the equity after a player's cube decision in
// makebearoff's 16-bit integers, from no double (nd), the take value at
// the current cube (dt: doubled when the opponent takes) and double/pass
// (dp): a double when 2dt >= nd and dp >= nd, by its integer halvings;
// then a pass when dt >= dp/2.
func gnubgCubeEquity(nd, dt, dp int) int {
	if dt >= nd/2 && dp >= nd {
		if dt >= dp/2 {
			return dp
		}
		return 2 * dt
	}
	return nd
}

// TestGnubgTwoSided compares a variant with gnubg's two-sided database
// with cubeful equities (makebearoff without -C), in two ways:
//
//   - Every stored gnubg record must follow from gnubg's own stored
//     records of its children over our legal plays, with gnubg's
//     arithmetic (gnubgValues): an exact check of our move generator and
//     index, and of our reading of its cube rules, against every position
//     of gnubg's table.
//   - Our exact equities against gnubg's, the cubeless one and the three
//     cubeful planes (cube=money): gnubg truncates to 16 bits at every
//     level, so its values drift from the exact ones by a few units of
//     1/32767.5; the test reports the worst and mean difference.
//
// CI compares 6 points with 5 checkers (213,444 positions) and 4 with 6;
// TIERSOLVE_GNUBG_FULL=1 also 6 with 6 (853,776).
func TestGnubgTwoSided(t *testing.T) {
	if race.Enabled {
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
			g := moneyGame(t, checkers, points)
			if gdb.N != g.n || !gdb.Cubeful {
				t.Fatalf("gnubg has %d one-sided positions (cubeful %v), we have %d", gdb.N, gdb.Cubeful, g.n)
			}
			o := solveRun(t, g, solver.Config{})
			cmp := compareGnubg(t, g, o, gdb)
			const unit = 1 / 32767.5
			for n, name := range recordNames {
				t.Logf("%s: %d positions: gnubg's values follow from its children over our plays in %d; "+
					"exact equity minus gnubg's: worst %.3g (%.2f units of 1/32767.5), mean %.3g (%.2f units)",
					name, cmp.n, cmp.n-cmp.inconsistent[n], cmp.worst[n], cmp.worst[n]/unit, cmp.sum[n]/float64(cmp.n), cmp.sum[n]/float64(cmp.n)/unit)
				if cmp.inconsistent[n] > 0 {
					t.Errorf("%s: %d positions where gnubg's record does not follow from its children over our plays", name, cmp.inconsistent[n])
				}
				if cmp.worst[n] > 16*unit {
					t.Errorf("%s: our equities differ from gnubg's by up to %.2f units, more than its truncation explains", name, cmp.worst[n]/unit)
				}
			}
			checkBearoffdump(t, g, path, o, 20)
		})
	}
}

// recordNames names gnubg's records by index.
var recordNames = [4]string{"cubeless", "owned cube", "centered cube", "opponent owns cube"}

// gnubgComparison is how far our equities are from a gnubg database's,
// record by record (gnubgbd's indices).
type gnubgComparison struct {
	n            int
	inconsistent [4]int
	worst, sum   [4]float64
	examples     int
}

// compareGnubg compares every position of g, solved in o, with gnubg's
// database gdb.
func compareGnubg(t *testing.T, g *Game, o *oracle.Oracle, gdb *gnubgbd.TwoSided) *gnubgComparison {
	c := &gnubgComparison{}
	planeOf := [4]CubeState{gnubgbd.OwnedCube: Owned, gnubgbd.CenteredCube: Centered, gnubgbd.OpponentOwnsCube: OpponentOwns}
	for i := range g.n {
		for j := range g.n {
			stored := gdb.Values(i, j)
			derived := gnubgValues(g, gdb.Values, gdb.Cubeful, i, j)
			tier, pos := g.Position(i, j)
			p, err := o.Win(tier, pos)
			if err != nil {
				t.Fatal(err)
			}
			planes, err := o.Planes(tier, pos)
			if err != nil {
				t.Fatal(err)
			}
			for n := range stored {
				if derived[n] != stored[n] {
					if c.inconsistent[n]++; c.examples < 5 {
						c.examples++
						t.Errorf("mover %d, opponent %d, %s: gnubg stores %d, its children give %d over our plays", i, j, recordNames[n], stored[n], derived[n])
					}
				}
				ours := p.Equity()
				if n != gnubgbd.Cubeless {
					ours = planes[planeOf[n]].Equity()
				}
				d := math.Abs(ours - gnubgbd.EquityOf(stored[n]))
				c.worst[n] = max(c.worst[n], d)
				c.sum[n] += d
			}
			c.n++
		}
	}
	return c
}

var (
	dumpID     = regexp.MustCompile(`Position ID: ([A-Za-z0-9+/]{14})`)
	dumpSides  = regexp.MustCompile(`Position\s+(\d+)\s+(\d+)`)
	dumpEquity = regexp.MustCompile(`Cubeless equity\s*:\s*([+-][0-9.]+)`)
	// dumpCubeful reads the cubeful lines of a database with them, in
	// the order of our planes.
	dumpCubeful = [cubeStates]*regexp.Regexp{
		Centered:     regexp.MustCompile(`Centered cube\s*:\s*([+-][0-9.]+)`),
		Owned:        regexp.MustCompile(`Owned cube\s*:\s*([+-][0-9.]+)`),
		OpponentOwns: regexp.MustCompile(`Opponent owns cube\s*:\s*([+-][0-9.]+)`),
	}
)

// checkBearoffdump asks gnubg's bearoffdump for n random positions of the
// database at path: its Position ID must be our position with that index,
// and its printed equities (4 decimals) ours, the cubeless one and, for a
// run with the money planes, the three cubeful ones. This checks our
// reading of the file and our one-sided index against gnubg itself.
func checkBearoffdump(t *testing.T, g *Game, path string, o *oracle.Oracle, n int) {
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
		if g.Cube() != CubeMoney {
			continue
		}
		planes, err := o.Planes(tier, pos)
		if err != nil {
			t.Fatal(err)
		}
		for s, re := range dumpCubeful {
			m := re.FindSubmatch(out)
			if m == nil {
				t.Fatalf("bearoffdump -n %d: no %v line:\n%s", key, CubeState(s), out)
			}
			want, _ := strconv.ParseFloat(string(m[1]), 64)
			if got := planes[s].Equity(); math.Abs(got-want) > 0.00005+16/32767.5 {
				t.Errorf("bearoffdump -n %d (%s): %v cube %+.4f, ours %+.7f", key, id[1], CubeState(s), want, got)
			}
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
	if race.Enabled {
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
