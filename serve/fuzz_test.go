package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/query"
	"github.com/tiersolve/tiersolve/tiergame"
)

// FuzzParseParams checks that any query string is read or refused with a
// message, never a panic, and that what is read holds a position within
// the bound.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{"p=---/---/---", "p=x&roll=31&cube=owned&cube_value=2&match=7&score=3-2&crawford=1",
		"p=x&max=7", "", "p=%zz", "p=a;b", "p=x&p=y", "max=-1&p=1", "p=%00%ff", "crawford=t&p=q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := ParseParams(raw)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if q.Position == "" || len(q.Position) > MaxPosition || q.Max < 0 || q.Max > 1000 {
			t.Fatalf("ParseParams(%q) = %+v", raw, q)
		}
	})
}

// FuzzPositionAPI asks the API of every test run (tic-tac-toe, its
// symmetric run, Connect Four, a bearoff with the cube) for fuzzed
// positions and parameters: every answer is 200, 400 or 404 with a JSON
// body, never a 500 or a panic (the games' Parse meet the input here).
func FuzzPositionAPI(f *testing.F) {
	s, _ := newTestServer(f, Config{})
	h := s.Handler()
	for _, seed := range []struct {
		run  uint8
		p    string
		rest string
	}{
		{0, "---/---/---", ""}, {1, "-x-/---/---", ""}, {2, "..../..../x...", "max=5"}, {3, s.Runs()[3].Info.Start, "roll=21"},
		{3, s.Runs()[3].Info.Start, "cube=owned&roll=66"}, {0, "xxx/ooo/---", ""}, {2, "xxxx/oooo/....", ""}, {3, "0-0", ""},
		{3, "", "cube_value=4&cube=owned"}, {0, "\x00\xff/é/-", ""}, {2, "./././.", ""},
	} {
		f.Add(seed.run, seed.p, seed.rest, false)
		f.Add(seed.run, seed.p, seed.rest, true)
	}
	f.Fuzz(func(t *testing.T, run uint8, p, rest string, mainline bool) {
		r := s.Runs()[int(run)%len(s.Runs())]
		path := "/api/v1/runs/" + r.ID + "/position"
		if mainline {
			path = "/api/v1/runs/" + r.ID + "/mainline"
		}
		target := path + "?p=" + url.QueryEscape(p)
		if rest != "" {
			target += "&" + rest
		}
		req := httptest.NewRequest(http.MethodGet, "http://x"+path, nil)
		req.URL.RawQuery = target[len(path)+1:]
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 200, 400, 404, 414:
		default:
			t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("GET %s: not JSON: %s", target, w.Body)
		}
	})
}

// FuzzGameParse gives fuzzed text to the Parse of every bundled game, as
// the API does, and what parses to Format, Moves and the move names, as
// an answer does before it reads the databases: none may panic.
func FuzzGameParse(f *testing.F) {
	var gs []tiergame.Game
	for _, spec := range [][2]string{{"tictactoe", ""}, {"connect4", "width=6,height=5"}, {"quixo", "size=4"},
		{"teeko", ""}, {"dshogi", ""}, {"xiangqi", "material=KRNvKAABB"}, {"bearoff", "checkers=15,points=6,cube=money"}} {
		g, err := games.New(spec[0], spec[1])
		if err != nil {
			f.Fatal(err)
		}
		gs = append(gs, g)
		f.Add(uint8(len(gs)-1), g.Format(g.Start()))
	}
	f.Add(uint8(5), "4k4/9/9/9/9/9/9/9/4R4/4K4 w")
	f.Add(uint8(6), "0-0")
	f.Fuzz(func(t *testing.T, k uint8, text string) {
		g := gs[int(k)%len(gs)]
		tt, p, err := query.Parse(g, text)
		if err != nil {
			return
		}
		g.Format(tt, p)
		g.Moves(tt, p, nil)
		if mn, ok := g.(tiergame.MoveNamer); ok {
			mn.MoveNames(tt, p)
		}
		if cg, ok := g.(tiergame.Chance); ok {
			cg.ChanceMoves(tt, p, nil, nil)
		}
	})
}
