package solver

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
)

// reacher runs the reachability half of a run.
type reacher struct {
	*Run
	expanded atomic.Uint64 // positions expanded, for progress
	pending  *levelWrite   // the last level file, written in the background
	next     *handoff      // the next tier's children of the last tier expanded
	// awaiting are tiers that handed their children in the next tier over
	// in memory, not in partial level files: each is recorded as expanded
	// once that child is recorded as reached.
	awaiting []awaitingReach
}

// awaitingReach records a tier as expanded once child is reached.
type awaitingReach struct {
	child    tiergame.Tier
	expanded func()
}

// levelPath is where a tier's full level file lives.
// The manifest's record wins over the name runfolder.LevelFile gives: a folder
// written before names were portable keeps its files' names.
func (r *Run) levelPath(t tiergame.Tier) string {
	return filepath.Join(r.Dir, r.Manifest.LevelPath(r.Game, t))
}

// partialDir holds the partial level files of child tier c made by
// expanding tier p.
func (r *Run) partialDir(c, p tiergame.Tier) string {
	return filepath.Join(r.Dir, "partials", fmt.Sprint(c), fmt.Sprintf("from%d", p))
}

// reachTier produces tier t's full level file: the start position (or
// the tier's seeds) and the merge of the partials its parents left, closed
// under t's own moves if t is loopy (expanding those positions into
// partials for its children on the way). Then, if t is not loopy, it
// expands t for its children. In an exhaustive run every position is
// reachable and nothing is expanded.
func (rc *reacher) reachTier(ctx context.Context, t tiergame.Tier) (*bitarray.Set, error) {
	if rc.exhaustive() { // nothing to merge or close: the tier is full
		defer rc.clock(t, "reach").phase("legal", true)()
		return reach.FullTier(ctx, rc.Game, t, rc.Workers)
	}
	var files []string
	seeded := len(rc.Manifest.Seeds) > 0
	if f, ok := rc.seedFile(t); ok {
		files = append(files, f)
	}
	h := rc.next
	rc.next = nil
	if h != nil && h.tier != t {
		h = nil
	}
	dirs, _ := filepath.Glob(filepath.Join(rc.Dir, "partials", fmt.Sprint(t), "*"))
	for _, d := range dirs {
		if h != nil && d == rc.partialDir(t, h.parent) {
			continue // in h.set already
		}
		fs, _ := filepath.Glob(filepath.Join(d, "*.dat.gz"))
		files = append(files, fs...)
	}
	done := rc.clock(t, "reach").phase("merge", true)
	var set *bitarray.Set
	if h != nil {
		set = h.set
	} else {
		set = bitarray.New(0, rc.Game.TierSize(t))
	}
	// A run from seeds starts from them, not from the start position.
	set, err := reach.MergeOnto(ctx, rc.Game, t, set, files, !seeded, rc.Workers)
	done()
	if err != nil {
		return nil, err
	}
	if rc.Graph.Loopy[t] {
		if err := rc.close(ctx, t, set); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// close closes loopy tier t's set under its own moves (reach.CloseTier) and
// writes the partial level files of its children (writeShares): for a
// loopy tier a worker's share is its part of every round rather than one
// range.
func (rc *reacher) close(ctx context.Context, t tiergame.Tier, set *bitarray.Set) error {
	if err := rc.preparePartials(t); err != nil {
		return err
	}
	done := rc.clock(t, "reach").phase("close", true)
	shares, err := reach.CloseTier(ctx, rc.Game, t, set, rc.Graph.Children[t], work.Effort{Workers: rc.Workers, Ranges: rc.Ranges, Done: &rc.expanded})
	done()
	if err != nil {
		return err
	}
	defer rc.clock(t, "reach").phase("partials", true)()
	return rc.writeShares(ctx, t, shares)
}

// expand runs reach.ExpandRange over ranges of set on the workers, each worker
// adding the children of its ranges to child sets of its own, and writes
// their union as the partial level files of t's children (writeShares).
func (rc *reacher) expand(ctx context.Context, t tiergame.Tier, set *bitarray.Set) error {
	if err := rc.preparePartials(t); err != nil {
		return err
	}
	clk := rc.clock(t, "reach")
	done := clk.phase("expand", true)
	slots := reach.NewSlots(rc.Workers, func() []reach.Target { return reach.ChildTargets(rc.Game, rc.Graph.Children[t]) })
	err := work.ForRanges(ctx, bitarray.NewRankedWorkers(set, rc.Workers), rc.Workers, rc.Ranges, func(ctx context.Context, r plan.Range) error {
		targets := slots.Get()
		defer slots.Put(targets)
		_, err := reach.ExpandRange(ctx, rc.Game, t, set, r, targets, &rc.expanded)
		return err
	})
	done()
	if err != nil {
		return err
	}
	defer clk.phase("partials", true)()
	return rc.writeShares(ctx, t, slots.Used())
}

// writeShares joins the workers' child sets (shares[k] is worker k's) into
// one set per child tier, writes each as partial level files of t for that
// child, and hands the set of the tier reached next to its merge. Joining
// first costs a pass over memory and saves, per extra worker, a partial's
// compression and its decompression by the merge: with one partial per
// worker, neither scaled with the workers. A joined set is written in
// pieces of consecutive positions, a few per worker, each file named with
// its first position, so that writing it does scale.
//
// The set handed over is not written at all unless partials are kept: the
// next step merges it from memory, and t is recorded as expanded only once
// that tier's level file is recorded (step), so a run that stops before
// then expands t again when it resumes. It saves a partial's compression
// per tier (Connect Four 6x4: 0.13 s of a 2.2 s reachability on one
// worker), which scaled poorly with the workers.
func (rc *reacher) writeShares(ctx context.Context, t tiergame.Tier, shares [][]reach.Target) error {
	rc.next = nil
	if len(shares) == 0 || len(shares[0]) == 0 {
		return nil
	}
	targets := joinShares(ctx, shares, rc.Workers)
	next, hasNext := rc.nextTier(t)
	parts := 1 // one worker gains nothing from pieces, and each costs a file
	if rc.Workers > 1 {
		parts = piecesPerWorker * rc.Workers
	}
	var eg errgroup.Group
	for _, tg := range targets {
		if hasNext && tg.Tier == next {
			rc.next = &handoff{tier: next, parent: t, set: tg.Set}
			if !rc.KeepPartials {
				continue
			}
		}
		for _, piece := range pieces(tg.Set, parts) {
			work.GoBusy(ctx, &eg, func() error {
				return rc.writePartial(reach.Target{Tier: tg.Tier, Set: piece}, t)
			})
		}
	}
	return eg.Wait()
}

// joinShares ORs each worker's set of a child tier into the first
// worker's, in chunks of words on the workers, and returns the first
// worker's targets. Every worker's targets list the same tiers in the
// same order.
func joinShares(ctx context.Context, shares [][]reach.Target, workers int) []reach.Target {
	first := shares[0]
	for i, tg := range first {
		dst := tg.Set.Words()
		srcs := make([][]uint64, 0, len(shares)-1)
		for _, ts := range shares[1:] {
			srcs = append(srcs, ts[i].Set.Words())
		}
		work.ForChunks(ctx, workers, len(dst), func(lo, hi int) {
			for _, src := range srcs {
				for k := lo; k < hi; k++ {
					dst[k] |= src[k]
				}
			}
		})
	}
	return first
}

// pieces cuts s into at most n sets over consecutive ranges that start on
// a word and share s's words, with about equal member counts (a symmetric
// run's canonical positions crowd some ranges), none shorter than
// minPieceWords words (a file's fixed costs are not worth splitting small
// sets).
func pieces(s *bitarray.Set, n int) []*bitarray.Set {
	words := s.Words()
	n = max(1, min(n, len(words)/minPieceWords))
	total := s.Count()
	if n == 1 || total == 0 {
		return []*bitarray.Set{s}
	}
	cuts := []int{0}
	var seen uint64
	for i, w := range words {
		if len(cuts) < n && seen*uint64(n) >= total*uint64(len(cuts)) &&
			i-cuts[len(cuts)-1] >= minPieceWords && len(words)-i >= minPieceWords {
			cuts = append(cuts, i)
		}
		seen += uint64(bits.OnesCount64(w))
	}
	cuts = append(cuts, len(words))
	out := make([]*bitarray.Set, 0, len(cuts)-1)
	for k := range len(cuts) - 1 {
		lo, hi := cuts[k], cuts[k+1]
		size := uint64(hi-lo) * 64
		if hi == len(words) {
			size = s.Len() - uint64(lo)*64
		}
		out = append(out, bitarray.FromWords(s.Base()+uint64(lo)*64, size, words[lo:hi]))
	}
	return out
}

// minPieceWords is the fewest words (64 positions each) of a piece of a
// partial level file: 512 KiB of bit array, a few milliseconds to
// compress, against a fraction of one to create, write and later open a
// file. (With 1<<13, Quixo 4x4's middle tiers, of a few million
// positions, were cut into eight pieces, and writing and merging them took
// longer on 2 workers than one file did on 1.)
const minPieceWords = 1 << 16

// piecesPerWorker is how many pieces a partial is cut into per worker, so
// that pieces that compress slower than others do not leave cores idle.
const piecesPerWorker = 4

// handoff is a child tier's set that the last expansion found, kept for
// the child's merge when it is the tier reached next: the merge starts
// from it instead of a partial level file (written only when partials are
// kept). Partials of other parents are read as before.
type handoff struct {
	tier, parent tiergame.Tier
	set          *bitarray.Set
}

// nextTier returns the tier reached after t, if any.
func (rc *reacher) nextTier(t tiergame.Tier) (tiergame.Tier, bool) {
	i := slices.Index(rc.Graph.Tiers, t)
	if i < 0 || i+1 >= len(rc.Graph.Tiers) {
		return 0, false
	}
	return rc.Graph.Tiers[i+1], true
}

// preparePartials empties the folders that expanding t writes partials to
// (leftovers of a crashed run would otherwise join the merge).
func (rc *reacher) preparePartials(t tiergame.Tier) error {
	for _, c := range rc.Graph.Children[t] {
		dir := rc.partialDir(c, t)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// writePartial writes children of parent in tier tg.Tier as a partial
// level file named with its set's first position, on one goroutine (the
// pieces of a partial are written at once).
func (rc *reacher) writePartial(tg reach.Target, parent tiergame.Tier) error {
	if tg.Set.Count() == 0 {
		return nil
	}
	g := rc.Game
	dir := rc.partialDir(tg.Tier, parent)
	nameFor := func(typ levelfile.Type) string {
		return filepath.Join(dir, levelfile.PartialName(g.Name(), g.Option(), uint64(tg.Tier), tg.Set.Base(), typ))
	}
	o := rc.PartialOptions
	o.Game, o.Symmetric = g.Name(), quotient.Is(g)
	o.NoSync = true // step syncs the file system once before recording
	o.Workers = 1
	_, err := levelfile.WriteFileNamed(nameFor, tg.Set, &o)
	return err
}
