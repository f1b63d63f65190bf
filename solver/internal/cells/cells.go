// Package cells packs a tier's positions' states while it is solved and
// its records once it is: a code of 8 or 16 bits a position, outside the
// Go heap, with the layouts of the codes.
package cells

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

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
type Layout struct {
	Bits   uint   // bits per cell: 8 or 16
	Rem    uint32 // win and lose codes per value
	TieRem uint32 // tie codes
	Ctr    uint32 // child counters of positions that can lose
}

// The layouts of 8- and 16-bit cells. A byte holds remoteness up to 92
// for wins and losses (the longest in every bundled game but the largest
// xiangqi families), up to 67 for ties, and 32 counted children.
var (
	Layout8  = NewLayout(8, plan.NarrowRem)
	Layout16 = NewLayout(16, valuedb.MaxRemoteness+1)
)

func NewLayout(bits uint, rem uint32) Layout {
	tail := uint32(1)<<bits - 2 - 2*rem
	return Layout{Bits: bits, Rem: rem, TieRem: min(tail, valuedb.MaxRemoteness+1), Ctr: min((tail-3)/2, 4096)}
}

// layoutFor returns the narrowest layout whose codes hold remoteness up to
// maxRem for wins and losses and maxTie for ties; with narrow, the first
// is forcedNarrow instead of layout8 (work.Paths.Narrow).
func For(maxRem, maxTie int, narrow bool) Layout {
	first := Layout8
	if narrow {
		first = ForcedNarrow
	}
	if maxRem < int(first.Rem) && maxTie < int(first.TieRem) {
		return first
	}
	return Layout16
}

// forcedNarrow is a byte layout with few codes, which widens on small
// games (work.Paths.Narrow).
var ForcedNarrow = Layout{Bits: 8, Rem: 3, TieRem: 2, Ctr: 1}

const (
	Absent = 0
	Open   = 1 // undecided, cannot lose; a draw once solved
)

func (l Layout) Tail() uint32              { return 2 + 2*l.Rem }
func (l Layout) Win(r int) uint32          { return 2 + uint32(r) }
func (l Layout) Lose(r int) uint32         { return 2 + l.Rem + uint32(r) }
func (l Layout) Tie(r int) uint32          { return l.Tail() + uint32(r) }
func (l Layout) Uncounted(f uint32) uint32 { return l.Tail() + f }
func (l Layout) Tie0() uint32              { return l.Tail() + 2 }
func (l Layout) Counter(k, f uint32) uint32 {
	return l.Tail() + 3 + 2*(k-1) + f
}

// isWin and isLose report a win or loss code and its remoteness.
func (l Layout) IsWin(c uint32) (int, bool) { return int(c - 2), c-2 < l.Rem }
func (l Layout) IsLose(c uint32) (int, bool) {
	return int(c - 2 - l.Rem), c-2-l.Rem < l.Rem
}

// isTie reports a tie code (of the tie phase) and its remoteness.
func (l Layout) IsTie(c uint32) (int, bool) { return int(c - l.Tail()), c >= l.Tail() }

// canLose reports whether c (a code of the win and lose phase) is an
// undecided position that can still lose, its counter k (0: not counted)
// and its flag f (a child in another tier is a win).
func (l Layout) CanLose(c uint32) (k, f uint32, ok bool) {
	t := c - l.Tail()
	switch {
	case c < l.Tail() || t == 2:
		return 0, 0, false
	case t < 2:
		return 0, t, true
	default:
		return (t-3)/2 + 1, (t - 3) & 1, true
	}
}

// record decodes a code of the solved layout; ok is false for an absent
// position.
func (l Layout) Record(c uint32) (rec valuedb.Record, ok bool) {
	switch {
	case c == Absent:
		return 0, false
	case c == Open:
		return valuedb.Make(tiergame.Draw, 0), true
	case c < 2+l.Rem:
		return valuedb.Make(tiergame.Win, int(c-2)), true
	case c < l.Tail():
		return valuedb.Make(tiergame.Lose, int(c-2-l.Rem)), true
	default:
		return valuedb.Make(tiergame.Tie, int(c-l.Tail())), true
	}
}

