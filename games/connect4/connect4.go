// Package connect4 is Connect Four on boards of up to 7 columns and 6 rows
// as a tier game.
//
// Players drop pieces into columns; X moves first. Play stops when the
// player who just moved has four in a row horizontally, vertically or
// diagonally (the position is primitive and lost for the player to move),
// or when the board is full (a tie). On boards where no line of four fits
// (width and height both below 4) every game fills the board and is a tie;
// on a board only one of whose sides reaches 4, only lines along that side
// count.
//
// The tier is the number of pieces on the board, n; X has ceil(n/2) of them
// and the side to move follows from n.
//
// Hash: a position of tier n hashes to shape*C(n, ceil(n/2)) + xs. shape is
// the rank of the column heights (h_1, ..., h_w) among the height vectors
// summing to n, ordered by the number sum h_c*(height+1)^(c-1); xs is the
// colex rank of the set of X among the n pieces taken column by column from
// the left, bottom to top in each column. TierSize(n) = S(n)*C(n, ceil(n/2))
// where S(n) is the number of height vectors summing to n.
//
// Text form: the rows from top to bottom separated by '/', cells '.', 'x'
// and 'o' ("......./......./......./......./...x.../...xo.."). Parse also
// accepts a move list, "moves:" followed by 1-based column digits
// ("moves:4453"). Moves are named by their 1-based column.
package connect4

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"sync"

	"github.com/tiersolve/tiersolve/games/internal/comb"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Board limits.
const (
	MaxWidth  = 7
	MaxHeight = 6
	maxCells  = MaxWidth * MaxHeight
)

// ErrInvalid is wrapped by the errors of Parse for text that is well formed
// but no reachable position.
var ErrInvalid = errors.New("connect4: invalid position")

// Game is Connect Four on one board size. It is immutable and safe for
// concurrent use.
type Game struct {
	w, h   int
	stride uint // bits per column in a bitboard: h plus an always empty row
	cells  int

	// pow[c] is (h+1)^c, the weight of column c in a shape code.
	pow [MaxWidth]uint32
	// rank maps a shape code (column heights as base-(h+1) digits) to its
	// rank among the shapes with the same number of pieces.
	rank []uint32
	// shapes[n] lists the shapes of n pieces by rank, each packed as
	// code | heights<<32 with 3 bits per column height.
	shapes   [][]uint64
	tierSize []uint64
	// mirrorCode[code] is the code of the mirrored shape.
	mirrorCode []uint32
}

// pascal[n+1][k] = C(n, k) for -1 <= n <= maxCells+1 and k < 32 (the row
// of n = -1 is zero). The fixed row length lets indexes be masked instead of
// bounds-checked.
var pascal = func() (t [maxCells + 3][32]uint64) {
	for n := 0; n < len(t)-1; n++ {
		for k := range t[n+1] {
			t[n+1][k] = comb.Binom(n, k)
		}
	}
	return t
}()

// noInsert stands in for pascal when O moves: an inserted O adds no term to
// the rank of the X set.
var noInsert [maxCells + 3][32]uint64

var (
	_ tiergame.Game      = (*Game)(nil)
	_ tiergame.MoveNamer = (*Game)(nil)
)

// New returns the game for the options width (1 to 7, default 7) and height
// (1 to 6, default 6).
func New(opts tiergame.Options) (tiergame.Game, error) {
	if err := opts.Check("width", "height"); err != nil {
		return nil, fmt.Errorf("connect4: %w", err)
	}
	w, err := opts.Int("width", MaxWidth, 1, MaxWidth)
	if err != nil {
		return nil, fmt.Errorf("connect4: %w", err)
	}
	h, err := opts.Int("height", MaxHeight, 1, MaxHeight)
	if err != nil {
		return nil, fmt.Errorf("connect4: %w", err)
	}
	return NewSize(w, h)
}

