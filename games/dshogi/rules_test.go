package dshogi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games/dshogi"
	"github.com/tiersolve/tiersolve/tiergame"
)

func mustGame(t testing.TB, pieces string) *dshogi.Game {
	t.Helper()
	g, err := dshogi.NewPieces(pieces)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// play returns the primitive value of position s and its moves as
// "name child" lines.
func play(t *testing.T, g *dshogi.Game, s string) (tiergame.Value, tiergame.Tier, []string) {
	t.Helper()
	tier, h, err := g.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Format(tier, h); got != s {
		t.Fatalf("Format(Parse(%q)) = %q", s, got)
	}
	v, cs := g.Moves(tier, h, nil)
	names := g.MoveNames(tier, h)
	var out []string
	for i, c := range cs {
		out = append(out, names[i]+" "+g.Format(c.Tier, c.Pos))
	}
	return v, tier, out
}

func TestRules(t *testing.T) {
	tests := []struct {
		name, pieces, pos string
		tier              string
		value             tiergame.Value
		moves             []string // all of them, or some with some
		some              bool
	}{
		{name: "start", pieces: "LGEC", pos: "F:gle/.c./.C./ELG:-", tier: "play", moves: []string{
			"Cb3xb2 S:gle/.C./.../ELG:C", "Lb4-a3 S:gle/.c./LC./E.G:-", "Lb4-c3 S:gle/.c./.CL/E.G:-", "Gc4-c3 S:gle/.c./.CG/EL.:-"}},
		{name: "a chick promotes on the far rank, capturing or not", pieces: "LC", pos: "F:.c./C.l/.L./...:-", tier: "play", some: true,
			moves: []string{"Ca2-a1+ S:Hc./..l/.L./...:-", "Lb3-a3 S:.c./C.l/L../...:-"}},
		{name: "a captured hen goes to the hand as a chick", pieces: "LC", pos: "S:.l./.H./.../.L.:c", tier: "play", some: true,
			moves: []string{"lb1xb2 F:.../.l./.../.L.:cc", "c*a1 F:cl./.H./.../.L.:-"}},
		{name: "a dropped chick on the far rank stays a chick and cannot move", pieces: "LC", pos: "S:.l./.../.../CL.:c", tier: "play", some: true,
			moves: []string{"c*c4 F:.l./.../.../CLc:-"}},
		{name: "a lion stepping onto its far rank is a try", pieces: "L", pos: "F:..l/L../.../...:-", tier: "play", some: true,
			moves: []string{"La2-a1 S:L.l/.../.../...:-", "La2-b1 S:.Ll/.../.../...:-"}},
		{name: "taking the lion", pieces: "L", pos: "F:.l./.L./.../...:-", tier: "play", some: true,
			moves: []string{"Lb2xb1 S:.L./.../.../...:-"}},
		{name: "a try that the opponent can capture at once is its win at once", pieces: "L", pos: "S:.Ll/.../.../...:-", tier: "try", value: tiergame.Win},
		{name: "a try the opponent cannot capture is its loss at once", pieces: "L", pos: "S:L../.../..l/...:-", tier: "try", value: tiergame.Lose},
		{name: "the sky's try", pieces: "LC", pos: "F:.../.CL/.../l..:c", tier: "try", value: tiergame.Lose},
		{name: "the sky's try taken by a giraffe", pieces: "LG", pos: "F:.../..L/G../l..:g", tier: "try", value: tiergame.Win},
		{name: "a taken lion loses", pieces: "LGEC", pos: "F:gle/.c./.../E.G:C", tier: "capture", value: tiergame.Lose},
		{name: "a side to move with no move draws (as GamesmanOne scores it)", pieces: "LGEC", pos: "F:GE./LGE/CCl/...:-", tier: "play", value: tiergame.Draw},
		{name: "a blocked sky draws too", pieces: "LGEC", pos: "S:.../Lcc/egl/.eg:-", tier: "play", value: tiergame.Draw},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, tc.pieces)
			v, tier, moves := play(t, g, tc.pos)
			if g.TierName(tier) != tc.tier || v != tc.value {
				t.Errorf("%s: tier %s value %v, want %s %v", tc.pos, g.TierName(tier), v, tc.tier, tc.value)
			}
			if tc.some {
				for _, m := range tc.moves {
					if !slices.Contains(moves, m) {
						t.Errorf("%s: no move %q among %q", tc.pos, m, moves)
					}
				}
			} else if !slices.Equal(moves, tc.moves) {
				t.Errorf("%s: moves %q, want %q", tc.pos, moves, tc.moves)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	g := mustGame(t, "LGEC")
	for _, tc := range []struct{ pos, want string }{
		{"", "want SIDE"},
		{"X:gle/.c./.C./ELG:-", "side to move"},
		{"F:gle/.c./.C.:-", "3 rows"},
		{"F:gle/.c./.C./ELGG:-", "row 4"},
		{"F:gle/.c./.Z./ELG:-", "square b3"},
		{"F:gle/.c./.C./ELG:H", "cannot be in a hand"},
		{"F:gle/.c./.C./ELG:L", "cannot be in a hand"},
		{"F:gle/.c./.C./ELG:C", "3 chicks"},
		{"F:g.e/.c./.C./E.G:-", "no lion"},
		{"F:gle/.c./.C./ELL:-", "more than one lion"},
		{"S:gle/.c./.../E.G:C", "the game ended"},
		{"F:gLe/.c./.C./E.G:-", "the game ended"},
		{"F:gLe/.c./.C./ElG:-", "both lions"},
	} {
		_, _, err := g.Parse(tc.pos)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.pos, err, tc.want)
		}
	}
	if _, err := dshogi.New(tiergame.Options{"pieces": "GEC"}); err == nil {
		t.Error("a variant without lions")
	}
	if _, err := dshogi.New(tiergame.Options{"pieces": "LCC"}); err == nil {
		t.Error("a variant with a type twice")
	}
	if _, err := dshogi.New(tiergame.Options{"size": "3"}); err == nil {
		t.Error("an unknown option")
	}
	if g, err := dshogi.New(tiergame.Options{"pieces": "CEL"}); err != nil || g.Option() != "pieces=LEC" {
		t.Errorf("pieces=CEL: %v, %v", g, err)
	}
}

// TestMirrorOfStartIsReachable plays a line from the start to its mirror
// image (found by a search from both ends). So the positions reachable
// from the start are closed under the mirror: those reachable from the
// mirrored start are among them. A symmetric run's classes then stand
// for exactly the reachable positions (tierd verify's counts of the full
// game), and each class holds one canonical reachable position however
// canonical is chosen: its counts are GamesmanOne's analyzer's
// "canonical" counts.
func TestMirrorOfStartIsReachable(t *testing.T) {
	g := mustGame(t, "LGEC")
	tier, h := g.Start()
	for _, name := range []string{"Gc4-c3", "ga1-a2", "Gc3-c2", "ga2-a3", "Gc2xc1", "lb1xc1", "E*c4",
		"ga3xa4", "Lb4xa4", "lc1-b1", "La4-b4", "g*c1", "G*a4", "e*a1"} {
		_, cs := g.Moves(tier, h, nil)
		i := slices.Index(g.MoveNames(tier, h), name)
		if i < 0 {
			t.Fatalf("%s: no move %s", g.Format(tier, h), name)
		}
		tier, h = cs[i].Tier, cs[i].Pos
	}
	if got := g.Format(tier, h); got != "F:elg/.c./.C./GLE:-" {
		t.Errorf("the line ends at %s", got)
	}
}
