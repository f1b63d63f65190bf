package universal

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/testrun"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// runs caches the runs the tests solve, one per game, option and symmetry.
var runs struct {
	sync.Mutex
	dirs map[string]string
}

// solved solves a run of the game into a temporary folder (once per test
// binary) and opens it.
func solved(t testing.TB, name, option string, symmetry bool) *oracle.Oracle {
	t.Helper()
	g, err := games.New(name, option)
	if err != nil {
		t.Fatal(err)
	}
	key := name + "/" + option + "/" + strconv.FormatBool(symmetry)
	runs.Lock()
	defer runs.Unlock()
	if runs.dirs == nil {
		runs.dirs = map[string]string{}
	}
	dir, ok := runs.dirs[key]
	if !ok {
		dir = filepath.Join(sharedDir, strings.NewReplacer("/", "_", "=", "", ",", "-").Replace(key))
		testrun.Solve(t, name, option, dir, symmetry)
		runs.dirs[key] = dir
	}
	o, err := oracle.Open(dir, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// sharedDir holds the runs of the whole test binary.
var sharedDir string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "universal-test-")
	if err != nil {
		panic(err)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server serves the handler of runs on a real loopback listener.
func server(t testing.TB, oracles ...*oracle.Oracle) *httptest.Server {
	t.Helper()
	var rs []Run
	for _, o := range oracles {
		rs = append(rs, Run{Oracle: o})
	}
	s := httptest.NewServer(NewHandler(rs, nil))
	t.Cleanup(s.Close)
	return s
}

// get fetches path and returns the status and body.
func get(t testing.TB, s *httptest.Server, path string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("GET %s: Access-Control-Allow-Origin %q", path, got)
	}
	if resp.ContentLength != int64(len(b)) {
		t.Errorf("GET %s: Content-Length %d for %d bytes (chunked: %v)", path, resp.ContentLength, len(b), resp.TransferEncoding)
	}
	return resp.StatusCode, b
}

// getJSON fetches path, wants status 200 and decodes the body into v.
func getJSON(t testing.TB, s *httptest.Server, path string, v any) {
	t.Helper()
	code, b := get(t, s, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", path, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, b)
	}
}

// position is the decoded answer for a position.
type position struct {
	Position, AutoguiPosition, PositionValue string
	Remoteness                               int
	Rule                                     *tiergame.RuleInfo
	Moves                                    []struct {
		Move, AutoguiMove, Position, AutoguiPosition, PositionValue, MoveValue string
		Remoteness, DeltaRemoteness                                            int
		Rule                                                                   *tiergame.RuleInfo
	}
	Error string
}

func positionPath(game, variant, p string) string {
	return "/" + game + "/" + variant + "/positions/?p=" + url.QueryEscape(p)
}

// TestTicTacToeStartGolden checks the whole answer for the start of
// tic-tac-toe against testdata/tictactoe-start.json (go test -update
// rewrites it): the moves are all ties in 9, listed as GamesmanClassic
// lists them, from the last cell to the first.
func TestTicTacToeStartGolden(t *testing.T) {
	s := server(t, solved(t, "tictactoe", "", false))
	code, got := get(t, s, "/tictactoe/regular/positions/?p=1_---------")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, got)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tictactoe-start.json")
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("answer differs from %s (go test -update rewrites it):\n%s", golden, pretty.Bytes())
	}
	var p position
	if err := json.Unmarshal(got, &p); err != nil {
		t.Fatal(err)
	}
	if p.PositionValue != "tie" || p.Remoteness != 9 || len(p.Moves) != 9 {
		t.Fatalf("start: %s in %d, %d moves", p.PositionValue, p.Remoteness, len(p.Moves))
	}
	for i, m := range p.Moves {
		cell := 8 - i
		want := struct{ move, auto, pos string }{strconv.Itoa(cell + 1), "A_x_" + strconv.Itoa(cell) + "_-", "2_" + strings.Repeat("-", cell) + "x" + strings.Repeat("-", 8-cell)}
		if m.Move != want.move || m.AutoguiMove != want.auto || m.Position != want.pos || m.AutoguiPosition != want.pos ||
			m.PositionValue != "tie" || m.MoveValue != "tie" || m.Remoteness != 8 || m.DeltaRemoteness != 0 {
			t.Errorf("move %d: %+v, want %+v", i, m, want)
		}
	}
}

