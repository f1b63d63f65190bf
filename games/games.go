// Package games is the registry of the bundled tier games: bearoff,
// connect4, quixo, tictactoe and xiangqi.
package games

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/games/connect4"
	"github.com/tiersolve/tiersolve/games/quixo"
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

// Spec describes a bundled game. It encodes to JSON without New.
type Spec struct {
	Name    string   `json:"name"`    // as in level-file names, e.g. "connect4"
	Summary string   `json:"summary"` // one line
	Options []Option `json:"options"`
	// New returns the variant for parsed options; it rejects unknown keys
	// and bad values.
	New func(tiergame.Options) (tiergame.Game, error) `json:"-"`
}

var specs = []Spec{
	{
		Name:    "bearoff",
		Summary: "backgammon bearoff with dice, gnubg's one-sided indices; value = chance to win; tier = pips in all",
		Options: []Option{
			{"checkers", "15", "checkers a side at most, 1 to 15"},
			{"points", "6", "home-board points the checkers stand on, 1 to 6"},
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
		Name:    "quixo",
		Summary: "Quixo on an n x n board, n in a row wins; tier = (X cubes, O cubes), loopy",
		Options: []Option{
			{"size", "4", "board side, 3 to 5"},
		},
		New: quixo.New,
	},
	{
		Name: "xiangqi",
		Summary: "xiangqi endgame tablebases: distance to mate in plies, stalemate loses; tier = material; " +
			"no repetition rules: endless play (perpetual check or chase) is a draw",
		Options: []Option{
			{"material", "", "the endgame, red's pieces v black's: KRvK, KRNvKAABB (K A B N R C P; E for B, H for N); " +
				"unset: every endgame, solved from seeds only (tierd solve --from DIR, see levelctl import)"},
		},
		New: xiangqi.New,
	},
	{
		Name:    "tictactoe",
		Summary: "tic-tac-toe; tier = pieces on the board",
		New:     tictactoe.New,
	},
}

func init() {
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
}

// All returns the bundled games sorted by name.
func All() []Spec {
	out := make([]Spec, len(specs))
	copy(out, specs)
	for i := range out {
		out[i].Options = append([]Option(nil), out[i].Options...)
	}
	return out
}

// Lookup returns the game called name.
func Lookup(name string) (Spec, bool) {
	for _, s := range All() {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// New returns the variant of game name described by option, in the form
// "key=value,key=value"; "" and "default" select the defaults.
func New(name, option string) (tiergame.Game, error) {
	s, ok := Lookup(name)
	if !ok {
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = s.Name
		}
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownGame, name, strings.Join(names, ", "))
	}
	opts, err := tiergame.ParseOptions(option)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s.New(opts)
}
