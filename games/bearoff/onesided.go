package bearoff

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/tiersolve/tiersolve/games/internal/comb"
)

// MaxPoints is the home board: a side's checkers stand on points 1..6.
const MaxPoints = 6

// Board is one side's checkers: Board[i] on point i+1 (Board[0] is the ace
// point). Checkers borne off are not counted.
type Board [MaxPoints]uint8

// Checkers returns the number of checkers on the board.
func (b Board) Checkers() int {
	n := 0
	for _, c := range b {
		n += int(c)
	}
	return n
}

// Pips returns the side's pip count.
func (b Board) Pips() int {
	n := 0
	for i, c := range b {
		n += (i + 1) * int(c)
	}
	return n
}

// Index returns gnubg's one-sided bearoff index of b on a board of points
// points (see ../shared/specs/gnubg-ids.md): the colexicographic rank of
// the stars-and-bars bit pattern that gnubg's PositionBearoff builds. The
// boards of up to c checkers take the indices [0, C(c+points, points)),
// those with fewer checkers first.
func Index(b Board, points int) int {
	total := b.Checkers()
	bit := points - 1 + total
	mask := uint64(1) << bit
	for i := 0; i < points-1; i++ {
		bit -= int(b[i]) + 1
		mask |= 1 << bit
	}
	return int(comb.Rank(mask))
}

// Rolls: the 21 rolls of two dice in gnubg's order (11, 21, 22, 31, ...),
// the larger die first.
var rolls = func() (rs [21][2]int) {
	k := 0
	for d0 := 1; d0 <= 6; d0++ {
		for d1 := 1; d1 <= d0; d1++ {
			rs[k] = [2]int{d0, d1}
			k++
		}
	}
	return rs
}()

// rollIndex[d0][d1] is the index in rolls of the roll d0-d1, either order.
var rollIndex = func() (t [7][7]int) {
	for k, r := range rolls {
		t[r[0]][r[1]], t[r[1]][r[0]] = k, k
	}
	return t
}()

// dice returns the dice a roll plays: four for doubles.
func dice(r [2]int) []int {
	if r[0] == r[1] {
		return []int{r[0], r[0], r[0], r[0]}
	}
	return r[:]
}

// step moves one checker: From 1..6, To 0 (off) .. 5.
type step struct{ From, To int }

// singleMoves appends to dst the steps that die d allows on b (points
// 1..points): a checker moves d points down, bears off from point d, or,
// when no checker stands higher, bears off from a lower point. A side
// with checkers always has one.
func singleMoves(b Board, points, d int, dst []step) []step {
	highest := 0
	for p := points; p >= 1; p-- {
		if b[p-1] > 0 {
			highest = p
			break
		}
	}
	for p := 1; p <= points; p++ {
		switch {
		case b[p-1] == 0:
		case p > d:
			dst = append(dst, step{p, p - d})
		case p == d || p == highest:
			dst = append(dst, step{p, 0})
		}
	}
	return dst
}

func (b Board) apply(s step) Board {
	b[s.From-1]--
	if s.To > 0 {
		b[s.To-1]++
	}
	return b
}

// Play is a legal play of a roll: the board it leaves and one way of
// playing it, die by die.
type Play struct {
	After Board
	Steps []step
}

// plays returns the distinct boards a roll can leave on b, each with the
// first sequence of steps found for it, in a fixed order. Backgammon
// requires using both dice (all four with doubles) when possible; in a
// bearoff every die can be played while a checker is left, so the plays
// are the sequences of all dice, cut short when the last checker leaves.
// For two different dice both orders are tried.
func plays(b Board, points int, r [2]int) []Play {
	orders := [][]int{dice(r)}
	if r[0] != r[1] {
		orders = append(orders, []int{r[1], r[0]})
	}
	var out []Play
	seen := map[Board]bool{}
	var buf []step
	var rec func(b Board, ds []int, steps []step)
	rec = func(b Board, ds []int, steps []step) {
		if len(ds) == 0 || b.Checkers() == 0 {
			if !seen[b] {
				seen[b] = true
				out = append(out, Play{After: b, Steps: slices.Clone(steps)})
			}
			return
		}
		buf = singleMoves(b, points, ds[0], buf[:0])
		for _, s := range slices.Clone(buf) {
			rec(b.apply(s), ds[1:], append(steps, s))
		}
	}
	for _, ds := range orders {
		rec(b, ds, nil)
	}
	return out
}

