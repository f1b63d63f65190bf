// Package dshogi is Dōbutsu shōgi ("animal shogi", "Let's Catch the
// Lion!") as a tier game, scored exactly as GamesmanOne 1.3.0 scores it
// (src/games/dshogi), whose counts it is checked against. It is built
// only on the exported API of tiersolve (tiergame, and tiergametest in its
// tests), as a game of another module would be.
//
// # Rules
//
// The board has 3 columns and 4 rows. The forest (upper case, moving up)
// starts on the bottom two rows and moves first; the sky (lower case,
// moving down) starts on the top two:
//
//	g l e
//	. c .
//	. C .
//	E L G
//
// A lion (L) steps one square in any of the 8 directions, a giraffe (G)
// orthogonally, an elephant (E) diagonally, a chick (C) straight forward,
// a hen (H) forward, diagonally forward, sideways or straight back. A
// piece moves to an empty square or captures the enemy piece there; any
// piece, the lion too, may move to an attacked square. A captured giraffe,
// elephant or chick goes to the captor's hand, a captured hen as a chick.
// Instead of moving, a player may drop a piece of their hand on any empty
// square (a chick may be dropped on the far rank, where it can never
// move; a drop never promotes). A chick that moves onto the far rank
// becomes a hen.
//
// Capturing the enemy lion wins. A lion that reaches the far rank (the
// "try") wins unless the opponent can capture it at once.
//
// # How GamesmanOne scores it, and this package with it
//
// The scoring differs from the published rules in two ways, and this
// package follows GamesmanOne so that its counts and remotenesses match:
//
//   - A try is scored at once: a position where a lion stands on its far
//     rank, its opponent to move, is primitive: a win (remoteness 0) for
//     the side to move if one of its pieces can capture that lion, else a
//     loss (remoteness 0). The capture is not played, so such lines are
//     one ply shorter than under the published rules.
//   - A side to move whose pieces are all blocked by its own pieces and
//     whose hand is empty has no move. GamesmanOne never decides such a
//     position, so it is a draw; here it is a primitive draw.
//
// There is no rule on repetition: play that never ends is a draw.
// Positions are counted as GamesmanOne's analyzer counts them: every
// position reachable from the start, primitive ones included, each once.
//
// # Tiers
//
// Captures and drops move pieces between the board and the hands both
// ways, so the play forms one loopy tier; only its ends lie outside it:
//
//   - tier 0, "play": both lions on the board, neither on its far rank,
//     either side to move (loopy);
//   - tier 1, "try": a lion on its far rank, its opponent to move (all
//     primitive);
//   - tier 2, "capture": a lion taken, its owner to move (all primitive
//     losses).
//
// # Hash
//
// A tier's hash is lions*R(n) + offset(class) + arrangement. lions
// numbers the tier's triples (side to move, forest lion's square, sky
// lion's square): 150 in play, 48 in try, 24 in capture. n is the number
// of squares the lions leave free (10, or 11 in capture). A class is the
// number of pieces of each kind on the board (G g E e C c H h) and of each
// type in the forest's hand (the sky holds the rest): 2100 classes. An
// arrangement ranks where the pieces of a class stand on the n free
// squares: kind by kind in the order G g E e C c H h, each kind's one or
// two squares ranked as a combination (colex) of the squares the kinds
// before it left, as the digits of a mixed-radix number, the first kind
// most significant. R(n) is the number of arrangements of all classes.
// Every hash is a legal position as GamesmanOne defines them (so the hash
// space is exactly the legal positions, density 1): play has
// 150*R(10) = 1,781,734,050 positions, try 48*R(10) = 570,154,896 and
// capture 24*R(11) = 549,528,264. GamesmanOne's hash has 4,234,908,456
// positions, 2*(132*R(10) + 24*R(11)), 68.5% of them legal.
//
// # Symmetry
//
// The left-right mirror (the hands unchanged) keeps values; the canonical
// position of a pair is the one with the smaller hash, as in GamesmanOne
// (whose hashes differ from these). Colours cannot be swapped: the try
// scoring is not symmetric in the side to move, and GamesmanOne's counts
// tell the sides apart.
//
// # Text form
//
// The side to move ("F:" forest, "S:" sky), the rows from the top (the
// sky's home row) to the bottom separated by '/', squares '.' or a piece
// letter (L G E C H forest, l g e c h sky), then ':' and the hands: the
// forest's pieces (G E C), then the sky's (g e c), or "-" for none. The
// start is "F:gle/.c./.C./ELG:-". Squares are named by column letter and
// row number from the top ("a1" is the top left, the sky's giraffe's
// square at the start). A move is named by the piece, its square, '-' or
// 'x' (a capture) and the square it goes to, with '+' when a chick
// promotes ("Cb3xb2", "Cb2-b1+"); a drop by the piece, '*' and the
// square ("C*b2").
//
// # Variants
//
// The option pieces (default "LGEC") names the types in play besides the
// lions: "LC" is the game with lions and chicks only, "L" with lions
// alone. Smaller variants serve tests and benchmarks.
package dshogi

