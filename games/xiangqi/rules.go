package xiangqi

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Rules is a rule set of the game, chosen by option rules.
type Rules uint8

const (
	// RulesNone is the rule-tolerant game (the default): play that goes
	// on for ever is a draw, whatever it is made of.
	RulesNone Rules = iota
	// RulesChessDB is the rules as ChessDB's tables apply them, in the
	// way its generator xiangqitb decides them: perpetual check loses,
	// perpetual chase loses, where both sides have a chariot, horse,
	// cannon or soldier (see docs/xiangqi-rules.md).
	RulesChessDB
)

// String returns the option's value: "none" or "chessdb".
func (r Rules) String() string {
	switch r {
	case RulesNone:
		return "none"
	case RulesChessDB:
		return "chessdb"
	}
	return fmt.Sprintf("rules(%d)", uint8(r))
}

// ParseRules reads option rules' value.
func ParseRules(s string) (Rules, error) {
	switch s {
	case "none", "":
		return RulesNone, nil
	case "chessdb":
		return RulesChessDB, nil
	}
	return RulesNone, fmt.Errorf("rules=%s: want none or chessdb", s)
}

// Rule is the rule that decided a position.
type Rule uint8

const (
	// RuleNone: the position's value is the game's without the rules.
	RuleNone Rule = iota
	// RuleCheck: a side that could hold only by checking for ever lost.
	RuleCheck
	// RuleChase: a side that could hold only by chasing for ever lost.
	RuleChase
)

// String returns "none", "perpetual check" or "perpetual chase".
func (r Rule) String() string {
	switch r {
	case RuleNone:
		return "none"
	case RuleCheck:
		return "perpetual check"
	case RuleChase:
		return "perpetual chase"
	}
	return fmt.Sprintf("rule(%d)", uint8(r))
}

// RuleDecision is a position whose value the rules decide: a win or a
// loss for the side to move that the game without the rules calls a
// draw. Round is the round of the rule pass that decided it (1 first),
// Plies the distance in plies to the position where the side that broke
// the rule was declared lost (0 for that position itself).
type RuleDecision struct {
	Pos   tiergame.Position
	Value tiergame.Value
	Round int
	Rule  Rule
	Plies int
}

// ErrRules is wrapped by the errors of the rule pass: a position the
// pass cannot judge (a flag without the moves that made it).
var ErrRules = errors.New("xiangqi: rule pass")

// Rules returns the game's rule set.
func (g *Game) Rules() Rules { return g.rules }

// RulesApply reports whether the rules can decide positions of tier t:
// the rules are on and both sides have a chariot, horse, cannon or
// soldier.
func (g *Game) RulesApply(t tiergame.Tier) bool {
	if g.rules == RulesNone {
		return false
	}
	m, ok := MaterialOf(t)
	if !ok {
		return false
	}
	for side := range m {
		if m[side][xq.Chariot]+m[side][xq.Horse]+m[side][xq.Cannon]+m[side][xq.Soldier] == 0 {
			return false
		}
	}
	return true
}

// The states of a position in the pass, two bits a hash. The pass only
// asks whether a position is undecided, a win, or a loss or draw for its
// side to move (a move to it is no loss for the mover); a position the
// rules decide was undecided, so its slot tells which of the two it is.
const (
	stAbsent  uint64 = iota // no legal position, or not in the tier
	stWin                   // a win for the side to move
	stHolds                 // a loss or a final draw (a tie, or a draw the rules cannot touch)
	stUnknown               // a draw of the loopy solve: what the rules may decide
)

// The flags of a position in the pass. The first five are set once; the
// working four are set again from them every round and removed where
// the cycle they stand for does not hold.
const (
	fCapDraw   uint32 = 1 << iota // a capture leads to a drawn smaller endgame
	fInCheck                      // in check, with a move to an undecided position
	fCheck                        // reached by such a move: the side to move has been checking
	fInChase                      // answers a chase with a move to an undecided position
	fChase                        // reached by such a move: the side to move has been chasing
	fCheckWin                     // may win because the other side checks for ever
	fCheckLose                    // may lose for checking for ever
	fChaseWin                     // may win because the other side chases for ever
	fChaseLose                    // may lose for chasing for ever
	fListed                       // still has working flags (xiangqitb's rule bits)
	fStale                        // to be checked in the next half-sweep of its side (see sweeps), or in the next round's carried step 1 (carriedSweeps)

	fWorking = fCheckWin | fCheckLose | fChaseWin | fChaseLose
	fSticky  = fInCheck | fCheck | fInChase | fChase

	// The slot's last bits keep what step 1's first two sweeps of a
	// round did, for the next round to start from (carriedSweeps):
	// fSwept1 the working flags the first sweep removed from the labels
	// (fWorking's bits shifted by sweptShift), fSwept2 whether the
	// second removed a win flag (removeWin removes one at most:
	// fCheckWin if the position has it, else fChaseWin).
	sweptShift = 6
	fSwept1    = fWorking << sweptShift
	fSwept2    = uint32(1) << 15
	fSwept     = fSwept1 | fSwept2
)

// The fSwept bits lie above the flags and within a slot's 16 bits: the
// constants overflow otherwise.
const (
	_ uint32 = 0 - fSwept&(fStale<<1-1)
	_        = uint16(fSwept)
)

// judge is the rule pass over one tier. Its arrays are outside the Go
// heap (bigmem), so the collector's goal does not double them, and only
// the undecided positions (the draws of the loopy solve, a fraction of
// the tier's hashes) have a slot of flags (16 bits): a hash has two bits
// of state, two of the index of the slots (unknown, below) and one of
// the positions still listed.
type judge struct {
	g *Game
	l *layout
	t tiergame.Tier
	// st holds each hash's state, 32 to a word.
	st []uint64
	// unknown has the bit of each hash undecided after the loopy solve,
	// fixed once init has run; below[w] counts the bits of the words
	// before w: the rank of an undecided hash is its slot.
	unknown []uint64
	below   []uint64
	// listed has the bit of each undecided hash that may have working
	// flags (fListed): a superset, as labelMay sets them and the sweeps
	// clear them.
	listed []uint64
	// fl holds an undecided position's flags by slot, 16 bits each, two
	// to a word, read and written atomically (the sweeps run in
	// parallel), and once the rules decide it, its decision (see decide).
	fl []uint32
	// notLost has the bit of each slot whose position a loss level of
	// build found not lost (a quiet move to no win), cleared at each
	// loss level: a parent of several of the level's positions is
	// looked at once, not once for each (candidates).
	notLost []uint64
	// shadow has the bit of each slot whose position is the larger hash
	// of a mirror pair; nil when the sweeps check both images
	// (judgeConfig.bothImages). The sweeps check the smaller image only
	// and give the larger its flags (see setFlags).
	shadow []uint64
	mems   []*bigmem.Array

	errMu sync.Mutex
	err   error
	// workers is how many goroutines the passes over the tier use.
	workers int
	// spreadChunk, if above 0, is how many positions of a retrograde
	// level a worker of build takes at a time (spreadChunk); tests make
	// it small to cut small levels into many chunks.
	spreadChunk int
	// sweepMode is how the half-sweeps choose what they check, and
	// halves, if not nil, counts them (judgeConfig.halves).
	sweepMode sweepMode
	halves    *[2]int
	// carry is whether a round after the first starts step 1 from the
	// last round's first two sweeps (carriedSweeps; judgeConfig.fullStep1
	// turns it off), carried counts those rounds if not nil, and
	// checkCarry runs the full sweeps after each to compare.
	carry      bool
	carried    *int
	checkCarry bool
	// images is whether the sweeps check one image of each mirror pair
	// (shadow).
	images bool
	// progress, if not nil, is told where the pass is (say); round is
	// the round in progress.
	progress func(string)
	round    int
}

// say tells the pass's progress what it is doing now.
func (j *judge) say(what string) {
	if j.progress == nil {
		return
	}
	if j.round == 0 {
		j.progress("rules of play: " + what)
		return
	}
	j.progress(fmt.Sprintf("rules of play, round %d: %s", j.round, what))
}

// words returns n zero words outside the Go heap, freed by free.
func (j *judge) words(n uint64) ([]uint64, error) {
	a, err := bigmem.Words(n)
	if err != nil {
		return nil, fmt.Errorf("%w: tier %s: %w", ErrRules, j.l.m, err)
	}
	j.mems = append(j.mems, a)
	return a.Words(), nil
}

// free returns the judge's arrays.
func (j *judge) free() {
	for _, a := range j.mems {
		a.Free()
	}
	j.mems, j.st, j.unknown, j.below, j.listed, j.fl, j.notLost, j.shadow = nil, nil, nil, nil, nil, nil, nil, nil
}

