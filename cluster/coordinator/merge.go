package coordinator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/cluster/internal/unitio"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/chance"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"github.com/tiersolve/tiersolve/valuedb"
)

// The leader's merges: a tier's level file from its partial level files
// (and the tier's cut into units), its value database from its units'
// records, and at the end the start position's value. Each writes with
// the code and options of tierd solve, so a cluster run's files are the
// embedded run's bytes.

// mergeLevel merges a tier's partial level files, cuts the tier into
// ranges and records the cut, so its units start (they merge the same
// partials themselves); then it writes the full level file (all four
// types, the smallest kept: the same code and options as tierd solve),
// stores it on a majority of the coordinators and records it. The file is
// off the path from tier to tier: only the tier's solving needs it.
func (n *Node) mergeLevel(ctx context.Context, g tiergame.Game, in taskInputs, pre *premerger) error {
	t := tiergame.Tier(in.tier.Tier)
	blobs := in.blobs
	set, merged := pre.take(in.run.ID, in.tier.Tier)
	if set != nil && !namesAll(blobs, merged) {
		set = nil // it holds a partial whose completion failed (premerger.early)
	}
	if set != nil {
		blobs = slices.DeleteFunc(slices.Clone(blobs), func(b api.Blob) bool { return merged[b.SHA256] })
	}
	paths, err := n.localPaths(ctx, blobs)
	if err != nil {
		return err
	}
	switch {
	case in.run.Exhaustive:
		if set, err = reach.FullTier(ctx, g, t, n.cfg.Workers); err != nil {
			return err
		}
	case set != nil:
		if err := levelfile.MergeInto(ctx, set, paths, &levelfile.MergeOptions{Workers: n.cfg.Workers}); err != nil {
			return fmt.Errorf("tier %d: %w", t, err)
		}
	default:
		if set, err = reach.MergeTier(ctx, g, t, paths, n.cfg.Workers); err != nil {
			return err
		}
	}
	lv := state.Level{Reachable: set.Count()}
	if in.tier.Level != nil {
		// Cut before (by this leader or an earlier one): the ranges stay.
		if in.tier.Level.Reachable != lv.Reachable {
			return fmt.Errorf("tier %d: %d positions merged, %d when it was cut", t, lv.Reachable, in.tier.Level.Reachable)
		}
		lv.Ranges, lv.Expand = in.tier.Level.Ranges, in.tier.Level.Expand
	} else {
		if lv.Reachable > 0 {
			threads := n.workers.threads(time.Now(), 2*n.cfg.LeaseTTL)
			lv.Ranges, lv.Expand = cut(set, in.run.Settings, threads)
			if in.tier.Loopy && !in.run.Chance {
				pc := n.loopyParts(in, lv.Reachable)
				lv.Parts, lv.FirstParts = cutParts(g, t, set, pc, threads, in.run.Settings.MinRange)
				if k := len(lv.Parts) - 1; k > pc.parts {
					n.log.Info("a loopy tier's widest part did not fit the budget: cut finer", "run", in.run.ID,
						"tier", in.tier.Name, "parts", k)
				}
			}
		}
		if _, err := n.propose(state.SetLevel(in.run.ID, in.tier.Tier, lv)); err != nil {
			return err
		}
	}
	blob, res, err := n.storeFile(func(path string) (any, error) {
		return reach.WriteLevel(path, g, set, levelfile.WriteOptions{Level: in.run.Settings.Level, Workers: n.cfg.Workers, NoSync: true})
	})
	if err != nil {
		return err
	}
	defer n.guard.hold(blob)() // until the state names it
	if err := n.artifacts.keepMerged(ctx, []api.Blob{blob}); err != nil {
		return err
	}
	lv.Blob, lv.Type = blob, int(res.(levelfile.Result).Header.Type)
	_, err = n.propose(state.SetLevel(in.run.ID, in.tier.Tier, lv))
	return err
}

// namesAll reports whether every name in names is one of blobs'.
func namesAll(blobs []api.Blob, names map[string]bool) bool {
	in := make(map[string]bool, len(blobs))
	for _, b := range blobs {
		in[b.SHA256] = true
	}
	for name := range names {
		if !in[name] {
			return false
		}
	}
	return true
}

