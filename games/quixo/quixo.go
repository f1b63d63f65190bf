// Package quixo is Quixo on a 3x3, 4x4 or 5x5 board as a loopy tier game.
//
// The board holds cubes that are blank, X or O; X moves first. A move takes
// a cube from the border that is blank or shows the mover's symbol, marks it
// with the mover's symbol and pushes it back in at an end of its row or
// column other than the spot it left, shifting the cubes in between one
// step toward that spot. A corner cube has two such ends, another border
// cube three. A player wins with a full row, column or diagonal of their
// symbol (size in a row). Seen from the player to move, a position where
// that player has a line is won; otherwise one where the opponent has a
// line is lost; so a move completing lines for both sides loses.
//
// The tier is the number of X and O cubes, numbered x<<8 | o and named
// "x5o4". Taking a blank cube moves the game to the tier with one more of
// the mover's cubes; taking an own cube stays in the tier, so every tier is
// loopy.
//
// Hash: cells are numbered row by row from the top left; the low lo =
// floor(size²/2) cells form the low half of the board, the others the high
// half. Each half's contents have a rank among the contents with the same
// numbers of X and O, in the order of the base-3 number whose digit for
// cell i is 0 (blank), 1 (X) or 2 (O). Within tier (x, o) the boards are
// grouped by the low half's counts (xl, ol) in increasing order of xl, then
// ol; a board's rank is the size of the earlier groups plus
// rankHigh*M(lo; xl, ol) + rankLow, where M(m; a, b) = C(m, a)*C(m-a, b),
// and its hash is 2*rank plus 1 when O is to move. TierSize(x, o) = 2 *
// C(size², x) * C(size²-x, o), which sums to 2*3^(size²) over all tiers.
//
// Text form: the side to move, "x:" or "o:", then the rows from top to
// bottom separated by '/', cells '.', 'x' and 'o' ("o:x.../..../..../....").
// Every board is accepted; whether it can be reached is the solver's
// business. Cells are named by column letter and row number from the top
// ("a1" is the top left corner) and a move by the cell it takes the cube
// from and the cell where it pushes it in: "a2-d2" takes the cube at a2 and
// pushes it in at the right end of row 2.
package quixo

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/tiersolve/tiersolve/games/internal/comb"
	"github.com/tiersolve/tiersolve/games/internal/grid"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Board sizes.
const (
	MinSize     = 3
	MaxSize     = 5
	DefaultSize = 4
)

// Game is Quixo on one board size. It is immutable and safe for concurrent
// use.
type Game struct {
	n      int // board side
	cells  int
	loBits int    // cells in the low half of the hash
	loMask uint32 // the low half's cells
	lo, hi *half

	// tiers[x*(cells+1)+o] describes tier (x, o); nil where x+o > cells.
	tiers []*tierInfo
	moves []move // every move, by source cell then destination
	// moveNames[i] names moves[i] ("a1-d1"), made once for the queries.
	moveNames []string
	// undo[c] undoes the moves that push a cube in at cell c; ends has the
	// cells where some move does.
	undo [MaxSize * MaxSize]unmoves
	ends uint32
	// bySrc[c] holds the moves taking the cube at c, padded to three with
	// copies of the last flagged invalid; border has the cells of the
	// border.
	bySrc  [MaxSize * MaxSize][3]move
	border uint32

	rowStarts, colStarts uint32 // first cell of each row, of each column
	diag, anti           uint32
	// lines, for boards of at most 16 cells, has bit b set when the cells b
	// hold a line.
	lines  []uint64
	tables *lineTables
	sym    *symTables
}

// half ranks the contents of one half of the board.
type half struct {
	bits int
	// tern[m] is the base-3 number with digit 1 at the set bits of m. Its
	// fixed size lets masked indexes skip bounds checks.
	tern *[1 << maxHalfBits]uint32
	// The contents with x X and o O form class classOf[x][o]; classes are
	// numbered by x, then o.
	classOf [maxHalfBits + 1][maxHalfBits + 1]int
	// rank[code] packs the rank of the contents with base-3 code within
	// their class (bits 0-19) and the class (bits 20-31).
	rank []uint32
	// unrank[class] lists the contents of a class by rank, each packed as
	// xmask | omask<<16.
	unrank [][]uint32
	// pair, for halves of at most 8 cells, holds the rank and class indexed
	// directly by the cubes, packed as rank | class<<pairRankBits, in
	// pair[0][x | o<<8] and pair[1][o | x<<8]. It saves the base-3
	// conversion in the hot loops, in half the space of rank's entries.
	pair *[2][1 << 16]uint16
}

