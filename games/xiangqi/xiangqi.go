// Package xiangqi is xiangqi (Chinese chess) endgames as a loopy tier
// game: exact endgame tablebases, distance to mate in plies.
//
// A variant names an endgame by its material (option material=KRvK: red's
// pieces, v, black's); a run solves it and every endgame its captures lead
// to. The variant without material holds every endgame of at most
// maxpieces pieces (option maxpieces=N, 6 by default) at once and is run
// from seeds only (levelctl import, tierd solve --from): it solves the
// endgames the seeds lie in, whole, and what they lead to. An endgame's
// tier and hashes are the same in every variant that holds it.
//
// Tiers are materials (see Material.Tier): a move without capture stays in
// the tier, so every tier is loopy, and a capture leads to the tier with
// the captured piece gone. The side to move is part of the position (the
// low bit of the hash; see layout.go for the rest). The game is exhaustive:
// every legal position of a tier is solved, reachable from some start or
// not. A position is legal when each general is in its palace, advisors,
// elephants and soldiers stand where they can (soldiers on their own half
// only on the two ranks nearest the river, on the files they start on), no
// two pieces share a point, the generals do not face each other on an open
// file, and the side not to move is not in check.
//
// The rules are internal/xq's: a side with no legal move, checkmated or
// stalemated, loses (remoteness 0); remoteness is the distance to mate in
// plies, the fastest for the winner and the slowest for the loser. By
// default the repetition rules of xiangqi (perpetual check and chase) are
// not modelled: play that goes on for ever is a draw, as in the common
// rule-tolerant tablebases. Option rules=chessdb applies them as ChessDB's
// tables do (rules.go, chase.go, docs/xiangqi-rules.md): after each tier's
// retrograde analysis a rule pass (JudgeTier) declares lost the side that
// can hold only by perpetual check or chase, and spreads the new results.
//
// Positions are written as xiangqi FEN, ranks from black's side, with the
// side to move ("3k5/9/9/9/9/9/9/9/9/R3K4 w"), moves in ICCS ("a0a9").
// The left-right mirror is the game's symmetry; the canonical position of
// a pair is the one with the smaller hash.
package xiangqi

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Name is the game's name.
const Name = "xiangqi"

// Game is the xiangqi endgames below one material, or all of them. It is
// immutable and safe for concurrent use.
type Game struct {
	top       Material // the variant's endgame
	all       bool     // no material named: every endgame
	maxPieces int      // of the variant of every endgame
	option    string
	rules     Rules    // option rules: RulesNone unless named
	tiers     sync.Map // tiergame.Tier -> *layout (nil: no tier), built on first use
}

// DefaultMaxPieces is the default of option maxpieces.
const DefaultMaxPieces = 6

// New returns the variant of the options: material=NAME (see
// ParseMaterial), or without it every endgame of at most maxpieces=N
// pieces (runs from seeds only).
func New(opts tiergame.Options) (tiergame.Game, error) {
	if err := opts.Check("material", "maxpieces", "rules"); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	g := &Game{}
	rules, err := ParseRules(opts["rules"])
	if err != nil {
		return nil, fmt.Errorf("%s: option %w", Name, err)
	}
	g.rules = rules
	// The option string names the rules only when they are on, so that
	// runs and databases without them keep their names and bytes.
	suffix := ""
	if rules != RulesNone {
		suffix = ",rules=" + rules.String()
	}
	s, ok := opts["material"]
	if !ok {
		n, err := opts.Int("maxpieces", DefaultMaxPieces, 2, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		g.all, g.maxPieces, g.option = true, n, fmt.Sprintf("maxpieces=%d", n)+suffix
		for side := range g.top {
			for k := xq.King; k < xq.NumKinds; k++ {
				g.top[side][k] = xq.MaxCount(k)
			}
		}
		return g, nil
	}
	if _, both := opts["maxpieces"]; both {
		return nil, fmt.Errorf("%s: option maxpieces is for the variant of every endgame, not with material=%s", Name, s)
	}
	m, err := ParseMaterial(s)
	if err != nil {
		return nil, fmt.Errorf("%s: option material=%s: %w", Name, s, err)
	}
	g.top = m
	g.option = "material=" + m.String() + suffix
	return g, nil
}

// Name returns "xiangqi".
func (g *Game) Name() string { return Name }

// Option returns "material=KRvK" (the endgame's canonical name) or
// "maxpieces=N".
func (g *Game) Option() string { return g.option }

// Material returns the variant's endgame, and false for the variant of
// every endgame.
func (g *Game) Material() (Material, bool) { return g.top, !g.all }

// ErrNoStart is returned by NeedsSeeds for the variant of every endgame.
var ErrNoStart = errors.New("xiangqi: name an endgame (--option material=KRvK) or start from imported positions (--from DIR, see levelctl import)")

// NeedsSeeds returns ErrNoStart for the variant of every endgame, which
// is solved from seeds only, and nil for an endgame.
func (g *Game) NeedsSeeds() error {
	if g.all {
		return ErrNoStart
	}
	return nil
}

// Exhaustive reports true: every legal position of a tier is solved.
func (g *Game) Exhaustive() bool { return true }

// WholeTiers reports true: a run from seeds solves the seeds' endgames
// whole, and every endgame below them.
func (g *Game) WholeTiers() bool { return true }

// layout returns tier t's hash space, or nil if t is no tier of g.
func (g *Game) layout(t tiergame.Tier) *layout {
	if l, ok := g.tiers.Load(t); ok { // without a lock: un-moves ask it for every position
		return l.(*layout)
	}
	var l *layout // nil if t is none of the variant's tiers, or too large: remembered too
	if m, ok := MaterialOf(t); ok && m.within(g.top) && !(g.all && m.Pieces() > g.maxPieces) {
		l = newLayout(m)
	}
	v, _ := g.tiers.LoadOrStore(t, l)
	return v.(*layout)
}

// mustLayout is layout for the tiers the solver asks about, which are
// the game's.
func (g *Game) mustLayout(t tiergame.Tier) *layout {
	l := g.layout(t)
	if l == nil {
		panic(fmt.Sprintf("xiangqi: tier %d is not a tier of %s", t, g.option))
	}
	return l
}

// Start returns the endgame's tier and its first legal position with red
// to move (any position of an exhaustive game would do). The variant of
// every endgame, run from seeds only, has no start: its start tier is the
// full material's, which is too large to be a tier.
func (g *Game) Start() (tiergame.Tier, tiergame.Position) {
	t := g.top.Tier()
	if g.all {
		return t, 0
	}
	l := g.mustLayout(t)
	for h := uint64(0); h < l.size; h += 2 {
		var st state
		if l.load(h, &st) && st.legal() {
			return t, tiergame.Position(h)
		}
	}
	return t, 0 // no legal position: impossible for a material with both generals
}

// TierSize returns the size of tier t's hash space.
func (g *Game) TierSize(t tiergame.Tier) uint64 {
	if l := g.layout(t); l != nil {
		return l.size
	}
	return 0
}

// ChildTiers lists t itself (moves without capture) and the tiers of the
// captures, in increasing order.
func (g *Game) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	l := g.layout(t)
	if l == nil {
		return nil
	}
	out := []tiergame.Tier{t}
	for _, c := range l.m.captures() {
		out = append(out, c.Tier())
	}
	slices.Sort(out)
	return out
}