// oneSided holds every board of up to checkers checkers on points points,
// by gnubg index, with its move lists.
type oneSided struct {
	points, checkers int
	boards           []Board  // by index
	pips             []uint16 // by index
	byPip            [][]uint32
	rank             []uint32 // rank of an index among the boards of its pip count
	// The boards roll k can leave on board i are indices
	// to[start[i*21+k]:start[i*21+k+1]], ascending.
	start []uint32
	to    []uint32
}

// newOneSided enumerates the boards and their plays.
func newOneSided(points, checkers int) (*oneSided, error) {
	n := int(comb.Binom(checkers+points, points))
	o := &oneSided{points: points, checkers: checkers, boards: make([]Board, n), pips: make([]uint16, n),
		rank: make([]uint32, n), byPip: make([][]uint32, checkers*points+1)}
	seen := make([]bool, n)
	var fill func(b Board, point, left int)
	fill = func(b Board, point, left int) {
		if point == points {
			i := Index(b, points)
			o.boards[i], seen[i] = b, true
			return
		}
		for c := 0; c <= left; c++ {
			b[point] = uint8(c)
			fill(b, point+1, left-c)
		}
	}
	fill(Board{}, 0, checkers)
	if slices.Contains(seen, false) {
		return nil, fmt.Errorf("bearoff: the one-sided index is not a bijection for %d points, %d checkers", points, checkers)
	}
	for i, b := range o.boards {
		p := b.Pips()
		o.pips[i] = uint16(p)
		o.rank[i] = uint32(len(o.byPip[p]))
		o.byPip[p] = append(o.byPip[p], uint32(i))
	}
	return o, nil
}

// computeMoves fills the move lists, on one goroutine per CPU.
func (o *oneSided) computeMoves() {
	n := len(o.boards)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/1024))
	type part struct{ counts, to []uint32 }
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for w := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lv levels
			pt := &parts[w]
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				for _, r := range rolls {
					before := len(pt.to)
					for _, key := range lv.results(o.boards[i], o.points, r) {
						pt.to = append(pt.to, uint32(Index(unpack(key), o.points)))
					}
					slices.Sort(pt.to[before:])
					pt.counts = append(pt.counts, uint32(len(pt.to)-before))
				}
			}
		}()
	}
	wg.Wait()
	o.start = make([]uint32, 1, n*len(rolls)+1)
	for _, pt := range parts {
		for _, c := range pt.counts {
			o.start = append(o.start, o.start[len(o.start)-1]+c)
		}
		o.to = append(o.to, pt.to...)
	}
}

// levels is scratch space for results.
type levels struct{ cur, next []uint64 }

// results returns the distinct boards (packed) that roll r can leave on b:
// the boards after each die, deduplicated die by die.
func (lv *levels) results(b Board, points int, r [2]int) []uint64 {
	if b.Checkers() == 0 {
		return nil
	}
	var out []uint64
	orders := [2][]int{dice(r)}
	if r[0] != r[1] {
		orders[1] = []int{r[1], r[0]}
	}
	var steps [MaxPoints]step
	for _, ds := range orders {
		if ds == nil {
			continue
		}
		lv.cur = append(lv.cur[:0], pack(b))
		for _, d := range ds {
			lv.next = lv.next[:0]
			for _, key := range lv.cur {
				x := unpack(key)
				if x.Checkers() == 0 {
					lv.next = append(lv.next, key)
					continue
				}
				for _, s := range singleMoves(x, points, d, steps[:0]) {
					lv.next = append(lv.next, pack(x.apply(s)))
				}
			}
			slices.Sort(lv.next)
			lv.cur, lv.next = slices.Compact(lv.next), lv.cur
		}
		out = append(out, lv.cur...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pack and unpack turn a board into a uint64 key and back.
func pack(b Board) uint64 {
	var k uint64
	for i, c := range b {
		k |= uint64(c) << (8 * i)
	}
	return k
}

func unpack(k uint64) (b Board) {
	for i := range b {
		b[i] = uint8(k >> (8 * i))
	}
	return b
}

// moves returns the boards roll k can leave on board i.
func (o *oneSided) moves(i, k int) []uint32 {
	s := i*len(rolls) + k
	return o.to[o.start[s]:o.start[s+1]]
}
