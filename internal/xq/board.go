package xq

import (
	"fmt"
	"math/bits"
	"strings"
)

// Board is a position's pieces: the piece on every point, and bit sets of
// the points each side occupies. The zero Board is empty. Change it with
// Put, Remove, Play and Unplay only, which keep the sets in step.
type Board struct {
	sq   [NumSquares]Piece
	occ  squares    // every piece
	side [2]squares // each side's pieces
	king [2]Square
}

// Put puts p on the empty point s.
func (b *Board) Put(s Square, p Piece) {
	b.sq[s] = p
	b.occ.set(s)
	b.side[p.Side()].set(s)
	if p.Kind() == King {
		b.king[p.Side()] = s
	}
}

// Remove empties point s.
func (b *Board) Remove(s Square) {
	if p := b.sq[s]; p != NoPiece {
		b.occ.clear(s)
		b.side[p.Side()].clear(s)
		b.sq[s] = NoPiece
	}
}

// At returns the piece on s.
func (b *Board) At(s Square) Piece { return b.sq[s] }

// King returns the point of side's general (meaningful when it has one).
func (b *Board) King(side Side) Square { return b.king[side] }

// Count returns the number of pieces on the board.
func (b *Board) Count() int { return bits.OnesCount64(b.occ[0]) + bits.OnesCount64(b.occ[1]) }

// Each calls f for each piece of side, in increasing order of points.
func (b *Board) Each(side Side, f func(Square, Piece)) {
	for w := 0; w < 2; w++ {
		for m := b.side[side][w]; m != 0; m &= m - 1 {
			s := Square(w*64 + bits.TrailingZeros64(m))
			f(s, b.sq[s])
		}
	}
}

// Play makes move m and returns what it captured. It does not check the
// move.
func (b *Board) Play(m Move) Piece {
	p, q := b.sq[m.From], b.sq[m.To]
	if q != NoPiece {
		b.side[q.Side()].clear(m.To)
	}
	b.sq[m.To], b.sq[m.From] = p, NoPiece
	b.occ.clear(m.From)
	b.occ.set(m.To)
	s := &b.side[p.Side()]
	s.clear(m.From)
	s.set(m.To)
	if p.Kind() == King {
		b.king[p.Side()] = m.To
	}
	return q
}

// Unplay takes back move m, which captured q.
func (b *Board) Unplay(m Move, q Piece) {
	p := b.sq[m.To]
	b.sq[m.From], b.sq[m.To] = p, q
	b.occ.set(m.From)
	s := &b.side[p.Side()]
	s.clear(m.To)
	s.set(m.From)
	if q == NoPiece {
		b.occ.clear(m.To)
	} else {
		b.side[q.Side()].set(m.To)
	}
	if p.Kind() == King {
		b.king[p.Side()] = m.From
	}
}

// Mirror returns the board reflected left to right.
func (b *Board) Mirror() Board {
	var m Board
	for s := Square(0); s < NumSquares; s++ {
		if p := b.sq[s]; p != NoPiece {
			m.Put(s.Mirror(), p)
		}
	}
	return m
}

// count returns the number of pieces strictly between a and b, which
// share a line.
func (b *Board) count(a, c Square) int { return b.occ.count(a, c) }

// Attacked reports whether side's general is attacked by the other side,
// counting the two generals facing each other on an open file. A side
// without a general is never attacked.
func (b *Board) Attacked(side Side) bool {
	k := b.king[side]
	if b.sq[k] != MakePiece(side, King) {
		return false
	}
	return b.attackedIn(b.side[side.Other()], k, &b.occ)
}

// attacks reports whether the piece on a attacks point t (the generals
// attack each other along an open file).
func (b *Board) attacks(a, t Square) bool { return b.attackOf(b.sq[a], a, t, &b.occ) }

