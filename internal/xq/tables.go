package xq

import (
	"cmp"
	"math/bits"
)

// Precomputed geometry: where each piece may go from each point, and the
// squares between two points of a line.

// squares is a set of squares: bit s of word s/64.
type squares [2]uint64

func (b squares) has(s Square) bool { return b[s>>6]>>(s&63)&1 != 0 }
func (b *squares) set(s Square)     { b[s>>6] |= 1 << (s & 63) }
func (b *squares) clear(s Square)   { b[s>>6] &^= 1 << (s & 63) }

// count returns the number of points of b between a and c (between).
func (b *squares) count(a, c Square) int {
	m := &between[a][c]
	return bits.OnesCount64(b[0]&m[0]) + bits.OnesCount64(b[1]&m[1])
}

// step is a move's target and the point that must be empty for it (the
// horse's leg, the elephant's eye); NoSquare when nothing must be.
type step struct{ to, via Square }

var (
	// between[a][b] holds the squares strictly between a and b when they
	// share a file or a rank; line[a][b] says whether they do (a != b).
	between [NumSquares][NumSquares]squares
	line    [NumSquares][NumSquares]bool
	// horseLeg[a][b] is the leg of a horse jumping from a to b, NoSquare
	// if b is not a horse jump from a.
	horseLeg [NumSquares][NumSquares]Square

	kingSteps     [2][NumSquares][]Square // within the side's palace
	advisorSteps  [2][NumSquares][]Square
	elephantSteps [2][NumSquares][]step // via: the eye
	horseSteps    [NumSquares][]step    // via: the leg
	soldierSteps  [2][NumSquares][]Square
	// soldierBack[s][t] lists the points from which a soldier of side s
	// steps to t: the un-moves of a soldier.
	soldierBack [2][NumSquares][]Square
	// rays[s][d] lists the points from s outward in direction d (up,
	// down, left, right), nearest first.
	rays [NumSquares][4][]Square

	// near[k] holds the points where a piece's arrival or departure can
	// change whether a general on k is attacked: k's file and rank (lines
	// of chariots, cannons and generals; soldiers step along them) and
	// the four points diagonal to k (the legs of horses attacking k).
	near [NumSquares]squares
	// below[s] holds the points below s.
	below [NumSquares]squares

	// places[s][k] is where a piece of kind k and side s can ever stand
	// in a legal game; placeSet is the same as sets.
	places   [2][NumKinds][]Square
	placeSet [2][NumKinds]squares
)

// InPalace reports whether s is in side's palace.
func InPalace(side Side, s Square) bool {
	f, r := s.File(), s.Rank()
	if side == Black {
		r = Ranks - 1 - r
	}
	return f >= 3 && f <= 5 && r <= 2
}

// OwnHalf reports whether s is on side's half of the board.
func OwnHalf(side Side, s Square) bool { return (s.Rank() <= 4) == (side == Red) }

// forward returns the rank step of side's soldiers.
func forward(side Side) int { return 1 - 2*int(side) }

// canStand reports whether a piece of side and kind may stand on s in a
// legal game: generals and advisors in their palace (advisors on its
// corners and centre), elephants on their seven points of their own half,
// soldiers on the two ranks nearest the river on the five files they
// start on, or anywhere past the river.
func canStand(side Side, k Kind, s Square) bool {
	f, r := s.File(), s.Rank()
	if side == Black {
		r = Ranks - 1 - r // red's view
	}
	switch k {
	case King:
		return InPalace(side, s)
	case Advisor:
		return InPalace(side, s) && (f+r)%2 == 1
	case Elephant:
		return r <= 4 && r%2 == 0 && f%2 == 0 && (r/2+f/2)%2 == 1
	case Soldier:
		return r >= 5 || (r == 3 || r == 4) && f%2 == 0
	case Horse, Chariot, Cannon:
		return true
	}
	return false
}