const (
	pairRankBits = 10 // M(8; 3, 3) = 560 contents in the largest class of 8 cells
	rankBits     = 20
	rankMask     = 1<<rankBits - 1
	maxHalfBits  = (MaxSize*MaxSize + 1) / 2
	maxClasses   = 128 // > (maxHalfBits+1)(maxHalfBits+2)/2 classes of a half
)

// tierInfo describes the hash space of one tier.
type tierInfo struct {
	x, o int
	size uint64
	// blocks[low class] is the group of boards whose low half has that
	// class.
	blocks []block
	// groups lists the nonempty groups by offset, for unhashing.
	groups []group
	// offs[low class] is blocks[low class].off (a fixed size saves
	// Moves the bounds checks).
	offs *[maxClasses]uint64
}

type block struct {
	off   uint64 // boards before the group
	numLo uint64 // contents of the low half with the group's counts
}

type group struct {
	block
	loClass, hiClass int
	// inv divides by numLo > 1: q/numLo is the high 64 bits of inv*q
	// for q < 2^32 (Lemire, Kaser and Kurz, "Faster remainder by direct
	// computation", 2019). A group's boards number below 2^32 on 5x5.
	inv uint64
}

// move is the move taking the cube at src and pushing it in at dst. The
// cells seg (from dst up to but not including src) shift one step toward
// src, to back.
//
// The shifts are multiplications: v<<shl>>shr is v*fwd>>32 with fwd =
// 2^(32+shl-shr), and undoing it is v*rev>>32. Shifts by a variable amount
// cost three micro-operations each on amd64 without BMI2.
type move struct {
	src, dst, seg uint32
	keep          uint32 // ^(seg|src), the cells the move leaves alone
	back          uint32
	fwd, rev      uint64
	srcCell       uint8
	dstCell       uint8
	valid         uint8 // 0 for the padding in Game.bySrc
}

// unmove undoes a move from the cell where it pushed its cube in: a
// parent's cubes of either side are cubes&keep | (cubes&back)*rev>>32,
// plus src for the mover when the cube taken was its own.
//
// Different moves of one parent can lead to the same child. Write the
// line from dst as cells 0 (dst) to k (src), and v for what the parent held
// at src (the mover's cube, or a blank): the unmove sets cells 0..k-1 to
// the child's cells 1..k and cell k to v. So two unmoves along one line
// from one dst, with srcs j < k, give the same parent exactly when the
// child's cells j+1..k all hold v; after has those cells for the previous
// src of the line (none for the first). That is most repeats, caught
// before any hashing; Parents filters the rest by hash.
type unmove struct {
	rev                    uint64
	keep, back, src, after uint32
}

// unmoves are the unmoves at one cell: those along its row, then those
// along its column, each by increasing distance of src.
type unmoves struct {
	n int
	u [2 * (MaxSize - 1)]unmove
}

var (
	_ tiergame.Game      = (*Game)(nil)
	_ tiergame.MoveNamer = (*Game)(nil)
	_ tiergame.Unmover   = (*Game)(nil)
)

// New returns the game for the option size (3, 4 or 5; default 4).
func New(opts tiergame.Options) (tiergame.Game, error) {
	if err := opts.Check("size"); err != nil {
		return nil, fmt.Errorf("quixo: %w", err)
	}
	n, err := opts.Int("size", DefaultSize, MinSize, MaxSize)
	if err != nil {
		return nil, fmt.Errorf("quixo: %w", err)
	}
	return NewSize(n)
}

// cache holds the game of each size, built once: the tables of 5x5 take
// tens of megabytes and a moment to fill.
var cache [MaxSize + 1]func() *Game

