package query

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/internal/testrun"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// solve solves a small run in a folder of the test's and opens it.
func solve(t *testing.T, game, option string, edit func(m *runfolder.Manifest)) *oracle.Oracle {
	t.Helper()
	dir := t.TempDir()
	g := testrun.Solve(t, game, option, dir, false)
	if edit != nil {
		m, err := runfolder.LoadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		edit(m)
		if err := m.Save(dir); err != nil {
			t.Fatal(err)
		}
	}
	return testrun.Oracle(t, dir, g)
}

func TestErrors(t *testing.T) {
	// The last tier (a full board) left out of the run, as a run of other
	// material leaves a xiangqi position's tier out.
	ttt := solve(t, "tictactoe", "", func(m *runfolder.Manifest) { m.Tiers[len(m.Tiers)-1].Solved = false })
	bo := solve(t, "bearoff", "checkers=2,points=3", nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		o    *oracle.Oracle
		text string
		opts Options
		want error
	}{
		{"letters", ttt, "abc/def/ghi", Options{}, ErrBadPosition},
		{"length", ttt, "---/---", Options{}, ErrBadPosition},
		{"tier not in run", ttt, "xox/oxx/oxo", Options{}, ErrNotInRun},
		{"roll without dice", ttt, "---/---/---", Options{Roll: "31"}, ErrBadOption},
		{"cube without cube", ttt, "---/---/---", Options{Cube: "owned"}, ErrBadOption},
		{"cube asked", ttt, "---/---/---", Options{CubeAsked: true}, ErrBadOption},
		{"bad roll", bo, "", Options{Roll: "7"}, ErrBadOption},
		{"no money planes", bo, "", Options{Cube: "owned"}, ErrBadOption},
		{"match without score", bo, "", Options{Match: 3}, ErrBadOption},
		{"bad score", bo, "", Options{Match: 3, Score: "9-9"}, ErrBadOption},
		{"bad cube value", bo, "", Options{Match: 3, Score: "2-2", CubeValue: 3, Cube: "owned"}, ErrBadOption},
		{"bad memory", bo, "", Options{Match: 3, Score: "2-2", Memory: "lots"}, ErrBadOption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text
			if text == "" {
				text = tc.o.Game.Format(tc.o.Game.Start())
			}
			tt, p, err := Parse(tc.o.Game, text)
			if err == nil {
				_, err = Position(ctx, tc.o, tt, p, tc.opts)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("%q %+v: %v, want %v", text, tc.opts, err, tc.want)
			}
			if err.Error() == "" || strings.Contains(err.Error(), "%!") {
				t.Errorf("message %q", err)
			}
		})
	}
	if _, _, err := Parse(ttt.Game, ""); !errors.Is(err, ErrBadPosition) {
		t.Errorf("empty text: %v", err)
	}
	// An unreachable position of Connect Four: one that parses but that
	// the run does not hold.
	c4 := solve(t, "connect4", "width=4,height=3", nil)
	found := false
	for tt := tiergame.Tier(6); tt < 12 && !found; tt++ {
		for p := range tiergame.Position(c4.Game.TierSize(tt)) {
			if _, err := c4.Lookup(tt, p); errors.Is(err, oracle.ErrUnreachable) {
				_, err := Position(ctx, c4, tt, p, Options{})
				if !errors.Is(err, ErrUnreachable) {
					t.Errorf("unreachable %s: %v", c4.Game.Format(tt, p), err)
				}
				if _, err := Mainline(c4, tt, p, 5); !errors.Is(err, ErrUnreachable) {
					t.Errorf("mainline of unreachable %s: %v", c4.Game.Format(tt, p), err)
				}
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("no unreachable position found")
	}
}

// plainAnswer is Position's answer to text, a position of a game
// without chance, asked without options.
func plainAnswer(t *testing.T, o *oracle.Oracle, text string) *Result {
	t.Helper()
	tt, p, err := Parse(o.Game, text)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := Position(context.Background(), o, tt, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ans.(*Result)
}

func TestPlain(t *testing.T) {
	o := solve(t, "tictactoe", "", nil)
	res := plainAnswer(t, o, "x--/-o-/---")
	if res.Value != "tie" || res.Remoteness != 7 || len(res.Moves) != 7 || res.Moves[0].MoverValue != "tie" {
		t.Errorf("x--/-o-/---: %+v", res)
	}
	var text bytes.Buffer
	res.WriteText(&text)
	if first, _, _ := strings.Cut(text.String(), "\n"); first != "x--/-o-/--- (tier 2 pieces): tie in 7" {
		t.Errorf("text %q", first)
	}
	b, _ := json.Marshal(res)
	if !bytes.Contains(b, []byte(`"mover_value":"tie","mover_remoteness":7,"child_value":"tie","child_remoteness":6`)) {
		t.Errorf("json %s", b)
	}
}

// TestAppendPositionJSON answers positions of many move counts in turn
// (its Results are pooled and reused) and wants each answer's bytes to be
// what json.Encoder writes for Position's answer; a primitive position's
// moves are [], not a reused Result's.
func TestAppendPositionJSON(t *testing.T) {
	o := solve(t, "tictactoe", "", nil)
	for range 2 {
		for _, text := range []string{"---/---/---", "x--/-o-/---", "xxx/oo-/---", "xo-/-x-/o-x", "xox/xoo/oxx", "---/-x-/---"} {
			tt, p, err := Parse(o.Game, text)
			if err != nil {
				t.Fatal(err)
			}
			ans, err := Position(context.Background(), o, tt, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(ans); err != nil {
				t.Fatal(err)
			}
			got, err := AppendPositionJSON([]byte("prefix"), context.Background(), o, tt, p, Options{})
			if err != nil || string(got) != "prefix"+want.String() {
				t.Errorf("%s: %s, %v; want prefix%s", text, got, err, want.Bytes())
			}
		}
	}
	tt, p, _ := Parse(o.Game, "---/---/---")
	if _, err := AppendPositionJSON(nil, context.Background(), o, tt, p, Options{Roll: "31"}); !errors.Is(err, ErrBadOption) {
		t.Errorf("a roll in tic-tac-toe: %v", err)
	}
}

// TestRuleText answers a position of K+R v K+N under rules=chessdb that
// black, checking for ever, has lost by the rules: the text says so for
// the position and for the move that keeps checking, never the stored
// remoteness (4096 and up) as a count of plies.
func TestRuleText(t *testing.T) {
	o := solve(t, "xiangqi", "material=KRvKN,rules=chessdb", nil)
	res := plainAnswer(t, o, "9/9/4k4/9/9/9/9/9/1n1K5/R8 b")
	if res.Rule == nil || res.Rule.Rule != "perpetual check" || res.Value != "lose" {
		t.Fatalf("%+v, rule %+v", res, res.Rule)
	}
	var text bytes.Buffer
	res.WriteText(&text)
	for _, want := range []string{
		"(tier KRvKN): lose by the rules (round 1, 0 plies)\n",
		"b1c3     lose   -> 9/9/4k4/9/9/9/2n6/9/3K5/R8 w (win by the rules (round 1, 1 plies) to move there)\n",
		"e7e8     lose   -> 9/4k4/9/9/9/9/9/9/1n1K5/R8 w (win in 7 to move there)\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), " in 409") {
		t.Errorf("a stored remoteness shown as plies:\n%s", text.String())
	}
}

func TestMainline(t *testing.T) {
	ttt := solve(t, "tictactoe", "", nil)
	st, sp := ttt.Game.Start()
	line, err := Mainline(ttt, st, sp, 50)
	if err != nil {
		t.Fatal(err)
	}
	if line.End != EndGameOver || len(line.Mainline) != 9 || line.Mainline[8].Remoteness != 0 {
		t.Errorf("tic-tac-toe: %+v", line)
	}
	if line, err := Mainline(ttt, st, sp, 3); err != nil || line.End != EndMax || len(line.Mainline) != 3 {
		t.Errorf("max 3: %+v, %v", line, err)
	}
	if _, err := Mainline(ttt, st, sp, MaxMainline+1); !errors.Is(err, ErrBadOption) {
		t.Errorf("max beyond: %v", err)
	}
	bo := solve(t, "bearoff", "checkers=2,points=3", nil)
	if _, err := Mainline(bo, st, sp, 3); !errors.Is(err, ErrBadOption) {
		t.Errorf("a game with dice: %v", err)
	}
	// A drawn position of Dobutsu shogi: its line loops.
	ds := solve(t, "dshogi", "pieces=LC", nil)
	dt, dp, ok := findDraw(t, ds)
	if !ok {
		t.Fatal("no drawn position found")
	}
	line, err = Mainline(ds, dt, dp, MaxMainline)
	if err != nil {
		t.Fatal(err)
	}
	if line.Value != "draw" || line.End != EndLoop || len(line.Mainline) == 0 {
		t.Errorf("a draw: %+v", line)
	}
	for _, s := range line.Mainline {
		if s.Value != "draw" {
			t.Errorf("a step of a drawn line: %+v", s)
		}
	}
}

// findDraw searches the positions reachable from the start for a draw.
func findDraw(t *testing.T, o *oracle.Oracle) (tiergame.Tier, tiergame.Position, bool) {
	type pos struct {
		t tiergame.Tier
		p tiergame.Position
	}
	st, sp := o.Game.Start()
	queue, seen := []pos{{st, sp}}, map[pos]bool{{st, sp}: true}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		rec, err := o.Lookup(q.t, q.p)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Value() == tiergame.Draw {
			return q.t, q.p, true
		}
		moves, err := o.Moves(q.t, q.p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range moves {
			if k := (pos{m.Tier, m.Pos}); !seen[k] {
				seen[k] = true
				queue = append(queue, k)
			}
		}
	}
	return 0, 0, false
}

// TestRuleJSON answers, under rules=chessdb, positions the rules decided
// and one they did not, each through Position and encoding/json and
// through AppendPositionJSON (pooled Results, reused in turn): the two
// agree byte for byte, a rule decision is said as one (remoteness the
// plies within it, "rule" for the position, "child_rule" for a move into
// one, mover_remoteness one more) and no stored remoteness (4096 and up)
// shows as a count.
func TestRuleJSON(t *testing.T) {
	o := solve(t, "xiangqi", "material=KRvKN,rules=chessdb", nil)
	for _, tc := range []struct {
		text string
		want []string
		rule bool
	}{
		{"9/9/4k4/9/9/9/9/9/1n1K5/R8 b", []string{
			`"value":"lose","remoteness":0,"rule":{"rule":"perpetual check","round":1,"plies":0},"moves":[`,
			`{"move":"b1c3","position":"9/9/4k4/9/9/9/2n6/9/3K5/R8 w","mover_value":"lose","mover_remoteness":2,"child_value":"win","child_remoteness":1,` +
				`"child_rule":{"rule":"perpetual check","round":1,"plies":1},"value":"lose","remoteness":1}`,
			`{"move":"e7e8","position":"9/4k4/9/9/9/9/9/9/1n1K5/R8 w","mover_value":"lose","mover_remoteness":8,"child_value":"win","child_remoteness":7,"value":"lose","remoteness":7}`,
		}, true},
		{"9/9/4k4/9/9/9/2n6/9/3K5/R8 w", []string{
			`"value":"win","remoteness":1,"rule":{"rule":"perpetual check","round":1,"plies":1},"moves":[`,
			`"mover_value":"win","mover_remoteness":1,"child_value":"lose","child_remoteness":0,"child_rule":{"rule":"perpetual check","round":1,"plies":0}`,
		}, true},
		// Not decided by the rules, but some of its moves lead to
		// positions that are (listed after every mate, as stored).
		{"9/4k4/9/9/9/9/9/9/1n1K5/R8 w", []string{
			`"tier_name":"KRvKN","value":"win","remoteness":7,"moves":[{"move":"a0e0",`,
			`{"move":"a0a5","position":"9/4k4/9/9/R8/9/9/9/1n1K5/9 b","mover_value":"win","mover_remoteness":1,"child_value":"lose","child_remoteness":0,` +
				`"child_rule":{"rule":"perpetual check","round":1,"plies":0},"value":"win","remoteness":0}`,
		}, false},
	} {
		tt, p, err := Parse(o.Game, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			ans, err := Position(context.Background(), o, tt, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var std bytes.Buffer
			if err := json.NewEncoder(&std).Encode(ans); err != nil {
				t.Fatal(err)
			}
			fast, err := AppendPositionJSON(nil, context.Background(), o, tt, p, Options{})
			if err != nil || !bytes.Equal(fast, std.Bytes()) {
				t.Fatalf("%s: AppendPositionJSON %s, %v;\nencoding/json %s", tc.text, fast, err, std.Bytes())
			}
			for _, want := range tc.want {
				if !bytes.Contains(fast, []byte(want)) {
					t.Errorf("%s: JSON lacks %s:\n%s", tc.text, want, fast)
				}
			}
			var back Result
			if err := json.Unmarshal(fast, &back); err != nil {
				t.Fatal(err)
			}
			if (back.Rule != nil) != tc.rule {
				t.Errorf("%s: rule %+v, want one %v", tc.text, back.Rule, tc.rule)
			}
			if back.Remoteness >= 4096 {
				t.Errorf("%s: remoteness %d", tc.text, back.Remoteness)
			}
			for _, m := range back.Moves {
				if m.ChildRemoteness >= 4096 || m.MoverRemoteness >= 4096 || m.Remoteness >= 4096 {
					t.Errorf("%s: move %+v", tc.text, m)
				}
			}
		}
	}
}

// TestRuleMainline follows best play under rules=chessdb from positions
// the rules decided: the line says each decision as one (remoteness the
// plies within it, with its rule) and ends where the rule-breaker is
// declared lost, that many plies on; cut short by max, it still names the
// rule (found past its end). A line of an ordinary win is unchanged.
func TestRuleMainline(t *testing.T) {
	o := solve(t, "xiangqi", "material=KRvKN,rules=chessdb", nil)
	check := func(plies int) *tiergame.RuleInfo {
		return &tiergame.RuleInfo{Rule: "perpetual check", Round: 1, Plies: plies}
	}
	for _, tc := range []struct {
		text  string
		max   int
		rule  *tiergame.RuleInfo
		plies int
		end   string
	}{
		{"9/9/4k4/9/9/9/2n6/9/3K5/R8 w", MaxMainline, check(1), 1, EndRules},
		{"9/9/4k4/9/9/9/2n6/9/3K5/R8 w", 0, check(1), 0, EndMax},
		{"9/9/4k4/9/9/9/9/9/1n1K5/R8 b", MaxMainline, check(0), 0, EndRules},
		{"9/4k4/9/9/9/9/9/9/1n1K5/R8 w", MaxMainline, nil, 7, EndGameOver},
	} {
		tt, p, err := Parse(o.Game, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		line, err := Mainline(o, tt, p, tc.max)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(line)
		if line.End != tc.end || len(line.Mainline) != tc.plies || (line.Rule == nil) != (tc.rule == nil) ||
			(tc.rule != nil && *line.Rule != *tc.rule) || (tc.max > 0 && line.Remoteness != tc.plies) {
			t.Errorf("%s, max %d: %s", tc.text, tc.max, b)
		}
		for i, s := range line.Mainline {
			want := tc.plies - 1 - i
			if s.Remoteness != want || (s.Rule == nil) != (tc.rule == nil) || (s.Rule != nil && *s.Rule != *check(want)) {
				t.Errorf("%s: step %d %+v, rule %+v", tc.text, i, s, s.Rule)
			}
		}
		if bytes.Contains(b, []byte(`"remoteness":409`)) || (tc.rule == nil) == bytes.Contains(b, []byte(`"rule":`)) {
			t.Errorf("%s: %s", tc.text, b)
		}
	}
}
