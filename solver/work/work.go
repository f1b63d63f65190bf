// Package work spreads a unit of work over goroutines: how many and how
// finely (Effort), over what (ForEach, ForChunks, ForRanges), and what it
// reports meanwhile (LevelProgress, a Meter of busy time); none of it
// changes what the unit computes.
package work

import (
	"context"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/cpu"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// A worker's state that it writes for every position (its move lists'
// headers, scratch slices, queues by level) is kept on cache lines of its
// own. Small objects that different workers allocate often sit side by
// side in memory, and a line that two cores write bounces between their
// caches (false sharing): with two workers, the reachability of Connect
// Four 6x4 used 18% more CPU than with one while two workers' 24-byte
// arrays of list headers could share a line; with them apart, 8%.

// apart holds a value on cache lines of its own.
type apart[T any] struct {
	_ cpu.CacheLinePad
	v T
	_ cpu.CacheLinePad
}

// NewApart returns a zero T on cache lines of its own.
func NewApart[T any]() *T { return &new(apart[T]).v }

// MakeApart returns n zero Ts on cache lines of their own. The slice's
// capacity is n: an append moves it out of its padding.
func MakeApart[T any](n int) []T {
	size := max(unsafe.Sizeof(*new(T)), 1)
	pad := int((unsafe.Sizeof(cpu.CacheLinePad{}) + size - 1) / size)
	s := make([]T, n+2*pad)
	return s[pad : pad+n : pad+n]
}

// Meter adds up the time worker goroutines spend working, so a
// phase's serial time can be told apart from its parallel time even
// inside the units of work: a phase of wall time W in which n workers
// were busy B in all ran about (n*W - B)/(n - 1) alone.
type Meter struct{ ns atomic.Int64 }

// Background starts timing work that runs beside the workers, off the
// critical path (a file written while the next tier is solved); call the
// result when it ends, before the run can wait for it. Such work takes
// cores from the workers, so its time counts as busy: otherwise the
// workers' lost time would look like serial time. Its wall time stands for
// its CPU time: such work computes (compresses, decompresses, ranks) and
// does not sync, and where it compresses on several goroutines the wall
// time is the smaller, so the serial time stays an upper bound.
func (m *Meter) Background() func() {
	t0 := time.Now()
	return func() { m.ns.Add(int64(time.Since(t0))) }
}

type meterKey struct{}

// WithMeter returns ctx carrying m; units pass it on to their workers.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// GoBusy runs f on eg, adding its time to the meter ctx carries, if any
// (a cluster worker's units carry none).
func GoBusy(ctx context.Context, eg *errgroup.Group, f func() error) {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	if m == nil {
		eg.Go(f)
		return
	}
	eg.Go(func() error {
		t0 := time.Now()
		defer func() { m.ns.Add(int64(time.Since(t0))) }()
		return f()
	})
}

// ForEach calls f(ctx, i) for every i in [0, n) on at most workers
// goroutines, each taking the next i when it is done with one. No
// goroutine is started per item: a worker that finishes an item goes on
// at once instead of waiting for the next one to be started and scheduled.
// (On 2 cores the wall time was the same as with a goroutine per range;
// the workers' busy time, which the phase clock reads, has no gaps.) The
// first error cancels the items not yet taken and is returned.
func ForEach(ctx context.Context, workers, n int, f func(ctx context.Context, i int) error) error {
	if n <= 0 {
		return nil
	}
	eg, ectx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for range min(max(workers, 1), n) {
		GoBusy(ctx, eg, func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return nil
				}
				if err := ectx.Err(); err != nil {
					return err
				}
				if err := f(ectx, i); err != nil {
					return err
				}
			}
		})
	}
	return eg.Wait()
}

// Effort says how a unit function spreads its work, none of which changes
// what it computes.
type Effort struct {
	// Workers is how many goroutines work at once (at least 1).
	Workers int
	// Ranges is how many ranges a tier's positions are cut into; 0 lets
	// the unit choose (plan.RangesFor).
	Ranges int
	// Done, if not nil, counts positions as they are visited: progress.
	Done *atomic.Uint64
	// Levels, if not nil, follows a loopy tier's retrograde analysis
	// level by level once its positions are visited: progress.
	Levels *LevelProgress
	// Lean solves a loopy tier without its positions' longest wins in
	// other tiers kept beside its cells (half a byte a hash less; a
	// position that loses looks them up again instead): for a budget
	// that would not hold them.
	Lean bool
	// Paths, if not nil, forces paths small games do not take by
	// themselves (tests); nil everywhere else.
	Paths *Paths
	// KidsDone, if not nil, is called once, on the goroutine that solves
	// the tier, when the solve reads the child tiers no more (before a
	// solve that succeeds returns): the caller may free them then (the
	// rule pass of a large tier runs for long after its first look at
	// the children).
	KidsDone func()
	// Scratch is a folder on disk where a step may set memory aside for
	// a while (a loopy tier's records through its rule pass); empty: the
	// system's temporary folder.
	Scratch string
}

