package tierdcli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// writeTestMET writes a 9-point match equity table of our own (by a
// formula) and returns its path, so the tests need no gnubg.
func writeTestMET(t *testing.T) string {
	t.Helper()
	const n = 9
	var b strings.Builder
	fmt.Fprintf(&b, "<met><info><name>test table</name><description>by formula</description><length>%d</length></info><pre-crawford-table>", n)
	for i := 1; i <= n; i++ {
		b.WriteString("<row>")
		for j := 1; j <= n; j++ {
			fmt.Fprintf(&b, "<me>%.6f</me>", 0.5+0.5*math.Tanh(float64(j-i)/(1.5*math.Sqrt(float64(i+j)))))
		}
		b.WriteString("</row>")
	}
	b.WriteString(`</pre-crawford-table><post-crawford-table player="both"><row>`)
	for k := 1; k < n; k++ {
		fmt.Fprintf(&b, "<me>%.6f</me>", 0.5*math.Pow(0.62, float64(k-1)))
	}
	b.WriteString("</row></post-crawford-table></met>")
	path := filepath.Join(t.TempDir(), "test.xml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cubeJSON is query --json's answer with the cube.
type cubeJSON struct {
	Position   string
	Cubeful    *struct{ Centered, Owned, Opponent float64 }
	MWC        *struct{ Centered, Owned, Opponent float64 }
	Match      *struct{ Length int }
	Cube       string
	Action     string
	NoDouble   *float64 `json:"no_double"`
	DoubleTake *float64 `json:"double_take"`
	DoublePass *float64 `json:"double_pass"`
	Plays      []struct {
		Play    string
		Cubeful *float64 `json:"cubeful_equity"`
		MWC     *float64
	}
}

// TestCubeQuery solves a small bearoff with cube=money, verifies it, and
// queries the cube in money play and at match scores.
func TestCubeQuery(t *testing.T) {
	opt := "checkers=4,points=6,cube=money"
	dir := solved(t, "run", "bearoff", opt)
	if code, stdout, stderr := tierd(t, "verify", "--db", dir, "--json"); code != 0 || !strings.Contains(stdout, `"ok":true`) ||
		!strings.Contains(stdout, fmt.Sprintf(`"files_checked":%d`, 3*49)) {
		t.Fatalf("verify: exit %d: %s %s", code, stdout, stderr)
	}
	g, _ := bearoff.NewVariant(4, 6, bearoff.CubeMoney)
	o, err := oracle.Open(dir, g)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()

	// Two checkers on the 2 point against one on the 6: the player on
	// roll bears off with 26 rolls of 36 (not 21, 31, 41, 51, 61), the
	// opponent then with 27: double, and the opponent takes.
	var b gnubgid.Board
	b[1][1], b[0][5] = 2, 1
	pos, _ := gnubgid.EncodePosition(b)
	code, stdout, stderr := tierd(t, "query", "--db", dir, "--json", "--roll", "21", pos)
	var q cubeJSON
	if code != 0 || json.Unmarshal([]byte(stdout), &q) != nil || q.Cubeful == nil || q.Action != "double/take" || q.Cube != "centered" ||
		*q.DoubleTake != 2*q.Cubeful.Opponent || *q.DoublePass != 1 || q.Cubeful.Centered != *q.DoubleTake ||
		len(q.Plays) != 1 || q.Plays[0].Cubeful == nil || *q.Plays[0].Cubeful != -1 {
		t.Fatalf("query: exit %d: %s %s", code, stdout, stderr)
	}
	tier, p, _ := g.Parse(pos)
	planes, _ := o.Planes(tier, p)
	for s, v := range []float64{q.Cubeful.Centered, q.Cubeful.Owned, q.Cubeful.Opponent} {
		want, _ := bearoff.MoneyAfter(planes, bearoff.CubeState(s))
		if v != want {
			t.Errorf("%v: cubeful %v, want %v", bearoff.CubeState(s), v, want)
		}
	}
	// One checker on the 2 point and one on the ace: every roll bears off
	// both. Double, and the opponent passes.
	b[1][1], b[1][0] = 1, 1
	sure, _ := gnubgid.EncodePosition(b)
	_, stdout, _ = tierd(t, "query", "--db", dir, "--json", sure)
	if err := json.Unmarshal([]byte(stdout), &q); err != nil || q.Action != "double/pass" || q.Cubeful.Centered != 1 {
		t.Fatalf("query %s: %v %s", sure, err, stdout)
	}
	// The opponent owns the cube: no action.
	_, stdout, _ = tierd(t, "query", "--db", dir, "--json", "--cube", "opponent", pos)
	q = cubeJSON{}
	if err := json.Unmarshal([]byte(stdout), &q); err != nil || q.Action != "" || q.DoubleTake != nil || *q.NoDouble != q.Cubeful.Opponent {
		t.Fatalf("query --cube opponent: %v %s", err, stdout)
	}
	// The start (4 checkers on the 6 point each): a double and a take,
	// and the plays by cubeful equity.
	_, stdout, _ = tierd(t, "query", "--db", dir, "--roll", "61", g.Format(g.Start()))
	if !strings.Contains(stdout, "cube centered: double/take") || !strings.Contains(stdout, "cubeful +") {
		t.Fatalf("query the start: %s", stdout)
	}

	// Match play.
	metFile := writeTestMET(t)
	code, stdout, stderr = tierd(t, "query", "--db", dir, "--json", "--met", metFile, "--match", "7", "--score", "5-3", "--roll", "21", pos)
	q = cubeJSON{}
	if code != 0 || json.Unmarshal([]byte(stdout), &q) != nil || q.MWC == nil || q.Match == nil || q.Match.Length != 7 ||
		q.Action == "" || len(q.Plays) == 0 || q.Plays[0].MWC == nil {
		t.Fatalf("query --match: exit %d: %s %s", code, stdout, stderr)
	}
	tb, _ := met.ReadFile(metFile)
	if dp, _ := tb.Win(4, 3, false); math.Abs(*q.DoublePass-dp) > 1e-9 || q.MWC.Centered > dp+1e-9 {
		t.Errorf("double/pass at 5-3: %v, the table gives %v", *q.DoublePass, dp)
	}
	// A cubeless run answers match queries too.
	plain := solved(t, "plain", "bearoff", "checkers=3,points=6")
	code, stdout, stderr = tierd(t, "query", "--db", plain, "--met", metFile, "--match", "5", "--score", "2-4", "--cube", "owned", "--cube-value", "2", pos)
	if code != 0 || !strings.Contains(stdout, "cube owned at 2:") || strings.Contains(stdout, "cubeful money") {
		t.Fatalf("query a cubeless run at a match score: exit %d: %s %s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"query", "--db", plain, "--cube", "owned", pos},                                // no money planes, no match
		{"query", "--db", dir, "--match", "7", pos},                                     // no score
		{"query", "--db", dir, "--score", "5-3", pos},                                   // no match
		{"query", "--db", dir, "--met", metFile, "--match", "7", "--score", "8-3", pos}, // beyond the match
		{"query", "--db", dir, "--met", metFile, "--match", "7", "--score", "5-3", "--crawford", pos},
		{"query", "--db", dir, "--met", metFile, "--match", "12", "--score", "5-3", pos}, // beyond the table
		{"query", "--db", dir, "--cube", "middle", pos},                                  // no such state
		{"query", "--db", dir, "--met", metFile, "--match", "7", "--score", "5-3", "--cube-value", "3", "--cube", "owned", pos},
		{"query", "--db", dir, "--met", filepath.Join(t.TempDir(), "none.xml"), "--match", "7", "--score", "5-3", pos},
	} {
		if code, _, stderr := tierd(t, args...); code == 0 || stderr == "" {
			t.Errorf("tierd %v: exit %d, %q", args, code, stderr)
		}
	}
	// A cube value of 0 is refused by its own name.
	if code, _, stderr := tierd(t, "query", "--db", dir, "--met", metFile, "--match", "7", "--score", "5-3", "--cube-value", "0", pos); code != 2 || !strings.Contains(stderr, "--cube-value 0:") {
		t.Errorf("--cube-value 0: exit %d, %q", code, stderr)
	}
	if code, _, stderr := tierd(t, "query", "--db", dir, "--cube", "owned", "--game", "tictactoe", "---/---/---"); code == 0 {
		t.Errorf("--cube on tic-tac-toe: exit 0 %s", stderr)
	}

	// Review a real match with the table: its bearoff cube decisions of
	// up to 4 checkers are judged by match winning chance.
	if match := "../../shared/corpus/xg/test.xg"; fileExists(match) {
		code, stdout, stderr := tierd(t, "review", "--db", dir, "--met", metFile, "--json", match)
		var rep struct {
			Table         string
			CubeDecisions []struct{ Measure, Action, Right string } `json:"cube_decisions"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Table != "test table" || len(rep.CubeDecisions) == 0 || rep.CubeDecisions[0].Measure != "match winning chance" {
			t.Fatalf("review: exit %d: %s %s", code, stdout, stderr)
		}
		if code, _, _ := tierd(t, "review", "--db", dir, "--met", filepath.Join(t.TempDir(), "none.xml"), match); code == 0 {
			t.Error("review with a table that is not there: exit 0")
		}
	}

	// A planes database gone is redone when the run is solved again.
	m, _ := runfolder.LoadManifest(dir)
	lost := filepath.Join(dir, m.Tiers[len(m.Tiers)/2].Planes.Path)
	os.Remove(lost)
	if code, _, stderr := tierd(t, "solve", "--game", "bearoff", "--option", opt, "--out", dir); code != 0 {
		t.Fatalf("solve again: exit %d: %s", code, stderr)
	}
	if code, _, stderr := tierd(t, "verify", "--db", dir); code != 0 || !fileExists(lost) {
		t.Fatalf("verify after the planes were redone: exit %d: %s", code, stderr)
	}

	// A damaged planes database fails verify.
	f := filepath.Join(dir, m.Tiers[len(m.Tiers)-1].Planes.Path)
	raw, _ := os.ReadFile(f)
	raw[len(raw)/2] ^= 0xFF
	os.WriteFile(f, raw, 0o644)
	if code, _, stderr := tierd(t, "verify", "--db", dir); code != 1 || !strings.Contains(stderr, ".planes.vdb") {
		t.Errorf("verify a damaged planes database: exit %d: %s", code, stderr)
	}
}
