package xg

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Points of a Step.
const (
	PointOff = 0  // a checker borne off
	PointBar = 25 // the mover's bar
)

// Step moves one checker, in the mover's view: From is 1..24 or PointBar,
// To is 1..24 or PointOff. A step normally uses one die.
type Step struct {
	From, To int
}

// Steps returns the checker play as single-die steps in the mover's view.
//
// XG stores (from, to) pairs, 0-based with 24 for the bar and -1 after the
// last pair; a negative destination (from − die, or -1) is off. A pair may
// span several dice when the player moved one checker in one go (10,-1 for
// 11/off with 6-5); such a pair is split into single-die steps, and where
// the checker could have passed either of two points, the split that gives
// PositionEnd is chosen. The steps are the ones gnubg would list, so
// FormatMove writes what gnubg writes. A move that was not played (the
// game ended after the roll) has no steps.
func (m *MoveEntry) Steps() ([]Step, error) {
	if !m.Played {
		return nil, nil
	}
	var raw []Step
	for i := 0; i < len(m.Moves); i += 2 {
		from, to := m.Moves[i], m.Moves[i+1]
		if from == -1 {
			break
		}
		s := Step{From: from + 1, To: max(to+1, PointOff)}
		if s.From < 1 || s.From > PointBar || s.To > 24 || s.To >= s.From {
			return nil, fmt.Errorf("%w: move step %d/%d", ErrFormat, from, to)
		}
		raw = append(raw, s)
	}
	// Each pair has one or two readings: at most 2^4 candidates.
	cands := [][]Step{nil}
	for _, s := range raw {
		var next [][]Step
		for _, alt := range splitStep(s, m.Dice) {
			for _, c := range cands {
				next = append(next, append(slices.Clip(c), alt...))
			}
		}
		cands = next
	}
	before := m.Before()
	for _, c := range cands {
		if after, err := before.Apply(c); err == nil && after == m.PositionEnd {
			return c, nil
		}
	}
	return cands[0], nil
}

// splitStep returns the ways step s can be read as single-die steps with
// dice: itself when one die covers it, else each possible route.
func splitStep(s Step, dice [2]int) [][]Step {
	a, b := dice[0], dice[1]
	dist := s.From - s.To
	if a < 1 || a > 6 || b < 1 || b > 6 || dist <= max(a, b) {
		return [][]Step{{s}}
	}
	// reaches reports whether one die of n pips ends a checker at from on
	// s.To (bearing off may use a larger die).
	reaches := func(from, n int) bool {
		return from-n == s.To || (s.To == PointOff && n >= from)
	}
	if a == b {
		var steps []Step
		cur := s.From
		for cur-a > s.To && cur-a > 0 && len(steps) < 3 {
			steps = append(steps, Step{cur, cur - a})
			cur -= a
		}
		if !reaches(cur, a) {
			return [][]Step{{s}}
		}
		return [][]Step{append(steps, Step{cur, s.To})}
	}
	var routes [][]Step
	for _, d := range [][2]int{{a, b}, {b, a}} {
		mid := s.From - d[0]
		if mid >= 1 && reaches(mid, d[1]) {
			routes = append(routes, []Step{{s.From, mid}, {mid, s.To}})
		}
	}
	if len(routes) == 0 {
		return [][]Step{{s}}
	}
	return routes
}

// Mover returns 1 or 2, the player who moved (ActifP 1 or -1).
func (m *MoveEntry) Mover() int { return player(m.ActifP) }

// Before returns the position before the move in the mover's view.
// (PositionI is stored in player 1's view whoever moves.)
func (m *MoveEntry) Before() Position { return viewOf(m.PositionI, m.ActifP) }

// OnRoll returns 1 or 2, the player who may double (Actif 1 or -1).
func (c *CubeEntry) OnRoll() int { return player(c.Actif) }

// Before returns the position in the view of the player on roll.
func (c *CubeEntry) Before() Position { return viewOf(c.Position, c.Actif) }

func player(actif int) int {
	if actif == -1 {
		return 2
	}
	return 1
}

// viewOf turns a position in player 1's view into actif's view.
func viewOf(p Position, actif int) Position {
	if actif == -1 {
		return p.Flip()
	}
	return p
}

