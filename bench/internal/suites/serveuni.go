package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tierdcli"
)

// uniAddr is where GamesmanUni, as build-gamesmanuni.sh builds it, finds
// the universal API: tierd serve listens there.
const uniAddr = "127.0.0.1:18765"

// uniGame is a game GamesmanUni plays in serve/gamesmanuni.
type uniGame struct {
	game, option     string // our run's
	uniID, variantID string // the universal API's
	cols             int    // cells a row, to write our position text
	sidePrefix       bool   // our text starts with "x:" or "o:"
	empty            byte   // our text's empty cell
	// plies is how many moves are played; 0 plays to the end.
	plies int
}

var uniGames = []uniGame{
	{game: "tictactoe", uniID: "tictactoe", variantID: "regular", cols: 3, empty: '-'},
	{game: "quixo", option: "size=4", uniID: "quixo", variantID: "4x4", cols: 4, sidePrefix: true, empty: '.', plies: 8},
	{game: "teeko", uniID: "teeko", variantID: "standard", cols: 5, sidePrefix: true, empty: '.', plies: 12},
}

// ourPosition writes a universal position string ("1_X-O...") as our
// game's text.
func (u uniGame) ourPosition(p string) (string, error) {
	if len(p) < 2 || (p[:2] != "1_" && p[:2] != "2_") {
		return "", fmt.Errorf("%s position %q: want 1_ or 2_ first", u.uniID, p)
	}
	cells := p[2:]
	if len(cells)%u.cols != 0 {
		return "", fmt.Errorf("%s position %q: %d cells, not rows of %d", u.uniID, p, len(cells), u.cols)
	}
	var b strings.Builder
	if u.sidePrefix {
		b.WriteString(map[byte]string{'1': "x:", '2': "o:"}[p[0]])
	}
	for i := 0; i < len(cells); i++ {
		if i > 0 && i%u.cols == 0 {
			b.WriteByte('/')
		}
		switch c := cells[i]; c {
		case 'X', 'x':
			b.WriteByte('x')
		case 'O', 'o':
			b.WriteByte('o')
		case '-':
			b.WriteByte(u.empty)
		default:
			return "", fmt.Errorf("%s position %q: cell %q", u.uniID, p, c)
		}
	}
	return b.String(), nil
}

// uniGroup is serve/gamesmanuni: GamesmanUni, built from its own source
// with its base URL at 127.0.0.1:18765, in headless Chromium against
// tierd serve; skipped without its dist/ folder.
func uniGroup(cfg harness.Config) harness.Group {
	skip := ""
	if cfg.GamesmanUni == "" {
		skip = "no GamesmanUni build (give --gamesmanuni DIST)"
	} else if _, err := os.Stat(filepath.Join(cfg.GamesmanUni, "index.html")); err != nil {
		skip = "no GamesmanUni build: " + err.Error()
	} else if _, err := exec.LookPath("chromium"); err != nil {
		skip = "no chromium"
	}
	return harness.Group{ID: "serve/gamesmanuni", Table: "browser", Title: "GamesmanUni in headless Chromium against tierd serve: tic-tac-toe to the end, Quixo 4x4 and Teeko several moves",
		Level: harness.Explicit, Skip: skip, Once: true, Estimate: 3 * time.Minute,
		Variants: []harness.Variant{{Name: "gamesmanuni", Kind: results.KindSubject, Job: harness.NewJob("gamesmanuni", struct{}{})}}}
}

// uniStatic serves dist under /uni/, every path without a file answered
// with index.html (GamesmanUni routes in the page).
func uniStatic(dist string) http.Handler {
	files := http.FileServer(http.Dir(dist))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/uni/")
		if !ok {
			http.Redirect(w, r, "/uni/", http.StatusFound)
			return
		}
		clean := path.Clean("/" + rest)
		if st, err := os.Stat(filepath.Join(dist, filepath.FromSlash(clean))); err != nil || st.IsDir() {
			http.ServeFile(w, r, filepath.Join(dist, "index.html"))
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = clean
		files.ServeHTTP(w, r2)
	})
}

// uniState is what the page shows and holds, read from its DOM and its
// Vuex store.
type uniState struct {
	Position   string         `json:"position"`
	Value      string         `json:"value"`
	Remoteness int            `json:"remoteness"`
	Message    string         `json:"message"`
	End        bool           `json:"end"`
	Hints      map[string]int `json:"hints"` // move elements on the board by their hint class
	Error      string         `json:"error"`
}

// uniStateJS reads a uniState.
const uniStateJS = `(() => {
  const root = document.querySelector('#app');
  const st = root && root.__vue_app__ && root.__vue_app__.config.globalProperties.$store;
  if (!st) return {error: 'no store'};
  const g = st.getters;
  const msg = document.querySelector('#app-game-body-statistics-message');
  const hints = {};
  document.querySelectorAll('#image-autogui [class*="hint-"], #custom-gui-tictactoe [class*="hint-"]').forEach(e => {
    const m = (e.getAttribute('class') || '').match(/hint-(\w+)/);
    if (m) hints[m[1]] = (hints[m[1]] || 0) + 1;
  });
  let end = false;
  try { end = !!g.isEndOfMatch; } catch (e) {}
  return {position: String(g.currentPosition || ''), value: String(g.currentPositionValue || ''),
    remoteness: Number(g.currentRemoteness), message: msg ? msg.innerText.trim() : '', end: end, hints: hints};
})()`

