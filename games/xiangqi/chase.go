package xiangqi

import (
	"github.com/tiersolve/tiersolve/internal/xq"
)

// The predicates of check and chase that the rules of ChessDB's tables
// (xiangqitb) use, on a board with a side to move. See
// docs/xiangqi-rules.md for where each comes from; the names say what
// they decide, not how xiangqitb spells them.

// spots is a set of points: bit s%64 of word s/64.
type spots [2]uint64

func (s spots) has(p xq.Square) bool { return s[p>>6]>>(p&63)&1 != 0 }
func (s *spots) add(p xq.Square)     { s[p>>6] |= 1 << (p & 63) }
func (s spots) and(o spots) spots    { return spots{s[0] & o[0], s[1] & o[1]} }
func (s spots) empty() bool          { return s[0]|s[1] == 0 }

// allSpots is every point of the board.
var allSpots = spots{^uint64(0), ^uint64(0)}

// ruleBoard is a board and the side to move, which the predicates flip
// the way a null move does.
type ruleBoard struct {
	b    xq.Board
	turn xq.Side
}

// inCheck reports whether the side to move is in check.
func (rb *ruleBoard) inCheck() bool { return rb.b.Attacked(rb.turn) }

// captures appends the pseudo-moves of side that take a piece of the
// other side other than its general.
func (rb *ruleBoard) captures(side xq.Side, dst []xq.Move) []xq.Move {
	var buf [128]xq.Move
	for _, m := range rb.b.PseudoMoves(side, buf[:0]) {
		if q := rb.b.At(m.To); q != xq.NoPiece && q.Kind() != xq.King {
			dst = append(dst, m)
		}
	}
	return dst
}

// legalQuiets appends the legal moves without capture of side.
func (rb *ruleBoard) legalQuiets(side xq.Side, dst []xq.Move) []xq.Move {
	var buf [128]xq.Move
	return quietsAmong(&rb.b, rb.b.Guard(side), rb.b.PseudoMoves(side, buf[:0]), dst)
}

// quietsAmong appends the legal moves without capture among pseudo-moves
// ps of g's side on b: Board.LegalMoves's moves in its order, less the
// captures, which are not tested for legality (the test is most of the
// cost).
func quietsAmong(b *xq.Board, g xq.Guard, ps, dst []xq.Move) []xq.Move {
	for _, m := range ps {
		if b.At(m.To) == xq.NoPiece && g.Legal(b, m) {
			dst = append(dst, m)
		}
	}
	return dst
}

// recaptures reports whether side has a legal move to point s (which
// holds a piece of the other side): whether that piece is protected.
func (rb *ruleBoard) recaptures(side xq.Side, s xq.Square) bool {
	var buf [128]xq.Move
	for _, m := range rb.b.PseudoMoves(side, buf[:0]) {
		if m.To == s && rb.b.Legal(m) {
			return true
		}
	}
	return false
}

// horseLegOf returns the leg of a horse jumping from a to t, and false
// when t is no horse jump from a.
func horseLegOf(a, t xq.Square) (xq.Square, bool) {
	df, dr := t.File()-a.File(), t.Rank()-a.Rank()
	switch {
	case (df == 2 || df == -2) && (dr == 1 || dr == -1):
		return xq.At(a.File()+df/2, a.Rank()), true
	case (dr == 2 || dr == -2) && (df == 1 || df == -1):
		return xq.At(a.File(), a.Rank()+dr/2), true
	}
	return 0, false
}

