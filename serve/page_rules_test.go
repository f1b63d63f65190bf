package serve

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// fourDigits finds a stored remoteness of a rule decision in words.
var fourDigits = regexp.MustCompile(`\d{4}`)

// TestPageRules shows a K+R v K+N position solved under rules=chessdb
// that red wins by the rules (black checks for ever): the page words the
// value, a move into a position the rules decided and each step of the
// best line as rule decisions, with the rule and the plies within them,
// never a stored remoteness (4096 and up); the line ends where black is
// declared lost.
func TestPageRules(t *testing.T) {
	chromium := pageChromium(t)
	base := pageServer(t, pageRun(t, "krkn", "xiangqi", "material=KRvKN,rules=chessdb"))
	ctx := pageBrowser(t, chromium)

	const pos = "9/9/4k4/9/9/9/2n6/9/3K5/R8 w"
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL(base, "krkn", pos)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-position="`+pos+`"] #moves button`))); err != nil {
		t.Fatalf("waiting for %s: %v", pos, err)
	}
	value, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#value`)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Win by the rules (perpetual check, round 1, 1 plies)"; value != want {
		t.Errorf("value %q, want %q", value, want)
	}
	moves, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#moves .val")].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	// The best move, seen by its mover, is the position's value.
	if len(moves) == 0 || moves[0] != "win by the rules (perpetual check, round 1, 1 plies)" {
		t.Errorf("moves %q: the best one is not the position's rule win", moves)
	}
	for _, m := range moves {
		if fourDigits.MatchString(m) {
			t.Errorf("a stored remoteness shown: %q", m)
		}
	}

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#best`)), chromedp.WaitVisible(chromedp.CSS(`#mainline li`))); err != nil {
		t.Fatalf("best line: %v", err)
	}
	line, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#mainline .val"), document.getElementById("mainline-end")].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"then lose by the rules (perpetual check, round 1, 0 plies)", "The side to move broke a rule of play and is declared lost."}
	if strings.Join(line, "|") != strings.Join(want, "|") {
		t.Errorf("best line %q, want %q", line, want)
	}
}
