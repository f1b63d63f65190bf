package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/query"
	"github.com/tiersolve/tiersolve/tiergame"
)

// TestAPI asks the API of every test run over loopback TCP and checks the
// status, the error code and, for a position, that the body is what
// package query answers (tierd query --json's bytes).
func TestAPI(t *testing.T) {
	s, base := newTestServer(t, Config{})
	byName := map[string]*Run{}
	for i, r := range s.Runs() {
		byName[testRuns[i].name] = r
	}
	ttt, sym, c4, bo := byName["ttt"], byName["ttt-sym"], byName["c4"], byName["bearoff"]
	unreach := unreachable(t, c4.Oracle, []tiergame.Tier{8, 9, 10, 11, 12})
	symPos := "-x-/---/---" // not canonical: looked up by its canonical form
	boStart := bo.Info.Start
	pos := func(r *Run, q string) string { return "/api/v1/runs/" + r.ID + "/position?" + q }
	for _, tc := range []struct {
		name, path string
		status     int
		code       string // of an error
		// want, for a 200 of /position, is the query answer to compare.
		run  *Run
		p    string
		opts query.Options
	}{
		{name: "runs", path: "/api/v1/runs", status: 200},
		{name: "run", path: "/api/v1/runs/" + c4.ID, status: 200},
		{name: "unknown run", path: "/api/v1/runs/nope", status: 404, code: codeUnknownRun},
		{name: "unknown run position", path: "/api/v1/runs/nope/position?p=---/---/---", status: 404, code: codeUnknownRun},
		{name: "start", path: pos(ttt, "p=---/---/---"), status: 200, run: ttt, p: "---/---/---"},
		{name: "escaped", path: pos(ttt, "p="+url.QueryEscape("x--/-o-/---")), status: 200, run: ttt, p: "x--/-o-/---"},
		{name: "game over", path: pos(ttt, "p=xxx/oo-/---"), status: 200, run: ttt, p: "xxx/oo-/---"},
		{name: "symmetric", path: pos(sym, "p="+symPos), status: 200, run: sym, p: symPos},
		{name: "connect4", path: pos(c4, "p=..../..../x..."), status: 200, run: c4, p: "..../..../x..."},
		{name: "bearoff", path: pos(bo, "p="+url.QueryEscape(boStart)), status: 200, run: bo, p: boStart},
		{name: "bearoff roll", path: pos(bo, "p="+url.QueryEscape(boStart)+"&roll=21"), status: 200, run: bo, p: boStart, opts: query.Options{Roll: "21"}},
		{name: "bearoff cube", path: pos(bo, "p="+url.QueryEscape(boStart)+"&roll=12&cube=owned"), status: 200, run: bo, p: boStart, opts: query.Options{Roll: "12", Cube: "owned"}},
		{name: "bearoff match", path: pos(bo, "p="+url.QueryEscape(boStart)+"&match=5&score=3-2"), status: 200, run: bo, p: boStart,
			opts: query.Options{Match: 5, Score: "3-2", Table: s.met, Memory: matchMemory}},
		{name: "bearoff match roll", path: pos(bo, "p="+url.QueryEscape(boStart)+"&match=5&score=1-2&crawford=1&roll=44&cube=centered"), status: 200, run: bo, p: boStart,
			opts: query.Options{Match: 5, Score: "1-2", Crawford: true, Roll: "44", Cube: "centered", Table: s.met, Memory: matchMemory}},
		{name: "bearoff match no score", path: pos(bo, "p="+url.QueryEscape(boStart)+"&match=5"), status: 400, code: codeBadRequest},
		{name: "bearoff match bad crawford", path: pos(bo, "p="+url.QueryEscape(boStart)+"&match=5&score=3-2&crawford=1"), status: 400, code: codeBadRequest},
		{name: "bearoff bad roll", path: pos(bo, "p="+url.QueryEscape(boStart)+"&roll=77"), status: 400, code: codeBadRequest},
		{name: "bearoff bad cube", path: pos(bo, "p="+url.QueryEscape(boStart)+"&cube=mine"), status: 400, code: codeBadRequest},
		{name: "bearoff mainline", path: "/api/v1/runs/" + bo.ID + "/mainline?p=" + url.QueryEscape(boStart), status: 400, code: codeBadRequest},
		{name: "roll without dice", path: pos(ttt, "p=---/---/---&roll=31"), status: 400, code: codeBadRequest},
		{name: "cube without cube", path: pos(ttt, "p=---/---/---&cube=owned"), status: 400, code: codeBadRequest},
		{name: "missing p", path: pos(ttt, ""), status: 400, code: codeBadRequest},
		{name: "empty p", path: pos(ttt, "p="), status: 400, code: codeBadRequest},
		{name: "p twice", path: pos(ttt, "p=---/---/---&p=---/---/---"), status: 400, code: codeBadRequest},
		{name: "unknown parameter", path: pos(ttt, "p=---/---/---&x=1"), status: 400, code: codeBadRequest},
		{name: "bad escape", path: pos(ttt, "p=%zz"), status: 400, code: codeBadRequest},
		{name: "wrong length", path: pos(ttt, "p=---/---/--"), status: 400, code: codeBadPosition},
		{name: "too long", path: pos(ttt, "p=---/---/----"), status: 400, code: codeBadPosition},
		{name: "letters", path: pos(ttt, "p=abc/def/ghi"), status: 400, code: codeBadPosition},
		{name: "side", path: pos(ttt, "p=xxx/ooo/---"), status: 400, code: codeBadPosition},
		{name: "illegal counts", path: pos(ttt, "p=xxx/x--/---"), status: 400, code: codeBadPosition},
		{name: "unreachable", path: pos(c4, "p="+url.QueryEscape(unreach)), status: 404, code: codeUnreachable},
		{name: "bearoff letters", path: pos(bo, "p=hello"), status: 400, code: codeBadPosition},
		{name: "long p", path: pos(ttt, "p="+strings.Repeat("x", MaxPosition+1)), status: 400, code: codeBadRequest},
		{name: "long query", path: pos(ttt, "p="+strings.Repeat("x", MaxQuery)), status: 414, code: codeBadRequest},
		{name: "mainline", path: "/api/v1/runs/" + ttt.ID + "/mainline?p=---/---/---", status: 200},
		{name: "mainline max", path: "/api/v1/runs/" + c4.ID + "/mainline?p=..../..../....&max=3", status: 200},
		{name: "mainline bad max", path: "/api/v1/runs/" + c4.ID + "/mainline?p=..../..../....&max=1001", status: 400, code: codeBadRequest},
		{name: "mainline roll", path: "/api/v1/runs/" + c4.ID + "/mainline?p=..../..../....&roll=1", status: 400, code: codeBadRequest},
		{name: "no such path", path: "/api/v1/nothing", status: 404, code: codeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.path, "match=") && s.met == nil {
				t.Skip("no match equity table at " + met.DefaultFile)
			}
			status, body := get(t, base+tc.path)
			if status != tc.status {
				t.Fatalf("GET %s: %d %s, want %d", tc.path, status, body, tc.status)
			}
			if tc.code != "" {
				var e ErrorBody
				if err := json.Unmarshal(body, &e); err != nil || e.Code != tc.code || e.Error == "" {
					t.Fatalf("GET %s: body %s (%v), want code %q and a message", tc.path, body, err, tc.code)
				}
				return
			}
			if tc.run == nil {
				if !json.Valid(body) {
					t.Fatalf("GET %s: not JSON: %s", tc.path, body)
				}
				return
			}
			o := tc.run.Oracle
			qt, qp, err := query.Parse(o.Game, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			ans, err := query.Position(context.Background(), o, qt, qp, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			json.NewEncoder(&want).Encode(ans)
			if !bytes.Equal(body, want.Bytes()) {
				t.Errorf("GET %s:\n got %s\nwant %s", tc.path, body, want.Bytes())
			}
		})
	}
}