// attackOf reports whether piece p on a would attack point t with the
// points occ occupied (the board's other pieces where they stand): how a
// move is tested without playing it.
func (b *Board) attackOf(p Piece, a, t Square, occ *squares) bool {
	switch p.Kind() {
	case Chariot:
		return line[a][t] && occ.count(a, t) == 0
	case King:
		return line[a][t] && a.File() == t.File() && occ.count(a, t) == 0
	case Cannon:
		return line[a][t] && occ.count(a, t) == 1
	case Horse:
		leg := horseLeg[a][t]
		return leg != NoSquare && !occ.has(leg)
	case Soldier:
		for _, s := range soldierSteps[p.Side()][a] {
			if s == t {
				return true
			}
		}
	}
	return false // advisors and elephants never leave their own half
}

// attackedIn reports whether a piece of them (their points; each stands
// on the board) attacks point k with the points occ occupied.
func (b *Board) attackedIn(them squares, k Square, occ *squares) bool {
	for w := 0; w < 2; w++ {
		for m := them[w]; m != 0; m &= m - 1 {
			a := Square(w*64 + bits.TrailingZeros64(m))
			if b.attackOf(b.sq[a], a, k, occ) {
				return true
			}
		}
	}
	return false
}

// PseudoMoves appends to dst the moves of side's pieces by their movement
// rules (palace, river, legs, eyes, screens), without asking whether they
// leave the mover's general attacked; in increasing order of the points
// moved from.
func (b *Board) PseudoMoves(side Side, dst []Move) []Move {
	for w := 0; w < 2; w++ {
		for m := b.side[side][w]; m != 0; m &= m - 1 {
			dst = b.pieceMoves(Square(w*64+bits.TrailingZeros64(m)), dst)
		}
	}
	return dst
}

// pieceMoves appends the moves of the piece on a by its movement rules.
func (b *Board) pieceMoves(a Square, dst []Move) []Move {
	p := b.sq[a]
	side := p.Side()
	mine := &b.side[side]
	switch p.Kind() {
	case King:
		for _, t := range kingSteps[side][a] {
			if !mine.has(t) {
				dst = append(dst, Move{a, t})
			}
		}
	case Advisor:
		for _, t := range advisorSteps[side][a] {
			if !mine.has(t) {
				dst = append(dst, Move{a, t})
			}
		}
	case Elephant:
		for _, st := range elephantSteps[side][a] {
			if b.sq[st.via] == NoPiece && !mine.has(st.to) {
				dst = append(dst, Move{a, st.to})
			}
		}
	case Horse:
		for _, st := range horseSteps[a] {
			if b.sq[st.via] == NoPiece && !mine.has(st.to) {
				dst = append(dst, Move{a, st.to})
			}
		}
	case Chariot:
		for d := range rays[a] {
			for _, t := range rays[a][d] {
				q := b.sq[t]
				if q == NoPiece {
					dst = append(dst, Move{a, t})
					continue
				}
				if q.Side() != side {
					dst = append(dst, Move{a, t})
				}
				break
			}
		}
	case Cannon:
		for d := range rays[a] {
			screen := false
			for _, t := range rays[a][d] {
				q := b.sq[t]
				if !screen {
					if q == NoPiece {
						dst = append(dst, Move{a, t})
					} else {
						screen = true
					}
					continue
				}
				if q != NoPiece {
					if q.Side() != side {
						dst = append(dst, Move{a, t})
					}
					break
				}
			}
		}
	case Soldier:
		for _, t := range soldierSteps[side][a] {
			if !mine.has(t) {
				dst = append(dst, Move{a, t})
			}
		}
	}
	return dst
}

// LegalMoves appends to dst side's legal moves: PseudoMoves less those
// that leave its general attacked or facing the other.
func (b *Board) LegalMoves(side Side, dst []Move) []Move {
	n := len(dst)
	dst = b.PseudoMoves(side, dst)
	out := dst[:n]
	g := b.Guard(side)
	for _, m := range dst[n:] {
		if g.Legal(b, m) {
			out = append(out, m)
		}
	}
	return out
}

// CountBelow returns the number of pieces on points below s.
func (b *Board) CountBelow(s Square) int {
	m := &below[s]
	return bits.OnesCount64(b.occ[0]&m[0]) + bits.OnesCount64(b.occ[1]&m[1])
}

