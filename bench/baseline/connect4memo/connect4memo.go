// Package connect4memo is the baseline the tier solver is compared with: a
// plain memoized single-threaded Connect Four solver. It runs negamax from
// the empty board over every reachable position, without pruning (every
// child of every position is evaluated, as a full solve does, not just
// enough to value the start), memoizing each position's value in a Go map
// keyed by a 64-bit bitboard encoding.
//
// The rules are the project's (package games/connect4): X moves first, a
// player who makes four in a row horizontally, vertically or diagonally
// wins at once, and a full board without four is a tie. The code is written
// independently of that package so that it can check it.
package connect4memo

import (
	"fmt"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Result is the outcome of a solve.
type Result struct {
	// Start is the value of the empty board for the player to move.
	Start tiergame.Value
	// Positions is the number of distinct positions reachable from the
	// empty board, terminal ones included: the size of the memo.
	Positions int
}

// Solve values every position reachable on a board of width columns
// (1 to 7) and height rows (1 to 6).
func Solve(width, height int) (Result, error) {
	if width < 1 || width > 7 || height < 1 || height > 6 {
		return Result{}, fmt.Errorf("connect4memo: board %dx%d: want width 1 to 7 and height 1 to 6", width, height)
	}
	s := newSolver(width, height)
	v := s.value(0, 0, 0)
	return Result{Start: v, Positions: len(s.memo)}, nil
}

// solver holds the board geometry and the memo.
//
// Bitboards: column c uses bits c*(height+1) ... c*(height+1)+height-1,
// bottom to top; the extra bit on top of each column is always 0, so shifts
// that look for four in a row never wrap from one column into the next.
// A position is (cur, mask): the stones of the player to move and all
// stones. cur+mask identifies it (the classic encoding: adding the bottom
// row, a constant, makes the top of each column's stones a marker bit).
type solver struct {
	width, height int
	cells         int
	h1            uint // bits per column: height+1
	memo          map[uint64]tiergame.Value
}

func newSolver(width, height int) *solver {
	return &solver{
		width:  width,
		height: height,
		cells:  width * height,
		h1:     uint(height + 1),
		memo:   make(map[uint64]tiergame.Value),
	}
}

// value returns the value of (cur, mask), n stones on the board, for the
// player to move.
func (s *solver) value(cur, mask uint64, n int) tiergame.Value {
	key := cur + mask
	if v, ok := s.memo[key]; ok {
		return v
	}
	var v tiergame.Value
	switch {
	case s.four(cur ^ mask): // the player who just moved has four
		v = tiergame.Lose
	case n == s.cells:
		v = tiergame.Tie
	default:
		v = tiergame.Lose
		for c := range s.width {
			top := uint64(1) << (uint(c)*s.h1 + uint(s.height) - 1)
			if mask&top != 0 {
				continue // column full
			}
			bottom := uint64(1) << (uint(c) * s.h1)
			// The mover's stones become the opponent's; adding the bottom
			// bit to the column's stones sets the lowest empty cell.
			switch s.value(cur^mask, mask|(mask+bottom), n+1) {
			case tiergame.Lose:
				v = tiergame.Win
			case tiergame.Tie:
				if v == tiergame.Lose {
					v = tiergame.Tie
				}
			}
		}
	}
	s.memo[key] = v
	return v
}

// four reports whether stones holds four in a row.
func (s *solver) four(stones uint64) bool {
	for _, shift := range [4]uint{1, s.h1 - 1, s.h1, s.h1 + 1} { // vertical, both diagonals, horizontal
		m := stones & (stones >> shift)
		if m&(m>>(2*shift)) != 0 {
			return true
		}
	}
	return false
}
