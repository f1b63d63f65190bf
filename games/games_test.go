package games

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

func TestAll(t *testing.T) {
	var names []string
	for _, s := range All() {
		names = append(names, s.Name)
		if s.Summary == "" || s.New == nil {
			t.Errorf("%s: incomplete spec", s.Name)
		}
		if got, ok := Lookup(s.Name); !ok || got.Name != s.Name {
			t.Errorf("Lookup(%q) = %v, %v", s.Name, got.Name, ok)
		}
	}
	if want := []string{"bearoff", "connect4", "dshogi", "quixo", "teeko", "tictactoe", "xiangqi"}; !slices.Equal(names, want) {
		t.Errorf("All() names %q, want %q", names, want)
	}
	if _, ok := Lookup("chess"); ok {
		t.Error("Lookup(chess) succeeded")
	}
	// All hands out copies.
	All()[0].Options[0].Key = "changed"
	if All()[0].Options[0].Key == "changed" {
		t.Error("All shares its option slices")
	}
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(All())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `{"key":"width","default":"7","doc":"columns, 1 to 7"}`) {
		t.Errorf("JSON %s", b)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name, option, canonical string
	}{
		{"tictactoe", "", "default"},
		{"tictactoe", "default", "default"},
		{"connect4", "", "width=7,height=6"},
		{"connect4", "default", "width=7,height=6"},
		{"connect4", "width=5,height=4", "width=5,height=4"},
		{"connect4", "height=4,width=5", "width=5,height=4"},
		{"connect4", "width=3", "width=3,height=6"},
		{"quixo", "", "size=4"},
		{"quixo", "size=3", "size=3"},
		{"quixo", "size=5", "size=5"},
		{"teeko", "", "default"},
		{"dshogi", "", "default"},
		{"dshogi", "pieces=LGEC", "default"},
		{"dshogi", "pieces=CL", "pieces=LC"},
		{"bearoff", "", "checkers=15,points=6"},
		{"bearoff", "points=4,checkers=6", "checkers=6,points=4"},
		{"bearoff", "checkers=1,points=1", "checkers=1,points=1"},
	}
	for _, tc := range tests {
		g, err := New(tc.name, tc.option)
		if err != nil {
			t.Errorf("New(%q, %q): %v", tc.name, tc.option, err)
			continue
		}
		if g.Name() != tc.name || g.Option() != tc.canonical {
			t.Errorf("New(%q, %q) = %s %s, want %s %s", tc.name, tc.option, g.Name(), g.Option(), tc.name, tc.canonical)
		}
		checkGame(t, g)
	}
}

// checkGame checks what every game promises: a canonical option that New
// accepts back, a start position inside its tier that round-trips through
// Format and Parse, and children inside their declared tiers.
func checkGame(t *testing.T, g tiergame.Game) {
	t.Helper()
	opt := g.Option()
	if strings.ContainsAny(opt, "_/") || opt == "" {
		t.Errorf("%s: option %q has '_' or '/' or is empty", g.Name(), opt)
	}
	g2, err := New(g.Name(), opt)
	if err != nil || g2.Option() != opt {
		t.Errorf("%s: New(%q) does not round-trip: %v", g.Name(), opt, err)
	}
	tier, p := g.Start()
	if uint64(p) >= g.TierSize(tier) {
		t.Fatalf("%s %s: start outside its tier", g.Name(), opt)
	}
	s := g.Format(tier, p)
	if strings.ContainsAny(s, " \t\n'\"$;&|<>*?") {
		t.Errorf("%s: start %q is not shell-friendly", g.Name(), s)
	}
	if pt, pp, err := g.Parse(s); err != nil || pt != tier || pp != p {
		t.Errorf("%s: Parse(%q) = %d, %d, %v; want %d, %d", g.Name(), s, pt, pp, err, tier, p)
	}
	v, children := g.Moves(tier, p, nil)
	if v != tiergame.Undecided || len(children) == 0 {
		t.Errorf("%s %s: start is %v with %d moves", g.Name(), opt, v, len(children))
	}
	for _, c := range children {
		if !slices.Contains(g.ChildTiers(tier), c.Tier) || uint64(c.Pos) >= g.TierSize(c.Tier) {
			t.Errorf("%s: child %v outside the declared tiers", g.Name(), c)
		}
	}
	if mn, ok := g.(tiergame.MoveNamer); !ok || len(mn.MoveNames(tier, p)) != len(children) {
		t.Errorf("%s: move names do not match the moves", g.Name())
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name, option string
		want         string // in the error
	}{
		{"chess", "", "unknown game"},
		{"connect4", "width=8", "width"},
		{"connect4", "width=0", "width"},
		{"connect4", "height=x", "height"},
		{"connect4", "depth=3", "unknown option"},
		{"connect4", "width=5,width=5", "twice"},
		{"connect4", "width", "key=value"},
		{"quixo", "size=6", "size"},
		{"quixo", "size=04", "size"},
		{"tictactoe", "size=3", "unknown option"},
		{"bearoff", "checkers=16", "checkers"},
		{"bearoff", "points=7", "points"},
		{"bearoff", "dice=3", "unknown option"},
	}
	for _, tc := range tests {
		_, err := New(tc.name, tc.option)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q) = %v, want an error with %q", tc.name, tc.option, err, tc.want)
		}
	}
	if _, err := New("chess", ""); !errors.Is(err, ErrUnknownGame) {
		t.Errorf("New(chess) = %v, want ErrUnknownGame", err)
	}
}