func init() {
	for n := MinSize; n <= MaxSize; n++ {
		cache[n] = sync.OnceValue(func() *Game { return build(n) })
	}
}

// NewSize returns the game on an n x n board.
func NewSize(n int) (*Game, error) {
	if n < MinSize || n > MaxSize {
		return nil, fmt.Errorf("quixo: size %d: must be %d to %d", n, MinSize, MaxSize)
	}
	return cache[n](), nil
}

func build(n int) *Game {
	g := &Game{n: n, cells: n * n}
	g.loBits = g.cells / 2
	g.loMask = 1<<g.loBits - 1
	g.lo = newHalf(g.loBits)
	g.hi = g.lo
	if hb := g.cells - g.loBits; hb != g.loBits {
		g.hi = newHalf(hb)
	}
	g.tiers = make([]*tierInfo, (g.cells+1)*(g.cells+1))
	for x := 0; x <= g.cells; x++ {
		for o := 0; x+o <= g.cells; o++ {
			g.tiers[x*(g.cells+1)+o] = g.newTier(x, o)
		}
	}
	for i := 0; i < n; i++ {
		g.rowStarts |= 1 << (i * n)
		g.colStarts |= 1 << i
		g.diag |= 1 << (i*n + i)
		g.anti |= 1 << (i*n + n - 1 - i)
	}
	g.moves = g.newMoves()
	g.moveNames = make([]string, len(g.moves))
	for i, m := range g.moves {
		g.moveNames[i] = g.cellName(int(m.srcCell)) + "-" + g.cellName(int(m.dstCell))
	}
	var nsrc [MaxSize * MaxSize]int
	g.undo = g.newUnmoves()
	for _, m := range g.moves {
		g.ends |= m.dst
		m.valid = 1
		g.bySrc[m.srcCell][nsrc[m.srcCell]] = m
		nsrc[m.srcCell]++
		g.border |= m.src
	}
	for c, k := range nsrc {
		for ; k > 0 && k < 3; k++ {
			g.bySrc[c][k] = g.bySrc[c][k-1]
			g.bySrc[c][k].valid = 0
		}
	}
	g.tables = g.newLineTables()
	g.sym = newSymTables(n)
	if g.cells <= 16 {
		g.lines = make([]uint64, 1<<g.cells/64+1)
		for b := uint32(0); b < 1<<g.cells; b++ {
			if g.hasLineShift(b) {
				g.lines[b>>6] |= 1 << (b & 63)
			}
		}
	}
	return g
}

// multinomial returns M(m; a, b) = m! / (a! b! (m-a-b)!).
func multinomial(m, a, b int) uint64 {
	return comb.Binom(m, a) * comb.Binom(m-a, b)
}

func newHalf(nbits int) *half {
	h := &half{bits: nbits, tern: new([1 << maxHalfBits]uint32)}
	for m := 0; m < 1<<nbits; m++ {
		t, p := uint32(0), uint32(1)
		for i := 0; i < nbits; i++ {
			if m>>i&1 != 0 {
				t += p
			}
			p *= 3
		}
		h.tern[m] = t
	}
	codes := 1
	for i := 0; i < nbits; i++ {
		codes *= 3
	}
	classes := 0
	for x := 0; x <= nbits; x++ {
		for o := 0; x+o <= nbits; o++ {
			h.classOf[x][o] = classes
			classes++
		}
	}
	h.rank = make([]uint32, codes)
	h.unrank = make([][]uint32, classes)
	for code := 0; code < codes; code++ {
		var xm, om uint32
		for i, c := 0, code; i < nbits; i, c = i+1, c/3 {
			switch c % 3 {
			case 1:
				xm |= 1 << i
			case 2:
				om |= 1 << i
			}
		}
		class := h.classOf[bits.OnesCount32(xm)][bits.OnesCount32(om)]
		h.rank[code] = uint32(len(h.unrank[class])) | uint32(class)<<rankBits
		h.unrank[class] = append(h.unrank[class], xm|om<<16)
	}
	if nbits <= 8 {
		h.pair = new([2][1 << 16]uint16)
		for xm := uint32(0); xm < 1<<nbits; xm++ {
			for om := uint32(0); om < 1<<nbits; om++ {
				if xm&om == 0 {
					r := h.rank[h.tern[xm]+2*h.tern[om]]
					v := uint16(r&rankMask | r>>rankBits<<pairRankBits)
					h.pair[0][xm|om<<8] = v
					h.pair[1][om|xm<<8] = v
				}
			}
		}
	}
	return h
}