import (
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Game is one variant of Dōbutsu shōgi. It is immutable and safe for
// concurrent use.
type Game struct {
	pieces string // option value, "LGEC" by default
	l      *layout
	start  pos
}

var (
	_ tiergame.Game       = (*Game)(nil)
	_ tiergame.CursorGame = (*Game)(nil)
	_ tiergame.Unmover    = (*Game)(nil)
	_ tiergame.Symmetric  = (*Game)(nil)
	_ tiergame.MoveNamer  = (*Game)(nil)

	_ tiergame.CanonicalUnmover = (*Game)(nil)
)

// DefaultPieces are the piece types of the full game.
const DefaultPieces = "LGEC"

// New returns the variant of options (see the package documentation):
// "pieces" only.
func New(opts tiergame.Options) (tiergame.Game, error) {
	if err := opts.Check("pieces"); err != nil {
		return nil, err
	}
	pieces := DefaultPieces
	if v, ok := opts["pieces"]; ok {
		pieces = v
	}
	return NewPieces(pieces)
}

// NewPieces returns the variant with the given piece types: a subset of
// "LGEC" that holds L, in any order.
func NewPieces(pieces string) (*Game, error) {
	var has [4]bool
	for _, r := range pieces {
		i := strings.IndexRune(DefaultPieces, r)
		if i < 0 || has[i] {
			return nil, fmt.Errorf("option pieces=%q: want a subset of %q, each letter once", pieces, DefaultPieces)
		}
		has[i] = true
	}
	if !has[0] {
		return nil, fmt.Errorf("option pieces=%q: the lions (L) are always in play", pieces)
	}
	var total [numTypes]int
	var canon strings.Builder
	canon.WriteByte('L')
	for typ := range numTypes {
		if has[typ+1] {
			total[typ] = 2
			canon.WriteByte(DefaultPieces[typ+1])
		}
	}
	g := &Game{pieces: canon.String(), l: newLayout(total)}
	for i, r := range "gle.c..C.ELG" {
		code := uint8(strings.IndexRune(pieceLetters, r))
		if code > lionS && total[handType[code]] == 0 {
			continue
		}
		if code != empty {
			g.start.put(i, code)
		}
	}
	return g, nil
}

// Name is "dshogi".
func (g *Game) Name() string { return "dshogi" }

// Option is "default" for the full game, else "pieces=..." with the
// letters in the order LGEC.
func (g *Game) Option() string {
	if g.pieces == DefaultPieces {
		return "default"
	}
	return "pieces=" + g.pieces
}

// Start returns the start position, forest to move.
func (g *Game) Start() (tiergame.Tier, tiergame.Position) {
	p := g.start
	return g.l.encode(&p, false)
}

// TierSize returns the size of tier t's hash space, 0 for a tier the game
// does not have.
func (g *Game) TierSize(t tiergame.Tier) uint64 {
	if t >= numTiers {
		return 0
	}
	return g.l.tierSize(t)
}

// ChildTiers lists play itself, try and capture for play; the other tiers
// are all primitive.
func (g *Game) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	if t == play {
		return []tiergame.Tier{play, try, capture}
	}
	return nil
}

// TierName is "play", "try" or "capture".
func (g *Game) TierName(t tiergame.Tier) string {
	if t < numTiers {
		return tierNames[t]
	}
	return fmt.Sprintf("tier %d", t)
}

// primitive returns the value of p in tier t when it ends the game
// (Undecided otherwise); in play, that is when the side to move has no
// move.
func primitive(t tiergame.Tier, p *pos) tiergame.Value {
	switch t {
	case capture:
		return tiergame.Lose
	case try:
		// The lion on its far rank is the one of the side not to move.
		if p.attacked(p.turn, p.lion(p.turn^1)) {
			return tiergame.Win
		}
		return tiergame.Lose
	}
	if !p.canMove() {
		return tiergame.Draw
	}
	return tiergame.Undecided
}

// Moves returns the primitive value of p, or Undecided and its children.
func (g *Game) Moves(t tiergame.Tier, h tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	var p pos
	g.l.decode(t, uint64(h), &p, nil)
	if v := primitive(t, &p); v != tiergame.Undecided {
		return v, dst
	}
	var ms [64]move
	for _, m := range p.moves(ms[:0]) {
		q := p
		q.play(m)
		ct, ch := g.l.encode(&q, false)
		dst = append(dst, tiergame.Child{Tier: ct, Pos: ch})
	}
	return tiergame.Undecided, dst
}

// MoveNames names the moves of p, in the order of Moves.
func (g *Game) MoveNames(t tiergame.Tier, h tiergame.Position) []string {
	var p pos
	g.l.decode(t, uint64(h), &p, nil)
	if primitive(t, &p) != tiergame.Undecided {
		return nil
	}
	var names []string
	var ms [64]move
	for _, m := range p.moves(ms[:0]) {
		names = append(names, p.moveName(m))
	}
	return names
}

// Parents appends the positions of tier pt with a move to p (tier t).
// Only play has moves, so pt must be play for any to exist.
func (g *Game) Parents(t tiergame.Tier, h tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	if pt != play || t >= numTiers {
		return dst
	}
	var p pos
	g.l.decode(t, uint64(h), &p, nil)
	return g.l.parents(&p, false, dst)
}