// mergeDB joins a tier's range records, in rank order, into its value
// database (the bytes of tierd solve's; for a chance game with planes,
// also its database of planes), stores them (keepMerged) and records
// them. The units wrote their records in the
// database's own blocks (their ranges are cut at whole blocks), so the
// blocks are copied (solved.ConcatDB); records that do not line up (a
// tier cut before the cut was aligned) and probabilities are decoded and
// written again, with the same writer and options as tierd solve.
func (n *Node) mergeDB(ctx context.Context, g tiergame.Game, in taskInputs) error {
	t := tiergame.Tier(in.tier.Tier)
	count := in.tier.Level.Reachable
	paths := make([]string, len(in.solve))
	for i, u := range in.solve {
		p, err := n.localPaths(ctx, []api.Blob{u.Done.Outputs[0].Blob})
		if err != nil {
			return err
		}
		paths[i] = p[0]
	}
	// The units' results in rank order, decoded into one slice by read.
	each := func(read func(off uint64, path string) (uint64, error)) error {
		off := uint64(0)
		for i, p := range paths {
			var err error
			if off, err = read(off, p); err != nil {
				return fmt.Errorf("unit %d: %w", i, err)
			}
		}
		if off != count {
			return fmt.Errorf("%d results for the tier's %d positions", off, count)
		}
		return nil
	}
	db := unitio.TierDB{Game: g, Tier: t, Workers: n.cfg.Workers}
	var write func(path string) (any, error)
	var planes *api.Blob // a chance game's database of planes
	if in.run.Chance {
		width := uint64(1 + tiergame.PlaneCount(g))
		results := make([]tiergame.Prob, width*count)
		if err := each(func(off uint64, path string) (uint64, error) {
			off, err := db.ChanceInto(results, width*off, path)
			return off / width, err
		}); err != nil {
			return err
		}
		vals, pl := unitio.SplitChance(results, width)
		if pl != nil {
			blob, _, err := n.storeFile(func(path string) (any, error) {
				return chance.WritePlanesDB(path, g, t, pl, &valuedb.WriteOptions{Workers: n.cfg.Workers, NoSync: true})
			})
			if err != nil {
				return err
			}
			defer n.guard.hold(blob)()
			if err := n.artifacts.keepMerged(ctx, []api.Blob{blob}); err != nil {
				return err
			}
			planes = &blob
		}
		write = func(path string) (any, error) {
			return chance.WriteDB(path, g, t, vals, &valuedb.WriteOptions{Workers: n.cfg.Workers, NoSync: true})
		}
	} else {
		write = func(path string) (any, error) {
			h, err := solved.ConcatDB(path, g, t, paths, &valuedb.WriteOptions{NoSync: true})
			if err == nil && h.Count != count {
				return nil, fmt.Errorf("%d records for the tier's %d positions", h.Count, count)
			}
			if !errors.Is(err, valuedb.ErrUnaligned) {
				return h, err
			}
			n.log.Debug("a tier's records are decoded and written again", "run", in.run.ID, "tier", t, "reason", err)
			recs := make([]valuedb.Record, count)
			if err := each(func(off uint64, path string) (uint64, error) {
				return db.RecordsInto(recs, off, path)
			}); err != nil {
				return nil, err
			}
			return solved.WriteDB(path, g, t, recs, &valuedb.WriteOptions{Workers: n.cfg.Workers, NoSync: true})
		}
	}
	blob, res, err := n.storeFile(write)
	if err != nil {
		return err
	}
	defer n.guard.hold(blob)()
	if err := n.artifacts.keepMerged(ctx, []api.Blob{blob}); err != nil {
		return err
	}
	h := res.(valuedb.Header)
	_, err = n.propose(state.SetDB(in.run.ID, in.tier.Tier, state.DB{Blob: blob, Planes: planes, Win: h.Win, Lose: h.Lose, Tie: h.Tie, Draw: h.Draw}))
	return err
}

// rangeCount is how many ranges a tier of reachable positions is cut
// into, perThread for each of threads worker threads known (see
// Settings).
func rangeCount(set api.Settings, perThread int, reachable uint64, threads int) int {
	n := uint64(max(threads, 1) * perThread)
	n = min(n, uint64(set.MaxRanges), reachable/max(set.MinRange, 1))
	return int(max(n, 1))
}

// cut cuts a tier's set into the ranges of its solve units (shrinking,
// at whole blocks of its database) and, if the settings cut its
// expansion apart and that gives other ranges, those of its expand units:
// of equal sizes with one per thread (the workers then finish together),
// else shrinking.
func cut(set *bitarray.Set, settings api.Settings, threads int) (solve, expand []plan.Range) {
	ranked := bitarray.NewRanked(set)
	reachable := ranked.Total()
	count := rangeCount(settings, settings.RangesPerThread, reachable, threads)
	solve = plan.SplitShrinkingAligned(ranked, count, cutAlign(reachable, count))
	per := settings.ExpandRangesPerThread
	if per == 0 {
		return solve, nil
	}
	n := rangeCount(settings, per, reachable, threads)
	if per == 1 {
		expand = plan.SplitRanges(ranked, n)
	} else {
		expand = plan.SplitShrinking(ranked, n)
	}
	if slices.Equal(expand, solve) {
		return solve, nil
	}
	return solve, expand
}