func (g *Game) newTier(x, o int) *tierInfo {
	lo, hi := g.lo.bits, g.hi.bits
	ti := &tierInfo{x: x, o: o, blocks: make([]block, len(g.lo.unrank))}
	var off uint64
	for xl := 0; xl <= lo && xl <= x; xl++ {
		for ol := 0; xl+ol <= lo && ol <= o; ol++ {
			xh, oh := x-xl, o-ol
			if xh+oh > hi {
				continue
			}
			b := block{off: off, numLo: multinomial(lo, xl, ol)}
			ti.blocks[g.lo.classOf[xl][ol]] = b
			ti.groups = append(ti.groups, group{b, g.lo.classOf[xl][ol], g.hi.classOf[xh][oh], ^uint64(0)/b.numLo + 1})
			off += b.numLo * multinomial(hi, xh, oh)
		}
	}
	ti.size = 2 * off
	ti.offs = new([maxClasses]uint64)
	for c, b := range ti.blocks {
		ti.offs[c] = b.off
	}
	return ti
}

func (g *Game) newMoves() []move {
	n := g.n
	var ms []move
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			if r != 0 && r != n-1 && c != 0 && c != n-1 {
				continue
			}
			src := uint32(1) << (r*n + c)
			add := func(dr, dc int, seg uint32, shl, shr int) {
				ms = append(ms, move{
					src: src, dst: 1 << (dr*n + dc), seg: seg, keep: ^(seg | src), back: seg << shl >> shr,
					fwd: 1 << (32 + shl - shr), rev: 1 << (32 - shl + shr),
					srcCell: uint8(r*n + c), dstCell: uint8(dr*n + dc),
				})
			}
			var seg uint32
			if c > 0 { // push in at the left end of the row
				seg = 0
				for i := 0; i < c; i++ {
					seg |= 1 << (r*n + i)
				}
				add(r, 0, seg, 1, 0)
			}
			if c < n-1 { // at the right end
				seg = 0
				for i := c + 1; i < n; i++ {
					seg |= 1 << (r*n + i)
				}
				add(r, n-1, seg, 0, 1)
			}
			if r > 0 { // at the top of the column
				seg = 0
				for i := 0; i < r; i++ {
					seg |= 1 << (i*n + c)
				}
				add(0, c, seg, n, 0)
			}
			if r < n-1 { // at the bottom
				seg = 0
				for i := r + 1; i < n; i++ {
					seg |= 1 << (i*n + c)
				}
				add(n-1, c, seg, 0, n)
			}
		}
	}
	return ms
}

// newUnmoves returns the unmoves of g.moves by the cell they push in at.
func (g *Game) newUnmoves() [MaxSize * MaxSize]unmoves {
	var out [MaxSize * MaxSize]unmoves
	for d := range g.cells {
		un := &out[d]
		for _, alongRow := range []bool{true, false} {
			var line []move
			for _, m := range g.moves {
				if int(m.dstCell) == d && (int(m.srcCell)/g.n == d/g.n) == alongRow {
					line = append(line, m)
				}
			}
			// By distance from d: the segment of a farther src is larger.
			slices.SortFunc(line, func(a, b move) int { return bits.OnesCount32(a.seg) - bits.OnesCount32(b.seg) })
			for i, m := range line {
				u := unmove{rev: m.rev, keep: m.keep, back: m.back, src: m.src}
				if i > 0 {
					u.after = (m.seg | m.src) &^ (line[i-1].seg | line[i-1].src)
				}
				un.u[un.n] = u
				un.n++
			}
		}
	}
	return out
}

// Name returns "quixo".
func (g *Game) Name() string { return "quixo" }

