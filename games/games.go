// Package games holds registries of tier games by name: the bundled games
// (bearoff, connect4, dshogi, quixo, teeko, tictactoe and xiangqi) in Default, and a
// program's own games added to it with With.
//
//	reg := games.Default().With(games.Spec{Name: "nim", Summary: "...", New: nim.New})
//	g, err := reg.New("nim", "heaps=3")
package games

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/games/connect4"
	"github.com/tiersolve/tiersolve/games/dshogi"
	"github.com/tiersolve/tiersolve/games/quixo"
	"github.com/tiersolve/tiersolve/games/teeko"
	"github.com/tiersolve/tiersolve/games/tictactoe"
	"github.com/tiersolve/tiersolve/games/xiangqi"
	"github.com/tiersolve/tiersolve/tiergame"
)

// ErrUnknownGame is wrapped by the errors of New for a name not in the
// registry.
var ErrUnknownGame = errors.New("unknown game")

// Option documents one option of a game.
type Option struct {
	Key     string `json:"key"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

// Spec describes a game of a registry. It encodes to JSON without New.
type Spec struct {
	Name    string   `json:"name"`    // as in level-file names, e.g. "connect4"
	Summary string   `json:"summary"` // one line
	Options []Option `json:"options"`
	// New returns the variant for parsed options; it rejects unknown keys
	// and bad values.
	New func(tiergame.Options) (tiergame.Game, error) `json:"-"`
}

// bundled are the games of Default.
var bundled = []Spec{
	{
		Name:    "bearoff",
		Summary: "backgammon bearoff with dice, gnubg's one-sided indices; value = chance to win; tier = pips in all",
		Options: []Option{
			{"checkers", "15", "checkers a side at most, 1 to 15"},
			{"points", "6", "home-board points the checkers stand on, 1 to 6"},
			{"cube", "none", "money: also the cubeful money equities of the three cube states (a second database a tier)"},
		},
		New: bearoff.New,
	},
	{
		Name:    "connect4",
		Summary: "Connect Four on boards up to 7x6; tier = pieces on the board",
		Options: []Option{
			{"width", "7", "columns, 1 to 7"},
			{"height", "6", "rows, 1 to 6"},
		},
		New: connect4.New,
	},
	{
		Name: "dshogi",
		Summary: "Dōbutsu shōgi (animal shogi, 3x4), scored as GamesmanOne 1.3.0 does: a lion on its far rank wins or loses at once, " +
			"a side without a move draws; tier = play (loopy), try, capture",
		Options: []Option{
			{"pieces", dshogi.DefaultPieces, "the piece types in play, lions (L) always: a subset of LGEC (giraffes, elephants, chicks)"},
		},
		New: dshogi.New,
	},
	{
		Name:    "quixo",
		Summary: "Quixo on an n x n board, n in a row wins; tier = (X cubes, O cubes), loopy",
		Options: []Option{
			{"size", "4", "board side, 3 to 5"},
		},
		New: quixo.New,
	},
	{
		Name:    "teeko",
		Summary: "Teeko as GamesmanOne plays it: 5x5, four pieces a side dropped then moved to a neighbouring point, four in a line or a 2x2 square wins; tier = pieces dropped, then one loopy tier",
		New:     teeko.New,
	},
	{
		Name: "xiangqi",
		Summary: "xiangqi endgame tablebases, distance to mate in plies, mate and stalemate lose; tier = material; " +
			"no repetition rules: play that never ends is a draw, so a side that can only hold by perpetual check or chase, " +
			"which the rules forbid, still counts as drawing",
		Options: []Option{
			{"material", "", "the endgame, red's pieces v black's: KRvK, KRNvKAABB (K A B N R C P; E for B, H for N); " +
				"unset: every endgame of at most maxpieces pieces, solved from seeds only (levelctl import, then tierd solve --from DIR)"},
			{"maxpieces", "6", "without material: the most pieces, generals included, of the endgames the variant holds"},
			{"rules", "none", "chessdb: perpetual check and perpetual chase lose, as ChessDB's tables (its generator xiangqitb) decide them, " +
				"where both sides have a chariot, horse, cannon or soldier (docs/xiangqi-rules.md); none: play that never ends is a draw"},
		},
		New: xiangqi.New,
	},
	{
		Name:    "tictactoe",
		Summary: "tic-tac-toe; tier = pieces on the board",
		New:     tictactoe.New,
	},
}

// Registry is a set of games by name. A Registry is never modified:
// With returns a new one, so a registry may be shared by goroutines. The
// zero Registry (and nil) has no games.
type Registry struct {
	specs []Spec // sorted by name
}

var defaultRegistry = new(Registry).With(bundled...)

// Default returns the registry of the bundled games.
func Default() *Registry { return defaultRegistry }

// With returns a new registry with r's games and specs. It panics if a
// spec has no name or no New, or if a name is given twice (in r and specs,
// or twice in specs): a registry is built once, at a program's start,
// and two games of one name are a mistake of the program, like two
// flags of one name.
func (r *Registry) With(specs ...Spec) *Registry {
	out := &Registry{specs: r.All()}
	for _, s := range specs {
		switch {
		case s.Name == "" || s.New == nil:
			panic(fmt.Sprintf("games: spec %q has no name or no New", s.Name))
		case strings.ContainsAny(s.Name, "_/ \t\n"):
			panic(fmt.Sprintf("games: game name %q holds '_', '/' or a space (it goes in file names)", s.Name))
		}
		if _, dup := out.Lookup(s.Name); dup {
			panic(fmt.Sprintf("games: game %q registered twice", s.Name))
		}
		out.specs = append(out.specs, copySpec(s))
	}
	sort.Slice(out.specs, func(i, j int) bool { return out.specs[i].Name < out.specs[j].Name })
	return out
}

func copySpec(s Spec) Spec {
	s.Options = append([]Option(nil), s.Options...)
	return s
}

// All returns the registry's games sorted by name.
func (r *Registry) All() []Spec {
	if r == nil {
		return nil
	}
	out := make([]Spec, len(r.specs))
	for i, s := range r.specs {
		out[i] = copySpec(s)
	}
	return out
}

// Names returns the names of the registry's games, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	names := make([]string, len(r.specs))
	for i, s := range r.specs {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the game called name.
func (r *Registry) Lookup(name string) (Spec, bool) {
	if r != nil {
		for _, s := range r.specs {
			if s.Name == name {
				return copySpec(s), true
			}
		}
	}
	return Spec{}, false
}

// New returns the variant of game name described by option, in the form
// "key=value,key=value"; "" and "default" select the defaults. An unknown
// name is an error wrapping ErrUnknownGame.
func (r *Registry) New(name, option string) (tiergame.Game, error) {
	s, ok := r.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownGame, name, strings.Join(r.Names(), ", "))
	}
	opts, err := tiergame.ParseOptions(option)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s.New(opts)
}

// All returns the bundled games sorted by name: Default().All().
func All() []Spec { return Default().All() }

// Lookup returns the bundled game called name: Default().Lookup(name).
func Lookup(name string) (Spec, bool) { return Default().Lookup(name) }

// New returns a variant of a bundled game: Default().New(name, option).
func New(name, option string) (tiergame.Game, error) { return Default().New(name, option) }