// A partsCut is how a loopy tier is to be cut: into parts parts at
// least, and, if fits is set, into more while the widest part's units
// do not fit (cutParts).
type partsCut struct {
	parts int
	fits  func(window uint64) bool
}

// loopyParts is how a loopy tier of reachable positions is cut: into the
// run's --loopy-ranges parts; or, if it does not say, into as many as
// the largest budget of the workers present needs (less the room for
// their growth where a cut allows it: state.Run.PartsFor), or two for a tier that fits whole but
// would be a long unit beside the run (state.Run.LongWhole), and more
// while the widest part does not fit that budget; none if it fits
// whole, or a worker does not say.
func (n *Node) loopyParts(in taskInputs, reachable uint64) partsCut {
	if in.run.Settings.LoopyRanges != 0 {
		return partsCut{parts: in.run.Settings.LoopyRanges}
	}
	largest := largestBudget(n.workers.list(time.Now(), 2*n.cfg.LeaseTTL))
	threads := n.workers.threads(time.Now(), 2*n.cfg.LeaseTTL)
	var c partsCut
	var budget uint64
	long := false
	n.fsm.View(func(s *state.State, _ uint64) {
		if r := s.Run(in.run.ID); r != nil {
			if t := r.Tier(in.tier.Tier); t != nil && largest > 0 {
				c.parts, budget = r.PartsFor(t, reachable, largest, api.MaxLoopyRanges)
				long = c.parts == 0 && r.LongWhole(t, reachable, threads)
				bytes := r.PartBytes(t)
				c.fits = func(window uint64) bool { return bytes(window) <= budget }
			}
		}
	})
	switch {
	case long:
		c.parts = 2
		n.log.Info("a loopy tier is solved in parts: whole, it would be a long unit beside the run", "run", in.run.ID,
			"tier", in.tier.Name, "parts", c.parts, "threads", threads)
	case c.parts > 0:
		n.log.Info("a loopy tier is solved in parts: it does not fit the largest worker budget whole", "run", in.run.ID,
			"tier", in.tier.Name, "parts", c.parts, "largest_budget", largest, "cut_budget", budget)
	}
	return c
}

// recut cuts a loopy tier whose whole-tier unit no worker present can
// take into the parts the largest of them can, or a tier in parts whose
// first round waits so into more (state.Oversized): its level file read
// again, cut as a merge cuts it (cutParts). A game
// whose loopy tiers are solved whole (no tiergame.Unmover) is left
// waiting, as before: its run says why (api.RunSummary.Blocked).
func (n *Node) recut(ctx context.Context, g tiergame.Game, in taskInputs) error {
	if _, ok := g.(tiergame.Unmover); !ok || in.tier.Level == nil {
		return nil
	}
	parts := n.loopyParts(in, in.tier.Level.Reachable)
	if k := len(in.tier.Level.Parts) - 1; k >= 2 {
		// In parts already, one of which fits no worker: finer ones.
		parts.parts = max(parts.parts, k+1)
	}
	if parts.parts < 2 {
		return nil // a worker large enough came meanwhile
	}
	paths, err := n.localPaths(ctx, []api.Blob{in.tier.Level.Blob})
	if err != nil {
		return err
	}
	set, err := reach.LoadLevel(paths[0], g, tiergame.Tier(in.tier.Tier))
	if err != nil {
		return err
	}
	bounds, fine := cutParts(g, tiergame.Tier(in.tier.Tier), set, parts, n.workers.threads(time.Now(), 2*n.cfg.LeaseTTL), in.run.Settings.MinRange)
	if bounds == nil {
		return nil
	}
	if _, err := n.propose(state.Recut(in.run.ID, in.tier.Tier, bounds, fine)); err != nil {
		if errors.Is(err, state.ErrUnavailable) {
			return nil // leased meanwhile (a worker large enough came), or cut already
		}
		return err
	}
	n.log.Info("a loopy tier's solve did not fit the workers present: cut into parts", "run", in.run.ID,
		"tier", in.tier.Name, "parts", len(bounds)-1)
	return nil
}