// TestRoutes checks the listing routes and the errors, which the UWAPI
// answers with status 200.
func TestRoutes(t *testing.T) {
	s := server(t, solved(t, "tictactoe", "", false), solved(t, "connect4", "width=4,height=4", false))

	var list []map[string]string
	getJSON(t, s, "/", &list)
	want := []map[string]string{
		{"id": "connect4", "name": "Connect 4", "type": "twoPlayer", "gui": "v3"},
		{"id": "tictactoe", "name": "Tic-Tac-Toe", "type": "twoPlayer", "gui": "v3"},
	}
	if !slices.EqualFunc(list, want, func(a, b map[string]string) bool {
		return len(a) == len(b) && a["id"] == b["id"] && a["name"] == b["name"] && a["type"] == b["type"] && a["gui"] == b["gui"]
	}) {
		t.Errorf("games: %v, want %v", list, want)
	}

	var g struct {
		ID, Name                                  string
		Variants                                  []map[string]string
		AllowCustomVariantCreation, SupportsWinBy *bool
	}
	getJSON(t, s, "/connect4/", &g)
	if g.ID != "connect4" || len(g.Variants) != 1 || g.Variants[0]["id"] != "4x4" || g.Variants[0]["gui"] != "v3" ||
		g.AllowCustomVariantCreation == nil || *g.AllowCustomVariantCreation || g.SupportsWinBy == nil || *g.SupportsWinBy {
		t.Errorf("connect4: %+v", g)
	}
	getJSON(t, s, "/connect4", &g) // without the slash too
	if g.ID != "connect4" {
		t.Errorf("connect4 without the slash: %+v", g)
	}

	var v struct {
		ID, Name, StartPosition, AutoguiStartPosition, GUI string
		ImageAutoGUIData                                   *imageData
	}
	getJSON(t, s, "/connect4/4x4/", &v)
	if v.ID != "4x4" || v.StartPosition != "1_"+strings.Repeat("-", 16) || v.AutoguiStartPosition != v.StartPosition ||
		v.ImageAutoGUIData == nil || len(v.ImageAutoGUIData.Themes["normal"].Centers) != 16+8 {
		t.Errorf("connect4 4x4: %+v", v)
	}
	raw := map[string]json.RawMessage{}
	getJSON(t, s, "/tictactoe/regular/", &raw)
	if string(raw["imageAutoGUIData"]) != "null" || string(raw["startPosition"]) != `"1_---------"` {
		t.Errorf("tictactoe regular: %s", raw)
	}

	var ins struct{ Instructions string }
	getJSON(t, s, "/tictactoe/regular/instructions/?locale=en", &ins)
	if !strings.HasPrefix(ins.Instructions, "# Tic-Tac-Toe") {
		t.Errorf("instructions: %q", ins.Instructions)
	}

	for _, tc := range []struct {
		path, want string
	}{
		{"/chess/", "Invalid Game"},
		{"/chess/regular/", "Invalid Game"},
		{"/chess/regular/positions/?p=1_", "Invalid Game"},
		{"/chess/regular/instructions/", "Invalid Game"},
		{"/tictactoe/misere/", "Invalid Variant"},
		{"/tictactoe/misere/positions/?p=1_---------", "Invalid Variant"},
		{"/tictactoe/regular/positions/", "Invalid Position"},
		{"/tictactoe/regular/positions/?p=", "Invalid Position"},
		{"/tictactoe/regular/positions/?p=1_--------", "Invalid Position"},   // short
		{"/tictactoe/regular/positions/?p=1_---------x", "Invalid Position"}, // long
		{"/tictactoe/regular/positions/?p=2_---------", "Invalid Position"},  // wrong side
		{"/tictactoe/regular/positions/?p=1_X--------", "Invalid Position"},  // letters
		{"/tictactoe/regular/positions/?p=1_xxxoo-oo-", "Invalid Position"},  // both... not reachable
		{"/tictactoe/regular/positions/?p=" + strings.Repeat("1", 5000), "Invalid Position"},
		{"/tictactoe/regular/positions/?p=%zz", "Invalid Position"},
		{"/connect4/4x4/positions/?p=2_X---------------", "Invalid Position"}, // floating piece, side
		{"/connect4/4x4/positions/?p=1_X--------------O", "Invalid Position"}, // a floating X
	} {
		code, b := get(t, s, tc.path)
		var e errorBody
		if err := json.Unmarshal(b, &e); err != nil || code != http.StatusOK || e.Error != tc.want || e.Reason == "" {
			t.Errorf("GET %s: %d %s, want 200 and error %q with a reason", tc.path, code, b, tc.want)
		}
	}
	if code, _ := get(t, s, "/tictactoe/regular/positions/extra/"); code != http.StatusNotFound {
		t.Errorf("a path of no route: status %d, want 404", code)
	}
	resp, err := http.Post(s.URL+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", resp.StatusCode)
	}
}

