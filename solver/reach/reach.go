// Package reach finds the reachable positions of a tier game, as units
// of work: a tier's set merged from its parents' partial level files
// (MergeTier), a range of a loop-free tier expanded into its children
// (ExpandRange), a loopy tier closed under its own moves (CloseTier), and
// the level files written.
package reach

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/internal/bytier"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
)

// The units of reachability, as plain functions of (game, tier, range,
// inputs); the embedded run (solver.Run.Reach) and a cluster worker call
// the same ones, so both write the same bytes:
//
//   - MergeTier: a tier's set from its parents' partial level files;
//   - ExpandRange: a range of a loop-free tier into sets of its children;
//   - CloseTier: a loopy tier closed under its own moves, as one unit;
//   - WriteLevel: a tier's full level file from its set.

// DefaultPartialLevel is the gzip level of partial level files: they are
// read once, by their merge, so they are compressed fast.
const DefaultPartialLevel = 1

// LoadLevel reads tier t's level file at path into a set over t's hash
// space; a file whose positions fall outside it is an error.
func LoadLevel(path string, g tiergame.Game, t tiergame.Tier) (*bitarray.Set, error) {
	f, err := levelfile.Open(path, &levelfile.Options{MaxSpan: g.TierSize(t) + 1})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	set := bitarray.New(0, g.TierSize(t))
	if err := f.ReadInto(set); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return set, nil
}

// LoadLevelWindow reads the members of tier t's level file at path in
// hashes [lo, hi) into a set over that range: what a part of a loopy
// tier solved in parts holds of its tier's set (its own hashes).
func LoadLevelWindow(path string, g tiergame.Game, t tiergame.Tier, lo, hi uint64) (*bitarray.Set, error) {
	if lo > hi || hi > g.TierSize(t) {
		return nil, fmt.Errorf("%s tier %d: hashes [%d, %d) are not a window of its %d", g.Name(), t, lo, hi, g.TierSize(t))
	}
	f, err := levelfile.Open(path, &levelfile.Options{MaxSpan: g.TierSize(t) + 1})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	set := bitarray.New(lo, hi-lo)
	if err := f.ReadWindow(set); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return set, nil
}

// MergeTier is tier t's set before closure: the union of the partial level
// files its parents' units wrote for it, and the start position when t is
// the start tier.
func MergeTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, partials []string, workers int) (*bitarray.Set, error) {
	return MergeOnto(ctx, g, t, bitarray.New(0, g.TierSize(t)), partials, true, workers)
}

// MergeOnto adds to set, over tier t's hash space, the members of files
// and, if start is set and t is the start tier, the start position.
func MergeOnto(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Set, files []string, start bool, workers int) (*bitarray.Set, error) {
	if st, p := g.Start(); start && st == t {
		set.Add(uint64(p))
	}
	// Merge straight into the tier's set: one bit array, not two.
	if err := levelfile.MergeInto(ctx, set, files, &levelfile.MergeOptions{Workers: workers}); err != nil {
		return nil, fmt.Errorf("tier %d: %w", t, err)
	}
	return set, nil
}

// WriteLevel writes tier t's full level file from its set, with o (its
// Game is set to g's name, and Symmetric when g is a quotient). The bytes
// depend only on the set and o's Types, Dialect and Level.
func WriteLevel(path string, g tiergame.Game, set *bitarray.Set, o levelfile.WriteOptions) (levelfile.Result, error) {
	o.Game, o.Symmetric = g.Name(), quotient.Is(g)
	return levelfile.WriteFile(path, set, &o)
}

// ChildTargets returns empty sets over the hash spaces of the tiers cs, for
// ExpandRange.
func ChildTargets(g tiergame.Game, cs []tiergame.Tier) []Target {
	targets := make([]Target, 0, len(cs))
	for _, c := range cs {
		targets = append(targets, Target{Tier: c, Set: bitarray.New(0, g.TierSize(c))})
	}
	return targets
}