// Apply plays steps on p (the mover's view) in order, sending a lone
// opponent checker it lands on to the opponent's bar (p[0]). It checks
// that each step is possible on the board, not that the dice allow it.
func (p Position) Apply(steps []Step) (Position, error) {
	if err := p.check(); err != nil {
		return p, err
	}
	for _, s := range steps {
		if s.From < 1 || s.From > PointBar || s.To < PointOff || s.To >= s.From {
			return p, fmt.Errorf("%w: step %d/%d", ErrFormat, s.From, s.To)
		}
		if p[s.From] <= 0 {
			return p, fmt.Errorf("%w: step %s/%s from an empty point", ErrFormat, pointName(s.From), pointName(s.To))
		}
		p[s.From]--
		if s.To == PointOff {
			continue
		}
		switch {
		case p[s.To] == -1:
			p[s.To] = 0
			p[0]--
		case p[s.To] < -1:
			return p, fmt.Errorf("%w: step %s/%s onto a made point", ErrFormat, pointName(s.From), pointName(s.To))
		}
		p[s.To]++
	}
	return p, nil
}

// check rejects positions no game reaches: a bar holding the wrong side's
// checkers, or more than 15 checkers on a point (which would also let the
// int8 counts overflow).
func (p Position) check() error {
	if p[0] > 0 || p[PointBar] < 0 {
		return fmt.Errorf("%w: bar counts %d (own) and %d (opponent)", ErrFormat, p[PointBar], p[0])
	}
	for i, n := range p {
		if n > 15 || n < -15 {
			return fmt.Errorf("%w: %d checkers on point %d", ErrFormat, n, i)
		}
	}
	return nil
}

func pointName(n int) string {
	switch n {
	case PointOff:
		return "off"
	case PointBar:
		return "bar"
	}
	return strconv.Itoa(n)
}

// FormatMove writes steps played from p (the mover's view) the way GNU
// Backgammon does: largest source first, a checker's steps joined
// ("24/18"), hit points starred and kept when passed through ("13/7*/5"),
// identical moves counted ("8/5(2)"), "bar" and "off" for 25 and 0.
func FormatMove(p Position, steps []Step) string {
	sorted := slices.Clone(steps)
	slices.SortFunc(sorted, func(a, b Step) int {
		return cmp.Or(cmp.Compare(b.From, a.From), cmp.Compare(b.To, a.To))
	})
	// blot reports an opponent checker on point n before the move; it
	// decides the stars, as in gnubg.
	blot := func(n int) bool { return n != PointOff && p[n] < 0 }

	// Join the steps of one checker into a path; an intermediate point is
	// kept only when the checker hits there.
	var paths [][]int
	used := make([]bool, len(sorted))
	for i, s := range sorted {
		if used[i] {
			continue
		}
		path := []int{s.From, s.To}
		for j := i + 1; j < len(sorted); j++ {
			last := path[len(path)-1]
			if used[j] || sorted[j].From != last {
				continue
			}
			if !blot(last) {
				path = path[:len(path)-1]
			}
			path = append(path, sorted[j].To)
			used[j] = true
		}
		paths = append(paths, path)
	}

	// Count identical paths, keeping the first of each.
	counts := make([]int, len(paths))
	for i := range paths {
		if paths[i] == nil {
			continue
		}
		counts[i] = 1
		for j := i + 1; j < len(paths); j++ {
			if paths[j] != nil && slices.Equal(paths[i], paths[j]) {
				counts[i]++
				paths[j] = nil
			}
		}
	}

	var b strings.Builder
	starred := map[int]bool{}
	for i, path := range paths {
		if path == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pointName(path[0]))
		for k, pt := range path[1:] {
			b.WriteByte('/')
			b.WriteString(pointName(pt))
			intermediate := k < len(path)-2
			if intermediate || (blot(pt) && !starred[pt]) {
				b.WriteByte('*')
				starred[pt] = true
			}
		}
		if counts[i] > 1 {
			fmt.Fprintf(&b, "(%d)", counts[i])
		}
	}
	return b.String()
}
