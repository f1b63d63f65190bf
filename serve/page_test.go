package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tiersolve/tiersolve/internal/testchrome"
	"github.com/tiersolve/tiersolve/internal/testrun"
)

// The page at / (serve/web) in a real browser: Debian's chromium, as the
// cluster's status page is tested. Without chromium the tests are skipped,
// unless TIERD_REQUIRE_CHROMIUM=1 (as in CI).

// pageChromium returns the path of chromium, or skips the test.
func pageChromium(t *testing.T) string {
	t.Helper()
	return testchrome.Path(t, "the page's browser tests need")
}

// pageRun solves a small run of the game into a folder named name (its
// run id) under a temporary folder, and returns the folder.
func pageRun(t *testing.T, name, game, option string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	testrun.Solve(t, game, option, dir, false)
	return dir
}

// pageServer serves the run folders on loopback and returns the base URL.
func pageServer(t *testing.T, dirs ...string) string {
	t.Helper()
	s, err := New(Config{DBs: dirs, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	return hs.URL
}

// pageURL is the page showing position p of run id.
func pageURL(base, id, p string) string {
	return base + "/#run=" + url.QueryEscape(id) + "&p=" + url.QueryEscape(p)
}

// pageScreenshot takes chromium's picture of the page at u, 1280x900, once
// the page's requests have been answered (virtual time stands still while
// requests are in flight).
func pageScreenshot(t *testing.T, chromium, u, name string) image.Image {
	t.Helper()
	shot := filepath.Join(t.TempDir(), name+".png")
	img := testchrome.Screenshot(t, chromium, shot, u, "--virtual-time-budget=10000")
	if dir := os.Getenv("TIERD_PAGE_SHOTS"); dir != "" { // to look at them
		if b, err := os.ReadFile(shot); err == nil {
			os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644)
		}
	}
	return img
}

// pageCount counts the pixels of img within 12 of each colour (0xRRGGBB)
// in every channel.
func pageCount(img image.Image, colours ...uint32) []int {
	n := make([]int, len(colours))
	d := func(a, b uint32) uint32 {
		if a > b {
			return a - b
		}
		return b - a
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			for i, c := range colours {
				if d(r>>8, c>>16) < 12 && d(g>>8, c>>8&0xff) < 12 && d(bl>>8, c&0xff) < 12 {
					n[i]++
				}
			}
		}
	}
	return n
}

// TestPagePicture looks at the page as a picture: a tic-tac-toe position
// with a winning, a tying and a losing move shows its board (blue X, red
// O) and the moves in GamesmanUni's colours, on the board and in the list;
// a bearoff position of a cube run shows its board and checkers.
func TestPagePicture(t *testing.T) {
	chromium := pageChromium(t)
	base := pageServer(t, pageRun(t, "ttt", "tictactoe", ""), pageRun(t, "bo", "bearoff", "checkers=3,points=6,cube=money"))

	// x-o/---/---: X wins with a2, a3, c3, ties with b2, c2, b3, loses
	// with b1.
	img := pageScreenshot(t, chromium, pageURL(base, "ttt", "x-o/---/---"), "tictactoe")
	const win, tie, lose, xInk, oInk = 0x008000, 0xffff00, 0x800000, 0x1f5fbf, 0xd0312d
	n := pageCount(img, win, tie, lose, xInk, oInk)
	for i, want := range []struct {
		what string
		min  int
	}{{"win (green)", 3000}, {"tie (yellow)", 3000}, {"lose (dark red)", 1000}, {"X (blue)", 1000}, {"O (red)", 1000}} {
		if n[i] < want.min {
			t.Errorf("tic-tac-toe: %d pixels of %s, want at least %d", n[i], want.what, want.min)
		}
	}

	img = pageScreenshot(t, chromium, pageURL(base, "bo", "4AAAAA4AAAAAAA"), "bearoff")
	const felt, light, dark = 0x2f6b45, 0xf3efe4, 0x222222
	n = pageCount(img, felt, light, dark)
	for i, want := range []struct {
		what string
		min  int
	}{{"board (green felt)", 30000}, {"light checkers", 3000}, {"dark checkers", 3000}} {
		if n[i] < want.min {
			t.Errorf("bearoff: %d pixels of %s, want at least %d", n[i], want.what, want.min)
		}
	}
}

// pageBrowser starts chromium under a DevTools client for the test.
func pageBrowser(t *testing.T, chromium string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTime()
		cancel()
		cancelAlloc()
	})
	return ctx
}