func init() {
	for a := Square(0); a < NumSquares; a++ {
		for b := Square(0); b < NumSquares; b++ {
			horseLeg[a][b] = NoSquare
			if a == b || a.File() != b.File() && a.Rank() != b.Rank() {
				continue
			}
			line[a][b] = true
			df, dr := cmp.Compare(b.File(), a.File()), cmp.Compare(b.Rank(), a.Rank())
			for f, r := a.File()+df, a.Rank()+dr; f != b.File() || r != b.Rank(); f, r = f+df, r+dr {
				between[a][b].set(At(f, r))
			}
		}
	}
	orth := [4][2]int{{0, 1}, {0, -1}, {-1, 0}, {1, 0}}
	for a := Square(0); a < NumSquares; a++ {
		for b := Square(0); b < NumSquares; b++ {
			df, dr := b.File()-a.File(), b.Rank()-a.Rank()
			if df == 0 || dr == 0 || df*df == 1 && dr*dr == 1 {
				near[a].set(b)
			}
			if b < a {
				below[a].set(b)
			}
		}
	}
	for a := Square(0); a < NumSquares; a++ {
		f, r := a.File(), a.Rank()
		for d, v := range orth {
			for k := 1; ; k++ {
				s := At(f+k*v[0], r+k*v[1])
				if s == NoSquare {
					break
				}
				rays[a][d] = append(rays[a][d], s)
			}
		}
		for _, v := range [8][2]int{{1, 2}, {-1, 2}, {1, -2}, {-1, -2}, {2, 1}, {-2, 1}, {2, -1}, {-2, -1}} {
			to := At(f+v[0], r+v[1])
			if to == NoSquare {
				continue
			}
			leg := At(f+v[0]/2, r+v[1]/2) // the long side's half step; 0 on the short side
			horseSteps[a] = append(horseSteps[a], step{to, leg})
			horseLeg[a][to] = leg
		}
		for side := Red; side <= Black; side++ {
			for k := King; k <= Soldier; k++ {
				if canStand(side, k, a) {
					places[side][k] = append(places[side][k], a)
					placeSet[side][k].set(a)
				}
			}
			for _, v := range orth {
				if to := At(f+v[0], r+v[1]); to != NoSquare && InPalace(side, a) && InPalace(side, to) {
					kingSteps[side][a] = append(kingSteps[side][a], to)
				}
			}
			for _, v := range [4][2]int{{1, 1}, {-1, 1}, {1, -1}, {-1, -1}} {
				if to := At(f+v[0], r+v[1]); to != NoSquare && canStand(side, Advisor, a) && canStand(side, Advisor, to) {
					advisorSteps[side][a] = append(advisorSteps[side][a], to)
				}
				if to := At(f+2*v[0], r+2*v[1]); to != NoSquare && canStand(side, Elephant, a) && canStand(side, Elephant, to) {
					elephantSteps[side][a] = append(elephantSteps[side][a], step{to, At(f+v[0], r+v[1])})
				}
			}
			if canStand(side, Soldier, a) {
				fw := forward(side)
				if to := At(f, r+fw); to != NoSquare {
					soldierSteps[side][a] = append(soldierSteps[side][a], to)
				}
				if !OwnHalf(side, a) {
					for _, df := range [2]int{-1, 1} {
						if to := At(f+df, r); to != NoSquare {
							soldierSteps[side][a] = append(soldierSteps[side][a], to)
						}
					}
				}
			}
		}
	}
	for side := Red; side <= Black; side++ {
		for a := Square(0); a < NumSquares; a++ {
			for _, to := range soldierSteps[side][a] {
				soldierBack[side][to] = append(soldierBack[side][to], a)
			}
		}
	}
}

// Places returns the points where a piece of side and kind can stand in
// a legal game, in increasing order: 9 for a general, 5 for an advisor, 7
// for an elephant, 55 for a soldier, 90 for the others. The slice is
// shared: do not modify it.
func Places(side Side, k Kind) []Square {
	if k >= NumKinds || side > Black {
		return nil
	}
	return places[side][k]
}

// CanStand reports whether a piece of side and kind can stand on s in a
// legal game.
func CanStand(side Side, k Kind, s Square) bool {
	return s < NumSquares && k < NumKinds && side <= Black && placeSet[side][k].has(s)
}