// attack reports whether capture m of the side to move counts as an
// attack that the chase rule punishes when repeated (xiangqitb's
// is_move_attack): generals and soldiers never chase; a horse or cannon
// attacking a chariot always does; otherwise the target must be
// unprotected (no legal recapture), a soldier only once across the
// river, and an attack on a piece of the same kind that could take the
// attacker back legally is no chase. recheck asks first whether m is
// still a pseudo-move of the board as it stands (a move found on
// another board).
func (rb *ruleBoard) attack(m xq.Move, recheck bool) bool {
	b := &rb.b
	p := b.At(m.From)
	if p == xq.NoPiece || p.Side() != rb.turn {
		return false
	}
	pk := p.Kind()
	if pk == xq.King || pk == xq.Soldier {
		return false
	}
	q := b.At(m.To)
	if q == xq.NoPiece || q.Side() == rb.turn || q.Kind() == xq.King {
		return false
	}
	if recheck && !b.IsPseudoMove(m) {
		return false
	}
	if !b.Legal(m) {
		return false
	}
	victim := q.Side()
	protected := func() bool {
		b.Play(m)
		ok := rb.recaptures(victim, m.To)
		b.Unplay(m, q)
		return ok
	}
	backLegal := func() bool { return b.Legal(xq.Move{From: m.To, To: m.From}) }
	switch q.Kind() {
	case xq.Chariot:
		switch pk {
		case xq.Advisor, xq.Elephant:
			return !protected()
		case xq.Chariot:
			return !backLegal() && !protected()
		}
		return true
	case xq.Horse:
		if pk == xq.Horse {
			leg, _ := horseLegOf(m.To, m.From)
			if b.At(leg) == xq.NoPiece && backLegal() {
				return false
			}
		}
		return !protected()
	case xq.Cannon:
		if pk == xq.Cannon && backLegal() {
			return false
		}
		return !protected()
	case xq.Soldier:
		return !xq.OwnHalf(victim, m.To) && !protected()
	case xq.Advisor, xq.Elephant:
		return !protected()
	}
	return false
}

// attacksBy appends side's captures that are attacks (attack) on the
// board as it stands, side to move for the question.
func (rb *ruleBoard) attacksBy(side xq.Side, dst []xq.Move) []xq.Move {
	turn := rb.turn
	rb.turn = side
	var buf [64]xq.Move
	for _, m := range rb.captures(side, buf[:0]) {
		if rb.attack(m, false) {
			dst = append(dst, m)
		}
	}
	rb.turn = turn
	return dst
}

func sameFile(a, b xq.Square) bool { return a.File() == b.File() }
func sameRank(a, b xq.Square) bool { return a.Rank() == b.Rank() }

// chained reports whether move m of the piece that pre moved leaves the
// line pre came along (a new direction: xiangqitb's moves_chain).
func chained(pre, m xq.Move) bool {
	r, f := sameRank(pre.From, pre.To), sameFile(pre.From, pre.To)
	return r && !sameRank(m.From, m.To) || f && !sameFile(m.From, m.To) || !r && !f
}

// between reports whether x lies on the segment from a to b, ends
// included, as square numbers (on a shared file or rank, the same as on
// the board).
func between(x, a, b xq.Square) bool { return (int(x)-int(b))*(int(a)-int(x)) >= 0 }

// connected reports whether move a opened or closed the line, leg or eye
// of move b of another piece (xiangqitb's moves_connect without its
// capture case): b's attack is the discovered result of a.
func connected(a, b xq.Move) bool {
	for _, eq := range [2]func(x, y xq.Square) bool{sameFile, sameRank} {
		if !eq(b.From, b.To) {
			continue
		}
		if eq(a.From, a.To) {
			if eq(b.From, a.From) && between(a.From, b.From, b.To) && !between(a.To, b.From, b.To) {
				return true
			}
			continue
		}
		if eq(b.From, a.From) && between(a.From, b.From, b.To) || eq(b.From, a.To) && between(a.To, b.From, b.To) {
			return true
		}
	}
	if leg, ok := horseLegOf(b.From, b.To); ok && leg == a.From {
		return true
	}
	df, dr := b.To.File()-b.From.File(), b.To.Rank()-b.From.Rank()
	if (df == 2 || df == -2) && (dr == 2 || dr == -2) && xq.At(b.From.File()+df/2, b.From.Rank()+dr/2) == a.From {
		return true
	}
	return false
}

// newAttacks returns the points of the other side's pieces that quiet
// move pre of the side to move newly attacks (xiangqitb's
// attack_bb_after_quiet_move): by the moved piece in a new direction,
// by a line pre opened, or by any attack that was not one before.
func (rb *ruleBoard) newAttacks(pre xq.Move) spots {
	var out spots
	me := rb.turn
	b := &rb.b
	b.Play(pre)
	var buf [64]xq.Move
	for _, m := range rb.attacksBy(me, buf[:0]) {
		switch {
		case m.From == pre.To:
			if chained(pre, m) {
				out.add(m.To)
			}
		case connected(pre, m):
			out.add(m.To)
		default:
			b.Unplay(pre, xq.NoPiece)
			if !rb.attack(m, true) {
				out.add(m.To)
			}
			b.Play(pre)
		}
	}
	b.Unplay(pre, xq.NoPiece)
	return out
}