// TierName returns the endgame's name, "KRNvKAABB".
func (g *Game) TierName(t tiergame.Tier) string {
	if m, ok := MaterialOf(t); ok {
		return m.String()
	}
	return fmt.Sprintf("tier(%d)", t)
}

// state is a decoded position.
type state struct {
	l  *layout
	pl placement
	b  xq.Board
}

// load makes st the state of hash h of l; false when h is no placement
// (two pieces on a point).
func (l *layout) load(h uint64, st *state) bool {
	st.l = l
	l.decode(h, &st.pl)
	st.b = xq.Board{}
	return l.board(&st.pl, &st.b)
}

// legal reports whether the placement is a legal position: the side not
// to move is not in check (nor the generals facing).
func (st *state) legal() bool { return !st.b.Attacked(st.pl.side.Other()) }

// Legal reports whether hash p of tier t is a legal position.
func (g *Game) Legal(t tiergame.Tier, p tiergame.Position) bool {
	l := g.layout(t)
	if l == nil || uint64(p) >= l.size {
		return false
	}
	var st state
	ok := l.load(uint64(p), &st)
	return ok && st.legal()
}

// Format returns the position as FEN with the side to move.
func (g *Game) Format(t tiergame.Tier, p tiergame.Position) string {
	l := g.layout(t)
	if l == nil || uint64(p) >= l.size {
		return fmt.Sprintf("(no position %d of tier %d)", p, t)
	}
	var st state
	ok := l.load(uint64(p), &st)
	if !ok {
		return fmt.Sprintf("(hash %d of %s: two pieces on a point)", p, l.m)
	}
	return st.b.FEN(st.pl.side)
}

// Parse reads a FEN; the position must be legal and its material one of
// the variant's endgames.
func (g *Game) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	b, side, err := xq.ParseFEN(s)
	if err != nil {
		return 0, 0, err
	}
	if err := b.Check(side); err != nil {
		return 0, 0, err
	}
	m := materialOf(&b)
	if g.all && m.Pieces() > g.maxPieces {
		return 0, 0, &TooManyPieces{m.Pieces(), g.maxPieces}
	}
	l := g.layout(m.Tier())
	if l == nil && g.all {
		return 0, 0, fmt.Errorf("endgame %s is too large to be a tier", m)
	}
	if l == nil {
		return 0, 0, fmt.Errorf("endgame %s is not part of %s", m, g.top)
	}
	return m.Tier(), tiergame.Position(l.encode(&b, side)), nil
}

// TooManyPieces is the error of Parse for a position with more pieces
// than the variant's maxpieces.
type TooManyPieces struct{ Pieces, Max int }

func (e *TooManyPieces) Error() string {
	return fmt.Sprintf("more than %d pieces (option maxpieces)", e.Max)
}