// Option returns "size=N".
func (g *Game) Option() string { return fmt.Sprintf("size=%d", g.n) }

// Start returns the empty board with X to move, tier x0o0.
func (g *Game) Start() (tiergame.Tier, tiergame.Position) { return 0, 0 }

// tierOf returns the description of tier t, or nil if there is none.
func (g *Game) tierOf(t tiergame.Tier) *tierInfo {
	x, o := uint64(t>>8), uint64(t&0xff)
	if x > uint64(g.cells) || o > uint64(g.cells) {
		return nil
	}
	return g.tiers[x*uint64(g.cells+1)+o]
}

func tierID(x, o int) tiergame.Tier { return tiergame.Tier(x<<8 | o) }

// TierSize returns 2*C(size², x)*C(size²-x, o) for tier (x, o), 0 for a
// tier that does not exist.
func (g *Game) TierSize(t tiergame.Tier) uint64 {
	if ti := g.tierOf(t); ti != nil {
		return ti.size
	}
	return 0
}

// ChildTiers returns (x+1, o), (x, o+1) when the board has a blank cube,
// and (x, o) itself.
func (g *Game) ChildTiers(t tiergame.Tier) []tiergame.Tier {
	ti := g.tierOf(t)
	if ti == nil {
		return nil
	}
	if ti.x+ti.o == g.cells {
		return []tiergame.Tier{t}
	}
	return []tiergame.Tier{tierID(ti.x+1, ti.o), tierID(ti.x, ti.o+1), t}
}

// TierName returns "xXoO", e.g. "x5o4".
func (g *Game) TierName(t tiergame.Tier) string {
	return fmt.Sprintf("x%do%d", t>>8, t&0xff)
}

// hash returns the hash of board (xs, os) of tier ti with side to move
// (0 for X, 1 for O).
func (g *Game) hash(ti *tierInfo, xs, os uint32, side uint64) uint64 {
	return g.hashDigits(ti, xs, os, 1, 2, side)
}

// hashDigits returns the hash of the board with cubes a and b of tier ti,
// whose base-3 digits are da and db: 1, 2 when a holds the X, 2, 1 when it
// holds the O. Callers thus need not sort the mover's cubes from the
// opponent's.
func (g *Game) hashDigits(ti *tierInfo, a, b, da, db uint32, side uint64) uint64 {
	lo, hi, lb := g.lo, g.hi, uint(g.loBits)&31
	var lr, hr uint32
	if lo.pair != nil && hi.pair != nil {
		lr = unpair(lo.pair[(da-1)&1][(a&g.loMask|(b&g.loMask)<<8)&0xffff])
		hr = unpair(hi.pair[(da-1)&1][(a>>lb|(b>>lb)<<8)&0xffff])
	} else {
		lr = lo.rank[lo.tern[a&g.loMask]*da+lo.tern[b&g.loMask]*db]
		hr = hi.rank[hi.tern[a>>lb&(1<<maxHalfBits-1)]*da+hi.tern[b>>lb&(1<<maxHalfBits-1)]*db]
	}
	blk := &ti.blocks[lr>>rankBits]
	return 2*(blk.off+uint64(hr&rankMask)*blk.numLo+uint64(lr&rankMask)) | side
}

// unpair converts an entry of half.pair to the packing of half.rank.
func unpair(v uint16) uint32 {
	return uint32(v&(1<<pairRankBits-1)) | uint32(v>>pairRankBits)<<rankBits
}

// unhash returns the board and side to move of hash p of tier ti.
func (g *Game) unhash(ti *tierInfo, p uint64) (xs, os uint32, side uint64) {
	grp, hiRank, loRank := ti.find(p >> 1)
	xs, os = g.board(grp, hiRank, loRank)
	return xs, os, p & 1
}