// chases reports whether quiet move m of the side to move attacks
// something new (has_attack_after_quiet_move), and the points attacked.
func (rb *ruleBoard) chases(m xq.Move) (spots, bool) {
	s := rb.newAttacks(m)
	return s, !s.empty()
}

// alwaysChases reports whether every move of list newly attacks one
// same point of target (always_has_attack_after_quiet_moves).
func (rb *ruleBoard) alwaysChases(list []xq.Move, target spots) bool {
	for _, m := range list {
		target = target.and(rb.newAttacks(m))
		if target.empty() {
			return false
		}
	}
	return true
}

// evades reports whether quiet move m of the side to move gets a piece
// out of an attack of the other side (is_move_evasion), and the points
// of the pieces it saves (the moved piece's new point when it is the one
// attacked).
func (rb *ruleBoard) evades(m xq.Move) (spots, bool) {
	var out spots
	ok, movedSaved := false, false
	opp := rb.turn.Other()
	var buf [64]xq.Move
	atts := rb.attacksBy(opp, buf[:0])
	b := &rb.b
	for _, a := range atts {
		if a.To == m.From {
			if !movedSaved && chained(a, m) {
				ok, movedSaved = true, true
				out.add(m.To)
			}
			continue
		}
		b.Play(m)
		turn := rb.turn
		rb.turn = opp
		still := rb.attack(a, true)
		rb.turn = turn
		b.Unplay(m, xq.NoPiece)
		if !still {
			ok = true
			out.add(a.To)
		}
	}
	return out, ok
}

// evasions appends the legal quiet moves of the side to move, not in
// check, that answer an attack of the other side (xiangqitb's
// gen_legal_capture_evasions): the attacked piece leaving the line of
// the attack (or staying on it but no longer attacked), or another move
// after which the attack is none. atts are the other side's attacks
// (attacksBy), quiets the legal quiet moves of the side to move
// (legalQuiets), which it reorders.
func (rb *ruleBoard) evasions(atts, quiets, dst []xq.Move) []xq.Move {
	me, opp := rb.turn, rb.turn.Other()
	b := &rb.b
	attackAfter := func(m, a xq.Move) bool {
		b.Play(m)
		rb.turn = opp
		still := rb.attack(a, true)
		rb.turn = me
		b.Unplay(m, xq.NoPiece)
		return still
	}
	for _, a := range atts {
		for i := 0; i < len(quiets); {
			m := quiets[i]
			var evt bool
			if m.From == a.To {
				if sameFile(a.From, a.To) && sameFile(m.From, m.To) || sameRank(a.From, a.To) && sameRank(m.From, m.To) {
					evt = !attackAfter(m, xq.Move{From: a.From, To: m.To})
				} else {
					evt = true
				}
			} else {
				evt = !attackAfter(m, a)
			}
			if evt {
				dst = append(dst, m)
				quiets[i] = quiets[len(quiets)-1]
				quiets = quiets[:len(quiets)-1]
				continue
			}
			i++
		}
	}
	return dst
}

// givesCheck reports whether move m of the side to move checks the
// other general.
func (rb *ruleBoard) givesCheck(m xq.Move) bool {
	q := rb.b.Play(m)
	c := rb.b.Attacked(rb.turn.Other())
	rb.b.Unplay(m, q)
	return c
}

// rookShieldsKing reports whether, among the points saved (of the side
// to move's chariots) and the points newly attacked by move m, a
// chariot saved stands on the leg of an attacked horse that could
// otherwise jump onto the mover's general: the chariot's flight is not
// a chase evasion but a block (xiangqitb's find_rook test).
func (rb *ruleBoard) rookShieldsKing(saved, attacked spots) bool {
	me := rb.turn
	var rooks spots
	rb.b.Each(me, func(s xq.Square, p xq.Piece) {
		if p.Kind() == xq.Chariot && saved.has(s) {
			rooks.add(s)
		}
	})
	if rooks.empty() {
		return false
	}
	k := rb.b.King(me)
	for s := xq.Square(0); s < xq.NumSquares; s++ {
		if !attacked.has(s) || rb.b.At(s).Kind() != xq.Horse {
			continue
		}
		if leg, ok := horseLegOf(s, k); ok && rooks.has(leg) {
			return true
		}
	}
	return false
}