// cache holds the game of each board size, built once: the tables of 7x6
// take a few megabytes.
var cache [MaxWidth + 1][MaxHeight + 1]func() *Game

func init() {
	for w := 1; w <= MaxWidth; w++ {
		for h := 1; h <= MaxHeight; h++ {
			cache[w][h] = sync.OnceValue(func() *Game { return build(w, h) })
		}
	}
}

// NewSize returns the game on a board of w columns and h rows.
func NewSize(w, h int) (*Game, error) {
	if w < 1 || w > MaxWidth || h < 1 || h > MaxHeight {
		return nil, fmt.Errorf("connect4: board %dx%d: width must be 1 to %d, height 1 to %d", w, h, MaxWidth, MaxHeight)
	}
	return cache[w][h](), nil
}

func build(w, h int) *Game {
	g := &Game{w: w, h: h, stride: uint(h + 1), cells: w * h}
	codes := uint32(1)
	for c := 0; c < w; c++ {
		g.pow[c] = codes
		codes *= uint32(h + 1)
	}
	// Enumerating the codes in order ranks each tier's shapes by code.
	g.rank = make([]uint32, codes)
	g.mirrorCode = make([]uint32, codes)
	g.shapes = make([][]uint64, g.cells+1)
	for code := uint32(0); code < codes; code++ {
		n, packed := 0, uint64(0)
		for c, rest := 0, code; c < w; c++ {
			hc := rest % uint32(h+1)
			rest /= uint32(h + 1)
			n += int(hc)
			packed |= uint64(hc) << (3 * c)
		}
		for c, rest := 0, code; c < w; c++ {
			g.mirrorCode[code] += rest % uint32(h+1) * g.pow[w-1-c]
			rest /= uint32(h + 1)
		}
		g.rank[code] = uint32(len(g.shapes[n]))
		g.shapes[n] = append(g.shapes[n], uint64(code)|packed<<32)
	}
	g.tierSize = make([]uint64, g.cells+1)
	for n := range g.tierSize {
		g.tierSize[n] = uint64(len(g.shapes[n])) * comb.Binom(n, (n+1)/2)
	}
	return g
}

// Name returns "connect4".
func (g *Game) Name() string { return "connect4" }

// Option returns "width=W,height=H".
func (g *Game) Option() string { return fmt.Sprintf("width=%d,height=%d", g.w, g.h) }

// Start returns the empty board in tier 0.
func (g *Game) Start() (tiergame.Tier, tiergame.Position) { return 0, 0 }

// TierSize returns the size of tier t's hash space, 0 past a full board.
func (g *Game) TierSize(t tiergame.Tier) uint64 {
	if t > tiergame.Tier(g.cells) {
		return 0
	}
	return g.tierSize[t]
}

// ChildTiers returns t+1 unless the board of tier t is full.
func (g *Game) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	if t >= tiergame.Tier(g.cells) {
		return nil
	}
	return []tiergame.Tier{t + 1}
}

// TierName returns "n pieces" ("1 piece").
func (g *Game) TierName(t tiergame.Tier) string {
	if t == 1 {
		return "1 piece"
	}
	return fmt.Sprintf("%d pieces", t)
}

// four reports whether bitboard b has four in a row.
func four(b uint64, stride uint) bool {
	v := b & (b >> 1)
	h := b & (b >> stride)
	d1 := b & (b >> (stride - 1))
	d2 := b & (b >> (stride + 1))
	return v&(v>>2)|h&(h>>(2*stride))|d1&(d1>>(2*(stride-1)))|d2&(d2>>(2*(stride+1))) != 0
}

// MoveNames names the moves of p by their 1-based column, in the order of
// Moves.
func (g *Game) MoveNames(t tiergame.Tier, p tiergame.Position) []string {
	v, _ := g.Moves(t, p, nil)
	if v != tiergame.Undecided {
		return nil
	}
	x, o := g.unhash(int(t), p)
	var names []string
	for c := 0; c < g.w; c++ {
		if g.colHeight(x|o, c) < g.h {
			names = append(names, fmt.Sprint(c+1))
		}
	}
	return names
}