// find returns the group of board r of the tier (r = hash/2) and the
// ranks of its halves.
func (ti *tierInfo) find(r uint64) (grp *group, hiRank, loRank uint64) {
	// The group is the last one with off <= r: a binary search whose
	// steps compile to conditional moves.
	gs := ti.groups
	i := 0
	for n := len(gs); n > 1; {
		half := n / 2
		if gs[i+half].off <= r {
			i += half
		}
		n -= half
	}
	grp = &gs[i]
	q := r - grp.off // < 2^32: see group.inv
	hiRank = q
	if grp.numLo > 1 {
		hiRank, _ = bits.Mul64(grp.inv, q)
	}
	return grp, hiRank, q - hiRank*grp.numLo
}

// board returns the cubes of the board of group grp with the given ranks
// of its halves.
func (g *Game) board(grp *group, hiRank, loRank uint64) (xs, os uint32) {
	l := g.lo.unrank[grp.loClass][loRank]
	h := g.hi.unrank[grp.hiClass][hiRank]
	return l&0xffff | (h&0xffff)<<g.loBits, l>>16 | (h>>16)<<g.loBits
}

// hasLine reports whether the cells b hold a full row, column or diagonal.
func (g *Game) hasLine(b uint32) bool {
	if g.lines != nil {
		return g.lines[b>>6]>>(b&63)&1 != 0
	}
	return g.hasLineShift(b)
}

func (g *Game) hasLineShift(b uint32) bool {
	rows, cols := b, b
	for i := 1; i < g.n; i++ {
		rows &= b >> i
		cols &= b >> (i * g.n)
	}
	return rows&g.rowStarts != 0 || cols&g.colStarts != 0 || b&g.diag == g.diag || b&g.anti == g.anti
}

// primitive returns the value of board (own, opp) for the owner of own, the
// player to move.
func (g *Game) primitive(own, opp uint32) tiergame.Value {
	if g.hasLine(own) {
		return tiergame.Win
	}
	if g.hasLine(opp) {
		return tiergame.Lose
	}
	return tiergame.Undecided
}

// Parents appends the positions of tier pt that have a move to (t, p) and
// are not primitive. The mover of that move is the child's opponent; its
// cube sits where it was pushed in, at the dst of the move. Undoing the
// move shifts the line back and returns the cube to src: as the mover's
// cube when pt is t, as a blank when pt has one fewer of the mover's cubes.
func (g *Game) Parents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position) []tiergame.Position {
	return g.parents(t, p, pt, dst, false)
}

// parents is Parents, with each parent canonical if canonical is set.
func (g *Game) parents(t tiergame.Tier, p tiergame.Position, pt tiergame.Tier, dst []tiergame.Position, canonical bool) []tiergame.Position {
	ti, pti := g.tierOf(t), g.tierOf(pt)
	if ti == nil || pti == nil {
		return dst
	}
	xs, os, side := g.unhash(ti, uint64(p))
	mover := side ^ 1
	own, opp := xs, os // the mover's cubes and the others, in the child
	if mover == 1 {
		own, opp = os, xs
	}
	var src uint32 // all ones to put back an own cube, zero for a blank
	switch {
	case pt == t:
		src = ^uint32(0)
	case mover == 0 && pti.x == ti.x-1 && pti.o == ti.o, mover == 1 && pti.x == ti.x && pti.o == ti.o-1:
	default:
		return dst
	}
	dOwn, dOpp := uint32(1+mover), uint32(2-mover) // base-3 digits of own and opp
	fast := g.lo.pair != nil && g.hi.pair != nil
	var loPair, hiPair *[1 << 16]uint16
	if fast {
		loPair, hiPair = &g.lo.pair[mover&1], &g.hi.pair[mover&1]
	}
	loMask, lb := g.loMask, uint(g.loBits)&31
	blocks := pti.blocks
	start := len(dst)
	var seen [4]uint64 // a 256-bit Bloom filter over the parents found so far
	lines := g.lines
	put := own&src | ^(own|opp)&^src // the cells holding what the parent held at src
	// The mover's cube of the last move is at its dst.
	for ds := own & g.ends; ds != 0; ds &= ds - 1 {
		un := &g.undo[bits.TrailingZeros32(ds)&31]
		for k := range un.n {
			m := &un.u[k&(len(un.u)-1)]
			if m.after != 0 && put&m.after == m.after {
				continue // the parent of the previous src of the line
			}
			pOwn := own&m.keep | uint32(uint64(own&m.back)*m.rev>>32) | m.src&src
			pOpp := opp&m.keep | uint32(uint64(opp&m.back)*m.rev>>32)
			if lines != nil {
				if (lines[pOwn>>6]>>(pOwn&63)|lines[pOpp>>6]>>(pOpp&63))&1 != 0 {
					continue // primitive: no moves
				}
			} else if g.hasLineShift(pOwn) || g.hasLineShift(pOpp) {
				continue
			}
			if canonical {
				if mover == 0 {
					pOwn, pOpp = g.canonical(pOwn, pOpp)
				} else {
					pOpp, pOwn = g.canonical(pOpp, pOwn)
				}
			}
			var h uint64
			if fast { // hashDigits, inlined
				lr := loPair[(pOwn&loMask|(pOpp&loMask)<<8)&0xffff]
				hr := hiPair[(pOwn>>lb|(pOpp>>lb)<<8)&0xffff]
				blk := &blocks[lr>>pairRankBits]
				h = 2*(blk.off+uint64(hr&(1<<pairRankBits-1))*blk.numLo+uint64(lr&(1<<pairRankBits-1))) | mover
			} else {
				h = g.hashDigits(pti, pOwn, pOpp, dOwn, dOpp, mover)
			}
			// Other repeats: across lines and dsts (rare: see unmove), and
			// of canonical images.
			f := h * 0x9e3779b97f4a7c15 >> 56
			word, bit := &seen[f>>6&3], uint64(1)<<(f&63)
			if *word&bit != 0 && slices.Contains(dst[start:], tiergame.Position(h)) {
				continue
			}
			*word |= bit
			dst = append(dst, tiergame.Position(h))
		}
	}
	return dst
}

