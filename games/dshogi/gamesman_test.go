package dshogi_test

import (
	"bufio"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// envGamesmanRules names a program that answers for GamesmanOne's rules:
// it reads positions in this package's text form, one a line, and prints
// for each a line "POSITION VALUE CHILD..." with VALUE GamesmanOne's
// primitive value (win, lose or undecided, from DobutsuShogiPrimitive)
// and, when undecided, the text forms of the children of
// DobutsuShogiGenerateMoves and DoMove, sorted; or "POSITION illegal"
// when DobutsuShogiIsLegalPosition rejects it. Such a program is built
// outside this repository from GamesmanOne's src/games/dshogi/dshogi.c
// (GPL-3.0, so nothing of it is kept here).
const envGamesmanRules = "DSHOGI_GAMESMAN_RULES"

// TestAgainstGamesmanRules compares the primitive values and the children
// of positions of the full game with GamesmanOne's own functions: random
// hashes of every tier (so every hash is also legal there) and the
// positions of random games from the start.
func TestAgainstGamesmanRules(t *testing.T) {
	prog := os.Getenv(envGamesmanRules)
	if prog == "" {
		t.Skipf("set %s to a program answering for GamesmanOne's rules (see the test)", envGamesmanRules)
	}
	g := mustGame(t, "LGEC")
	n := 100000
	if testing.Short() {
		n = 10000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var positions []string
	for range n {
		tier := tiergame.Tier(rng.IntN(3))
		positions = append(positions, g.Format(tier, tiergame.Position(rng.Uint64N(g.TierSize(tier)))))
	}
	for len(positions) < 2*n {
		tier, p := g.Start()
		for {
			positions = append(positions, g.Format(tier, p))
			_, cs := g.Moves(tier, p, nil)
			if len(cs) == 0 || rng.IntN(200) == 0 {
				break
			}
			c := cs[rng.IntN(len(cs))]
			tier, p = c.Tier, c.Pos
		}
	}
	want := map[string]string{}
	for _, s := range positions {
		tier, p, err := g.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		v, cs := g.Moves(tier, p, nil)
		var kids []string
		for _, c := range cs {
			kids = append(kids, g.Format(c.Tier, c.Pos))
		}
		slices.Sort(kids)
		// GamesmanOne calls a position without moves undecided; it is
		// a draw here.
		vs := v.String()
		if v == tiergame.Undecided || v == tiergame.Draw {
			vs = "undecided"
		}
		want[s] = strings.Join(append([]string{s, vs}, kids...), " ")
	}
	cmd := exec.Command(prog)
	cmd.Stdin = strings.NewReader(strings.Join(positions, "\n") + "\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	lines, bad := 0, 0
	for sc.Scan() {
		got := sc.Text()
		s, _, _ := strings.Cut(got, " ")
		if w, ok := want[s]; !ok || got != w {
			if bad++; bad <= 5 {
				t.Errorf("GamesmanOne:\n%s\nhere:\n%s", got, w)
			}
		}
		lines++
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if lines != len(positions) {
		t.Errorf("%d positions asked, %d answered", len(positions), lines)
	}
	t.Logf("%d positions compared with GamesmanOne's rules, %d differ", lines, bad)
}