// TestMainline follows the mainline of tic-tac-toe and Connect Four and
// checks each step against the position answer.
func TestMainline(t *testing.T) {
	s, base := newTestServer(t, Config{})
	for _, r := range s.Runs()[:3] {
		start := r.Info.Start
		status, body := get(t, base+"/api/v1/runs/"+r.ID+"/mainline?p="+url.QueryEscape(start)+"&max=1000")
		if status != 200 {
			t.Fatalf("%s: %d %s", r.ID, status, body)
		}
		var line query.Line
		if err := json.Unmarshal(body, &line); err != nil {
			t.Fatal(err)
		}
		if line.End != query.EndGameOver || len(line.Mainline) != line.Remoteness || line.Position != start {
			t.Fatalf("%s: the line from the start ends %q after %d plies; want game over after its remoteness %d", r.ID, line.End, len(line.Mainline), line.Remoteness)
		}
		prev := line.Position
		for i, st := range line.Mainline {
			_, body := get(t, base+"/api/v1/runs/"+r.ID+"/position?p="+url.QueryEscape(prev))
			var res query.Result
			if err := json.Unmarshal(body, &res); err != nil || len(res.Moves) == 0 {
				t.Fatalf("%s ply %d: %s", r.ID, i, body)
			}
			if best := res.Moves[0]; best.Move != st.Move || best.Position != st.Position || best.ChildValue != st.Value || best.ChildRemoteness != st.Remoteness {
				t.Fatalf("%s ply %d: step %+v, best move %+v", r.ID, i, st, best)
			}
			prev = st.Position
		}
	}
}