// materialOf counts the pieces of a board.
func materialOf(b *xq.Board) Material {
	var m Material
	for side := xq.Red; side <= xq.Black; side++ {
		b.Each(side, func(_ xq.Square, p xq.Piece) { m[side][p.Kind()]++ })
	}
	return m
}

// Moves returns Lose for a side with no legal move (mate or stalemate),
// else the children of the legal moves, in the order of
// xq.Board.LegalMoves.
func (g *Game) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	l := g.mustLayout(t)
	var st state
	l.load(uint64(p), &st)
	var buf [128]xq.Move
	moves := st.b.LegalMoves(st.pl.side, buf[:0])
	if len(moves) == 0 {
		return tiergame.Lose, dst
	}
	for _, m := range moves {
		dst = append(dst, g.child(&st, uint64(p), t, m))
	}
	return tiergame.Undecided, dst
}

// child returns where legal move m of the position st (hash h, tier t)
// leads.
func (g *Game) child(st *state, h uint64, t tiergame.Tier, m xq.Move) tiergame.Child {
	l := st.l
	if q := st.b.At(m.To); q != xq.NoPiece {
		// A capture: the tier below, hashed afresh.
		cm := l.m
		cm[q.Side()][q.Kind()]--
		ct := cm.Tier()
		q = st.b.Play(m)
		c := g.mustLayout(ct).encode(&st.b, st.pl.side.Other())
		st.b.Unplay(m, q)
		return tiergame.Child{Tier: ct, Pos: tiergame.Position(c)}
	}
	return tiergame.Child{Tier: t, Pos: tiergame.Position(st.moved(h, m))}
}

// moved returns the hash after move m without capture from the position
// of hash h.
func (st *state) moved(h uint64, m xq.Move) uint64 {
	p := st.b.At(m.From)
	return st.l.moved(&st.pl, &st.b, h, int(st.l.of[p.Side()][p.Kind()]), m.From, m.To)
}

// MoveNames returns the ICCS names of the moves, in the order of Moves.
func (g *Game) MoveNames(t tiergame.Tier, p tiergame.Position) []string {
	l := g.mustLayout(t)
	var st state
	l.load(uint64(p), &st)
	var out []string
	for _, m := range st.b.LegalMoves(st.pl.side, nil) {
		out = append(out, m.String())
	}
	return out
}

// Parents appends the legal positions of tier pt from which a move leads
// to p: in t itself the un-moves without capture of the side that just
// moved, in the tier with one more piece of the side to move its
// un-captures, the taken piece put back; each with the side not to move
// before the move not in check. (The solver asks about t only.)
func (g *Game) Parents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	if pt != t {
		var st state
		g.mustLayout(t).load(uint64(p), &st)
		return g.uncaptures(&st, pt, dst)
	}
	return g.unmoveParents(t, p, true, dst)
}

// unmoveParents appends the positions of tier t from which an un-move
// without capture of the side that just moved leads to p: with legal,
// only those before which the side not to move was not in check (the
// legal ones, Parents); without, every one (the rule pass, whose arrays
// tell an illegal parent by its state and which saves the attack test).
func (g *Game) unmoveParents(t tiergame.Tier, p tiergame.Position, legal bool, dst []tiergame.Position) []tiergame.Position {
	var st state
	g.mustLayout(t).load(uint64(p), &st)
	var guard xq.Guard
	if legal {
		guard = st.b.Guard(st.pl.side) // in the parent, st's side is not to move
	}
	var buf [128]xq.Move
	h := uint64(p)
	for _, m := range st.b.Unmoves(st.pl.side.Other(), buf[:0]) {
		// m leads from the parent to p; the parent's hash is p's with m
		// taken back, which moved computes from p by playing m backwards.
		if !legal || guard.SafeBefore(&st.b, m) {
			dst = append(dst, tiergame.Position(st.moved(h, xq.Move{From: m.To, To: m.From})))
		}
	}
	return dst
}

// uncaptures appends the parents of st in tier pt, which must hold one
// more piece of the side to move than st's tier.
func (g *Game) uncaptures(st *state, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	pm, ok := MaterialOf(pt)
	pl := g.layout(pt)
	if !ok || pl == nil {
		return dst
	}
	side := st.pl.side
	taken := xq.NoKind
	for k := xq.Advisor; k < xq.NumKinds; k++ {
		switch d := pm[side][k] - st.l.m[side][k]; {
		case d == 1 && taken == xq.NoKind:
			taken = k
		case d != 0:
			return dst
		}
		if pm[side.Other()][k] != st.l.m[side.Other()][k] {
			return dst
		}
	}
	if taken == xq.NoKind {
		return dst
	}
	var buf [128]xq.Move
	for _, m := range st.b.Uncaptures(side.Other(), buf[:0]) {
		if !xq.CanStand(side, taken, m.To) {
			continue
		}
		st.b.Unplay(m, xq.MakePiece(side, taken))
		if !st.b.Attacked(side) {
			dst = append(dst, tiergame.Position(pl.encode(&st.b, side.Other())))
		}
		st.b.Play(m)
	}
	return dst
}