// colHeight returns the number of pieces in column c of occupancy occ.
func (g *Game) colHeight(occ uint64, c int) int {
	return bits.OnesCount64(occ >> (uint(c) * g.stride) & (1<<g.stride - 1))
}

// hash returns the hash of the board with bitboards x and o, and its tier.
func (g *Game) hash(x, o uint64) (tiergame.Tier, tiergame.Position) {
	occ := x | o
	var code uint32
	var xp uint64
	n := 0
	for c := 0; c < g.w; c++ {
		hc := g.colHeight(occ, c)
		code += uint32(hc) * g.pow[c]
		xp |= (x >> (uint(c) * g.stride) & (1<<uint(hc) - 1)) << uint(n)
		n += hc
	}
	nb := comb.Binom(n, (n+1)/2)
	return tiergame.Tier(n), tiergame.Position(uint64(g.rank[code])*nb + comb.Rank(xp))
}

// unhash returns the bitboards of hash p of tier n.
func (g *Game) unhash(n int, p tiergame.Position) (x, o uint64) {
	k := (n + 1) / 2
	nb := comb.Binom(n, k)
	heights := uint32(g.shapes[n][uint64(p)/nb] >> 32)
	occ, x, _ := g.layout(heights, comb.Unrank(uint64(p)%nb, n, k))
	return x, occ ^ x
}

// layout lays out the pieces of a shape as bitboards, column c at bits
// [c*stride, c*stride+h_c): heights holds the columns' heights (3 bits
// each, from the left) and xp the X among the pieces in piece order
// (column by column from the left, bottom to top). It returns the
// occupied cells, the X, and each column's end: the number of pieces in
// it and the columns to its left, where a piece dropped into it enters
// the piece order.
func (g *Game) layout(heights uint32, xp uint64) (occ, xb uint64, ends [MaxWidth]uint) {
	base := uint(0)
	for c := 0; c < g.w; c++ {
		hc := uint(heights>>(3*c)) & 7
		col := uint64(1)<<hc - 1
		shift := uint(c) * g.stride
		occ |= col << shift
		xb |= (xp >> base & col) << shift
		base += hc
		ends[c] = base
	}
	return occ, xb, ends
}

// primitive returns the value of a position of n pieces, occupied cells
// occ and X xb, for the player to move (X when n is even): Lose when the
// last move made four in a row, Tie when the board is full and Undecided
// otherwise.
func (g *Game) primitive(n int, occ, xb uint64) tiergame.Value {
	last := xb // the side that made the last move
	if n&1 == 0 {
		last = occ ^ xb
	}
	if four(last, g.stride) {
		return tiergame.Lose
	}
	if n == g.cells {
		return tiergame.Tie
	}
	return tiergame.Undecided
}