func TestParseParams(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want Params
		err  bool
	}{
		{raw: "p=abc", want: Params{Position: "abc"}},
		{raw: "p=a+b", want: Params{Position: "a b"}},
		{raw: "p=x&roll=31&cube=owned&cube_value=2&match=7&score=3-2&crawford=1", want: Params{Position: "x",
			Options: query.Options{Roll: "31", Cube: "owned", CubeValue: 2, Match: 7, Score: "3-2", Crawford: true, CubeAsked: true}}},
		{raw: "p=x&max=7", want: Params{Position: "x", Mainline: true, Max: 7}},
		{raw: "", err: true},
		{raw: "roll=31", err: true},
		{raw: "p=x&max=-1", err: true},
		{raw: "p=x&max=1e3", err: true},
		{raw: "p=x&match=99999999999999999999", err: true},
		{raw: "p=x&cube_value=0", err: true},
		{raw: "p=x&crawford=maybe", err: true},
		{raw: "p=x;y", err: true},
		{raw: "p=x&p=y", err: true},
		{raw: "p=" + strings.Repeat("a", MaxPosition+1), err: true},
		{raw: strings.Repeat("a", MaxQuery+1), err: true},
	} {
		got, err := ParseParams(tc.raw)
		if (err != nil) != tc.err || err == nil && got != tc.want {
			t.Errorf("ParseParams(%.40q) = %+v, %v; want %+v, error %v", tc.raw, got, err, tc.want, tc.err)
		}
	}
}

func TestRunIDs(t *testing.T) {
	runs := []*Run{{Dir: "a/run"}, {Dir: "b/run/"}, {Dir: "run"}, {Dir: "."}, {Dir: "x/other"}}
	runIDs(runs)
	wd, _ := filepath.Abs(".")
	want := []string{"run", "run-2", "run-3", filepath.Base(wd), "other"}
	for i, r := range runs {
		if r.ID != want[i] || r.Info.ID != want[i] {
			t.Errorf("%s: id %q, want %q", r.Dir, r.ID, want[i])
		}
	}
}
