package solver

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Loopy tiers are solved by retrograde analysis. Each position keeps one
// 32-bit word, updated only by compare-and-swap so workers can share it:
// the high 16 bits are its valuedb.Record (while Undecided, the remoteness
// field holds the largest remoteness of its winning children in other
// tiers), the low 16 bits count its children not yet known to be wins
// (blocked when a child in another tier is not a win, so it can never
// become a loss).
//
//  1. An initial pass (in parallel over ranges) gives primitive positions
//     their value, reads the children in solved tiers, counts the children
//     inside the tier of the positions that can still lose (only those
//     need a count: the moves inside the tier are listed for no others),
//     and queues positions with a losing child elsewhere as win candidates
//     at the level 1 + that child's remoteness.
//  2. Levels are processed in increasing remoteness, so the first value a
//     position gets is the one with the right remoteness. A level's
//     candidates are assigned first, then its decided positions propagate:
//     a loss at level r makes its undecided parents wins at r+1; a win at
//     level r counts down its parents, and a parent whose count reaches
//     zero is a loss at 1 + the larger of r and its winning children
//     elsewhere.
//  3. The positions still undecided get ties the same way from tie
//     children, and the rest are draws.
//
// Parents come from the game's Parents when it implements tiergame.Unmover,
// or else from a reverse index of the tier's moves built in the first pass.
//
// The work words are indexed by position (dense) when the tier's hash space
// is not much larger than its reachable count, which saves a rank lookup per
// parent; otherwise by rank. Records are written out by rank either way.

const (
	counterBits = 16
	blocked     = 1<<counterBits - 1 // counter of a position that cannot lose
	maxCounter  = blocked - 1
)

func word(rec valuedb.Record, counter uint32) uint32 { return uint32(rec)<<counterBits | counter }

// absent marks, in dense mode, the words of positions that are not
// reachable: zero, which no reachable position's word is after the first
// pass (a primitive position has a value, an undecided one at least one
// child to count), so a fresh array needs no filling.
const absent = 0

func wordRecord(w uint32) valuedb.Record { return valuedb.Record(w >> counterBits) }

// entry is a queued position: its position and whether it is a candidate
// (not yet assigned) rather than a position whose value is set.
type entry uint64

func determined(p uint64) entry { return entry(p << 1) }
func candidate(p uint64) entry  { return entry(p<<1 | 1) }
func (e entry) pos() uint64     { return uint64(e >> 1) }
func (e entry) isCandidate() bool {
	return e&1 != 0
}

// queued holds one goroutine's entries by level (slices, not maps: a
// push costs no hashing), candidates apart.
type queued struct{ decided, candidates [][]entry }

func (q *queued) push(level int, e entry) {
	by := &q.decided
	if e.isCandidate() {
		by = &q.candidates
	}
	if level >= len(*by) {
		grown := makeApart[[]entry](max(level+1, 2*len(*by))) // headers written for every push
		copy(grown, *by)
		*by = grown
	}
	(*by)[level] = append((*by)[level], e)
}

// levels holds the queued entries of all goroutines by level, as the
// lists the goroutines made (joining them would copy every entry under the
// lock); pushes go to levels above the one being processed.
type levels struct {
	mu                  sync.Mutex
	decided, candidates [][][]entry
	n                   int // entries held
}

func (l *levels) merge(local queued) {
	l.mu.Lock()
	l.add(&l.decided, local.decided)
	l.add(&l.candidates, local.candidates)
	l.mu.Unlock()
}

func (l *levels) add(by *[][][]entry, local [][]entry) {
	for lv, es := range local {
		if len(es) == 0 {
			continue
		}
		for lv >= len(*by) {
			*by = append(*by, nil)
		}
		(*by)[lv] = append((*by)[lv], es)
		l.n += len(es)
	}
}

// take removes and returns the lists of decided entries and of candidates
// of level, and reports whether any entries were queued at all.
func (l *levels) take(level int) (decided, candidates [][]entry, more bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return nil, nil, false
	}
	return l.takeFrom(l.decided, level), l.takeFrom(l.candidates, level), true
}

func (l *levels) takeFrom(by [][][]entry, level int) [][]entry {
	if level >= len(by) {
		return nil
	}
	lists := by[level]
	by[level] = nil
	for _, es := range lists {
		l.n -= len(es)
	}
	return lists
}