// code encodes a record in the solved layout; the layout must hold its
// remoteness.
func (l Layout) Code(rec valuedb.Record) uint32 {
	switch rec.Value() {
	case tiergame.Win:
		return l.Win(rec.Remoteness())
	case tiergame.Lose:
		return l.Lose(rec.Remoteness())
	case tiergame.Tie:
		return l.Tie(rec.Remoteness())
	default:
		return Open
	}
}

// cells.Array is n cells of a layout's width.
type Array struct {
	Words []uint64
	mem   *bigmem.Array
	Lay   Layout
	Shift uint   // log2 of cells per word: 3 or 2
	Mask  uint64 // a cell's bits

	LaneShift uint // log2 of a cell's bits: 3 or 4

	aside int // the words Spill wrote, until Unspill
}

// newCells returns n absent cells of layout lay.
func New(n uint64, lay Layout) (Array, error) {
	c := Array{Lay: lay, Mask: 1<<lay.Bits - 1, Shift: 3, LaneShift: 3}
	if lay.Bits == 16 {
		c.Shift, c.LaneShift = 2, 4
	}
	per := uint64(1) << c.Shift
	mem, err := bigmem.Words((n + per - 1) / per)
	if err != nil {
		return Array{}, err
	}
	c.mem, c.Words = mem, mem.Words()
	return c, nil
}

// widen makes n byte cells 16 bits wide in place, each code translated
// by f (which keeps codeAbsent): the array grows to twice its words
// (bigmem's Grow moves its pages, not copying them) and every narrow word
// becomes two wide ones, from the top down, so that widening holds the
// wide cells' memory, not both layouts' (a part of a tier solved in
// parts would need three bytes a position at that moment, not two).
func (c *Array) Widen(workers int, n uint64, to Layout, f func(uint32) uint32) error {
	if c.Lay.Bits != 8 || to.Bits != 16 {
		return fmt.Errorf("cells of %d bits cannot widen to %d", c.Lay.Bits, to.Bits)
	}
	narrow := len(c.Words)
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
	c.Lay, c.Mask, c.Shift, c.LaneShift = to, 1<<to.Bits-1, 2, 4
	c.Words = words[:(n+3)/4] // a narrow word's padding may make one more, zero
	return nil
}

// free returns the cells' memory.
func (c *Array) Free() {
	c.mem.Free()
	c.Words = nil
}

// Spill writes the cells to f, from its start, and then returns their
// memory: they are set aside until Unspill reads them back. On an error
// the cells are as they were.
func (c *Array) Spill(f *os.File) error {
	n := len(c.Words)
	if n > 0 {
		if _, err := f.WriteAt(unsafe.Slice((*byte)(unsafe.Pointer(&c.Words[0])), 8*n), 0); err != nil {
			return fmt.Errorf("cells: setting aside: %w", err)
		}
	}
	c.Free()
	c.aside = n
	return nil
}

// Unspill reads back into new memory the cells Spill wrote to f.
func (c *Array) Unspill(f *os.File) error {
	mem, err := bigmem.Words(uint64(c.aside))
	if err != nil {
		return err
	}
	if c.aside > 0 {
		if _, err := f.ReadAt(mem.Bytes(), 0); err != nil {
			mem.Free()
			return fmt.Errorf("cells: reading back: %w", err)
		}
	}
	c.mem, c.Words, c.aside = mem, mem.Words(), 0
	return nil
}

// bytes is the cells' memory.
func (c *Array) Bytes() uint64 { return 8 * uint64(len(c.Words)) }

// at returns where cell i is: its word and the shift of its bits there.
func (c *Array) At(i uint64) (*uint64, uint) {
	return &c.Words[i>>c.Shift], uint(i&(1<<c.Shift-1)) * c.Lay.Bits
}

// get returns cell i; safe beside concurrent updates.
func (c *Array) Get(i uint64) uint32 {
	w, s := c.At(i)
	return uint32(atomic.LoadUint64(w) >> s & c.Mask)
}

