package universal

import (
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tiergame"
)

// fuzzVariants are the variants FuzzPositions reads positions of: the
// game and option of each, and whether a run of it is solved for the
// fuzzer to ask (small ones only).
var fuzzVariants = []struct {
	game, option string
	solve        bool
}{
	{"tictactoe", "", true},
	{"connect4", "width=4,height=4", false},
	{"connect4", "width=7,height=6", false},
	{"quixo", "size=3", true},
	{"quixo", "size=5", false},
	{"teeko", "", false},
	{"dshogi", "", false},
	{"dshogi", "pieces=LC", false},
	{"xiangqi", "material=KRvKA", false},
}

// FuzzPositions feeds UWAPI position strings to each variant's codec and
// game: nothing panics; a string the game accepts comes back the same from
// its position (the codecs are exact inverses on what the games hold); its
// moves have names in the UWAPI's forms; and for a solved run the answer
// is a value or the UWAPI's error.
func FuzzPositions(f *testing.F) {
	type fv struct {
		g tiergame.Game
		v *variant
	}
	var vs []fv
	for _, x := range fuzzVariants {
		g, err := games.New(x.game, x.option)
		if err != nil {
			f.Fatal(err)
		}
		_, v, err := describe(g)
		if err != nil {
			f.Fatal(err)
		}
		if x.solve {
			v.oracle = solved(f, x.game, x.option, false)
		}
		vs = append(vs, fv{g, v})
	}
	for i, seed := range []string{
		"1_---------", "2_x--------", "1_xo-------", "1_xxxoo----", "2_xxxoo-o--", "1_---------x",
		"1_----------------", "2_---X------------", "1_X--------------O",
		"1_------------------------------------------",
		"1_---------", "2_XO-OX-X--", "1_XXXOOO---",
		"1_-------------------------", "2_XX---OO---------XX----O-O", "1_XXXX-OOOO----------------",
		"1_-------------------------", "2_X------------------------",
		"1_gle-c--C-ELG_000_000", "2_g-l--L------_110_012", "1_gle-c--C-ELG_000_00",
		"1_-l--c--C--L-_000_000", "2_-l-----C--L-_000_001",
		"1_---k-------------------------------------------------------------------------------KR---",
		"2_---ka------------------------------------------------------------------------------K-R--",
	} {
		f.Add(uint8(i*len(vs)/25), seed)
	}
	f.Add(uint8(0), "1_"+strings.Repeat("-", 300))
	f.Add(uint8(8), "1_"+strings.Repeat("K", 90))
	f.Fuzz(func(t *testing.T, which uint8, p string) {
		x := vs[int(which)%len(vs)]
		c := x.v.codec
		if x.v.oracle != nil {
			a, err := answer(x.v, p)
			if err == nil && (a.Position != p || a.PositionValue == "") {
				t.Fatalf("%s: answered %+v", p, a)
			}
		}
		text, err := c.toText(p)
		if err != nil {
			return
		}
		tier, pos, err := x.g.Parse(text)
		if err != nil {
			return
		}
		back, auto, err := c.fromText(x.g.Format(tier, pos))
		if err != nil || back != p || len(auto) < 2 || auto[:2] != p[:2] {
			t.Fatalf("%s (%s): back %q, AutoGUI %q, %v", p, text, back, auto, err)
		}
		if v, _ := x.g.Moves(tier, pos, nil); v != tiergame.Undecided {
			return
		}
		names := x.g.(tiergame.MoveNamer).MoveNames(tier, pos)
		ms, err := c.moves(text, names)
		if err != nil || len(ms) != len(names) {
			t.Fatalf("%s: moves %v: %v", p, names, err)
		}
		seen := map[string]bool{}
		for _, m := range ms {
			if seen[m.autogui] || m.move == "" || len(m.autogui) < 5 || (m.autogui[0] != 'A' && m.autogui[0] != 'M') {
				t.Fatalf("%s: move %+v", p, m)
			}
			seen[m.autogui] = true
		}
	})
}