// parentRef is a parent inside the tier: its slot (index of its work word),
// and its position when known (noPos otherwise; found by Select if needed).
type parentRef struct{ slot, pos uint64 }

const noPos = ^uint64(0)

// scratch is one goroutine's buffers for listing parents.
type scratch struct {
	refs      []parentRef
	positions []tiergame.Position
}

// parentSource lists the reachable parents of a position inside the tier.
type parentSource interface {
	// parents sets sc.refs to the parents of position q in slot qSlot.
	parents(q, qSlot uint64, sc *scratch)
}

// unmoveParents asks the game.
type unmoveParents struct {
	s *loopySolver
	g tiergame.Unmover
}

func (u *unmoveParents) parents(q, _ uint64, sc *scratch) {
	sc.positions = u.g.Parents(u.s.t, tiergame.Position(q), u.s.t, sc.positions[:0])
	sc.refs = sc.refs[:0]
	for _, p := range sc.positions {
		if i, ok := u.s.slot(uint64(p)); ok {
			sc.refs = append(sc.refs, parentRef{i, uint64(p)})
		}
	}
}

// indexParents is a reverse index of the tier's moves: the parents of the
// position in slot q are in the slots list[offsets[q]:offsets[q+1]].
type indexParents struct {
	offsets []uint64
	list    []uint32
}

func (x *indexParents) parents(_, q uint64, sc *scratch) {
	sc.refs = sc.refs[:0]
	for _, p := range x.list[x.offsets[q]:x.offsets[q+1]] {
		sc.refs = append(sc.refs, parentRef{uint64(p), noPos})
	}
}

// loopySolver solves one loopy tier.
type loopySolver struct {
	g       tiergame.Game
	t       tiergame.Tier
	set     *bitarray.Ranked
	kids    children
	workers int
	ranges  int
	state   []uint32
	queue   levels
	ties    levels
	edges   [][]uint64 // per range: child slot << 32 | parent slot (reverse index build)
	useIdx  bool
	dense   bool // work words indexed by position rather than by rank
	done    *atomic.Uint64
}

// denseLimit is the hash space up to which a loopy tier's work words are
// indexed by position whatever its reachable count.
const denseLimit = 1 << 24

// loopyDense reports whether the work words of a loopy tier with hash
// space size and n reachable positions are indexed by position.
func loopyDense(size, n uint64) bool { return size <= denseLimit || size/2 <= n }

// slot returns the index of position p's work word, and whether p is a
// reachable position of the tier.
func (s *loopySolver) slot(p uint64) (uint64, bool) {
	if s.dense {
		return p, p < uint64(len(s.state)) && atomic.LoadUint32(&s.state[p]) != absent
	}
	return s.set.Lookup(p)
}

// solveLoopy fills out (indexed by rank) for loopy tier t.
func solveLoopy(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Ranked, kids children, workers, ranges int, forceIndex bool, out []valuedb.Record, done *atomic.Uint64) error {
	n := set.Total()
	s := &loopySolver{g: g, t: t, set: set, kids: kids, workers: workers, ranges: ranges,
		done: done}
	size := g.TierSize(t)
	s.dense = loopyDense(size, n)
	if s.dense {
		s.state = make([]uint32, size) // all absent
	} else {
		s.state = make([]uint32, n)
	}
	um, hasUnmove := g.(tiergame.Unmover)
	s.useIdx = forceIndex || !hasUnmove
	if s.useIdx && uint64(len(s.state)) >= 1<<32 {
		return fmt.Errorf("%s: tier %d has %d positions, too many for a reverse index (the game needs Parents)", g.Name(), t, len(s.state))
	}
	rs := SplitShrinking(set, ranges) // the last ranges, small, end the pass together
	s.edges = make([][]uint64, len(rs))
	if err := forEach(ctx, workers, len(rs), func(ctx context.Context, i int) error { return s.initRange(ctx, rs[i], i) }); err != nil {
		return err
	}
	var src parentSource
	if s.useIdx {
		src = s.buildIndex()
	} else {
		src = &unmoveParents{s: s, g: um}
	}
	s.edges = nil
	if err := s.propagate(ctx, &s.queue, src, s.winLose); err != nil {
		return err
	}
	if err := s.queueTies(ctx); err != nil {
		return err
	}
	if err := s.propagate(ctx, &s.ties, src, s.tie); err != nil {
		return err
	}
	// The records by rank; what is still undecided is a draw.
	return forEach(ctx, workers, len(rs), func(_ context.Context, k int) error {
		r := rs[k]
		rank := firstRank(set, r)
		for p := range set.Range(r.Lo, r.Hi) {
			i := rank
			if s.dense {
				i = p
			}
			rec := wordRecord(s.state[i])
			if rec.Value() == tiergame.Undecided {
				rec = valuedb.Make(tiergame.Draw, 0)
			}
			out[rank] = rec
			rank++
		}
		return nil
	})
}