// state returns hash h's state.
func (j *judge) state(h uint64) uint64 { return j.st[h>>5] >> (h & 31 * 2) & 3 }

// setState changes hash h's state to s; nothing reads or writes the word
// at the same time (build writes on one goroutine, while its workers
// wait: spreader).
func (j *judge) setState(h uint64, s uint64) {
	w := &j.st[h>>5]
	*w = *w&^(3<<(h&31*2)) | s<<(h&31*2)
}

// slot returns the slot of undecided hash h.
func (j *judge) slot(h uint64) uint64 {
	w := h >> 6
	return j.below[w] + uint64(bits.OnesCount64(j.unknown[w]&(1<<(h&63)-1)))
}

// isUnknown reports whether hash h was undecided after the loopy solve
// (it has a slot).
func (j *judge) isUnknown(h uint64) bool { return j.unknown[h>>6]>>(h&63)&1 != 0 }

// flag returns undecided position h's flags.
func (j *judge) flag(h uint64) uint32 { return j.load16(j.slot(h)) }

// setFlag sets undecided position h's flags.
func (j *judge) setFlag(h uint64, f uint32) { j.store16(j.slot(h), f) }

// The sweeps check one image of each mirror pair of positions, the
// smaller hash, as xiangqitb's index holds one (every piece moves the
// same way mirrored, so a position's flags are its image's). The larger
// image, a shadow, is never listed: it takes its flags from its image
// whenever a check changes them (setFlags), and build declares and
// decides it with its image, whose parents' images are its parents
// (candidates). So a shadow's slot is its image's, but for the stale marks
// of a step's half-sweeps, which only listed positions take (markStale);
// carriedSweeps' are made on both images. A check reads the flags of
// children and grandchildren of either kind.

// shadowAt reports whether slot s is a shadow.
func (j *judge) shadowAt(s uint64) bool {
	return j.shadow != nil && atomic.LoadUint64(&j.shadow[s>>6])>>(s&63)&1 != 0
}

// isShadow reports whether undecided position h is a shadow.
func (j *judge) isShadow(h uint64) bool { return j.shadow != nil && j.shadowAt(j.slot(h)) }

// image returns the hash of position h's mirror image, or h when the
// sweeps check both images.
func (j *judge) image(h uint64) uint64 {
	if j.shadow == nil {
		return h
	}
	var pl placement
	j.l.decode(h, &pl)
	return j.l.mirrorHash(pl)
}

// setFlags sets checked position h's flags, and its shadow's, to f, and
// returns the shadow's hash (h when h is its own image or the sweeps
// check both).
func (j *judge) setFlags(h uint64, f uint32) uint64 {
	j.setFlag(h, f)
	m := j.image(h)
	if m != h {
		j.setFlag(m, f)
	}
	return m
}

// orFlag adds flags to undecided position h's.
func (j *judge) orFlag(h uint64, f uint32) {
	s := j.slot(h)
	atomic.OrUint32(&j.fl[s>>1], f<<(s&1*16))
}

// load16 returns slot s's 16 bits.
func (j *judge) load16(s uint64) uint32 {
	return atomic.LoadUint32(&j.fl[s>>1]) >> (s & 1 * 16) & 0xffff
}

// store16 sets slot s's 16 bits to v, leaving the other slot of its word
// as another goroutine may be changing it.
func (j *judge) store16(s uint64, v uint32) {
	w, sh := &j.fl[s>>1], s&1*16
	for {
		old := atomic.LoadUint32(w)
		if atomic.CompareAndSwapUint32(w, old, old&^(0xffff<<sh)|v<<sh) {
			return
		}
	}
}

// eachUnknown calls f for the hashes undecided after the loopy solve
// among side, side+2, ... (every one for step 1), as each does.
func (j *judge) eachUnknown(first, step uint64, f func(h uint64) bool) bool {
	return j.eachOf(j.unknown, first, step, f)
}

// eachListed is eachUnknown for the positions that may have working
// flags (listed): the later sweeps of a step find a few among millions
// of draws, and skip the rest 64 at a time.
func (j *judge) eachListed(first, step uint64, f func(h uint64) bool) bool {
	return j.eachOf(j.listed, first, step, f)
}

// eachOf calls f for the hashes of set among side, side+2, ... (every
// one for step 1), as each does.
func (j *judge) eachOf(set []uint64, first, step uint64, f func(h uint64) bool) bool {
	return j.blocksOf(set, first, step, func(hashes iter.Seq[uint64]) bool {
		found := false
		for h := range hashes {
			if f(h) {
				found = true
			}
		}
		return found
	})
}

// blocksOf calls block on the judge's workers for each run of 256 words
// of set, with the run's hashes among side, side+2, ... (every one for
// step 1), and reports whether any call returned true: eachOf for a
// caller that keeps something of its own a run (halfSweep's counts and
// log).
func (j *judge) blocksOf(set []uint64, first, step uint64, block func(hashes iter.Seq[uint64]) bool) bool {
	mask := ^uint64(0)
	if step == 2 {
		mask = 0x5555555555555555 << first
	}
	const size = 1 << 8 // words
	n := (uint64(len(set)) + size - 1) / size
	return j.onWorkers(n, func(b uint64) bool {
		return block(func(yield func(uint64) bool) {
			for w := b * size; w < min((b+1)*size, uint64(len(set))); w++ {
				for x := atomic.LoadUint64(&set[w]) & mask; x != 0; x &= x - 1 {
					if !yield(w<<6 + uint64(bits.TrailingZeros64(x))) {
						return
					}
				}
			}
		})
	})
}

// each calls f for the hashes side, side+step, ... below the tier's
// size, on the judge's workers, each taking blocks of hashes in turn.
// It reports whether any call returned true.
func (j *judge) each(first, step uint64, f func(h uint64) bool) bool {
	const block = 1 << 14
	n := (j.l.size + block - 1) / block
	return j.onWorkers(n, func(b uint64) bool {
		lo, hi := b*block, min((b+1)*block, j.l.size)
		h := lo - lo%step + first
		if h < lo {
			h += step
		}
		found := false
		for ; h < hi; h += step {
			if f(h) {
				found = true
			}
		}
		return found
	})
}

// onWorkers calls task for 0, 1, ... n-1 on the judge's workers, each
// taking the next in turn, and reports whether any call returned true.
func (j *judge) onWorkers(n uint64, task func(i uint64) bool) bool {
	var next atomic.Uint64
	var any atomic.Bool
	var wg sync.WaitGroup
	for range min(uint64(max(j.workers, 1)), max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found := false
			for {
				i := next.Add(1) - 1
				if i >= n {
					break
				}
				if task(i) {
					found = true
				}
			}
			if found {
				any.Store(true)
			}
		}()
	}
	wg.Wait()
	return any.Load()
}