// walk visits every position reachable from the start through the API
// (each once), calling check with the answer; it returns how many it
// visited.
func walk(t *testing.T, s *httptest.Server, game, variant, start string, limit int, check func(p *position)) int {
	t.Helper()
	seen := map[string]bool{start: true}
	queue := []string{start}
	for len(queue) > 0 && len(seen) <= limit {
		p := queue[0]
		queue = queue[1:]
		var a position
		getJSON(t, s, positionPath(game, variant, p), &a)
		if a.Error != "" {
			t.Fatalf("%s: %s", p, a.Error)
		}
		if a.Position != p {
			t.Fatalf("asked %s, answered %s", p, a.Position)
		}
		check(&a)
		for _, m := range a.Moves {
			if !seen[m.Position] {
				seen[m.Position] = true
				queue = append(queue, m.Position)
			}
		}
	}
	return len(seen)
}

// shown is what the API answers for a record of run o: its remoteness,
// the plies within the decision for a value the rules decided, and that
// decision's round (0 for a value they did not).
func shown(o *oracle.Oracle, v tiergame.Value, remoteness int) (shownRemoteness, round int) {
	if rr, ok := o.Game.(tiergame.RuleReader); ok {
		if round, plies, ok := rr.RuleRecord(v, remoteness); ok {
			return plies, round
		}
	}
	return remoteness, 0
}

// checkRule checks an answer's rule field against the round and plies
// the run's record says (round 0: no rule, no field).
func checkRule(t *testing.T, what string, got *tiergame.RuleInfo, round, plies int) {
	t.Helper()
	if round == 0 {
		if got != nil {
			t.Fatalf("%s: rule %+v for a value the rules did not decide", what, got)
		}
		return
	}
	if got == nil || got.Round != round || got.Plies != plies || got.Rule == "" || got.Rule == "unknown" {
		t.Fatalf("%s: rule %+v, the run says round %d, %d plies", what, got, round, plies)
	}
}

// checkAgainstOracle checks an answer against the run: the position's
// value and remoteness (infinity for a draw; the plies within a rule
// decision, with its rule), each move's child record, and the UWAPI's
// move values, delta remotenesses and order.
func checkAgainstOracle(t *testing.T, o *oracle.Oracle, c codec, a *position) {
	t.Helper()
	rec := lookup(t, o, c, a.Position)
	wantR, round := shown(o, rec.Value(), rec.Remoteness())
	if rec.Value() == tiergame.Draw {
		wantR = remotenessInfinity
	}
	if a.PositionValue != rec.Value().String() || a.Remoteness != wantR {
		t.Fatalf("%s: %s in %d, the run says %s in %d", a.Position, a.PositionValue, a.Remoteness, rec.Value(), wantR)
	}
	checkRule(t, a.Position, a.Rule, round, wantR)
	best := map[string]int{}
	for i, m := range a.Moves {
		crec := lookup(t, o, c, m.Position)
		cr, cround := shown(o, crec.Value(), crec.Remoteness())
		if m.PositionValue != crec.Value().String() || (crec.Value() != tiergame.Draw && m.Remoteness != cr) {
			t.Fatalf("%s move %s: %s in %d, the run says %v (shown in %d)", a.Position, m.Move, m.PositionValue, m.Remoteness, crec, cr)
		}
		checkRule(t, a.Position+" move "+m.Move, m.Rule, cround, cr)
		flip := map[string]string{"win": "lose", "lose": "win", "tie": "tie", "draw": "draw"}
		if m.MoveValue != flip[m.PositionValue] {
			t.Fatalf("%s move %s: moveValue %s for a child %s", a.Position, m.Move, m.MoveValue, m.PositionValue)
		}
		if i > 0 {
			prev := a.Moves[i-1]
			if valueOrder[prev.MoveValue] > valueOrder[m.MoveValue] ||
				(prev.MoveValue == m.MoveValue && prev.DeltaRemoteness > m.DeltaRemoteness) {
				t.Fatalf("%s: move %s before %s", a.Position, prev.Move, m.Move)
			}
		}
		if _, ok := best[m.MoveValue]; !ok {
			best[m.MoveValue] = m.DeltaRemoteness
		}
		if m.DeltaRemoteness < 0 {
			t.Fatalf("%s move %s: deltaRemoteness %d", a.Position, m.Move, m.DeltaRemoteness)
		}
	}
	for v, d := range best {
		if d != 0 {
			t.Fatalf("%s: the best %s move has deltaRemoteness %d", a.Position, v, d)
		}
	}
	if len(a.Moves) > 0 {
		b := a.Moves[0]
		if b.MoveValue != a.PositionValue {
			t.Fatalf("%s is %s, its best move %s", a.Position, a.PositionValue, b.MoveValue)
		}
		// A position the rules declared lost (0 plies) is not valued by
		// its best move.
		declared := a.Rule != nil && a.Rule.Plies == 0
		if b.MoveValue != "draw" && !declared && b.Remoteness+1 != a.Remoteness {
			t.Fatalf("%s in %d, its best move leads to remoteness %d", a.Position, a.Remoteness, b.Remoteness)
		}
	}
}