// uniClickJS clicks one move element of the best hint class there is
// (win, then tie, draw, lose), as a person following the hints would;
// it returns the class clicked, or "" when there is none. The AutoGUI
// board's move elements take the click themselves; tic-tac-toe's own
// board (CustomGUITicTacToe) puts a clear rect over the hint's circle.
const uniClickJS = `(() => {
  for (const h of ['win', 'tie', 'draw', 'lose']) {
    const els = Array.from(document.querySelectorAll('#image-autogui .hint-' + h + ', #custom-gui-tictactoe .hint-' + h));
    if (els.length) {
      const cover = els[0].parentNode && els[0].parentNode.querySelector('rect[cursor="pointer"]');
      (cover || els[0]).dispatchEvent(new MouseEvent('click', {bubbles: true}));
      return h;
    }
  }
  return '';
})()`

// uniPly is one position of a game GamesmanUni played.
type uniPly struct {
	Game       string         `json:"game"`
	Ply        int            `json:"ply"`
	Position   string         `json:"position"` // the universal API's
	Ours       string         `json:"ours"`     // our text
	Shown      string         `json:"shown"`    // the page's message
	ShownValue string         `json:"shown_value"`
	ShownRem   int            `json:"shown_remoteness"`
	Hints      map[string]int `json:"hints"`
	Value      string         `json:"value"` // tierd's /api/v1 answer (tierd query --json)
	Remoteness int            `json:"remoteness"`
	MoveValues map[string]int `json:"move_values"` // its moves' values, to compare with Hints
	Clicked    string         `json:"clicked"`
	Agree      bool           `json:"agree"`
}

// runGamesmanUni plays GamesmanUni (--gamesmanuni) in headless Chromium
// against tierd serve on uniAddr over the tic-tac-toe, Quixo 4x4 and
// Teeko runs of --runs (tic-tac-toe is solved if absent): at every ply
// it reads what the page shows (its message, and the value and
// remoteness in its store) and the hint colours of the moves on the
// board, compares them with tierd's own answer for the position, then
// clicks a move of the best colour. Screenshots and a log of every ply
// go to --out/gamesmanuni/. The time is the wall time of the games.
func runGamesmanUni(ctx context.Context, env harness.JobEnv, _ json.RawMessage) (harness.Sample, error) {
	out := filepath.Join(env.Config.Out, "gamesmanuni")
	if env.Config.Out == "" {
		out = filepath.Join(env.Dir, "gamesmanuni")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return harness.Sample{}, err
	}
	var dbs []string
	for _, u := range uniGames {
		dir, err := findRun(env.Config.Runs, u.game, u.option)
		if err != nil {
			return harness.Sample{}, err
		}
		if dir == "" && u.game == "tictactoe" {
			dir = filepath.Join(env.Dir, "tictactoe")
			e := &tierdcli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
				Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if code := tierdcli.New(games.Default()).Run(e, []string{"solve", "--game", "tictactoe", "--out", dir}); code != 0 {
				return harness.Sample{}, fmt.Errorf("tierd solve tictactoe: exit %d", code)
			}
		}
		if dir == "" {
			return harness.Sample{}, fmt.Errorf("no %s %s run in --runs %q", u.game, u.option, env.Config.Runs)
		}
		dbs = append(dbs, dir)
	}
	exe, err := os.Executable()
	if err != nil {
		return harness.Sample{}, err
	}
	srv := &serverProc{base: "http://" + uniAddr, log: harness.NewTailBuffer(8 << 10)}
	srv.cmd = exec.Command(exe, TierdFlag, "serve", "--db", strings.Join(dbs, ","), "--http-addr", uniAddr, "--cache", "64MiB")
	srv.cmd.Stdout, srv.cmd.Stderr = srv.log, srv.log
	if err := srv.cmd.Start(); err != nil {
		return harness.Sample{}, err
	}
	defer srv.stop()
	if err := waitReady(ctx, srv.base+"/readyz", 2*time.Minute); err != nil {
		return harness.Sample{}, fmt.Errorf("tierd serve on %s: %w\n%s", uniAddr, err, srv.log)
	}
	var runs struct {
		Runs []struct{ ID, Game, Option string } `json:"runs"`
	}
	if err := getJSON(ctx, http.DefaultClient, srv.base+"/api/v1/runs", &runs); err != nil {
		return harness.Sample{}, err
	}
	ids := map[string]string{}
	for _, r := range runs.Runs {
		ids[r.Game] = r.ID
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return harness.Sample{}, err
	}
	static := &http.Server{Handler: uniStatic(env.Config.GamesmanUni), ReadHeaderTimeout: 10 * time.Second}
	go static.Serve(l)
	defer static.Close()
	site := "http://" + l.Addr().String()

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		return harness.Sample{}, err
	}
	actx, cancelA := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-quic", true))...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()

	t0 := time.Now()
	var plies []uniPly
	var gameErr error
	for _, u := range uniGames {
		ps, err := playUni(bctx, site, srv.base, ids[u.game], u, out)
		plies = append(plies, ps...)
		if err != nil {
			gameErr = errors.Join(gameErr, fmt.Errorf("%s: %w", u.uniID, err))
		}
	}
	secs := time.Since(t0).Seconds()
	logData, _ := json.MarshalIndent(plies, "", "  ")
	if err := os.WriteFile(filepath.Join(out, "plies.json"), logData, 0o644); err != nil {
		return harness.Sample{}, err
	}
	agree := 0
	for _, p := range plies {
		if p.Agree {
			agree++
		}
	}
	if gameErr != nil {
		return harness.Sample{}, fmt.Errorf("%w (log of the plies in %s)", gameErr, out)
	}
	return harness.Sample{Seconds: secs, Metrics: map[string]float64{"plies": float64(len(plies)), "agree": float64(agree)},
		Facts: map[string]string{"agree": fmt.Sprintf("%d/%d positions", agree, len(plies)), "shots": out}}, nil
}