// Guard tells whether moves leave one side's general safe, testing the
// board only for moves that touch the general's file, rank or diagonal
// neighbours (or when it is in check already): no other move can open or
// close a line, a screen or a leg aimed at it.
type Guard struct {
	side  Side
	king  Square
	check bool
}

// Guard returns the guard of side's general on b as it stands.
func (b *Board) Guard(side Side) Guard {
	return Guard{side: side, king: b.king[side], check: b.Attacked(side)}
}

// InCheck reports whether the guard's general was attacked on the board
// it was made from.
func (g Guard) InCheck() bool { return g.check }

// Legal reports whether pseudo-move m of the guard's side leaves its
// general safe (Board.Legal).
func (g Guard) Legal(b *Board, m Move) bool {
	if !g.check && m.From != g.king && !near[g.king].has(m.From) && !near[g.king].has(m.To) {
		return true
	}
	return b.Legal(m)
}

// SafeBefore reports whether the guard's general, safe or not on b, is
// safe before un-move m of the other side (Unmoves): with the piece on
// m.To back on m.From.
func (g Guard) SafeBefore(b *Board, m Move) bool {
	k := g.king
	if !g.check && !near[k].has(m.From) && !near[k].has(m.To) &&
		!(b.sq[m.To].Kind() == Horse && horseLeg[m.From][k] != NoSquare) {
		return true // the piece back on m.From attacks k only from near it, or as a horse
	}
	// What Unplay then Attacked would say, read off the board as it
	// stands: the occupied points and the moved piece's as before m.
	if b.sq[k] != MakePiece(g.side, King) {
		return true // a side without a general is never attacked
	}
	occ := b.occ
	occ.clear(m.To)
	occ.set(m.From)
	if b.attackOf(b.sq[m.To], m.From, k, &occ) {
		return false
	}
	them := b.side[g.side.Other()]
	them.clear(m.To)
	return !b.attackedIn(them, k, &occ)
}

// Legal reports whether pseudo-move m leaves the mover's general safe:
// what Play then Attacked would say, read off the board as it stands
// (the occupied points as after m, a piece taken no attacker), so that
// nothing is written.
func (b *Board) Legal(m Move) bool {
	p := b.sq[m.From]
	side := p.Side()
	k := b.king[side]
	if p.Kind() == King {
		k = m.To
	} else if b.sq[k] != MakePiece(side, King) {
		return true // a side without a general is never attacked
	}
	occ := b.occ
	occ.clear(m.From)
	occ.set(m.To)
	them := b.side[side.Other()]
	them.clear(m.To)
	return !b.attackedIn(them, k, &occ)
}

// HasLegalMove reports whether side has a legal move.
func (b *Board) HasLegalMove(side Side) bool {
	var buf [128]Move
	g := b.Guard(side)
	for _, m := range b.PseudoMoves(side, buf[:0]) {
		if g.Legal(b, m) {
			return true
		}
	}
	return false
}

// IsPseudoMove reports whether m moves a piece by its movement rules (the
// check the EGF codec makes when it replays a game).
func (b *Board) IsPseudoMove(m Move) bool {
	if m.From >= NumSquares || m.To >= NumSquares || b.sq[m.From] == NoPiece {
		return false
	}
	var buf [20]Move
	for _, x := range b.pieceMoves(m.From, buf[:0]) {
		if x == m {
			return true
		}
	}
	return false
}

// Unmoves appends to dst the moves without capture that side's pieces
// could have just made to stand where they stand: Move{From: where the
// piece came from, To: where it stands}, by the movement rules with every
// point of the path, the leg and the eye empty after taking the move back.
// Whether the position before the move was legal is the caller's question
// (Unplay, then Check).
func (b *Board) Unmoves(side Side, dst []Move) []Move {
	for w := 0; w < 2; w++ {
		for m := b.side[side][w]; m != 0; m &= m - 1 {
			dst = b.pieceUnmoves(Square(w*64+bits.TrailingZeros64(m)), dst)
		}
	}
	return dst
}