// cutParts is where loopy tier t is cut to be solved in parts
// (plan.Cut.Bounds), at whole blocks of its value database, so that
// mergeDB joins the parts' records by copying their blocks, into as many
// parts as pc says, or more until the widest fits (the cut balances
// positions, and a dense tier's part holds a cell a hash); and, if
// threads (those of the workers present) can run more units than there
// are parts, where their first passes are cut finer (Level.FirstParts:
// firstSubs sub-parts a part, of at least minRange positions). Nil for
// one part, for a game without Parents (tiergame.Unmover), whose loopy
// tiers are solved whole, and for a tier the game's rules of play judge
// (tiergame.Judge: xiangqi's perpetual check and chase): the rules read
// the whole tier's values after its retrograde analysis
// (solver.SolveTier), which no part holds.
func cutParts(g tiergame.Game, t tiergame.Tier, set *bitarray.Set, pc partsCut, threads int, minRange uint64) (bounds, fine []uint64) {
	if _, ok := g.(tiergame.Unmover); !ok || pc.parts < 2 {
		return nil, nil
	}
	if j, ok := quotient.Base(g).(tiergame.Judge); ok && j.Judges(t) {
		return nil, nil
	}
	ranked := bitarray.NewRanked(set)
	var c plan.Cut
	for parts := pc.parts; ; parts++ {
		c = plan.NewCut(ranked, parts, cutAlign(ranked.Total(), parts))
		if pc.fits == nil || pc.fits(c.Widest()) || c.Parts() < parts || parts >= api.MaxLoopyRanges {
			break
		}
	}
	if c.Parts() < 2 {
		return nil, nil
	}
	if m := firstSubs(c.Parts(), threads, ranked.Total(), minRange); m > 1 {
		if f := c.Refine(ranked, m, subAlign); f.Parts() > c.Parts() {
			fine = f.Bounds
		}
	}
	return c.Bounds, fine
}

// firstSubs is how many sub-parts each of parts parts of a tier of
// reachable positions makes its first pass in: enough for subsPerThread
// units a thread of the workers present, so that the first passes, a
// part's longest round, spread over all of them and are short beside the
// run; none of fewer than minRange positions (the run's MinRange: a
// unit's fixed costs); 1 is none.
func firstSubs(parts, threads int, reachable, minRange uint64) int {
	parts = max(parts, 1)
	m := (subsPerThread*threads + parts - 1) / parts
	return max(1, min(m, maxSubs, int(min(reachable/uint64(parts)/max(minRange, 1), maxSubs))))
}

const (
	// subsPerThread is the sub-parts' first passes a worker thread
	// makes. A tier's first pass is about a third of a family's CPU when
	// its top tier is most of it (K+R+N v K+R+A), so with 4 workers on 2
	// cores a unit is a tenth of the run at about 13 units: with 2 a
	// thread (8) the longest was 11% of the run there, 41.9 s.
	subsPerThread = 4
	// maxSubs bounds the sub-parts of a part.
	maxSubs = 16
	// subAlign is the multiple of ranks sub-parts are cut at: whole
	// words of cells, which a part gathers by copying words.
	subAlign = 64
)

// cutAlign is the multiple of ranks a tier of reachable positions is cut
// at into count ranges: whole blocks of its value database, so that
// mergeDB joins the ranges' records by copying their blocks, unless the
// ranges would hold fewer than two blocks on average (a cut moves by up
// to half a block, which would upset the shrinking sizes of small
// ranges; the records of such small tiers are decoded and written again,
// at little cost).
func cutAlign(reachable uint64, count int) uint64 {
	if reachable < 2*valuedb.DefaultBlockRecords*uint64(max(count, 1)) {
		return 1
	}
	return valuedb.DefaultBlockRecords
}

// finishRun looks up the start position's value and records the run done.
func (n *Node) finishRun(ctx context.Context, g tiergame.Game, in taskInputs) error {
	st := in.start
	if st == nil || st.Level == nil || st.DB == nil {
		return errors.New("the start tier is not solved")
	}
	paths, err := n.localPaths(ctx, []api.Blob{st.Level.Blob, st.DB.Blob})
	if err != nil {
		return err
	}
	start, err := startRecord(g, tiergame.Tier(st.Tier), tierFiles{level: paths[0], db: paths[1], chance: in.run.Chance}, n.cfg.Workers)
	if err != nil {
		return err
	}
	_, err = n.propose(state.Finish(in.run.ID, time.Now().UTC(), start, ""))
	if err == nil {
		n.metrics.runsDone.Inc()
		n.log.Info("run done", "run", in.run.ID, "game", in.run.Game, "option", in.run.Option,
			"start", start.Value, "remoteness", start.Remoteness, "seconds", time.Since(in.run.Created).Seconds())
	}
	return err
}

// tierFiles are a solved tier's files: its level file and its value
// database (of probabilities, with chance).
type tierFiles struct {
	level, db string
	chance    bool
}

// startRecord is the start position's value, from its tier t's files.
func startRecord(g tiergame.Game, t tiergame.Tier, files tierFiles, workers int) (*runfolder.StartRecord, error) {
	if files.chance {
		ct, err := chance.LoadFiles(g, t, files.level, files.db, "", workers) // the start's probability only
		if err != nil {
			return nil, err
		}
		if start := chance.NewStartRecord(g, ct); start != nil {
			return start, nil
		}
		return nil, errors.New("the start position is not in its tier's level file")
	}
	st, err := solved.Load(g, t, files.level, files.db, workers)
	if err != nil {
		return nil, err
	}
	defer st.Free()
	return solved.NewStartRecord(g, st)
}