// playUni plays one game in GamesmanUni and checks every position.
func playUni(ctx context.Context, site, api, runID string, u uniGame, out string) ([]uniPly, error) {
	if runID == "" {
		return nil, fmt.Errorf("tierd serve offers no %s run", u.game)
	}
	page := site + "/uni/games/" + u.uniID + "/variants/" + u.variantID
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		return nil, fmt.Errorf("%s: %w", page, err)
	}
	var plies []uniPly
	last := ""
	for ply := 0; ; ply++ {
		st, err := waitUni(ctx, last)
		if err != nil {
			shot(ctx, filepath.Join(out, fmt.Sprintf("%s-%02d-stuck.png", u.uniID, ply)))
			return plies, fmt.Errorf("ply %d: %w", ply, err)
		}
		last = st.Position
		p := uniPly{Game: u.uniID, Ply: ply, Position: st.Position, Shown: st.Message, ShownValue: st.Value,
			ShownRem: st.Remoteness, Hints: st.Hints}
		if p.Ours, err = u.ourPosition(st.Position); err != nil {
			return plies, err
		}
		var ans struct {
			Value      string `json:"value"`
			Remoteness int    `json:"remoteness"`
			Moves      []struct {
				MoverValue string `json:"mover_value"`
			} `json:"moves"`
		}
		if err := getJSON(ctx, http.DefaultClient, api+"/api/v1/runs/"+url.PathEscape(runID)+"/position?p="+url.QueryEscape(p.Ours), &ans); err != nil {
			return plies, err
		}
		p.Value, p.Remoteness = ans.Value, ans.Remoteness
		p.MoveValues = map[string]int{}
		for _, m := range ans.Moves {
			// The move's value for the player who makes it, as
			// GamesmanUni's hint colour.
			p.MoveValues[m.MoverValue]++
		}
		p.Agree = p.ShownValue == p.Value && (p.Value == "draw" || p.ShownRem == p.Remoteness)
		end := len(ans.Moves) == 0 || (u.plies > 0 && ply >= u.plies)
		if ply == 0 || end || ply%4 == 0 {
			shot(ctx, filepath.Join(out, fmt.Sprintf("%s-%02d.png", u.uniID, ply)))
		}
		if end {
			plies = append(plies, p)
			return plies, nil
		}
		if p.Clicked, err = chromedp.Run(ctx, chromedp.Evaluate[string](uniClickJS)); err != nil {
			return plies, err
		}
		plies = append(plies, p)
		if p.Clicked == "" {
			return plies, fmt.Errorf("ply %d (%s): no move on the board to click", ply, p.Position)
		}
		// A move in parts (Quixo: the cube, then where it goes) shows
		// its second part after the first click: click again until the
		// position changes.
		for range 3 {
			st2, err := waitUniFor(ctx, 3*time.Second, func(s uniState) bool { return s.Position != last })
			if err == nil && st2.Position != last {
				break
			}
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](uniClickJS)); err != nil {
				return plies, err
			}
		}
	}
}

// waitUni polls the page until it shows a position other than last,
// with its value settled and its message written.
func waitUni(ctx context.Context, last string) (uniState, error) {
	return waitUniFor(ctx, 20*time.Second, func(s uniState) bool {
		return s.Error == "" && s.Position != "" && s.Position != last && s.Message != "" && s.Value != ""
	})
}

// waitUniFor polls the page's state until ok says so or d has passed.
func waitUniFor(ctx context.Context, d time.Duration, ok func(uniState) bool) (uniState, error) {
	deadline := time.Now().Add(d)
	var st uniState
	for {
		var err error
		st, err = chromedp.Run(ctx, chromedp.Evaluate[uniState](uniStateJS))
		if err == nil && ok(st) {
			return st, nil
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("the page did not settle in %s (last state %+v, %v)", d, st, err)
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// shot saves a screenshot of the page (errors ignored: it is a record).
func shot(ctx context.Context, file string) {
	if buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		_ = os.WriteFile(file, buf, 0o644)
	}
}