// Uncaptures appends to dst the capturing moves that side's pieces could
// have just made to stand where they stand: Move{From: where the piece
// came from, To: where it stands and took a piece}, by the movement rules
// with the taken piece back on m.To (a cannon's path holds one screen).
// Which piece was taken, and whether the position before was legal, is
// the caller's question.
func (b *Board) Uncaptures(side Side, dst []Move) []Move {
	for w := 0; w < 2; w++ {
		for m := b.side[side][w]; m != 0; m &= m - 1 {
			t := Square(w*64 + bits.TrailingZeros64(m))
			if b.sq[t].Kind() != Cannon {
				dst = b.pieceUnmoves(t, dst) // the same geometry
				continue
			}
			for d := range rays[t] {
				screen := false
				for _, a := range rays[t][d] {
					empty := b.sq[a] == NoPiece
					if !screen {
						screen = !empty
						continue
					}
					if !empty {
						break
					}
					dst = append(dst, Move{a, t})
				}
			}
		}
	}
	return dst
}

// pieceUnmoves appends the un-moves of the piece on t.
func (b *Board) pieceUnmoves(t Square, dst []Move) []Move {
	p := b.sq[t]
	side := p.Side()
	empty := func(s Square) bool { return b.sq[s] == NoPiece }
	switch p.Kind() {
	case King:
		for _, a := range kingSteps[side][t] {
			if empty(a) {
				dst = append(dst, Move{a, t})
			}
		}
	case Advisor:
		for _, a := range advisorSteps[side][t] {
			if empty(a) {
				dst = append(dst, Move{a, t})
			}
		}
	case Elephant:
		for _, st := range elephantSteps[side][t] { // the eye is the midpoint either way
			if empty(st.to) && empty(st.via) {
				dst = append(dst, Move{st.to, t})
			}
		}
	case Horse:
		for _, st := range horseSteps[t] { // jumps are symmetric, legs are not
			if a := st.to; empty(a) && empty(horseLeg[a][t]) {
				dst = append(dst, Move{a, t})
			}
		}
	case Chariot, Cannon: // a move without capture: a clear path
		for d := range rays[t] {
			for _, a := range rays[t][d] {
				if !empty(a) {
					break
				}
				dst = append(dst, Move{a, t})
			}
		}
	case Soldier:
		for _, a := range soldierBack[side][t] {
			if empty(a) {
				dst = append(dst, Move{a, t})
			}
		}
	}
	return dst
}

// Check reports why the board is not a legal position with toMove to
// move, or nil: each side has one general, in its palace; advisors,
// elephants and soldiers stand where they can; no side has more pieces of
// a kind than the game has (1 general, 2 advisors, elephants, horses,
// chariots and cannons, 5 soldiers); the generals do not face each other;
// and the side not to move is not in check.
func (b *Board) Check(toMove Side) error {
	var n [2][NumKinds]int
	for s := Square(0); s < NumSquares; s++ {
		p := b.sq[s]
		if p == NoPiece {
			continue
		}
		k, side := p.Kind(), p.Side()
		if k == NoKind || p > MakePiece(Black, Soldier) {
			return fmt.Errorf("%w: bad piece code %d on %s", ErrIllegal, p, s)
		}
		n[side][k]++
		if n[side][k] > MaxCount(k) {
			return fmt.Errorf("%w: %s has more than %d %ss", ErrIllegal, side, MaxCount(k), k)
		}
		if !CanStand(side, k, s) {
			return fmt.Errorf("%w: %s %s cannot stand on %s", ErrIllegal, side, k, s)
		}
	}
	for side := Red; side <= Black; side++ {
		if n[side][King] != 1 {
			return fmt.Errorf("%w: %s has no general", ErrIllegal, side)
		}
	}
	if b.Attacked(toMove.Other()) {
		return fmt.Errorf("%w: %s, not to move, is in check (or the generals face each other)", ErrIllegal, toMove.Other())
	}
	return nil
}