// JudgeTier runs the rule pass over tier t, whose values without the
// rules value gives (Undecided for a position not in the tier), with
// child reading the values of the tiers its captures lead to (already
// judged). It returns the positions the rules decide, in increasing
// order of hashes; none when the rules do not apply to t. The pass is
// xiangqitb's (see docs/xiangqi-rules.md): find the draws where one side
// can hold only by perpetual check or chase, declare them lost, spread
// the new results back by retrograde steps, and repeat until a round
// decides nothing.
func (g *Game) JudgeTier(t tiergame.Tier, value func(tiergame.Position) tiergame.Value, child func(tiergame.Child) tiergame.Value) ([]RuleDecision, error) {
	var out []RuleDecision
	err := g.judgeTier(t, judgeConfig{}, value, child, nil, func(d RuleDecision) error {
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// judgeConfig is how a rule pass runs; its zero value is how the game
// runs it. Its decisions are the same whatever it says.
type judgeConfig struct {
	// workers is how many goroutines the pass uses (0: GOMAXPROCS).
	workers int
	// spreadChunk is judge.spreadChunk (0: the default).
	spreadChunk int
	// sweeps is judge.sweepMode.
	sweeps sweepMode
	// halves, if not nil, counts the half-sweeps that checked only the
	// stale positions ([1]) and those that checked every listed one
	// ([0]).
	halves *[2]int
	// fullStep1 runs every round's step 1 from the labels, as xiangqitb
	// does, rather than from the last round's first two sweeps.
	fullStep1 bool
	// carried, if not nil, counts the rounds whose step 1 started from
	// the last round's (carriedSweeps).
	carried *int
	// checkCarry, in a round that carries step 1, runs its first two
	// sweeps again in full and fails the pass if any flag or what the
	// sweeps log differs (tests).
	checkCarry bool
	// childrenDone, if not nil, is called once the pass reads no more
	// children (tiergame.Judging.ChildrenDone), and valuesDone once it
	// reads no more values (tiergame.Judging.ValuesDone).
	childrenDone, valuesDone func()
	// bothImages looks at both images of each mirror pair in init and
	// the sweeps, rather than one (judge.shadow).
	bothImages bool
}

// sweepMode is how the half-sweeps choose the positions they check (see
// judge.sweeps); the decisions are the same in every mode.
type sweepMode uint8

const (
	// sweepsAuto checks only the stale positions when finding them
	// costs less than checking every listed one.
	sweepsAuto sweepMode = iota
	// sweepsFull checks every listed position, always (xiangqitb's way).
	sweepsFull
	// sweepsStale checks only the stale positions whenever the changes
	// of the last four halves are logged, whatever it costs (tests).
	sweepsStale
)

// judgeTier is JudgeTier giving each decision to yield, in increasing
// order of hashes, rather than holding them all; it stops at yield's
// first error.
func (g *Game) judgeTier(t tiergame.Tier, cfg judgeConfig, value func(tiergame.Position) tiergame.Value, child func(tiergame.Child) tiergame.Value, progress func(string), yield func(RuleDecision) error) error {
	if !g.RulesApply(t) {
		return nil
	}
	l := g.mustLayout(t)
	if l.size >= 1<<changeShift {
		return fmt.Errorf("%w: tier %s: %d hashes, beyond the pass's 2^%d", ErrRules, l.m, l.size, changeShift)
	}
	workers := cfg.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	j := &judge{g: g, l: l, t: t, workers: workers, spreadChunk: cfg.spreadChunk, sweepMode: cfg.sweeps, halves: cfg.halves,
		carry: !cfg.fullStep1, carried: cfg.carried, checkCarry: cfg.checkCarry, images: !cfg.bothImages, progress: progress}
	defer j.free()
	j.say("the draws' checks, chases and captures")
	if err := j.init(value, cfg.valuesDone, child); err != nil {
		return err
	}
	if cfg.childrenDone != nil {
		cfg.childrenDone() // only init reads them
	}
	done := [2]bool{}
	for round := 1; ; round++ {
		if round > 255 {
			return fmt.Errorf("%w: tier %s: more than 255 rounds", ErrRules, l.m)
		}
		j.round = round
		carry := j.carry && round > 1
		j.say("labelling")
		j.labelMay(carry)
		j.removeFake(carry)
		j.say("declaring the rule-breakers lost and spreading it")
		for side := xq.Red; side <= xq.Black; side++ {
			if !done[side] {
				done[side] = !j.build(side, round)
			}
		}
		if j.err != nil {
			return j.err
		}
		if done[0] && done[1] {
			break
		}
	}
	for w, x := range j.unknown {
		for ; x != 0; x &= x - 1 {
			h := uint64(w)<<6 + uint64(bits.TrailingZeros64(x))
			s := j.state(h)
			if s == stUnknown {
				continue
			}
			v := tiergame.Win
			if s == stHolds {
				v = tiergame.Lose
			}
			d := j.decision(h)
			if err := yield(RuleDecision{Pos: tiergame.Position(h), Value: v, Round: int(d.round), Rule: d.rule, Plies: int(d.plies)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// load returns the state of hash h (legal, in the tier).
func (j *judge) load(h uint64) (state, ruleBoard) {
	var st state
	j.l.load(h, &st)
	return st, ruleBoard{b: st.b, turn: st.pl.side}
}

// init sets the states from the values (then calls valuesDone, if not
// nil), gives the undecided positions their slots, and marks the capture
// draws and the checks and chases (initPosition).
func (j *judge) init(value func(tiergame.Position) tiergame.Value, valuesDone func(), child func(tiergame.Child) tiergame.Value) error {
	size := j.l.size
	var err error
	if j.st, err = j.words((size + 31) / 32); err != nil {
		return err
	}
	if j.unknown, err = j.words((size + 63) / 64); err != nil {
		return err
	}
	j.each(0, 1, func(h uint64) bool {
		var s uint64
		switch value(tiergame.Position(h)) {
		case tiergame.Win:
			s = stWin
		case tiergame.Lose, tiergame.Tie:
			s = stHolds
		case tiergame.Draw:
			s = stUnknown
			atomic.OrUint64(&j.unknown[h>>6], 1<<(h&63))
		}
		if s != stAbsent {
			atomic.OrUint64(&j.st[h>>5], s<<(h&31*2))
		}
		return false
	})
	if valuesDone != nil {
		valuesDone() // before the pass's other arrays
	}
	if j.below, err = j.words(uint64(len(j.unknown))); err != nil {
		return err
	}
	if j.listed, err = j.words(uint64(len(j.unknown))); err != nil {
		return err
	}
	n := uint64(0)
	for w, x := range j.unknown {
		j.below[w] = n
		n += uint64(bits.OnesCount64(x))
	}
	fl, err := j.words((n + 3) / 4)
	if err != nil {
		return err
	}
	if n > 0 {
		j.fl = unsafe.Slice((*uint32)(unsafe.Pointer(&fl[0])), (n+1)/2)
	}
	if j.notLost, err = j.words((n + 63) / 64); err != nil {
		return err
	}
	if j.images {
		if j.shadow, err = j.words((n + 63) / 64); err != nil {
			return err
		}
	}
	j.eachUnknown(0, 1, func(h uint64) bool {
		j.initPosition(h, child)
		return false
	})
	return j.err
}

// initPosition marks undecided position h's captures to a draw (child
// reads their values), and, once for the pass, whether it is in check
// or answers a chase with a move to an undecided position, and the
// undecided positions those answers reach: one look at the position's
// moves for all of it. When h has a shadow, it marks the shadow and the
// shadow's children too, the mirror images of h's; when h is a shadow,
// it only records that.
func (j *judge) initPosition(h uint64, child func(tiergame.Child) tiergame.Value) {
	// A shadow is marked by its image, with its children's images: it
	// needs its placement only, not its board.
	st := state{l: j.l}
	j.l.decode(h, &st.pl)
	img := h
	if j.shadow != nil {
		if img = j.l.mirrorHash(st.pl); img < h {
			s := j.slot(h)
			atomic.OrUint64(&j.shadow[s>>6], 1<<(s&63))
			if j.state(img) != stUnknown {
				j.fail(h, "the mirror image of an undecided position is decided")
			}
			return
		}
	}
	j.l.board(&st.pl, &st.b)
	rb := ruleBoard{b: st.b, turn: st.pl.side}
	mark := func(h uint64, f uint32) {
		j.orFlag(h, f)
		if img != h {
			j.orFlag(img, f)
		}
	}
	var mst state // img's, once a child is marked
	var pbuf, qbuf, mbuf [128]xq.Move
	ps := st.b.PseudoMoves(st.pl.side, pbuf[:0])
	g := st.b.Guard(st.pl.side)
	for _, m := range ps {
		// The legal captures: the legality test, most of the cost,
		// only for captures.
		if st.b.At(m.To) == xq.NoPiece || !g.Legal(&st.b, m) {
			continue
		}
		if v := child(j.g.child(&st, h, j.t, m)); v == tiergame.Draw || v == tiergame.Tie {
			mark(h, fCapDraw)
			break
		}
	}
	// The answers to a check (every legal quiet move) or to a chase.
	check := g.InCheck()
	var ms []xq.Move
	if check {
		ms = quietsAmong(&st.b, g, ps, qbuf[:0])
	} else {
		var abuf [64]xq.Move
		if atts := rb.attacksBy(rb.turn.Other(), abuf[:0]); len(atts) > 0 {
			ms = rb.evasions(atts, quietsAmong(&st.b, g, ps, qbuf[:0]), mbuf[:0])
		}
	}
	fc, fh := fChase, fInChase
	if check {
		fc, fh = fCheck, fInCheck
	}
	found := false
	for _, m := range ms {
		c := st.moved(h, m)
		if j.state(c) != stUnknown {
			continue
		}
		found = true
		j.orFlag(c, fc)
		if img == h {
			continue
		}
		if mst.l == nil {
			j.l.load(img, &mst)
		}
		if mc := mst.moved(img, mirrorMove(m)); j.state(mc) == stUnknown {
			j.orFlag(mc, fc)
		} else {
			j.fail(h, "the mirror image of an undecided child is decided")
		}
	}
	if found {
		mark(h, fh)
	}
}

// known reports whether position h's value is settled (or h is none).
func (j *judge) known(h uint64) bool { return j.state(h) != stUnknown }

// holds reports whether known position h is a loss or a draw for its
// side to move: a move to it is no loss for the mover.
func (j *judge) holds(h uint64) bool { return j.state(h) == stHolds }

// quiets returns the quiet pseudo-moves of position st (hash h), in
// legalQuiets' order, as an iterator.
func (j *judge) quiets(st *state, h uint64, buf []xq.Move) quietMoves {
	return quietMoves{st: st, h: h, ps: st.b.PseudoMoves(st.pl.side, buf)}
}

// quietMoves gives a position's quiet pseudo-moves and where they lead,
// each hash made only when reached: the loops over them mostly stop at
// the first few, and the hashes of moves never looked at were much of the
// pass's cost. A move that leaves the mover's general attacked is not
// tested for (xiangqitb does not either): it leads to a position that is
// no legal one, so not in the tier, whose state is stAbsent, and every
// reader of the moves passes over a move to stAbsent as it passes over a
// move to a win. (A run's tier holds legal positions only: an exhaustive
// run solves LegalWords, which TestHashes checks against Legal; the pass's
// own tests give it Undecided for every other hash.)
type quietMoves struct {
	st *state
	h  uint64
	ps []xq.Move
	i  int
}

// next returns the next quiet pseudo-move and the hash it leads to, or
// false after the last.
func (q *quietMoves) next() (xq.Move, uint64, bool) {
	for q.i < len(q.ps) {
		m := q.ps[q.i]
		q.i++
		if q.st.b.At(m.To) == xq.NoPiece {
			return m, q.st.moved(q.h, m), true
		}
	}
	return xq.Move{}, 0, false
}

// labelMay sets the working flags of every undecided position from its
// lasting ones (a capture to a draw keeps a loss flag only beside the
// win flag of the same rule). If carry, it keeps the fSwept bits and the
// stale marks for carriedSweeps (and clears the marks of positions
// without flags, which no sweep reads), else it clears both.
func (j *judge) labelMay(carry bool) {
	j.eachUnknown(0, 1, func(h uint64) bool {
		j.setListed(h, false)
		f := j.flag(h)
		if j.state(h) != stUnknown {
			return false
		}
		if f&fSticky == 0 {
			if carry && f&fStale != 0 {
				j.setFlag(h, f&^fStale)
			}
			return false
		}
		f &^= fWorking | fListed
		if !carry {
			f &^= fSwept | fStale
		}
		if f&fInCheck != 0 {
			f |= fCheckWin
		}
		if f&fInChase != 0 {
			f |= fChaseWin
		}
		if f&fCheck != 0 {
			f |= fCheckLose
		}
		if f&fChase != 0 {
			f |= fChaseLose
		}
		if f&fCapDraw != 0 {
			if f&fCheckLose != 0 && f&fCheckWin == 0 {
				f &^= fCheckLose
			}
			if f&fChaseLose != 0 && f&fChaseWin == 0 {
				f &^= fChaseLose
			}
		}
		if f&fWorking != 0 {
			f |= fListed
			if !j.isShadow(h) {
				j.setListed(h, true)
			}
		}
		j.setFlag(h, f)
		return false
	})
}

// setListed sets or clears hash h's bit of listed.
func (j *judge) setListed(h uint64, on bool) {
	if on {
		atomic.OrUint64(&j.listed[h>>6], 1<<(h&63))
	} else {
		atomic.AndUint64(&j.listed[h>>6], ^(1 << (h & 63)))
	}
}

// removeFake removes the working flags whose cycles do not hold, in
// xiangqitb's three steps of growing strictness, then clears the
// positions where both sides may win by the same rule and repeats the
// second step.
//
// If carry, step 1's first two sweeps start from the last round's
// (carriedSweeps).
func (j *judge) removeFake(carry bool) {
	for step := 1; step <= 3; step++ {
		j.sweeps(step, carry && step == 1)
	}
	if j.mutual() {
		j.sweeps(2, false)
	}
}

// sweeps runs a step's sweeps until one removes nothing (the second at
// the earliest): the odd ones check the loss flags of every listed
// position, the even ones the win flags, each in two halves, red's
// positions then black's, in place.
//
// A position's check reads only its own flags and those of its children
// and grandchildren by quiet moves (the states do not change here), so
// a check whose inputs did not change since the position's last check
// of the same kind gives the flags it has. The later sweeps of a step
// change a few positions among a million listed ones (K+R+N v K+R's
// first step: 19 sweeps, from the seventh on each changing under 2% of
// what it checks), so once the last four halves changed few, a half
// checks only the positions those changes can reach (stale): the
// changed positions themselves, their parents and, for a change to a
// flag read two plies away, their grandparents. Every other position of
// the half would keep its flags. One difference remains: a full half
// checking a position after one of its grandchildren (same side) changed
// in that half sees the change, where a stale half sees it in the next
// half of its kind; the pass was already open to that order (two
// workers of a full half take blocks in parallel), and on every endgame
// compared the decisions are the same (TestRulesStaleSweeps; run
// folders of K+R+N v K+R, K+R v K+N+N and K+N+P v K+N; xiangqitb's).
//
// If carried, the first two sweeps are carriedSweeps'.
func (j *judge) sweeps(step int, carried bool) {
	var sw sweepLog
	n := 1
	if carried {
		if !j.carriedSweeps(&sw) {
			return
		}
		n = 3
	}
	for ; ; n++ {
		j.say(fmt.Sprintf("removing the cycles that do not hold (step %d of 3, sweep %d)", step, n))
		found := false
		for side := uint64(0); side < 2; side++ {
			if j.halfSweep(n, step, side, &sw) {
				found = true
			}
		}
		if n >= 2 && !found {
			return
		}
	}
}

// carriedSweeps runs step 1's first two sweeps in a round after the
// first from the last round's: the same flags, log (sw) and answer
// (whether the second sweep changed any flag, which ends the step if
// not) as full sweeps from the labels, with a check only where its
// inputs changed.
//
// In step 1 a check reads its own flags, the states and the other
// side's flags, never its own side's: removeLose and removeWin return
// before any grandchild at step 1, and removeWin's drawMoves counts
// only beside a flight, which step 1 never keeps. So each half gives
// what the states, the position's flags before it and the flags the
// halves before it left on the other side give: red's loss half reads
// black's labels, black's loss half red's flags after it, red's win
// half black's loss flags after black's, black's win half red's loss
// flags. The labels are the same every round (the lasting flags are set
// once), and the states change only where build decided. So a position
// keeps last round's flags after each half (its fSwept bits) unless a
// child was decided (candidates marked it stale) or a child's flags
// changed in an earlier half of this round (the halves mark the parents
// of the positions whose flags differ from last round's): those alone
// are checked again, reading what full sweeps would read.
func (j *judge) carriedSweeps(sw *sweepLog) bool {
	if j.carried != nil {
		*j.carried++
	}
	found := false
	for n := 1; n <= 2; n++ {
		j.say(fmt.Sprintf("removing the cycles that do not hold (step 1 of 3, sweep %d, from the last round's)", n))
		for side := uint64(0); side < 2; side++ {
			if j.carryHalf(n, side, sw) && n == 2 {
				found = true
			}
		}
	}
	if j.checkCarry {
		j.compareFull(sw, found)
	}
	return found
}

// carryHalf is side's half of carriedSweeps' sweep n (1: the loss flags,
// 2: the win flags). A position marked stale is checked; after sweep 1
// it stays marked, since its check in sweep 2 reads the same child, and
// if its flags differ from last round's, its parents are marked (their
// next half reads them). Every other position takes its flags after the
// same half last round. It logs the changes as halfSweep does and
// reports whether there were any.
func (j *judge) carryHalf(n int, side uint64, sw *sweepLog) bool {
	mask := fCheckWin | fChaseWin
	if n == 1 {
		mask = fCheckLose | fChaseLose
	}
	hl := halfLog{limit: j.maxChanges()}
	found := j.blocksOf(j.unknown, side, 2, func(hashes iter.Seq[uint64]) bool {
		var local []change
		var parents []tiergame.Position
		count, any := int64(0), false
		for h := range hashes {
			s := j.slot(h)
			f := j.load16(s)
			if j.state(h) != stUnknown || f&fSticky == 0 {
				continue
			}
			// A shadow is marked stale with its image (the marks of
			// carriedSweeps are made on both: candidates, markParents),
			// which then checks and sets both; else it takes its flags
			// after the same half last round, as its image does.
			shadow := j.shadowAt(s)
			if shadow && f&fStale != 0 {
				continue
			}
			in := f &^ (fStale | fSwept) // what a full half finds
			checked := in&fListed != 0 && in&mask != 0
			var out uint32
			switch {
			case f&fStale == 0 && n == 1:
				out = in &^ ((f & fSwept1) >> sweptShift)
			case f&fStale == 0:
				if f&fSwept2 != 0 {
					out = in &^ winRemoved(in)
				} else {
					out = in
				}
			case !checked:
				out = in
			case n == 1:
				out = j.removeLose(h, in, 1)
			default:
				out = j.removeWin(h, in, 1)
			}
			if out&fWorking == 0 {
				out &^= fListed
			}
			nf := f&^(fWorking|fListed) | out
			mark := false // its flags differ from last round's: mark its parents
			if f&fStale != 0 {
				if n == 1 {
					last := in &^ ((f & fSwept1) >> sweptShift)
					mark = (last^out)&fWorking != 0
					nf = nf&^fSwept1 | swept(1, 1, in, out)
				} else {
					nf = nf&^(fSwept2|fStale) | swept(2, 1, in, out)
				}
			}
			img := h // its shadow, once known
			switch {
			case nf == f:
			case f&fStale != 0:
				img = j.setFlags(h, nf)
			default:
				j.setFlag(h, nf)
			}
			if f&fStale != 0 && (mark || out != in) && img == h {
				img = j.image(h)
			}
			if mark {
				parents = j.markParents(h, parents[:0])
				if img != h {
					parents = j.markParents(img, parents[:0])
				}
			}
			if in&fListed != 0 && out&fListed == 0 && !shadow {
				j.setListed(h, false)
			}
			if checked && !shadow {
				count++
			}
			if out != in {
				any = true
				local = hl.add(local, h, in^out)
				if img != h {
					local = hl.add(local, img, in^out)
				}
			}
		}
		hl.merge(local, count)
		return any
	})
	sw.push(n, side, &hl, true)
	return found
}

// winRemoved returns the win flag that removeWin removes from flags f
// when it removes one.
func winRemoved(f uint32) uint32 {
	if f&fCheckWin != 0 {
		return fCheckWin
	}
	return fChaseWin
}

// parents appends to ps the parents of position h in the tier: its
// un-moves without capture, each with no test that the side that moved
// was safe before it. A parent that is no legal position is not in the
// tier, so its state is stAbsent and it was never undecided, and every
// caller passes over it (see quietMoves), so the attack test an un-move
// that Game.Parents makes is saved.
func (j *judge) parents(h uint64, ps []tiergame.Position) []tiergame.Position {
	return j.g.unmoveParents(j.t, tiergame.Position(h), false, ps)
}

// markParents marks stale the undecided parents of position h that may
// have working flags; ps is a buffer for them.
func (j *judge) markParents(h uint64, ps []tiergame.Position) []tiergame.Position {
	ps = j.parents(h, ps)
	for _, p := range ps {
		u := uint64(p)
		if !j.isUnknown(u) || j.state(u) != stUnknown {
			continue
		}
		if f := j.flag(u); f&fSticky != 0 && f&fStale == 0 {
			j.orFlag(u, fStale)
		}
	}
	return ps
}

// compareFull runs step 1's first two sweeps again in full from the
// labels, after carriedSweeps gave sw and found, and fails the pass if
// the flags, the listed positions, the log or the answer differ.
func (j *judge) compareFull(sw *sweepLog, found bool) {
	fl, listed := slices.Clone(j.fl), slices.Clone(j.listed)
	j.labelMay(false)
	var full sweepLog
	fullFound := false
	for n := 1; n <= 2; n++ {
		for side := uint64(0); side < 2; side++ {
			if j.halfSweep(n, 1, side, &full) && n == 2 {
				fullFound = true
			}
		}
	}
	same := found == fullFound && full.checked == sw.checked && slices.Equal(fl, j.fl) && slices.Equal(listed, j.listed)
	for i := range full.recent {
		a, b := slices.Clone(sw.recent[i]), slices.Clone(full.recent[i])
		slices.Sort(a)
		slices.Sort(b)
		same = same && (a == nil) == (b == nil) && slices.Equal(a, b)
	}
	if !same {
		j.errMu.Lock()
		defer j.errMu.Unlock()
		if j.err == nil {
			j.err = fmt.Errorf("%w: tier %s, round %d: step 1's first two sweeps carried from the last round differ from full ones", ErrRules, j.l.m, j.round)
		}
	}
}

// change is a position whose flags a half-sweep changed, and the flags
// that changed, in one word: the hash below changeShift, the flags
// above (a tier's hashes stay far below 2^48).
type change uint64

const changeShift = 48

func newChange(h uint64, bits uint32) change { return change(h | uint64(bits)<<changeShift) }
func (c change) h() uint64                   { return uint64(c) & (1<<changeShift - 1) }
func (c change) bits() uint32                { return uint32(c >> changeShift) }

// fTwoPlies are the flags a check reads two plies away (the chase's
// flights and answers, removeLose's and removeWin's second loops): a
// change to them makes the grandparents stale.
const fTwoPlies = fChaseWin | fChaseLose | fCheckWin

// sweepLog is what the half-sweeps of a step changed, for stale.
type sweepLog struct {
	// recent holds the changes of the last four halves, oldest first,
	// each nil when it changed more than maxChanges (then the halves
	// after it check every listed position).
	recent [4][]change
	// checked is how many positions the last half of each kind (parity
	// of the sweep, side) that checked every listed one checked.
	checked [2][2]int
}

// push logs the changes of a half-sweep (n, side) that hl gathered, and
// if full (it checked every listed position) how many it checked.
func (sw *sweepLog) push(n int, side uint64, hl *halfLog, full bool) {
	copy(sw.recent[:], sw.recent[1:])
	sw.recent[3] = hl.changes()
	if full {
		sw.checked[n%2][side] = int(hl.checked.Load())
	}
}

// halfLog gathers what a half-sweep changed, from runs of positions
// checked in parallel, for sweepLog: up to limit changes, none if more.
type halfLog struct {
	limit    int
	mu       sync.Mutex
	changed  []change
	checked  atomic.Int64
	overflow atomic.Bool
}

// add appends to local, a run's changes, that h's flags changed bits,
// unless the half has changed more than it logs.
func (hl *halfLog) add(local []change, h uint64, bits uint32) []change {
	if hl.overflow.Load() {
		return local
	}
	return append(local, newChange(h, bits))
}

// merge adds a run's changes and the number of positions it checked.
func (hl *halfLog) merge(local []change, checked int64) {
	hl.checked.Add(checked)
	if len(local) == 0 {
		return
	}
	hl.mu.Lock()
	defer hl.mu.Unlock()
	if len(hl.changed)+len(local) > hl.limit {
		hl.overflow.Store(true)
	}
	if !hl.overflow.Load() {
		hl.changed = append(hl.changed, local...)
	}
}

// changes returns the half's changes: nil if it changed more than it
// logs, else not nil.
func (hl *halfLog) changes() []change {
	if hl.overflow.Load() {
		return nil
	}
	if hl.changed == nil {
		return []change{}
	}
	return hl.changed
}

// swept returns the fSwept bits that record the check of a position
// from flags f to nf in sweep n of step 1 (none in any other): the
// working flags the first removed, whether the second removed one.
func swept(n, step int, f, nf uint32) uint32 {
	switch {
	case step != 1:
		return 0
	case n == 1:
		return (f &^ nf & fWorking) << sweptShift
	case n == 2 && (f^nf)&fWorking != 0:
		return fSwept2
	}
	return 0
}

// maxChanges is how many changes a half-sweep logs (8 bytes each, on the
// Go heap): above it, the positions they reach are too many to be worth
// finding (the sweeps turn to stale ones when changes are a few in a
// hundred of the draws checked).
func (j *judge) maxChanges() int { return max(1<<12, len(j.fl)/128) }

// halfSweep checks the loss flags (n odd) or the win flags (n even) of
// side's listed positions: all of them, or only the stale ones when the
// last four halves changed few enough. It reports whether it changed
// any.
func (j *judge) halfSweep(n, step int, side uint64, sw *sweepLog) bool {
	mask := fCheckWin | fChaseWin
	if n%2 == 1 {
		mask = fCheckLose | fChaseLose
	}
	stale := n >= 3 && j.markStale(side, sw, sw.checked[n%2][side])
	// check returns the flags of listed position h after its check,
	// whether it was checked, and its shadow when they changed (h if
	// none).
	check := func(h uint64) (f, nf uint32, img uint64, checked bool) {
		f = j.flag(h)
		if f&fStale != 0 {
			f &^= fStale
			j.setFlag(h, f)
		} else if stale {
			return f, f, h, false
		}
		if f&fListed == 0 || j.state(h) != stUnknown {
			j.setListed(h, false)
			return f, f, h, false
		}
		if f&mask == 0 {
			return f, f, h, false
		}
		if n%2 == 1 {
			nf = j.removeLose(h, f, step)
		} else {
			nf = j.removeWin(h, f, step)
		}
		img = h
		if nf != f {
			if nf&fWorking == 0 {
				nf &^= fListed
				j.setListed(h, false)
			}
			img = j.setFlags(h, nf|swept(n, step, f, nf))
		}
		return f, nf, img, true
	}
	// Each run of words counts and logs its own, merged once a run.
	hl := halfLog{limit: j.maxChanges()}
	found := j.blocksOf(j.listed, side, 2, func(hashes iter.Seq[uint64]) bool {
		var local []change
		count, any := int64(0), false
		for h := range hashes {
			f, nf, img, ok := check(h)
			if !ok {
				continue
			}
			count++
			if nf != f {
				any = true
				local = hl.add(local, h, f^nf)
				if img != h {
					local = hl.add(local, img, f^nf)
				}
			}
		}
		hl.merge(local, count)
		return any
	})
	sw.push(n, side, &hl, !stale)
	if j.halves != nil {
		if stale {
			j.halves[1]++
		} else {
			j.halves[0]++
		}
	}
	return found
}

// markStale sets fStale on side's listed positions that the last four
// halves' changes can reach, if all four logged their changes and
// finding those positions takes fewer retrograde steps than half the
// checks of a full half (checked, the last of its kind). It reports
// whether it marked them all; then the half checks only those. (A half
// that checks every listed position clears the marks of one that gave
// up.)
func (j *judge) markStale(side uint64, sw *sweepLog, checked int) bool {
	if j.sweepMode == sweepsFull {
		return false
	}
	var xs []change
	for _, r := range sw.recent {
		if r == nil {
			return false
		}
		xs = append(xs, r...)
	}
	budget := int64(checked / 2)
	if j.sweepMode == sweepsStale {
		budget = math.MaxInt64
	}
	if int64(len(xs)) > budget {
		return false
	}
	var steps atomic.Int64 // the retrograde steps taken
	const chunk = 256
	over := j.onWorkers(uint64((len(xs)+chunk-1)/chunk), func(i uint64) bool {
		var ps, gs []tiergame.Position
		for _, c := range xs[i*chunk : min((i+1)*chunk, uint64(len(xs)))] {
			h := c.h()
			if h&1 == side {
				j.markIfListed(h)
				if c.bits()&fTwoPlies == 0 {
					continue
				}
			}
			if steps.Add(1) > budget {
				return true
			}
			ps = j.parents(h, ps[:0])
			for _, p := range ps {
				if !j.isUnknown(uint64(p)) {
					continue
				}
				if h&1 != side {
					j.markIfListed(uint64(p))
					continue
				}
				// A check reads a grandchild only through a child
				// with a chase flag (a flight or a chasing move),
				// and flags are only ever removed: a child without
				// one now never leads a check to c again.
				if j.flag(uint64(p))&(fChaseWin|fChaseLose) == 0 {
					continue
				}
				if steps.Add(1) > budget {
					return true
				}
				gs = j.parents(uint64(p), gs[:0])
				for _, q := range gs {
					j.markIfListed(uint64(q))
				}
			}
		}
		return false
	})
	return !over
}

// markIfListed sets fStale on position h if it is listed.
func (j *judge) markIfListed(h uint64) {
	if j.listed[h>>6]>>(h&63)&1 != 0 {
		j.orFlag(h, fStale)
	}
}

// mutual clears the flags of the positions that may both win and lose
// by the same rule (xiangqitb's fourth step), and reports whether it
// cleared any.
func (j *judge) mutual() bool {
	return j.eachListed(0, 1, func(h uint64) bool {
		f := j.flag(h)
		if f&fListed == 0 || j.state(h) != stUnknown {
			return false
		}
		nf := f
		if f&fCheckWin != 0 && f&fCheckLose != 0 {
			nf &^= fCheckWin | fCheckLose
		}
		if f&fChaseWin != 0 && f&fChaseLose != 0 {
			nf &^= fChaseWin | fChaseLose
		}
		if nf == f {
			return false
		}
		j.setFlags(h, nf)
		return true
	})
}

// fail records the first position the pass cannot judge.
func (j *judge) fail(h uint64, what string) {
	j.errMu.Lock()
	defer j.errMu.Unlock()
	if j.err == nil {
		j.err = fmt.Errorf("%w: %s %s: %s", ErrRules, j.l.m, j.g.Format(j.t, tiergame.Position(h)), what)
	}
}

// removeLose returns the flags of position h without the loss flags
// whose cycle does not hold: the side to move must be able to avoid
// loss only by moves that keep checking (or chasing) into positions
// where the other side may win by the rule (xiangqitb's
// check_remove_lose).
func (j *judge) removeLose(h uint64, tt uint32, step int) uint32 {
	longCheck, longChase := tt&fCheckLose != 0, tt&fChaseLose != 0
	if tt&fCapDraw != 0 {
		changed := false
		if longCheck && tt&fCheckWin == 0 {
			tt &^= fCheckLose
			changed = true
		}
		if longChase && tt&fChaseWin == 0 {
			tt &^= fChaseLose
			changed = true
		}
		if changed {
			return tt
		}
	}
	doubleCheck := longCheck && tt&fCheckWin != 0
	doubleChase := longChase && tt&fChaseWin != 0
	st, rb := j.load(h)
	var buf [128]xq.Move
	q := j.quiets(&st, h, buf[:0])

	resolveLongChase := func(list []xq.Move) {
		if len(list) == 0 {
			if tt&fCapDraw != 0 {
				tt &^= fChaseLose | fChaseWin
			} else {
				j.fail(h, "a chase loss flag without a chasing move")
			}
			return
		}
		if !rb.alwaysChases(list, allSpots) {
			tt &^= fChaseLose
			return
		}
		if step == 1 || !rb.inCheck() {
			return
		}
		// In check: the chase holds only if the other side, after each
		// chasing move, can answer without checking.
		var b2 [128]xq.Move
		for _, m := range list {
			c := st.moved(h, m)
			cst, crb := j.load(c)
			q2 := j.quiets(&cst, c, b2[:0])
			noCheck := false
			for m2, c2, ok := q2.next(); ok; m2, c2, ok = q2.next() {
				if j.known(c2) {
					continue
				}
				if j.flag(c2)&fChaseLose != 0 && !crb.givesCheck(m2) {
					if _, ok := crb.evades(m2); ok {
						noCheck = true
						break
					}
				}
			}
			if !noCheck {
				tt &^= fChaseLose
				return
			}
		}
	}
	checkListEmpty := func() {
		if tt&fCapDraw != 0 {
			tt &^= fCheckLose | fCheckWin
		} else {
			j.fail(h, "a check loss flag without a checking move")
		}
	}

	switch {
	case doubleCheck:
		empty, findCheck, findNoCheck, otherCheckWin := true, false, false, false
		for _, c, ok := q.next(); ok; _, c, ok = q.next() {
			if j.known(c) {
				if j.holds(c) {
					findNoCheck = true
				}
			} else {
				e := j.flag(c)
				if e&fCheckWin == 0 {
					findNoCheck = true
					if step == 3 && e&fCheckLose != 0 {
						otherCheckWin = true
					}
				} else {
					empty = false
					if e&fCheckLose != 0 {
						findCheck = true
					}
				}
			}
			if findCheck && (step == 3 && otherCheckWin || step != 3 && findNoCheck) {
				break
			}
		}
		if findCheck && !otherCheckWin {
			return tt
		}
		if findNoCheck {
			return tt &^ fCheckLose
		}
		if empty {
			checkListEmpty()
		}
	case doubleChase:
		var list []xq.Move
		findChase, findNoChase, otherChaseWin := false, false, false
		for m, c, ok := q.next(); ok; m, c, ok = q.next() {
			if j.known(c) {
				if !j.holds(c) {
					continue
				}
				if longCheck {
					longCheck = false
					tt &^= fCheckLose
				}
				findNoChase = true
				continue
			}
			e := j.flag(c)
			if longCheck && e&fCheckWin == 0 {
				longCheck = false
				tt &^= fCheckLose
			}
			if e&fChaseWin == 0 {
				findNoChase = true
				if step == 3 && !otherChaseWin && e&fChaseLose != 0 && e&fCheckWin == 0 {
					if _, ok := rb.evades(m); ok {
						otherChaseWin = true
					}
				}
			} else {
				list = append(list, m)
			}
			if !findChase && e&fChaseWin != 0 && e&fChaseLose != 0 {
				if saved, ok := rb.evades(m); ok {
					if attacked, ok := rb.chases(m); ok {
						if rb.rookShieldsKing(saved, attacked) {
							findNoChase = true
						} else {
							findChase = true
						}
					}
				}
			}
		}
		if findChase && !otherChaseWin {
			return tt
		}
		if findNoChase {
			return tt &^ fChaseLose
		}
		resolveLongChase(list)
	default:
		var list []xq.Move
		empty := true
		for m, c, ok := q.next(); ok; m, c, ok = q.next() {
			if j.known(c) {
				if !j.holds(c) {
					continue
				}
				if longCheck {
					longCheck = false
					tt &^= fCheckLose
				}
				if longChase {
					longChase = false
					tt &^= fChaseLose
				}
			} else {
				e := j.flag(c)
				if longCheck {
					if e&fCheckWin == 0 {
						longCheck = false
						tt &^= fCheckLose
					} else {
						empty = false
					}
				}
				if longChase {
					if e&fChaseWin == 0 {
						longChase = false
						tt &^= fChaseLose
					} else {
						list = append(list, m)
					}
				}
			}
			if !longChase && !longCheck {
				break
			}
		}
		switch {
		case longChase && longCheck:
			j.fail(h, "both a check and a chase loss flag")
		case longCheck && empty:
			checkListEmpty()
		case longChase:
			resolveLongChase(list)
		}
	}
	return tt
}

// removeWin returns the flags of position h without the win flag whose
// cycle does not hold: the side to move must have an answer to the
// check (or a flight from the chase) into a position where the other
// side may lose by the rule, and for a chase, one after which the other
// side keeps attacking the piece that fled (xiangqitb's
// check_remove_win).
func (j *judge) removeWin(h uint64, tt uint32, step int) uint32 {
	st, rb := j.load(h)
	var buf [128]xq.Move
	q := j.quiets(&st, h, buf[:0])
	if tt&fCheckWin != 0 {
		for _, c, ok := q.next(); ok; _, c, ok = q.next() {
			if !j.known(c) && j.flag(c)&fCheckLose != 0 {
				return tt
			}
		}
		return tt &^ fCheckWin
	}
	actuallyLong := func(nb *ruleBoard, list []xq.Move, evt spots) bool {
		if len(list) == 0 {
			j.fail(h, "a long chase without a chasing move")
			return false
		}
		return nb.alwaysChases(list, evt)
	}
	var b2 [128]xq.Move
	if tt&fChaseWin != 0 && tt&fChaseLose != 0 {
		drawMoves := tt&fCapDraw != 0
		type flight struct {
			evt spots
			c   uint64
			m   xq.Move
		}
		var flights []flight
		for m, c, ok := q.next(); ok; m, c, ok = q.next() {
			if j.known(c) {
				if !drawMoves && j.holds(c) {
					drawMoves = true
				}
				continue
			}
			e := j.flag(c)
			if e&fChaseLose != 0 {
				if evt, ok := rb.evades(m); ok {
					if step == 1 {
						return tt
					}
					flights = append(flights, flight{evt, c, m})
				}
			}
			if !drawMoves && e&fChaseWin == 0 {
				drawMoves = true
			}
		}
		if len(flights) == 0 {
			return tt &^ fChaseWin
		}
		considerDouble := !(drawMoves && step <= 2)
		for _, fg := range flights {
			e := j.flag(fg.c)
			double := considerDouble && e&fChaseWin != 0
			if double {
				_, double = rb.chases(fg.m)
			}
			cst, nb := j.load(fg.c)
			q2 := j.quiets(&cst, fg.c, b2[:0])
			var list2, list3 []xq.Move
			long, findChase, otherChase := true, false, false
			for m2, c2, ok := q2.next(); ok; m2, c2, ok = q2.next() {
				if j.known(c2) {
					if j.holds(c2) {
						long = false
						if !double {
							break
						}
					}
					continue
				}
				e2 := j.flag(c2)
				if e2&fChaseWin == 0 {
					long = false
					if !double {
						break
					}
					if step == 3 && !otherChase && e2&fChaseLose != 0 && e2&fCheckWin == 0 {
						if _, ok := nb.evades(m2); ok {
							otherChase = true
						}
					}
				} else {
					list2 = append(list2, m2)
				}
				if double && e2&fChaseWin != 0 && e2&fChaseLose != 0 {
					if _, ok := nb.evades(m2); ok {
						findChase = true
						list3 = append(list3, m2)
					}
				}
			}
			if findChase && (!otherChase || step <= 2) {
				for _, m3 := range list3 {
					if !nb.newAttacks(m3).and(fg.evt).empty() {
						return tt
					}
				}
			}
			if long && actuallyLong(&nb, list2, fg.evt) {
				return tt
			}
		}
		return tt &^ fChaseWin
	}
	for m, c, ok := q.next(); ok; m, c, ok = q.next() {
		if j.known(c) || j.flag(c)&fChaseLose == 0 {
			continue
		}
		evt, ok := rb.evades(m)
		if !ok {
			continue
		}
		if step == 1 {
			return tt
		}
		cst, nb := j.load(c)
		q2 := j.quiets(&cst, c, b2[:0])
		long := true
		var list2 []xq.Move
		for m2, c2, ok := q2.next(); ok; m2, c2, ok = q2.next() {
			if j.known(c2) {
				if j.holds(c2) {
					long = false
					break
				}
				continue
			}
			if j.flag(c2)&fChaseWin == 0 {
				long = false
				break
			}
			list2 = append(list2, m2)
		}
		if long && actuallyLong(&nb, list2, evt) {
			return tt
		}
	}
	return tt &^ fChaseWin
}

// build declares lost the positions of root's opponent that may lose by
// a rule and not win by it, then spreads the new results back by
// retrograde steps: root's wins, then the opponent's losses (a position
// with a capture to a draw never loses here). It reports whether it
// declared any. When the sweeps check one image of each mirror pair, so
// does build: it decides a shadow with its image, and its levels list
// the images only, whose parents' images are the shadows' parents.
func (j *judge) build(root xq.Side, round int) bool {
	opp := root.Other()
	var gen []uint64
	for w, x := range j.listed { // a position with working flags is listed
		for x &= 0x5555555555555555 << opp; x != 0; x &= x - 1 {
			h := uint64(w)<<6 + uint64(bits.TrailingZeros64(x))
			if j.state(h) != stUnknown {
				continue
			}
			f := j.flag(h)
			var r Rule
			switch {
			case f&(fCheckLose|fCheckWin) != 0:
				if f&fCheckLose != 0 && f&fCheckWin == 0 && f&fCapDraw == 0 {
					r = RuleCheck
				}
			case f&(fChaseLose|fChaseWin) != 0:
				if f&fChaseLose != 0 && f&fChaseWin == 0 && f&fCapDraw == 0 {
					r = RuleChase
				}
			}
			if r != RuleNone {
				j.decide(h, stHolds, round, r, 0)
				gen = append(gen, h)
				if m := j.image(h); m != h { // a shadow, never listed
					j.decide(m, stHolds, round, r, 0)
				}
			}
		}
	}
	if len(gen) == 0 {
		return false
	}
	sp := j.newSpreader()
	mover := root
	for n := 1; ; n++ {
		next := sp.level(gen, mover == root, round, n)
		if len(next) == 0 {
			return true
		}
		gen = next
		mover = mover.Other()
	}
}

// spreadChunk is how many positions of a retrograde level a worker of
// build takes at a time.
const spreadChunk = 1 << 10

// spreader runs build's retrograde levels on the judge's workers. A
// level's decisions are those of one goroutine taking the level's
// positions in order, each parent still undecided decided by the first
// position that reaches it (a win takes that position's rule), and the
// next level listed in the order they were decided: the level is cut
// into batches of chunks; the workers find each chunk's candidates
// (Parents and, for a loss, the look at every quiet move: the cost)
// while nothing is written, then one goroutine decides them, chunk by
// chunk in the level's order, skipping the positions already decided.
// A candidate found twice is found with the same answer: a loss reads
// only wins, which a loss level does not write, and a win reads nothing
// but its finder's rule.
type spreader struct {
	j     *judge
	chunk int
	// found holds each chunk's candidates of the batch in progress.
	found [][]candidate
}

// candidate is a parent that a level may decide, its mirror image
// (itself when build looks at both images, or the parent is its own),
// and the rule they take.
type candidate struct {
	h, m uint64
	rule Rule
}

// newSpreader returns a spreader on the judge's workers.
func (j *judge) newSpreader() *spreader {
	chunk := j.spreadChunk
	if chunk <= 0 {
		chunk = spreadChunk
	}
	return &spreader{j: j, chunk: chunk, found: make([][]candidate, 4*max(j.workers, 1))}
}

// level decides the undecided parents of gen, the positions decided at
// the level before, n plies from the declared losses: wins if win, else
// the parents all of whose quiet moves lead to wins. It returns them in
// the order one goroutine would have decided them (the images only,
// when build looks at one image of each pair).
func (s *spreader) level(gen []uint64, win bool, round, n int) []uint64 {
	j := s.j
	state := stHolds
	if win {
		state = stWin
	}
	var next []uint64
	if !win {
		clear(j.notLost) // the level's decisions are losses: a parent not lost stays so through the level
	}
	batch := s.chunk * len(s.found)
	for lo := 0; lo < len(gen); lo += batch {
		part := gen[lo:min(lo+batch, len(gen))]
		chunks := (len(part) + s.chunk - 1) / s.chunk
		chunkOf := func(c int) []uint64 { return part[c*s.chunk : min((c+1)*s.chunk, len(part))] }
		j.onWorkers(uint64(chunks), func(c uint64) bool {
			s.found[c] = j.candidates(chunkOf(int(c)), win, round, s.found[c][:0])
			return false
		})
		for c := range chunks {
			for _, x := range s.found[c] {
				if j.state(x.h) != stUnknown {
					continue // decided by an earlier position of the level
				}
				j.decide(x.h, state, round, x.rule, n)
				if x.m != x.h {
					if j.state(x.m) != stUnknown {
						j.fail(x.m, "the mirror image of an undecided parent is decided")
					}
					j.decide(x.m, state, round, x.rule, n)
				}
				next = append(next, min(x.h, x.m))
			}
		}
	}
	return next
}

// candidates appends to dst, in order, the parents of the positions of
// part that the level may decide: those undecided, for a win with the
// rule of the position reaching it, for a loss those without a capture
// to a draw whose every quiet move leads to a win, with the least rule
// of this round's among those wins. When build looks at one image of
// each pair, a parent comes with its mirror image, a parent of the
// shadow of the position of part, and they are judged as one. It reads
// the judge's arrays and writes only notLost, whose bits say what any
// worker would find, and, if the rounds carry step 1, the stale mark of
// every undecided parent (its child is decided: carriedSweeps checks it
// again), a bit no worker reads here.
func (j *judge) candidates(part []uint64, win bool, round int, dst []candidate) []candidate {
	var buf, ubuf [128]xq.Move
	var st, mst state
	for _, h := range part {
		j.l.load(h, &st)
		img, ms := h, (*state)(nil) // h's image, once a parent is undecided
		var rule Rule
		if win {
			rule = j.decision(h).rule
		}
		for _, m := range st.b.Unmoves(st.pl.side.Other(), ubuf[:0]) {
			back := xq.Move{From: m.To, To: m.From} // from the parent to h
			u := st.moved(h, back)
			if j.state(u) != stUnknown {
				continue
			}
			um := u
			if j.shadow != nil {
				if ms == nil {
					if img, ms = j.l.mirrorHash(st.pl), &st; img != h {
						j.l.load(img, &mst)
						ms = &mst
					}
				}
				um = ms.moved(img, mirrorMove(back))
			}
			if j.carry {
				j.orFlag(u, fStale)
				if um != u {
					j.orFlag(um, fStale)
				}
			}
			if win {
				dst = append(dst, candidate{u, um, rule})
				continue
			}
			slot := j.slot(u)
			if j.load16(slot)&fCapDraw != 0 {
				continue
			}
			if atomic.LoadUint64(&j.notLost[slot>>6])>>(slot&63)&1 != 0 {
				continue // looked at for another position of the level
			}
			if lost, r := j.lostTo(u, round, buf[:0]); lost {
				dst = append(dst, candidate{u, um, r})
			} else {
				atomic.OrUint64(&j.notLost[slot>>6], 1<<(slot&63))
				if um != u {
					s := j.slot(um)
					atomic.OrUint64(&j.notLost[s>>6], 1<<(s&63))
				}
			}
		}
	}
	return dst
}

// lostTo reports whether every quiet move of undecided position u leads
// to a win, and the least rule of this round's among those wins.
func (j *judge) lostTo(u uint64, round int, buf []xq.Move) (bool, Rule) {
	st, _ := j.load(u)
	q := j.quiets(&st, u, buf)
	r := RuleNone
	for _, c, ok := q.next(); ok; _, c, ok = q.next() {
		s := j.state(c)
		if s == stAbsent {
			continue // no legal move (quietMoves)
		}
		if s != stWin {
			return false, RuleNone
		}
		if d, ok := j.decidedAt(c); ok && d.round == uint8(round) && (r == RuleNone || d.rule < r) {
			r = d.rule
		}
	}
	return true, r
}

// decision is a rule decision: the round, the rule, the plies.
type decision struct {
	round uint8
	rule  Rule
	plies uint16
}

// decide records a rule decision of undecided position h: its state
// (stWin or stHolds, a loss), and in its slot, whose flags the pass no
// longer reads, the round less one (4 bits), the rule (2) and the plies
// (8): what a record holds (Judge). A decision beyond it fails the pass.
func (j *judge) decide(h uint64, s uint64, round int, r Rule, plies int) {
	if round < 1 || round > maxRuleRounds || plies >= ruleRoundSpan {
		j.fail(h, fmt.Sprintf("decided in round %d after %d plies, beyond what a record holds (%d rounds, %d plies)",
			round, plies, maxRuleRounds, ruleRoundSpan-1))
		round, plies = min(max(round, 1), maxRuleRounds), min(plies, ruleRoundSpan-1)
	}
	j.setState(h, s)
	j.store16(j.slot(h), uint32(round-1)|uint32(r)<<4|uint32(plies)<<6)
}

// decision returns the decision of position h, which the rules decided.
func (j *judge) decision(h uint64) decision {
	x := j.load16(j.slot(h))
	return decision{round: uint8(x&15) + 1, rule: Rule(x >> 4 & 3), plies: uint16(x >> 6)}
}

// decidedAt returns the decision of position h and true if the rules
// decided it.
func (j *judge) decidedAt(h uint64) (decision, bool) {
	if !j.isUnknown(h) || j.state(h) == stUnknown {
		return decision{}, false
	}
	return j.decision(h), true
}

// Rule-decided records keep the game's value and remoteness form: the
// remoteness of a position the rules decide is ruleBase + 256*(round-1)
// + plies, above every remoteness of the game without the rules, so a
// winner prefers a mate to a rule win and an earlier round to a later
// one, and a remoteness one more than its best child's, as the solver's
// other records. The rule itself is not in the record: RuleBroken reads
// it off the declared position.
const (
	ruleBase      = 4096
	ruleRoundSpan = 256
	maxRuleRounds = 16
)

// Judges reports whether the rules may decide positions of tier t
// (RulesApply).
func (g *Game) Judges(t tiergame.Tier) bool { return g.RulesApply(t) }

// Judge runs the rule pass and gives j.Yield each decision's record as
// the pass reads it off its own arrays, after every value has been read
// (tiergame.Judge).
func (g *Game) Judge(t tiergame.Tier, j tiergame.Judging) error {
	return g.judgeTier(t, judgeConfig{childrenDone: j.ChildrenDone, valuesDone: j.ValuesDone}, j.Value, j.Child, j.Progress, func(d RuleDecision) error {
		return j.Yield(tiergame.Judged{Pos: d.Pos, Value: d.Value, Remoteness: ruleBase + ruleRoundSpan*(d.Round-1) + d.Plies})
	})
}

// RuleRecord decodes a record: round and plies of one the rules decided.
func (g *Game) RuleRecord(v tiergame.Value, remoteness int) (round, plies int, ok bool) {
	if g.rules == RulesNone || (v != tiergame.Win && v != tiergame.Lose) || remoteness < ruleBase {
		return 0, 0, false
	}
	r := remoteness - ruleBase
	return 1 + r/ruleRoundSpan, r % ruleRoundSpan, true
}

// RuleBroken names the rule the side to move at p broke, p a position
// the rules declared lost: perpetual check when it has a legal move that
// checks, else perpetual chase. (A declared position whose side had a
// checking move into the cycle was judged by the check rule first, as
// xiangqitb does.)
func (g *Game) RuleBroken(t tiergame.Tier, p tiergame.Position) string {
	l := g.layout(t)
	if l == nil || uint64(p) >= l.size {
		return RuleNone.String()
	}
	var st state
	if !l.load(uint64(p), &st) {
		return RuleNone.String()
	}
	rb := ruleBoard{b: st.b, turn: st.pl.side}
	var buf [128]xq.Move
	for _, m := range rb.legalQuiets(rb.turn, buf[:0]) {
		if rb.givesCheck(m) {
			return RuleCheck.String()
		}
	}
	return RuleChase.String()
}