// pageGet decodes the JSON answer of the API at path.
func pageGet(t *testing.T, base, path string, v any) {
	t.Helper()
	res, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d", path, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// pageAnswer asks the API for position p of run id, as the page does.
func pageAnswer(t *testing.T, base, id, p string) (value string, remoteness int) {
	t.Helper()
	var a struct {
		Value      string `json:"value"`
		Remoteness int    `json:"remoteness"`
	}
	pageGet(t, base, "/api/v1/runs/"+id+"/position?p="+url.QueryEscape(p), &a)
	return a.Value, a.Remoteness
}

// pageValueText is the page's words for a value ("Win in 5").
func pageValueText(v string, r int) string {
	switch {
	case v == "draw":
		return "Draw"
	case r == 0 && v != "win":
		return strings.ToUpper(v[:1]) + v[1:] + " (game over)"
	}
	return fmt.Sprintf("%s%s in %d", strings.ToUpper(v[:1]), v[1:], r)
}

// TestPageClickThrough plays tic-tac-toe in the page with a DevTools
// client: a move from the list, a move on the board, another from the
// list, then Back twice; after each step the page shows the position and
// the value the API gives. Then a position that is no position shows the
// API's error in words, and the best line lists the game to its end.
func TestPageClickThrough(t *testing.T) {
	chromium := pageChromium(t)
	base := pageServer(t, pageRun(t, "ttt", "tictactoe", ""))

	ctx := pageBrowser(t, chromium)

	// at waits until the page shows position p, then checks its value
	// text and Back's state.
	at := func(step, p string, backEnabled bool) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`body[data-position="`+p+`"] #moves button`))); err != nil {
			t.Fatalf("%s: waiting for position %s: %v", step, p, err)
		}
		value, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#value`)))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if want := pageValueText(pageAnswer(t, base, "ttt", p)); value != want {
			t.Errorf("%s: position %s shows %q, want %q", step, p, value, want)
		}
		label, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`#board`), "aria-label"))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if !strings.Contains(label.Value, p) {
			t.Errorf("%s: the board's text alternative %q lacks the position %s", step, label.Value, p)
		}
		backDisabled, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("back").disabled`))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if backDisabled == backEnabled {
			t.Errorf("%s: Back disabled=%v", step, backDisabled)
		}
	}
	click := func(step, sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("%s: clicking %s: %v", step, sel, err)
		}
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	at("start", "---/---/---", false)
	// The best move of the start is a tie, and the list shows it first.
	first, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`#moves li:first-child button`), "class"))
	if err != nil {
		t.Fatal(err)
	}
	if first.Value != "move tie" {
		t.Errorf("the start's first move has class %q, want \"move tie\"", first.Value)
	}

	// A move under the pointer lights up its square on the board.
	lit, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`document.querySelector('#moves button[data-move="b2"]').dispatchEvent(new MouseEvent("mouseenter"));
		[...document.querySelectorAll("#board .sq.hl")].map(e => e.dataset.square)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(lit, ",") != "b2" {
		t.Errorf("with the pointer on move b2, the board lights up %q", lit)
	}

	click("a1 from the list", `#moves button[data-move="a1"]`)
	at("after a1", "x--/---/---", true)
	click("b1 on the board", `#board g[data-move="b1"] circle`)
	at("after b1", "xo-/---/---", true)
	click("a2 from the list", `#moves button[data-move="a2"]`)
	at("after a2", "xo-/x--/---", true)
	click("back", `#back`)
	at("back once", "xo-/---/---", true)
	click("back", `#back`)
	at("back twice", "x--/---/---", true)

	// A typed position that no game reaches: the API's reason in words,
	// and the page stays where it was.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#position-input`), "xxx/---/---"),
		chromedp.Click(chromedp.CSS(`#go`)),
		chromedp.WaitVisible(chromedp.CSS(`#error`)),
	)
	if err != nil {
		t.Fatalf("typing a bad position: %v", err)
	}
	errText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#error`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errText, "xxx/---/---") || !strings.Contains(errText, "HTTP 400") {
		t.Errorf("error for a bad position: %q", errText)
	}
	at("after the bad position", "x--/---/---", true)

	// A position typed right goes there.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#position-input`), "x-o/---/---"),
		chromedp.Click(chromedp.CSS(`#go`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	at("typed", "x-o/---/---", true)

	// The best line from x-o/---/--- (X wins in 5) has 5 plies.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#best`)), chromedp.WaitVisible(chromedp.CSS(`#mainline li`))); err != nil {
		t.Fatalf("best line: %v", err)
	}
	plies, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#mainline li").length`))
	if err != nil {
		t.Fatal(err)
	}
	if plies != 5 {
		t.Errorf("the best line from x-o/---/--- has %d plies, want 5", plies)
	}
}

// TestPageBearoff walks a bearoff cube run in the page: the win chance
// and the cube action of the start, the plays of a roll best first, and
// the position after the best play, all as the API gives them.
func TestPageBearoff(t *testing.T) {
	chromium := pageChromium(t)
	base := pageServer(t, pageRun(t, "bo", "bearoff", "checkers=3,points=6,cube=money"))
	type play struct {
		Play     string `json:"play"`
		Position string `json:"position"`
	}
	var ans struct {
		Position string  `json:"position"`
		Win      float64 `json:"win"`
		Action   string  `json:"action"`
		Plays    []play  `json:"plays"`
	}
	var runs struct {
		Runs []struct{ Start string } `json:"runs"`
	}
	pageGet(t, base, "/api/v1/runs", &runs)
	start := runs.Runs[0].Start
	pageGet(t, base, "/api/v1/runs/bo/position?roll=31&cube=centered&p="+url.QueryEscape(start), &ans)
	if len(ans.Plays) == 0 || ans.Action == "" {
		t.Fatalf("the API's answer for the start, roll 31: %+v", ans)
	}

	ctx := pageBrowser(t, chromium)
	err := chromedp.Do(ctx, chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-position="`+start+`"] #rolls button`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sel, want string }{
		{`#value`, fmt.Sprintf("Wins %.2f%%", 100*ans.Win)},
		{`#cube-action`, "Right cube action: " + ans.Action},
		{`#moves-title`, "Pick a roll to list its plays"},
	} {
		got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(c.sel)))
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s shows %q, want %q", c.sel, got, c.want)
		}
	}
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rolls button[data-roll="31"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#moves button`)))
	if err != nil {
		t.Fatal(err)
	}
	plays, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#moves button")].map(b => b.dataset.move)`))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range ans.Plays {
		want = append(want, p.Play)
	}
	if strings.Join(plays, "|") != strings.Join(want, "|") {
		t.Errorf("the plays of 3-1 are listed as %q, want %q", plays, want)
	}
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#moves li:first-child button`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-position="`+ans.Plays[0].Position+`"] #rolls button`)))
	if err != nil {
		t.Fatalf("playing %s: %v", ans.Plays[0].Play, err)
	}
}