// MaxCount returns how many pieces of kind k a side has at the start.
func MaxCount(k Kind) int {
	switch k {
	case King:
		return 1
	case Soldier:
		return 5
	case NoKind:
		return 0
	}
	return 2
}

// Start returns the standard opening position.
func Start() Board {
	var b Board
	back := [Files]Kind{Chariot, Horse, Elephant, Advisor, King, Advisor, Elephant, Horse, Chariot}
	for side := Red; side <= Black; side++ {
		rank := func(r int) int {
			if side == Black {
				return Ranks - 1 - r
			}
			return r
		}
		for f, k := range back {
			b.Put(At(f, rank(0)), MakePiece(side, k))
		}
		b.Put(At(1, rank(2)), MakePiece(side, Cannon))
		b.Put(At(7, rank(2)), MakePiece(side, Cannon))
		for f := 0; f < Files; f += 2 {
			b.Put(At(f, rank(3)), MakePiece(side, Soldier))
		}
	}
	return b
}

// FEN returns the board and side to move as a xiangqi FEN ("... w"):
// ranks 9 to 0, files a to i, digits for runs of empty points.
func (b *Board) FEN(toMove Side) string {
	var sb strings.Builder
	sb.Grow(48) // an endgame's FEN, grown once: a server formats every child
	for r := Ranks - 1; r >= 0; r-- {
		empty := 0
		for f := 0; f < Files; f++ {
			p := b.sq[At(f, r)]
			if p == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				sb.WriteByte(byte('0' + empty))
				empty = 0
			}
			sb.WriteByte(p.Letter())
		}
		if empty > 0 {
			sb.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			sb.WriteByte('/')
		}
	}
	if toMove == Red {
		sb.WriteString(" w")
	} else {
		sb.WriteString(" b")
	}
	return sb.String()
}

// ParseFEN reads a xiangqi FEN: the placement (ranks from black's side,
// upper case red, K A B N R C P, E and H accepted), then optionally the
// side to move (w or r for red, b for black; red if absent) and further
// fields, which are ignored. It checks the syntax only; Check says whether
// the position is legal.
func ParseFEN(fen string) (Board, Side, error) {
	var b Board
	fields := strings.Fields(fen)
	if len(fields) == 0 {
		return b, Red, fmt.Errorf("%w: empty", ErrFEN)
	}
	rows := strings.Split(fields[0], "/")
	if len(rows) != Ranks {
		return b, Red, fmt.Errorf("%w: %d ranks, want 10", ErrFEN, len(rows))
	}
	for i, row := range rows {
		r, f := Ranks-1-i, 0
		for j := 0; j < len(row); j++ {
			c := row[j]
			if c >= '1' && c <= '9' {
				f += int(c - '0')
				continue
			}
			k, ok := KindOf(c)
			if !ok {
				return b, Red, fmt.Errorf("%w: unknown piece %q", ErrFEN, c)
			}
			if f >= Files {
				return b, Red, fmt.Errorf("%w: rank %d has more than 9 points", ErrFEN, r)
			}
			side := Red
			if c >= 'a' {
				side = Black
			}
			b.Put(At(f, r), MakePiece(side, k))
			f++
		}
		if f != Files {
			return b, Red, fmt.Errorf("%w: rank %d has %d points, want 9", ErrFEN, r, f)
		}
	}
	side := Red
	if len(fields) > 1 {
		switch fields[1] {
		case "w", "r", "W", "R":
		case "b", "B":
			side = Black
		default:
			return b, Red, fmt.Errorf("%w: side to move %q (want w, r or b)", ErrFEN, fields[1])
		}
	}
	return b, side, nil
}

// Perft counts the leaf positions of the legal move tree of the given
// depth from b with side to move (the standard check of a move generator).
func Perft(b *Board, side Side, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	var buf [128]Move
	moves := b.LegalMoves(side, buf[:0])
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		q := b.Play(m)
		n += Perft(b, side.Other(), depth-1)
		b.Unplay(m, q)
	}
	return n
}