// CloseTier adds to set everything reachable by moves inside loopy tier t
// (whose child tiers other than t are children), expanding each position
// exactly once: its children in t go to the next round, its children in
// other tiers to child sets that each of the workers keeps across rounds.
// It returns those sets, one slice of targets per worker that did work:
// the partial level files of t's children are their union.
func CloseTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Set, children []tiergame.Tier, e work.Effort) ([][]Target, error) {
	workers, ranges, done := max(e.Workers, 1), e.Ranges, e.Done
	// A worker's targets: its child sets, kept across rounds, then its
	// set of positions found inside t in the current round (its own, so
	// adding to it needs no atomic operations).
	Slots := NewSlots(workers, func() []Target {
		return append(ChildTargets(g, children), Target{Tier: t, Set: bitarray.New(0, set.Len())})
	})
	frontier := set.Clone()
	for {
		more, err := expandFrontier(ctx, g, t, frontier, Slots, workers, ranges, done)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		// The next frontier is what this round found that is new, in
		// place of this round's (expanded, so no longer read): a third
		// set over the tier would cost its bits again. The found sets
		// are emptied for the next round.
		var found [][]uint64
		for _, ts := range Slots.Used() {
			found = append(found, ts[len(ts)-1].Set.Words())
		}
		nw, sw := frontier.Words(), set.Words()
		work.ForChunks(ctx, workers, len(sw), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				var w uint64
				for _, f := range found {
					w |= f[i]
					f[i] = 0
				}
				w &^= sw[i]
				nw[i] = w
				sw[i] |= w
			}
		})
	}
	var out [][]Target
	for _, ts := range Slots.Used() {
		ts[len(ts)-1] = Target{} // the found set, garbage from here on
		out = append(out, ts[:len(ts)-1])
	}
	return out, nil
}

// expandFrontier expands the members of frontier, a step of a closing
// (CloseTier, CloseRound), into the targets of slots on workers workers;
// more is false if the frontier was empty.
func expandFrontier(ctx context.Context, g tiergame.Game, t tiergame.Tier, frontier *bitarray.Set, slots *Slots, workers, ranges int, done *atomic.Uint64) (more bool, err error) {
	ranked := bitarray.NewRankedWorkers(frontier, workers)
	if ranked.Total() == 0 {
		return false, nil
	}
	return true, work.ForRanges(ctx, ranked, workers, ranges, func(ctx context.Context, r plan.Range) error {
		sl := slots.Get()
		defer slots.Put(sl)
		_, err := ExpandRange(ctx, g, t, frontier, r, sl, done)
		return err
	})
}

// Slots hands each range a worker's own targets: as many sets as there
// are workers, each made on first use, so a worker's ranges add to the
// same sets and adding needs no atomic operations.
type Slots struct {
	free  chan []Target
	mu    sync.Mutex
	made  [][]Target
	build func() []Target
}

// NewSlots returns the slots of workers workers, whose targets build makes.
func NewSlots(workers int, build func() []Target) *Slots {
	s := &Slots{free: make(chan []Target, workers), build: build}
	for range workers {
		s.free <- nil
	}
	return s
}

// Get takes a free slot's targets, making them on its first use.
func (s *Slots) Get() []Target {
	ts := <-s.free
	if ts == nil {
		ts = s.build()
		s.mu.Lock()
		s.made = append(s.made, ts)
		s.mu.Unlock()
	}
	return ts
}

// Put gives a slot back.
func (s *Slots) Put(ts []Target) { s.free <- ts }

// Used lists the targets of the Slots that were used, in the order they
// were first used.
func (s *Slots) Used() [][]Target {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.made)
}

// Target is a set that ExpandRange adds children of one tier to. Each
// worker has targets of its own, joined when the tier is done: one set
// shared by two workers with atomic adds made Connect Four 6x4's
// reachability 15% slower (its lines bounce between the cores' caches).
type Target struct {
	Tier tiergame.Tier
	Set  *bitarray.Set // over [0, TierSize(Tier))
}