// peek returns cell i of cells that nothing updates any more.
func (c *Array) Peek(i uint64) uint32 {
	return uint32(c.Words[i>>c.Shift] >> (uint(i&(1<<c.Shift-1)) * c.Lay.Bits) & c.Mask)
}

// set sets an absent cell i to v; safe beside concurrent updates of
// other cells.
func (c *Array) Set(i uint64, v uint32) {
	w, s := c.At(i)
	atomic.OrUint64(w, uint64(v)<<s)
}

// swap replaces cell i's code old by v, and reports whether it did (the
// cell held old).
func (c *Array) Swap(i uint64, old, v uint32) bool {
	w, s := c.At(i)
	for {
		x := atomic.LoadUint64(w)
		if uint32(x>>s&c.Mask) != old {
			return false
		}
		if atomic.CompareAndSwapUint64(w, x, x&^(c.Mask<<s)|uint64(v)<<s) {
			return true
		}
	}
}

// update replaces cell i's code by what f returns for it, unless f says
// to keep it; it returns the code it replaced and whether it did.
func (c *Array) Update(i uint64, f func(old uint32) (uint32, bool)) (uint32, bool) {
	w, s := c.At(i)
	for {
		x := atomic.LoadUint64(w)
		old := uint32(x >> s & c.Mask)
		v, ok := f(old)
		if !ok {
			return old, false
		}
		if atomic.CompareAndSwapUint64(w, x, x&^(c.Mask<<s)|uint64(v)<<s) {
			return old, true
		}
	}
}

// lanes is the word with every lane (cell) set to 1, and high the word
// with every lane's top bit set: the constants of matchMask.
func (c *Array) Lanes() (ones, high uint64) {
	if c.Lay.Bits == 8 {
		return 0x0101010101010101, 0x8080808080808080
	}
	return 0x0001000100010001, 0x8000800080008000
}

// matchMask returns the top bit of every lane of x that equals a or b
// (each given as the lane value times ones): exact per lane, unlike the
// borrow trick that finds whether some lane is zero.
func MatchMask(x, a, b, high uint64) uint64 {
	return ZeroLanes(x^a, high) | ZeroLanes(x^b, high)
}

// zeroLanes returns the top bit of every zero lane of y.
func ZeroLanes(y, high uint64) uint64 {
	low := ^high
	return ^((y&low + low) | y) & high
}

// checkLevel returns an error when remoteness r is above what a record
// holds.
func CheckLevel(g tiergame.Game, t tiergame.Tier, r int) error {
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
type WinsElsewhere struct {
	Words []uint64
	mem   *bigmem.Array
}

// winsCapped is the value that says a longest win of winsCapped or more
// plies: it is looked up.
const WinsCapped = 15

// newWinsElsewhere returns the nibbles of n positions, all zero.
func NewWinsElsewhere(n uint64) (WinsElsewhere, error) {
	mem, err := bigmem.Words((n + 15) / 16)
	if err != nil {
		return WinsElsewhere{}, err
	}
	return WinsElsewhere{Words: mem.Words(), mem: mem}, nil
}

// set records r, the longest win elsewhere of the position in slot i (the
// nibble must be zero); safe beside concurrent sets of other slots.
func (x *WinsElsewhere) Set(i uint64, r int) {
	if v := uint64(min(r, WinsCapped)); v != 0 {
		atomic.OrUint64(&x.Words[i>>4], v<<(i&15*4))
	}
}

// get returns the longest win elsewhere of slot i, and false when it is
// winsCapped or more and must be looked up.
func (x *WinsElsewhere) Get(i uint64) (int, bool) {
	v := int(atomic.LoadUint64(&x.Words[i>>4]) >> (i & 15 * 4) & 15)
	return v, v < WinsCapped
}

// free returns the nibbles' memory; a zero winsElsewhere is free already.
func (x *WinsElsewhere) Free() {
	if x.mem != nil {
		x.mem.Free()
	}
	*x = WinsElsewhere{}
}
