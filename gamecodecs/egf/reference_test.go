package egf

import (
	"math/rand/v2"
	"testing"
)

// An independent reference model of xiangqi move legality for the tests:
// it generates moves per piece on a plain [10][9] grid of letters
// (rank index 0 = rank 1) instead of checking deltas like checkMove, and it
// also rejects moves that leave the mover's king attacked or facing the
// other king.

type refBoard [10][9]byte // FEN letters, 0 for empty

func refFromBoard(b *Board) refBoard {
	var r refBoard
	for i, p := range b {
		if p != 0 {
			r[i/9][i%9] = p.Letter()
		}
	}
	return r
}

func isRed(c byte) bool { return c >= 'A' && c <= 'Z' }

type refSq struct{ r, f int }

func (s refSq) in() bool { return s.r >= 0 && s.r < 10 && s.f >= 0 && s.f < 9 }

// pseudo lists the targets of the piece on s, ignoring king safety.
func (b *refBoard) pseudo(s refSq) []refSq {
	c := b[s.r][s.f]
	red := isRed(c)
	own := func(t refSq) bool { return b[t.r][t.f] != 0 && isRed(b[t.r][t.f]) == red }
	var out []refSq
	add := func(t refSq) {
		if t.in() && !own(t) {
			out = append(out, t)
		}
	}
	palace := func(t refSq) bool {
		if t.f < 3 || t.f > 5 {
			return false
		}
		if red {
			return t.r <= 2
		}
		return t.r >= 7
	}
	orth := [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	diag := [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
	switch c | 0x20 { // lower case
	case 'k':
		for _, d := range orth {
			if t := (refSq{s.r + d[0], s.f + d[1]}); palace(t) {
				add(t)
			}
		}
	case 'a':
		for _, d := range diag {
			if t := (refSq{s.r + d[0], s.f + d[1]}); palace(t) {
				add(t)
			}
		}
	case 'b':
		for _, d := range diag {
			eye, t := refSq{s.r + d[0], s.f + d[1]}, refSq{s.r + 2*d[0], s.f + 2*d[1]}
			if !t.in() || b[eye.r][eye.f] != 0 || red && t.r > 4 || !red && t.r < 5 {
				continue
			}
			add(t)
		}
	case 'n':
		for _, d := range orth {
			leg := refSq{s.r + d[0], s.f + d[1]}
			if !leg.in() || b[leg.r][leg.f] != 0 {
				continue
			}
			// the two targets beyond this leg
			if d[0] != 0 {
				add(refSq{s.r + 2*d[0], s.f + 1})
				add(refSq{s.r + 2*d[0], s.f - 1})
			} else {
				add(refSq{s.r + 1, s.f + 2*d[1]})
				add(refSq{s.r - 1, s.f + 2*d[1]})
			}
		}
	case 'r', 'c':
		for _, d := range orth {
			screens := 0
			for t := (refSq{s.r + d[0], s.f + d[1]}); t.in(); t = (refSq{t.r + d[0], t.f + d[1]}) {
				occupied := b[t.r][t.f] != 0
				switch {
				case c|0x20 == 'r':
					add(t)
				case screens == 0 && !occupied:
					add(t)
				case screens == 1 && occupied:
					add(t)
				}
				if occupied {
					screens++
					if c|0x20 == 'r' || screens == 2 {
						break
					}
				}
			}
		}
	case 'p':
		fwd := 1
		if !red {
			fwd = -1
		}
		add(refSq{s.r + fwd, s.f})
		if red && s.r >= 5 || !red && s.r <= 4 {
			add(refSq{s.r, s.f + 1})
			add(refSq{s.r, s.f - 1})
		}
	}
	return out
}

// safe reports whether the side red (or black) has its king unattacked
// and not facing the other king.
func (b *refBoard) safe(red bool) bool {
	var king, other refSq
	found := 0
	for r := range b {
		for f, c := range b[r] {
			if c == 'K' || c == 'k' {
				if isRed(c) == red {
					king = refSq{r, f}
				} else {
					other = refSq{r, f}
				}
				found++
			}
		}
	}
	if found != 2 {
		return false
	}
	if king.f == other.f {
		blocked := false
		lo, hi := min(king.r, other.r), max(king.r, other.r)
		for r := lo + 1; r < hi; r++ {
			if b[r][king.f] != 0 {
				blocked = true
			}
		}
		if !blocked {
			return false
		}
	}
	for r := range b {
		for f, c := range b[r] {
			if c == 0 || isRed(c) == red {
				continue
			}
			for _, t := range b.pseudo(refSq{r, f}) {
				if t == king {
					return false
				}
			}
		}
	}
	return true
}

// legal lists every legal move of the given side as [from, to] pairs.
func (b *refBoard) legal(red bool) [][2]refSq {
	var out [][2]refSq
	for r := range b {
		for f, c := range b[r] {
			if c == 0 || isRed(c) != red {
				continue
			}
			from := refSq{r, f}
			for _, t := range b.pseudo(from) {
				nb := *b
				nb[t.r][t.f], nb[r][f] = c, 0
				if nb.safe(red) {
					out = append(out, [2]refSq{from, t})
				}
			}
		}
	}
	return out
}

func refSquare(s Square) refSq { return refSq{s.Rank() - 1, s.File()} }

func TestReferenceStartMoves(t *testing.T) {
	b := StartBoard()
	ref := refFromBoard(&b)
	if n := len(ref.legal(true)); n != 44 {
		t.Errorf("reference model: %d legal moves at the start, want 44", n)
	}
}

// TestCheckMoveMatchesReference compares the package's move rules with
// the reference generator on positions from random legal playouts.
func TestCheckMoveMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for game := 0; game < 20; game++ {
		b := StartBoard()
		side := Red
		for ply := 0; ply < 80; ply++ {
			ref := refFromBoard(&b)
			for i, p := range b {
				if p == 0 || p.Side() != side {
					continue
				}
				from := SquareAt(i%9, i/9+1)
				want := map[Square]bool{}
				for _, s := range ref.pseudo(refSquare(from)) {
					want[SquareAt(s.f, s.r+1)] = true
				}
				for j := range b {
					to := SquareAt(j%9, j/9+1)
					if got := checkMove(&b, from, to) == ""; got != want[to] {
						t.Fatalf("%s %s-%s: package says %v, reference %v\n%s", p.Kind(), from, to, got, want[to], b.String())
					}
				}
			}
			legal := ref.legal(side == Red)
			if len(legal) == 0 {
				break
			}
			mv := legal[r.IntN(len(legal))]
			from, to := SquareAt(mv[0].f, mv[0].r+1), SquareAt(mv[1].f, mv[1].r+1)
			b.Set(to, b.At(from))
			b.Set(from, 0)
			side ^= 1
		}
	}
}