// ExpandRange is the unit of reachability work: it generates the moves of
// every member of tier t's set in r and adds each child to the target of
// its tier. Children of tiers with no target are an error: the game's
// ChildTiers must list every tier its moves reach. It returns the number of
// positions expanded, and adds to done (if not nil) as it goes.
func ExpandRange(ctx context.Context, g tiergame.Game, t tiergame.Tier, set *bitarray.Set, r plan.Range, targets []Target, done *atomic.Uint64) (uint64, error) {
	tm := bytier.New(g, t)
	into := work.MakeApart[sink](len(tm.Tiers)) // where each child tier's positions go, if anywhere
	for i, c := range tm.Tiers {
		if k := targetIndex(targets, c); k >= 0 {
			s := targets[k].Set
			into[i] = sink{tier: c, words: s.Words(), base: s.Base(), n: s.Len(), ok: true}
		}
	}
	var expanded uint64
	err := work.EachBatch(ctx, set, r, func(ps []uint64) error {
		if done != nil {
			done.Add(uint64(len(ps)))
		}
		for _, p := range ps {
			v, lists, err := tm.Of(p)
			if err != nil {
				return err
			}
			expanded++
			if v != tiergame.Undecided {
				continue
			}
			for i, l := range lists {
				if len(l) == 0 {
					continue
				}
				if !into[i].ok {
					return fmt.Errorf("%s: a move from tier %d position %d reaches tier %d, which has no set to add to", g.Name(), t, p, tm.Tiers[i])
				}
				if err := into[i].add(g, l); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return expanded, err
}

// sink is a target's set as ExpandRange adds to it: its words and range,
// read once per range and kept on the worker's own cache lines instead of
// through the target, its set and its bit set for every child.
type sink struct {
	tier    tiergame.Tier
	words   []uint64
	base, n uint64
	ok      bool // the tier has a target
}

// add adds positions of the sink's tier to its set: all checked first,
// then set in the set's words (Set.Add per child took 3.2 s of the 12 CPU
// seconds of Quixo 4x4's reachability; this takes 1.6).
func (sk *sink) add(g tiergame.Game, ps []tiergame.Position) error {
	ws, base, n := sk.words, sk.base, sk.n
	for _, q := range ps {
		if uint64(q)-base >= n {
			return fmt.Errorf("%s: child position %d of tier %d is outside its hash space %d", g.Name(), q, sk.tier, n)
		}
	}
	for _, q := range ps {
		i := uint64(q) - base
		ws[i>>6] |= 1 << (i & 63)
	}
	return nil
}

// targetIndex returns the index of tier t's target, or -1.
func targetIndex(targets []Target, t tiergame.Tier) int {
	for i := range targets {
		if targets[i].Tier == t {
			return i
		}
	}
	return -1
}

// FullTier is the set of every position of tier t of an exhaustive game
// (tiergame.Exhaustive): every hash, or the legal ones of a game with
// tiergame.Legality, which it asks on the workers.
func FullTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, workers int) (*bitarray.Set, error) {
	lg, ok := g.(tiergame.Legality)
	if !ok {
		set := bitarray.New(0, g.TierSize(t))
		if n := set.Len(); n > 0 {
			set.AddRange(0, n-1)
		}
		return set, nil
	}
	n := g.TierSize(t)
	words := make([]uint64, (n+63)/64)
	const chunk = 1 << 12 // words a task: 2^18 positions
	tasks := (len(words) + chunk - 1) / chunk
	err := work.ForEach(ctx, workers, tasks, func(_ context.Context, i int) error {
		lo := i * chunk
		lg.LegalWords(t, tiergame.Position(64*lo), words[lo:min(lo+chunk, len(words))])
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n%64 != 0 {
		words[len(words)-1] &= 1<<(n%64) - 1 // the game's promise, kept
	}
	return bitarray.FromWords(0, n, words), nil
}

// SeedFile is a level file WriteSeeds wrote.
type SeedFile struct {
	Tier      tiergame.Tier
	Path      string
	Positions uint64
	Type      levelfile.Type
	Bytes     int64
}

// WriteSeeds writes the positions of each tier of g into dir, one full
// level file per tier (the smallest of the four types), named as a run's
// level files are, so that a run can start from them (Config.Seeds).
func WriteSeeds(dir string, g tiergame.Game, positions map[tiergame.Tier][]tiergame.Position) ([]SeedFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tiers := make([]tiergame.Tier, 0, len(positions))
	for t := range positions {
		tiers = append(tiers, t)
	}
	slices.Sort(tiers)
	var out []SeedFile
	for _, t := range tiers {
		set := bitarray.New(0, g.TierSize(t))
		for _, p := range positions[t] {
			if uint64(p) >= set.Len() {
				return nil, fmt.Errorf("%s: position %d outside tier %s (%d positions)", g.Name(), p, g.TierName(t), set.Len())
			}
			set.Add(uint64(p))
		}
		path := filepath.Join(dir, levelfile.FullName(g.Name(), g.Option(), uint64(t)))
		res, err := levelfile.WriteFile(path, set, &levelfile.WriteOptions{Game: g.Name()})
		if err != nil {
			return nil, err
		}
		out = append(out, SeedFile{Tier: t, Path: path, Positions: res.Count, Type: res.Header.Type, Bytes: res.Bytes})
	}
	return out, nil
}
