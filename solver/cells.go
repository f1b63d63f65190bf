package solver

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// A cell is one position's state: a code of 8 bits (16 when remoteness
// outgrows a byte), packed in 64-bit words outside the Go heap. A loopy
// tier is solved in its cells, and a solved tier's records are cells too,
// so the one array serves the tier's solving and then its parents'
// lookups.
//
// The codes (layout) of a solved tier, and of a loopy tier once its wins
// and losses are known:
//
//	0                        absent: not a reachable position
//	1                        draw (while solving: undecided)
//	2 .. 2+rem-1             win in 0 .. rem-1
//	2+rem .. 2+2rem-1        lose in 0 .. rem-1
//	tail+0 .. tail+tieRem-1  tie in 0 .. tieRem-1 (tail = 2+2rem)
//
// While a loopy tier's wins and losses are found, the tail holds the
// undecided positions that can still lose instead (1 is then an
// undecided position that cannot: a child is not a win), and primitive
// ties:
//
//	tail+0, tail+1           can lose, children not counted (too many),
//	                         without and with a win in another tier
//	tail+2                   tie in 0 (primitive)
//	tail+3+2(k-1)+f          can lose, k children in the tier not known to
//	                         be wins (1 <= k <= ctr), f: 1 if a child in
//	                         another tier is a win (the loss's remoteness
//	                         must then look at it)
type layout struct {
	bits   uint   // bits per cell: 8 or 16
	rem    uint32 // win and lose codes per value
	tieRem uint32 // tie codes
	ctr    uint32 // child counters of positions that can lose
}

// The layouts of 8- and 16-bit cells. A byte holds remoteness up to 92
// for wins and losses (the longest in every bundled game but the largest
// xiangqi families), up to 67 for ties, and 32 counted children.
var (
	layout8  = newLayout(8, plan.NarrowRem)
	layout16 = newLayout(16, valuedb.MaxRemoteness+1)
)

func newLayout(bits uint, rem uint32) layout {
	tail := uint32(1)<<bits - 2 - 2*rem
	return layout{bits: bits, rem: rem, tieRem: min(tail, valuedb.MaxRemoteness+1), ctr: min((tail-3)/2, 4096)}
}

// layoutFor returns the narrowest layout whose codes hold remoteness up to
// maxRem for wins and losses and maxTie for ties; with narrow, the first
// is forcedNarrow instead of layout8 (work.Paths.Narrow).
func layoutFor(maxRem, maxTie int, narrow bool) layout {
	first := layout8
	if narrow {
		first = forcedNarrow
	}
	if maxRem < int(first.rem) && maxTie < int(first.tieRem) {
		return first
	}
	return layout16
}

// forcedNarrow is a byte layout with few codes, which widens on small
// games (work.Paths.Narrow).
var forcedNarrow = layout{bits: 8, rem: 3, tieRem: 2, ctr: 1}

const (
	codeAbsent = 0
	codeOpen   = 1 // undecided, cannot lose; a draw once solved
)

func (l layout) tail() uint32              { return 2 + 2*l.rem }
func (l layout) win(r int) uint32          { return 2 + uint32(r) }
func (l layout) lose(r int) uint32         { return 2 + l.rem + uint32(r) }
func (l layout) tie(r int) uint32          { return l.tail() + uint32(r) }
func (l layout) uncounted(f uint32) uint32 { return l.tail() + f }
func (l layout) tie0() uint32              { return l.tail() + 2 }
func (l layout) counter(k, f uint32) uint32 {
	return l.tail() + 3 + 2*(k-1) + f
}

// isWin and isLose report a win or loss code and its remoteness.
func (l layout) isWin(c uint32) (int, bool) { return int(c - 2), c-2 < l.rem }
func (l layout) isLose(c uint32) (int, bool) {
	return int(c - 2 - l.rem), c-2-l.rem < l.rem
}

// isTie reports a tie code (of the tie phase) and its remoteness.
func (l layout) isTie(c uint32) (int, bool) { return int(c - l.tail()), c >= l.tail() }

// canLose reports whether c (a code of the win and lose phase) is an
// undecided position that can still lose, its counter k (0: not counted)
// and its flag f (a child in another tier is a win).
func (l layout) canLose(c uint32) (k, f uint32, ok bool) {
	t := c - l.tail()
	switch {
	case c < l.tail() || t == 2:
		return 0, 0, false
	case t < 2:
		return 0, t, true
	default:
		return (t-3)/2 + 1, (t - 3) & 1, true
	}
}