// cellName names cell i: column letter and row number from the top.
func (g *Game) cellName(i int) string {
	return fmt.Sprintf("%c%d", 'a'+i%g.n, i/g.n+1)
}

// MoveNames names the moves of p in the order of Moves, "a2-d2" for taking
// the cube at a2 and pushing it in at d2.
func (g *Game) MoveNames(t tiergame.Tier, p tiergame.Position) []string {
	xs, os, side := g.unhash(g.tierOf(t), uint64(p))
	own, opp := xs, os
	if side == 1 {
		own, opp = os, xs
	}
	if g.primitive(own, opp) != tiergame.Undecided {
		return nil
	}
	names := make([]string, 0, len(g.moves))
	for i, m := range g.moves {
		if opp&m.src == 0 {
			names = append(names, g.moveNames[i])
		}
	}
	return names
}

// Format returns the side to move and the rows from the top, e.g.
// "o:x.../..../..../....".
func (g *Game) Format(t tiergame.Tier, p tiergame.Position) string {
	xs, os, side := g.unhash(g.tierOf(t), uint64(p))
	var b strings.Builder
	b.Grow(2 + g.cells + g.n)
	b.WriteString([]string{"x:", "o:"}[side])
	grid.Format(&b, uint64(xs), uint64(os), g.n, g.cells, '.')
	return b.String()
}

// Parse reads the form of Format.
func (g *Game) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	var side uint64
	switch {
	case strings.HasPrefix(s, "x:"):
	case strings.HasPrefix(s, "o:"):
		side = 1
	default:
		return 0, 0, fmt.Errorf("quixo size=%d: %q: want \"x:\" or \"o:\" (side to move) before the rows", g.n, s)
	}
	if len(s) > 2+MaxSize*(MaxSize+1) {
		return 0, 0, fmt.Errorf("quixo size=%d: position of %d bytes is too long", g.n, len(s))
	}
	x, o, err := grid.Parse(s[2:], g.n, g.n, '.')
	if err != nil {
		return 0, 0, fmt.Errorf("quixo size=%d: %w", g.n, err)
	}
	xs, os := uint32(x), uint32(o)
	t := tierID(bits.OnesCount32(xs), bits.OnesCount32(os))
	return t, tiergame.Position(g.hash(g.tierOf(t), xs, os, side)), nil
}