// Format returns the rows from the top separated by '/'.
func (g *Game) Format(t tiergame.Tier, p tiergame.Position) string {
	x, o := g.unhash(int(t), p)
	var b strings.Builder
	for r := g.h - 1; r >= 0; r-- {
		for c := 0; c < g.w; c++ {
			bit := uint64(1) << (uint(c)*g.stride + uint(r))
			switch {
			case x&bit != 0:
				b.WriteByte('x')
			case o&bit != 0:
				b.WriteByte('o')
			default:
				b.WriteByte('.')
			}
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	return b.String()
}

// Parse reads a board in the form of Format or a move list "moves:4453".
// It rejects boards that no game reaches: floating pieces, wrong piece
// counts, four in a row for the side to move, and fours that the last move
// cannot have completed at once.
func (g *Game) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	if list, ok := strings.CutPrefix(s, "moves:"); ok {
		if len(list) > g.cells {
			return 0, 0, fmt.Errorf("%w: %dx%d: %d moves, more than the board holds", ErrInvalid, g.w, g.h, len(list))
		}
		return g.parseMoves(list)
	}
	if len(s) > maxCells+MaxHeight {
		return 0, 0, fmt.Errorf("connect4 %dx%d: position of %d bytes is too long", g.w, g.h, len(s))
	}
	rows := strings.Split(s, "/")
	if len(rows) != g.h {
		return 0, 0, fmt.Errorf("connect4 %dx%d: %q: %d rows, want %d separated by '/'", g.w, g.h, s, len(rows), g.h)
	}
	var x, o uint64
	for i, row := range rows {
		if len(row) != g.w {
			return 0, 0, fmt.Errorf("connect4 %dx%d: %q: row %d has %d cells, want %d", g.w, g.h, s, i+1, len(row), g.w)
		}
		r := g.h - 1 - i
		for c := 0; c < g.w; c++ {
			bit := uint64(1) << (uint(c)*g.stride + uint(r))
			switch row[c] {
			case 'x':
				x |= bit
			case 'o':
				o |= bit
			case '.':
			default:
				return 0, 0, fmt.Errorf("connect4 %dx%d: %q: bad cell %q (want x, o or .)", g.w, g.h, s, row[c])
			}
		}
	}
	if err := g.validate(x, o); err != nil {
		return 0, 0, fmt.Errorf("%w: %dx%d %q: %s", ErrInvalid, g.w, g.h, s, err)
	}
	t, p := g.hash(x, o)
	return t, p, nil
}

func (g *Game) parseMoves(list string) (tiergame.Tier, tiergame.Position, error) {
	var x, o uint64
	for i := 0; i < len(list); i++ {
		c := int(list[i]) - '1'
		if c < 0 || c >= g.w {
			return 0, 0, fmt.Errorf("connect4 %dx%d: moves:%s: move %d: bad column %q (want 1 to %d)", g.w, g.h, list, i+1, list[i], g.w)
		}
		if four(x, g.stride) || four(o, g.stride) {
			return 0, 0, fmt.Errorf("%w: %dx%d moves:%s: move %d: the game is over", ErrInvalid, g.w, g.h, list, i+1)
		}
		hc := g.colHeight(x|o, c)
		if hc == g.h {
			return 0, 0, fmt.Errorf("%w: %dx%d moves:%s: move %d: column %d is full", ErrInvalid, g.w, g.h, list, i+1, c+1)
		}
		bit := uint64(1) << (uint(c)*g.stride + uint(hc))
		if i%2 == 0 {
			x |= bit
		} else {
			o |= bit
		}
	}
	t, p := g.hash(x, o)
	return t, p, nil
}

// validate explains why bitboards x, o are no reachable board, or returns
// nil.
func (g *Game) validate(x, o uint64) error {
	occ := x | o
	for c := 0; c < g.w; c++ {
		col := occ >> (uint(c) * g.stride) & (1<<g.stride - 1)
		if col&(col+1) != 0 {
			return fmt.Errorf("column %d has a gap below a piece", c+1)
		}
	}
	nx, no := bits.OnesCount64(x), bits.OnesCount64(o)
	if nx != no && nx != no+1 {
		return fmt.Errorf("%d x and %d o (x moves first)", nx, no)
	}
	last, other := x, o // the side that made the last move
	if nx == no {
		last, other = o, x
	}
	if four(other, g.stride) {
		return errors.New("the side to move has four in a row")
	}
	if !four(last, g.stride) {
		return nil
	}
	for c := 0; c < g.w; c++ {
		hc := g.colHeight(occ, c)
		if hc == 0 {
			continue
		}
		top := uint64(1) << (uint(c)*g.stride + uint(hc-1))
		if last&top != 0 && !four(last&^top, g.stride) {
			return nil // the last move was here and completed the fours
		}
	}
	return errors.New("fours that no single move completes")
}
