// Package tiergame defines the interface between a game and the tier solver.
//
// A tier game splits its positions into tiers (for example by the number of
// pieces on the board). Every move leads from a tier to one of its child
// tiers, and the tiers form a DAG apart from self-loops: a tier that lists
// itself among its children has moves that stay inside it (a loopy tier).
// Within a tier, a position is a dense hash in [0, TierSize(t)); the solver
// keeps one bit per hash for reachability, so hashes should not waste much of
// that space.
//
// Game is all a game must implement. The rest is optional, each piece a
// speed-up or a capability the solver finds by type assertion:
//   - CursorGame: a Cursor decodes consecutive positions incrementally;
//     a ByTierCursor also lists children grouped by tier, which the hot
//     loops of reachability and loopy solving prefer, and a
//     CountingCursor counts them without listing them.
//   - Unmover: Parents, which loopy tiers need (else the solver builds a
//     reverse index of the tier's moves).
//   - Symmetric: canonical positions for --symmetry runs; CanonicalCursor,
//     CanonicalByTierCursor and CanonicalUnmover make them fast.
//   - Chance (with ChanceKernel and ChanceMoveNamer): chance games.
//   - Exhaustive: every hash is a position to solve.
//   - MoveNamer: names for moves.
//
// Package tiergametest checks that a game keeps the rules these
// interfaces state; every game's tests should call tiergametest.Check.
package tiergame

import (
	"fmt"
	"strings"
)

// Tier identifies a tier. Its numbering is the game's own; it appears in
// level-file names, so it must be stable across versions of a game.
type Tier uint64

// Position is the hash of a position within its tier, 0 <= p < TierSize(t).
type Position uint64

// Child is where a move leads: a tier and a position in it.
type Child struct {
	Tier Tier
	Pos  Position
}

// Value is the game-theoretic value of a position for the player to move.
type Value uint8

// The values, from the view of the player to move. Draw means the game never
// ends under best play (only loopy games have draws); Tie means it ends
// with neither side winning. Undecided is "not known yet" inside a solver
// and "not primitive" from Game.Moves.
const (
	Undecided Value = iota
	Win
	Lose
	Tie
	Draw
)

var valueNames = [...]string{"undecided", "win", "lose", "tie", "draw"}

// String returns "win", "lose", "tie", "draw" or "undecided".
func (v Value) String() string {
	if int(v) < len(valueNames) {
		return valueNames[v]
	}
	return fmt.Sprintf("value(%d)", uint8(v))
}

// ParseValue is the inverse of Value.String.
func ParseValue(s string) (Value, error) {
	for i, n := range valueNames {
		if n == s {
			return Value(i), nil
		}
	}
	return Undecided, fmt.Errorf("tiergame: unknown value %q", s)
}

// Game is a game split into tiers. Implementations must be safe for
// concurrent use: the solver calls them from many goroutines.
type Game interface {
	// Name is the game's short name, as in level-file names ("connect4").
	Name() string
	// Option is the canonical form of the variant's options
	// ("width=5,height=4"), or "default" for a game without options. It
	// appears in file names and never contains '_' or '/'.
	Option() string
	// Start returns the initial position and its tier.
	Start() (Tier, Position)
	// TierSize is the size of the tier's hash space.
	TierSize(t Tier) uint64
	// ChildTiers lists the tiers that moves from t can reach, including t
	// itself when moves may stay inside t (then t is loopy).
	ChildTiers(t Tier) []Tier
	// Moves reports the primitive value of a reachable position p of tier t;
	// if it is Undecided (p is not terminal), it appends the positions its
	// moves lead to to dst, in a fixed order, and returns the extended slice.
	// A primitive position has no moves. Children may repeat.
	Moves(t Tier, p Position, dst []Child) (Value, []Child)
	// TierName is a readable name for a tier ("9 pieces", "x5o4").
	TierName(t Tier) string
	// Format returns the text form of a position.
	Format(t Tier, p Position) string
	// Parse reads the text form of a position.
	Parse(s string) (Tier, Position, error)
}

// MoveNamer is implemented by games that can name their moves.
type MoveNamer interface {
	// MoveNames returns a name for each move of p, in the order of Moves.
	MoveNames(t Tier, p Position) []string
}

// Unmover is implemented by games that can generate the parents of a
// position. The retrograde solver of loopy tiers uses it instead of building
// a reverse index of the tier's moves.
type Unmover interface {
	// Parents appends to dst every position q of tier pt, once each, such
	// that Moves(pt, q) is not primitive and lists (t, p) among its children.
	// q need not be reachable from the start: the solver filters parents by
	// the level file of pt.
	Parents(t Tier, p Position, pt Tier, dst []Position) []Position
}

// Options are a game variant's settings, parsed from "key=value,key=value".
type Options map[string]string

// ParseOptions parses "key=value,key=value". An empty string or "default"
// gives no options.
func ParseOptions(s string) (Options, error) {
	o := Options{}
	if s == "" || s == "default" {
		return o, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("option %q: want key=value", kv)
		}
		if _, dup := o[k]; dup {
			return nil, fmt.Errorf("option %q given twice", k)
		}
		o[k] = v
	}
	return o, nil
}

// Int returns the integer option key, def when it is absent, and an error
// when it is not an integer in [min, max].
func (o Options) Int(key string, def, min, max int) (int, error) {
	s, ok := o[key]
	if !ok {
		return def, nil
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("option %s=%q: not an integer", key, s)
	}
	if n < min || n > max {
		return 0, fmt.Errorf("option %s=%d: must be between %d and %d", key, n, min, max)
	}
	return n, nil
}

// Check returns an error naming the first option not in known.
func (o Options) Check(known ...string) error {
	for k := range o {
		found := false
		for _, n := range known {
			found = found || n == k
		}
		if !found && len(known) == 0 {
			return fmt.Errorf("unknown option %q: this game takes no options", k)
		}
		if !found {
			return fmt.Errorf("unknown option %q (known: %s)", k, strings.Join(known, ", "))
		}
	}
	return nil
}