// record decodes a code of the solved layout; ok is false for an absent
// position.
func (l layout) record(c uint32) (rec valuedb.Record, ok bool) {
	switch {
	case c == codeAbsent:
		return 0, false
	case c == codeOpen:
		return valuedb.Make(tiergame.Draw, 0), true
	case c < 2+l.rem:
		return valuedb.Make(tiergame.Win, int(c-2)), true
	case c < l.tail():
		return valuedb.Make(tiergame.Lose, int(c-2-l.rem)), true
	default:
		return valuedb.Make(tiergame.Tie, int(c-l.tail())), true
	}
}

// code encodes a record in the solved layout; the layout must hold its
// remoteness.
func (l layout) code(rec valuedb.Record) uint32 {
	switch rec.Value() {
	case tiergame.Win:
		return l.win(rec.Remoteness())
	case tiergame.Lose:
		return l.lose(rec.Remoteness())
	case tiergame.Tie:
		return l.tie(rec.Remoteness())
	default:
		return codeOpen
	}
}

// cellArray is n cells of a layout's width.
type cellArray struct {
	words []uint64
	mem   *bigmem.Array
	lay   layout
	shift uint   // log2 of cells per word: 3 or 2
	mask  uint64 // a cell's bits

	laneShift uint // log2 of a cell's bits: 3 or 4
}

// newCells returns n absent cells of layout lay.
func newCells(n uint64, lay layout) (cellArray, error) {
	c := cellArray{lay: lay, mask: 1<<lay.bits - 1, shift: 3, laneShift: 3}
	if lay.bits == 16 {
		c.shift, c.laneShift = 2, 4
	}
	per := uint64(1) << c.shift
	mem, err := bigmem.Words((n + per - 1) / per)
	if err != nil {
		return cellArray{}, err
	}
	c.mem, c.words = mem, mem.Words()
	return c, nil
}

// widen makes n byte cells 16 bits wide in place, each code translated
// by f (which keeps codeAbsent): the array grows to twice its words
// (bigmem's Grow moves its pages, not copying them) and every narrow word
// becomes two wide ones, from the top down, so that widening holds the
// wide cells' memory, not both layouts' (a part of a tier solved in
// parts would need three bytes a position at that moment, not two).
func (c *cellArray) widen(workers int, n uint64, to layout, f func(uint32) uint32) error {
	if c.lay.bits != 8 || to.bits != 16 {
		return fmt.Errorf("cells of %d bits cannot widen to %d", c.lay.bits, to.bits)
	}
	narrow := len(c.words)
	if err := c.mem.Grow(2 * uint64(narrow)); err != nil {
		return err
	}
	words := c.mem.Words()
	one := func(k int) {
		x := words[k] // read before words[2k] (k = 0) is written
		var lo, hi uint64
		for j := range 4 {
			lo |= uint64(f(uint32(x>>(8*j)&0xff))) << (16 * j)
			hi |= uint64(f(uint32(x>>(8*(j+4))&0xff))) << (16 * j)
		}
		words[2*k], words[2*k+1] = lo, hi
	}
	// Narrow words [lo, h) become wide words [2lo, 2h), at or past h:
	// words done already, which nothing reads again; then h = lo.
	for h := narrow; h > 1; {
		lo := (h + 1) / 2
		work.ForChunks(context.Background(), workers, h-lo, func(a, b int) {
			for k := lo + a; k < lo+b; k++ {
				one(k)
			}
		})
		h = lo
	}
	if narrow > 0 {
		one(0)
	}
	c.lay, c.mask, c.shift, c.laneShift = to, 1<<to.bits-1, 2, 4
	c.words = words[:(n+3)/4] // a narrow word's padding may make one more, zero
	return nil
}

// free returns the cells' memory.
func (c *cellArray) free() {
	c.mem.Free()
	c.words = nil
}

// bytes is the cells' memory.
func (c *cellArray) bytes() uint64 { return 8 * uint64(len(c.words)) }

// at returns where cell i is: its word and the shift of its bits there.
func (c *cellArray) at(i uint64) (*uint64, uint) {
	return &c.words[i>>c.shift], uint(i&(1<<c.shift-1)) * c.lay.bits
}

// get returns cell i; safe beside concurrent updates.
func (c *cellArray) get(i uint64) uint32 {
	w, s := c.at(i)
	return uint32(atomic.LoadUint64(w) >> s & c.mask)
}