// lookup returns the run's record of a UWAPI position.
func lookup(t *testing.T, o *oracle.Oracle, c codec, p string) interface {
	Value() tiergame.Value
	Remoteness() int
} {
	t.Helper()
	text, err := c.toText(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	tier, pos, err := o.Game.Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	rec, err := o.Lookup(tier, pos)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return rec
}

// TestTicTacToeWalk visits every position of tic-tac-toe through the API,
// in a plain and a symmetric run, and checks each answer against the run
// and the moves' strings against the boards they lead to.
func TestTicTacToeWalk(t *testing.T) {
	for _, sym := range []bool{false, true} {
		t.Run("symmetry="+strconv.FormatBool(sym), func(t *testing.T) {
			o := solved(t, "tictactoe", "", sym)
			s := server(t, o)
			n := walk(t, s, "tictactoe", "regular", "1_---------", 1<<20, func(a *position) {
				checkAgainstOracle(t, o, tictactoeCodec{}, a)
				for _, m := range a.Moves {
					var mark byte
					var cell int
					if _, err := fmt.Sscanf(m.AutoguiMove, "A_%c_%d_-", &mark, &cell); err != nil || cell < 0 || cell > 8 ||
						a.Position[2+cell] != '-' || m.Position[2+cell] != mark || m.Move != strconv.Itoa(cell+1) {
						t.Fatalf("%s: move %s %s leads to %s", a.Position, m.Move, m.AutoguiMove, m.Position)
					}
				}
			})
			if n != 5478 {
				t.Errorf("%d positions, want 5478", n)
			}
		})
	}
}

// TestConcurrent asks for the positions of tic-tac-toe from many clients
// at once and wants the answers one client gets.
func TestConcurrent(t *testing.T) {
	s := server(t, solved(t, "tictactoe", "", true))
	var ps []string
	walk(t, s, "tictactoe", "regular", "1_---------", 200, func(a *position) { ps = append(ps, a.Position) })
	want := map[string]string{}
	for _, p := range ps {
		_, b := get(t, s, positionPath("tictactoe", "regular", p))
		want[p] = string(b)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ps {
				p := ps[(i*7+w)%len(ps)]
				resp, err := http.Get(s.URL + positionPath("tictactoe", "regular", p))
				if err != nil {
					errs <- err.Error()
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(b) != want[p] {
					errs <- p + ": " + string(b)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// BenchmarkAnswer times the answer for the start of 3x3 Quixo (20 moves),
// without HTTP.
func BenchmarkAnswer(b *testing.B) {
	o := solved(b, "quixo", "size=3", false)
	_, v, err := describe(o.Game)
	if err != nil {
		b.Fatal(err)
	}
	v.oracle = o
	for b.Loop() {
		if _, err := answer(v, "1_---------"); err != nil {
			b.Fatal(err)
		}
	}
}