// Paths forces the rarer paths of the solvers, which small games do not
// take by themselves, so that tests reach them; the records are the same
// whichever paths are taken.
type Paths struct {
	// Verify: the loopy solver counts no children (every position that
	// can lose checks its children instead).
	Verify bool
	// Lean: loopy tiers keep no longest wins elsewhere (Effort.Lean).
	Lean bool
	// Narrow: the cells of a byte hold remoteness up to 2 only, so that
	// they widen on small games.
	Narrow bool
	// Ranked: a loopy tier's cells are by rank however dense it is.
	Ranked bool
	// Parts: loopy tiers are solved in that many parts, in this process,
	// as a cluster's workers solve them.
	Parts int
	// Checkpoints: with Parts, every part is checkpointed and restored
	// after every level.
	Checkpoints bool
	// Notes, if not nil, counts the notes of levels the parts pass.
	Notes *atomic.Int64
}

// LevelProgress is where a loopy tier's retrograde analysis is: the phase
// (wins and losses, then ties), the level of remoteness it processes, and
// how many positions the levels processed so far decided.
type LevelProgress struct {
	ties    atomic.Bool
	level   atomic.Int64
	decided atomic.Uint64
	rules   atomic.Pointer[string]
}

// Rules says where the game's rules of play (tiergame.Judge), which run
// after the levels, are: a few words the progress shows instead of the
// levels'.
func (p *LevelProgress) Rules(detail string) { p.rules.Store(&detail) }

// RulesDetail is what Rules said last, or "".
func (p *LevelProgress) RulesDetail() string {
	if d := p.rules.Load(); d != nil {
		return *d
	}
	return ""
}

// Load returns the phase ("wins and losses" or "ties"), the level and the
// positions decided so far.
func (p *LevelProgress) Load() (phase string, level int, decided uint64) {
	phase = "wins and losses"
	if p.ties.Load() {
		phase = "ties"
	}
	return phase, int(p.level.Load()), p.decided.Load()
}

// chunkWords is the fewest words worth a goroutine of ForChunks.
const chunkWords = 1 << 15

// ForChunks calls f on consecutive chunks of [0, n) on up to workers
// goroutines.
func ForChunks(ctx context.Context, workers, n int, f func(lo, hi int)) {
	parts := max(1, min(workers, n/chunkWords))
	var eg errgroup.Group
	for k := range parts {
		GoBusy(ctx, &eg, func() error {
			f(n*k/parts, n*(k+1)/parts)
			return nil
		})
	}
	eg.Wait()
}

// ForRanges cuts the members of a set into shrinking ranges (ranges of
// them, or plan.RangesFor's when ranges is 0; plan.SplitShrinking) and runs f on
// each on workers goroutines, each taking the next range when it is done
// with one.
func ForRanges(ctx context.Context, set *bitarray.Ranked, workers, ranges int, f func(context.Context, plan.Range) error) error {
	if set.Total() == 0 {
		return nil
	}
	rs := plan.SplitShrinking(set, plan.RangesFor(set.Total(), workers, ranges))
	return ForEach(ctx, workers, len(rs), func(ctx context.Context, i int) error { return f(ctx, rs[i]) })
}

// Busy is the time the metered goroutines have been busy so far.
func (m *Meter) Busy() time.Duration { return time.Duration(m.ns.Load()) }

// Level records that the analysis finished level r, whose positions
// decided are decided.
func (p *LevelProgress) Level(r int, decided uint64) {
	p.level.Store(int64(r))
	p.decided.Add(decided)
}

// Ties records that the analysis went on to the ties.
func (p *LevelProgress) Ties() { p.ties.Store(true) }

// EachBatch calls f with the members of set in r, ascending, in batches,
// and stops early when ctx is cancelled or f fails.
func EachBatch(ctx context.Context, set *bitarray.Set, r plan.Range, f func(ps []uint64) error) error {
	buf := make([]uint64, 4096)
	cursor := uint64(0)
	if r.Lo > set.Base() {
		cursor = r.Lo - set.Base()
	}
	for {
		var ps []uint64
		cursor, ps = set.NextMany(cursor, buf)
		if n := len(ps); n > 0 && ps[n-1] >= r.Hi {
			ps = ps[:slices.IndexFunc(ps, func(p uint64) bool { return p >= r.Hi })]
			cursor = set.Len() // this batch is the last
		}
		if len(ps) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := f(ps); err != nil {
			return err
		}
	}
}