// peek returns cell i of cells that nothing updates any more.
func (c *cellArray) peek(i uint64) uint32 {
	return uint32(c.words[i>>c.shift] >> (uint(i&(1<<c.shift-1)) * c.lay.bits) & c.mask)
}

// set sets an absent cell i to v; safe beside concurrent updates of
// other cells.
func (c *cellArray) set(i uint64, v uint32) {
	w, s := c.at(i)
	atomic.OrUint64(w, uint64(v)<<s)
}

// swap replaces cell i's code old by v, and reports whether it did (the
// cell held old).
func (c *cellArray) swap(i uint64, old, v uint32) bool {
	w, s := c.at(i)
	for {
		x := atomic.LoadUint64(w)
		if uint32(x>>s&c.mask) != old {
			return false
		}
		if atomic.CompareAndSwapUint64(w, x, x&^(c.mask<<s)|uint64(v)<<s) {
			return true
		}
	}
}

// update replaces cell i's code by what f returns for it, unless f says
// to keep it; it returns the code it replaced and whether it did.
func (c *cellArray) update(i uint64, f func(old uint32) (uint32, bool)) (uint32, bool) {
	w, s := c.at(i)
	for {
		x := atomic.LoadUint64(w)
		old := uint32(x >> s & c.mask)
		v, ok := f(old)
		if !ok {
			return old, false
		}
		if atomic.CompareAndSwapUint64(w, x, x&^(c.mask<<s)|uint64(v)<<s) {
			return old, true
		}
	}
}

// lanes is the word with every lane (cell) set to 1, and high the word
// with every lane's top bit set: the constants of matchMask.
func (c *cellArray) lanes() (ones, high uint64) {
	if c.lay.bits == 8 {
		return 0x0101010101010101, 0x8080808080808080
	}
	return 0x0001000100010001, 0x8000800080008000
}

// matchMask returns the top bit of every lane of x that equals a or b
// (each given as the lane value times ones): exact per lane, unlike the
// borrow trick that finds whether some lane is zero.
func matchMask(x, a, b, high uint64) uint64 {
	return zeroLanes(x^a, high) | zeroLanes(x^b, high)
}

// zeroLanes returns the top bit of every zero lane of y.
func zeroLanes(y, high uint64) uint64 {
	low := ^high
	return ^((y&low + low) | y) & high
}

// checkLevel returns an error when remoteness r is above what a record
// holds.
func checkLevel(g tiergame.Game, t tiergame.Tier, r int) error {
	if r > valuedb.MaxRemoteness {
		return fmt.Errorf("%s: tier %d: remoteness above %d", g.Name(), t, valuedb.MaxRemoteness)
	}
	return nil
}

// winsElsewhere keeps, beside the cells of a loopy tier solved whole,
// the longest win among each position's children in other tiers, in 4
// bits a position (15: longer, look it up), while its wins and losses are
// found. A position that can lose and has such a child (the code's flag)
// then loses at once when its count of children in the tier runs out,
// without listing its moves again to learn how long that win is (which
// cost Quixo 4x4 about 9% of its solve).
type winsElsewhere struct {
	words []uint64
	mem   *bigmem.Array
}

// winsCapped is the value that says a longest win of winsCapped or more
// plies: it is looked up.
const winsCapped = 15

// newWinsElsewhere returns the nibbles of n positions, all zero.
func newWinsElsewhere(n uint64) (winsElsewhere, error) {
	mem, err := bigmem.Words((n + 15) / 16)
	if err != nil {
		return winsElsewhere{}, err
	}
	return winsElsewhere{words: mem.Words(), mem: mem}, nil
}

// set records r, the longest win elsewhere of the position in slot i (the
// nibble must be zero); safe beside concurrent sets of other slots.
func (x *winsElsewhere) set(i uint64, r int) {
	if v := uint64(min(r, winsCapped)); v != 0 {
		atomic.OrUint64(&x.words[i>>4], v<<(i&15*4))
	}
}

// get returns the longest win elsewhere of slot i, and false when it is
// winsCapped or more and must be looked up.
func (x *winsElsewhere) get(i uint64) (int, bool) {
	v := int(atomic.LoadUint64(&x.words[i>>4]) >> (i & 15 * 4) & 15)
	return v, v < winsCapped
}

// free returns the nibbles' memory; a zero winsElsewhere is free already.
func (x *winsElsewhere) free() {
	if x.mem != nil {
		x.mem.Free()
	}
	*x = winsElsewhere{}
}