func FuzzNew(f *testing.F) {
	for _, s := range []string{"", "default", "width=5,height=4", "size=3", "width=x", "a=b,c=d", "width=5,,"} {
		f.Add("connect4", s)
		f.Add("quixo", s)
	}
	f.Add("bearoff", "checkers=6,points=6")
	f.Fuzz(func(t *testing.T, name, option string) {
		g, err := New(name, option)
		if err != nil {
			return
		}
		g2, err := New(name, g.Option())
		if err != nil || g2.Option() != g.Option() {
			t.Fatalf("New(%q, %q).Option() = %q does not round-trip: %v", name, option, g.Option(), err)
		}
	})
}

func TestRegistryWith(t *testing.T) {
	ttt, _ := Lookup("tictactoe")
	mine := Spec{Name: "mine", Summary: "tic-tac-toe under another name", New: ttt.New,
		Options: []Option{{"k", "1", "a key"}}}
	reg := Default().With(mine)
	if want := []string{"bearoff", "connect4", "dshogi", "mine", "quixo", "teeko", "tictactoe", "xiangqi"}; !slices.Equal(reg.Names(), want) {
		t.Errorf("names %q, want %q", reg.Names(), want)
	}
	if _, ok := Lookup("mine"); ok {
		t.Error("With changed the default registry")
	}
	if g, err := reg.New("mine", ""); err != nil || g.Name() != "tictactoe" {
		t.Errorf("New(mine) = %v, %v", g, err)
	}
	if _, err := reg.New("chess", ""); !errors.Is(err, ErrUnknownGame) || !strings.Contains(err.Error(), "mine") {
		t.Errorf("New(chess) = %v, want ErrUnknownGame listing mine", err)
	}
	mine.Options[0].Key = "changed"
	if s, _ := reg.Lookup("mine"); s.Options[0].Key != "k" {
		t.Error("the registry shares the caller's option slice")
	}
	var empty Registry
	if len(empty.All()) != 0 || len(new(Registry).With(mine).All()) != 1 {
		t.Error("the zero registry is not empty")
	}
	if _, err := (*Registry)(nil).New("mine", ""); !errors.Is(err, ErrUnknownGame) {
		t.Errorf("nil registry: %v", err)
	}
}

func TestRegistryWithPanics(t *testing.T) {
	ttt, _ := Lookup("tictactoe")
	for _, tc := range []struct {
		name  string
		specs []Spec
		want  string
	}{
		{"a bundled name", []Spec{ttt}, `"tictactoe" registered twice`},
		{"twice in one call", []Spec{{Name: "a", New: ttt.New}, {Name: "a", New: ttt.New}}, `"a" registered twice`},
		{"no name", []Spec{{New: ttt.New}}, "no name"},
		{"no New", []Spec{{Name: "b"}}, "no New"},
		{"an underscore", []Spec{{Name: "my_game", New: ttt.New}}, "'_'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			Default().With(tc.specs...)
		})
	}
}