// initRange is the first pass over the members in r.
func (s *loopySolver) initRange(ctx context.Context, r Range, idx int) error {
	g, t, set := s.g, s.t, s.set
	var local, localTies queued
	var edges []uint64
	tm := newTierMoves(g, t)
	kids := s.kids.of(tm.tiers)
	var seen dedupTable
	rank := firstRank(set, r)
	err := eachBatch(ctx, set.Set, r, func(ps []uint64) error {
		for _, p := range ps {
			i := rank
			if s.dense {
				i = p
			}
			rank++
			v, lists, err := tm.elsewhere(p)
			if err != nil {
				return err
			}
			if v != tiergame.Undecided {
				s.state[i] = word(valuedb.Make(v, 0), 0)
				switch v {
				case tiergame.Win, tiergame.Lose:
					local.push(0, determined(p))
				case tiergame.Tie:
					localTies.push(0, determined(p))
				}
				continue
			}
			minLose, maxWin, canLose := 1<<30, 0, true
			for k, l := range lists {
				if len(l) == 0 {
					continue
				}
				st := kids[k]
				if st == nil {
					return fmt.Errorf("%s: move from tier %d to tier %d, which is not solved", g.Name(), t, tm.tiers[k])
				}
				for _, q := range l {
					rec, ok := st.Lookup(q)
					if !ok {
						return fmt.Errorf("%s: child %d of tier %d position %d is not in tier %d's level file", g.Name(), q, t, p, tm.tiers[k])
					}
					switch rec.Value() {
					case tiergame.Lose:
						minLose = min(minLose, rec.Remoteness())
						canLose = false
					case tiergame.Win:
						maxWin = max(maxWin, rec.Remoteness())
					default:
						canLose = false
					}
				}
			}
			// A move elsewhere that does not lose decides the counter
			// (blocked): the moves inside the tier need no counting, and
			// without a reverse index to build, no listing.
			var inTier []tiergame.Position
			n := 0
			switch {
			case s.useIdx:
				inTier = dedup(tm.within(p), &seen)
				n = len(inTier)
			case canLose:
				n = tm.countWithin(p, &seen)
			}
			if (canLose || s.useIdx) && n == 0 && count(lists) == 0 {
				return fmt.Errorf("%s: tier %d position %d is not primitive but has no moves", g.Name(), t, p)
			}
			if n > maxCounter {
				return fmt.Errorf("%s: tier %d position %d has %d moves inside its tier, more than %d", g.Name(), t, p, n, maxCounter)
			}
			if s.useIdx {
				for _, c := range inTier {
					ci, ok := s.slotOf(uint64(c))
					if !ok {
						return fmt.Errorf("%s: child %d of tier %d position %d is not in the tier's level file", g.Name(), c, t, p)
					}
					edges = append(edges, ci<<32|i)
				}
			}
			counter := uint32(n)
			if !canLose {
				counter = blocked
			}
			if minLose < 1<<30 {
				local.push(minLose+1, candidate(p))
			}
			if counter == 0 {
				// Every move leads to a win elsewhere.
				s.state[i] = word(valuedb.Make(tiergame.Lose, maxWin+1), 0)
				local.push(maxWin+1, determined(p))
				continue
			}
			s.state[i] = word(valuedb.Make(tiergame.Undecided, maxWin), counter)
		}
		if s.done != nil {
			s.done.Add(uint64(len(ps)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.queue.merge(local)
	s.ties.merge(localTies)
	s.edges[idx] = edges
	return nil
}

// slotOf is slot for the first pass, when dense work words of positions
// not yet visited are still absent: membership comes from the set.
func (s *loopySolver) slotOf(p uint64) (uint64, bool) {
	if s.dense {
		return p, s.set.Contains(p)
	}
	return s.set.Lookup(p)
}

// buildIndex sorts the recorded edges into a reverse index.
func (s *loopySolver) buildIndex() *indexParents {
	n := uint64(len(s.state))
	x := &indexParents{offsets: make([]uint64, n+1)}
	var total uint64
	for _, es := range s.edges {
		for _, e := range es {
			x.offsets[e>>32+1]++
		}
		total += uint64(len(es))
	}
	for i := uint64(1); i <= n; i++ {
		x.offsets[i] += x.offsets[i-1]
	}
	x.list = make([]uint32, total)
	fill := slices.Clone(x.offsets[:n])
	for _, es := range s.edges {
		for _, e := range es {
			c := e >> 32
			x.list[fill[c]] = uint32(e)
			fill[c]++
		}
	}
	return x
}

// propagate processes the queued levels in increasing order; apply handles
// one entry and returns the pushes it makes.
func (s *loopySolver) propagate(ctx context.Context, q *levels, src parentSource, apply func(e entry, level int, qRank uint64, src parentSource, local *queued, sc *scratch)) error {
	for level := 0; ; level++ {
		decided, candidates, more := q.take(level)
		if !more {
			return nil
		}
		if len(decided)+len(candidates) == 0 {
			continue
		}
		if level > valuedb.MaxRemoteness {
			return fmt.Errorf("%s: tier %d: remoteness above %d", s.g.Name(), s.t, valuedb.MaxRemoteness)
		}
		// Candidates of this level get their value before any entry of
		// the level propagates, or a parent reached through a decided
		// entry first would take level+1 instead of its own level: two
		// passes, each in parts on the workers; those assigned join the
		// level's decided entries.
		v := tiergame.Win
		if q == &s.ties {
			v = tiergame.Tie
		}
		if len(candidates) > 0 {
			parts := s.parts(candidates)
			err := s.eachPart(ctx, parts, func(ctx context.Context, k int, part []entry) error {
				kept := part[:0]
				for _, e := range part {
					r, _ := s.slot(e.pos())
					if s.assign(r, valuedb.Make(v, level)) { // else decided earlier, at a lower level
						kept = append(kept, determined(e.pos()))
					}
				}
				parts[k] = kept
				return nil
			})
			if err != nil {
				return err
			}
			decided = append(decided, parts...)
		}
		parts := s.parts(decided)
		err := s.eachPart(ctx, parts, func(ctx context.Context, _ int, part []entry) error {
			local, sc := newApart[queued](), newApart[scratch]() // on the heap: apply and src take them
			for k, e := range part {
				if k&1023 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				r, _ := s.slot(e.pos())
				apply(e, level, r, src, local, sc)
			}
			q.merge(*local)
			return nil
		})
		if err != nil {
			return err
		}
	}
}

// parts cuts lists of entries into parts for the workers.
func (s *loopySolver) parts(lists [][]entry) [][]entry {
	total := 0
	for _, es := range lists {
		total += len(es)
	}
	per := max(256, (total+s.workers*32-1)/(s.workers*32))
	var parts [][]entry
	for _, es := range lists {
		for lo := 0; lo < len(es); lo += per {
			parts = append(parts, es[lo:min(lo+per, len(es))])
		}
	}
	return parts
}

// eachPart runs f on every part on the workers; a single part runs on the
// caller's goroutine.
func (s *loopySolver) eachPart(ctx context.Context, parts [][]entry, f func(ctx context.Context, k int, part []entry) error) error {
	if len(parts) == 1 {
		return f(ctx, 0, parts[0])
	}
	return forEach(ctx, s.workers, len(parts), func(ctx context.Context, k int) error { return f(ctx, k, parts[k]) })
}

// winLose propagates a position decided at level (candidates were
// assigned by propagate) to its parents.
func (s *loopySolver) winLose(e entry, level int, qr uint64, src parentSource, local *queued, sc *scratch) {
	rec := wordRecord(atomic.LoadUint32(&s.state[qr]))
	src.parents(e.pos(), qr, sc)
	switch rec.Value() {
	case tiergame.Lose:
		win := valuedb.Make(tiergame.Win, level+1)
		for _, u := range sc.refs {
			if s.assign(u.slot, win) {
				local.push(level+1, determined(s.position(u)))
			}
		}
	case tiergame.Win:
		for _, u := range sc.refs {
			if lv, ok := s.countDown(u.slot, level); ok {
				local.push(lv, determined(s.position(u)))
			}
		}
	}
}

// tie propagates a tie decided at level to its undecided parents.
func (s *loopySolver) tie(e entry, level int, qr uint64, src parentSource, local *queued, sc *scratch) {
	src.parents(e.pos(), qr, sc)
	for _, u := range sc.refs {
		if s.assign(u.slot, valuedb.Make(tiergame.Tie, level+1)) {
			local.push(level+1, determined(s.position(u)))
		}
	}
}

// assign gives an undecided position a record; false if it had one.
func (s *loopySolver) assign(r uint64, rec valuedb.Record) bool {
	for {
		w := atomic.LoadUint32(&s.state[r])
		if wordRecord(w).Value() != tiergame.Undecided {
			return false
		}
		if atomic.CompareAndSwapUint32(&s.state[r], w, word(rec, w&blocked)) {
			return true
		}
	}
}

// countDown records that one more child of an undecided position is a win
// found at level; when none is left, the position is a loss, and countDown
// returns the level its loss goes to.
func (s *loopySolver) countDown(r uint64, level int) (int, bool) {
	for {
		w := atomic.LoadUint32(&s.state[r])
		rec, c := wordRecord(w), w&blocked
		if rec.Value() != tiergame.Undecided || c == blocked || c == 0 {
			return 0, false
		}
		nw := w - 1
		lv := 0
		if c == 1 {
			lv = max(level, rec.Remoteness()) + 1
			nw = word(valuedb.Make(tiergame.Lose, lv), 0)
		}
		if atomic.CompareAndSwapUint32(&s.state[r], w, nw) {
			return lv, c == 1
		}
	}
}

// position returns a parent's position.
func (s *loopySolver) position(u parentRef) uint64 {
	if u.pos != noPos {
		return u.pos
	}
	if s.dense {
		return u.slot
	}
	p, _ := s.set.Select(u.slot)
	return p
}

// queueTies finds, for each position still undecided, its tie children in
// other tiers, and queues it as a tie candidate.
func (s *loopySolver) queueTies(ctx context.Context) error {
	rs := SplitShrinking(s.set, s.ranges)
	return forEach(ctx, s.workers, len(rs), func(ectx context.Context, k int) error {
		r := rs[k]
		var local queued
		tm := newTierMoves(s.g, s.t)
		kids := s.kids.of(tm.tiers)
		lo := s.set.Rank(r.Lo)
		for p := range s.set.Range(r.Lo, r.Hi) {
			i := lo
			if s.dense {
				i = p
			}
			lo++
			if wordRecord(s.state[i]).Value() != tiergame.Undecided {
				continue
			}
			if i&1023 == 0 && ectx.Err() != nil {
				return ectx.Err()
			}
			_, lists, err := tm.elsewhere(p)
			if err != nil {
				return err
			}
			minTie := 1 << 30
			for k, l := range lists {
				if kids[k] == nil {
					continue
				}
				for _, q := range l {
					if rec, ok := kids[k].Lookup(q); ok && rec.Value() == tiergame.Tie {
						minTie = min(minTie, rec.Remoteness())
					}
				}
			}
			if minTie < 1<<30 {
				local.push(minTie+1, candidate(p))
			}
		}
		s.ties.merge(local)
		return nil
	})
}

// dedupTable is an open-addressing set for dedup, cleared after each use.
type dedupTable struct {
	slot [256]uint64 // position+1; 0 = empty
	used [256]uint8
}

// dedup removes repeated values from xs in place, keeping the first of
// each; small lists (the moves of one position) are the common case.
func dedup[P ~uint64](xs []P, t *dedupTable) []P {
	if len(xs) < 2 {
		return xs
	}
	if len(xs) <= 64 {
		// Usually the values differ in their low 6 bits already.
		var seen uint64
		for _, x := range xs {
			seen |= 1 << (x & 63)
		}
		if bits.OnesCount64(seen) == len(xs) {
			return xs
		}
	}
	if len(xs) > 128 {
		slices.Sort(xs)
		return slices.Compact(xs)
	}
	out := xs[:0]
	n := 0
	for _, x := range xs {
		h := uint8((x * 0x9E3779B97F4A7C15) >> 56)
		for {
			if t.slot[h] == 0 {
				t.slot[h] = uint64(x) + 1
				t.used[n] = h
				n++
				out = append(out, x)
				break
			}
			if t.slot[h] == uint64(x)+1 {
				break
			}
			h++
		}
	}
	for _, h := range t.used[:n] {
		t.slot[h] = 0
	}
	return out
}
