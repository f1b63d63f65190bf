package worker

import (
	"context"
	"fmt"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/internal/unitio"
	"github.com/tiersolve/tiersolve/solver/chance"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// The inputs of units: a tier's set, and its solved child tiers, each
// from memory if this worker has it there, else loaded from files of the
// disk cache (downloaded once).

// setSource is where a tier's set comes from: its name
// (api.Assignment.Set), and its level file if it is written, else the
// partial level files it is merged from.
type setSource struct {
	name     string
	level    *api.Blob
	partials []api.Blob
	// window, if set, is the hashes [lo, hi) read of the level file (a
	// part's: api.PartWork.Window); name then says the window too.
	window []uint64
}

// partSetSource is where the set a part unit reads comes from: its window
// of the tier's level file, or the whole set if the leader names none.
func partSetSource(u *unit) (setSource, error) {
	src := setSource{name: u.Set, level: u.Level}
	pw := u.Part
	switch {
	case pw == nil || pw.Window == nil:
		return src, nil
	case len(pw.Window) != 2 || pw.Window[0] > pw.Window[1] || pw.Window[0] > u.Lo || u.Hi > pw.Window[1]:
		return src, fmt.Errorf("part %d: a window %v that does not hold the unit's hashes [%d, %d)", pw.Part, pw.Window, u.Lo, u.Hi)
	}
	src.window = pw.Window
	src.name = fmt.Sprintf("%s[%d,%d)", u.Set, pw.Window[0], pw.Window[1])
	return src, nil
}

// bytes is the memory of the set from src, ranked, as the memory counts
// it: tier t's, or its window's.
func (src setSource) bytes(g tiergame.Game, t tiergame.Tier) int64 {
	if src.window != nil {
		return int64(bitarray.RankedBytes(src.window[1] - src.window[0]))
	}
	return setBytes(g, t)
}

// tierSet returns the set of tier o, ranked, from memory, or else loaded
// from its source; release lets the cache drop it again.
func (w *Worker) tierSet(ctx context.Context, g tiergame.Game, o owner, src setSource) (*bitarray.Ranked, func(), error) {
	t := tiergame.Tier(o.tier)
	return w.mem.sets.get(src.name, o, func() (*bitarray.Ranked, int64, error) {
		var set *bitarray.Set
		if src.level != nil {
			paths, err := w.disk.paths(ctx, []api.Blob{*src.level})
			if err != nil {
				return nil, 0, err
			}
			if src.window != nil {
				set, err = reach.LoadLevelWindow(paths[0], g, t, src.window[0], src.window[1])
			} else {
				set, err = reach.LoadLevel(paths[0], g, t)
			}
			if err != nil {
				return nil, 0, err
			}
		} else {
			var err error
			if set, err = w.mergeTier(ctx, g, t, src.partials); err != nil {
				return nil, 0, err
			}
		}
		return bitarray.NewRanked(set), src.bytes(g, t), nil
	})
}

// setBytes is the memory of tier t's set, ranked, as the memory counts it.
func setBytes(g tiergame.Game, t tiergame.Tier) int64 {
	return int64(bitarray.RankedBytes(g.TierSize(t)))
}

// mergeTier is reach.MergeTier of the partial level files, taking the
// sets of those this worker wrote from memory.
func (w *Worker) mergeTier(ctx context.Context, g tiergame.Game, t tiergame.Tier, partials []api.Blob) (*bitarray.Set, error) {
	var files []api.Blob
	var sets []*bitarray.Set
	for _, b := range partials {
		if s, ok := w.mem.partials.peek(b.SHA256); ok {
			sets = append(sets, s)
		} else {
			files = append(files, b)
		}
	}
	paths, err := w.disk.paths(ctx, files)
	if err != nil {
		return nil, err
	}
	set, err := reach.MergeTier(ctx, g, t, paths, w.cfg.Threads)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		if err := set.Or(s); err != nil {
			return nil, fmt.Errorf("tier %d: %w", t, err)
		}
	}
	return set, nil
}

// rangeRecords returns where range r of a tier (o's, whose set is named
// name) is solved into: a window of one slice of records for the whole
// tier, which the worker keeps, so that when it solves the tier's parents
// it finds the records of its own units in place (solvedKids).
func (w *Worker) rangeRecords(o owner, name string, set *bitarray.Ranked, r plan.Range) []valuedb.Record {
	recs, release, err := w.mem.tierRecords.get(name, o, func() ([]valuedb.Record, int64, error) {
		return make([]valuedb.Record, set.Total()), 2 * int64(set.Total()), nil
	})
	if err != nil {
		return make([]valuedb.Record, r.Count(set))
	}
	release() // the unit holds the slice; the cache may drop its own hold
	off := plan.Range{Lo: set.Base(), Hi: r.Lo}.Count(set)
	return recs[off : off+r.Count(set)]
}

// kidFiles are a child tier's results as files: blobs[i] is at paths[i].
// An empty blob is a unit of this worker's whose results it has not
// reported yet (api.KidInput.Mine): it has no file.
type kidFiles struct {
	blobs []api.Blob
	paths []string
}

// gatherResults fills dst with a tier's results in rank order: from
// memory for the units this worker computed (results: those it reported,
// by blob; mine: those it has not, by their index among the units), else
// decoded from their files by read.
func gatherResults[T any](dst []T, files kidFiles, mine map[int][]T, results *shelf[string, []T], read func(off uint64, path string) (uint64, error)) error {
	off := uint64(0)
	// inPlace takes results from memory (unless solved in place, in dst).
	inPlace := func(got []T, what string) error {
		if uint64(len(got)) > uint64(len(dst))-off {
			return fmt.Errorf("%s: %d results, more than the tier's %d positions", what, len(got), len(dst))
		}
		if len(got) > 0 && &got[0] != &dst[off] {
			copy(dst[off:], got)
		}
		off += uint64(len(got))
		return nil
	}
	var err error
	for i, p := range files.paths {
		b := files.blobs[i]
		if b.SHA256 == "" {
			got, ok := mine[i]
			if !ok {
				return fmt.Errorf("no results for unit %d of the tier", i)
			}
			if err := inPlace(got, fmt.Sprintf("unit %d", i)); err != nil {
				return err
			}
			continue
		}
		if got, ok := results.peek(b.SHA256); ok {
			if err := inPlace(got, p); err != nil {
				return err
			}
			continue
		}
		if off, err = read(off, p); err != nil {
			return err
		}
	}
	if off != uint64(len(dst)) {
		return fmt.Errorf("%d results for %d positions", off, len(dst))
	}
	return nil
}

// kidLoader builds the solved child tiers of one kind (T): on the
// memory's shelf, by build, from the tier's set and the files of its
// results (the database, or the units' records in rank order).
type kidLoader[T any] struct {
	shelf *shelf[kidKey, T]
	build func(k api.KidInput, t tiergame.Tier, set *bitarray.Ranked, files kidFiles) (T, int64, error)
}

// loadKids loads the solved child tiers of unit u; they are kept in
// memory while it allows. release lets the cache drop them again.
func loadKids[T any](ctx context.Context, w *Worker, u *unit, how kidLoader[T]) (kids []T, release func(), err error) {
	var releases []func()
	release = func() {
		for _, r := range releases {
			r()
		}
	}
	for _, k := range u.Kids {
		o := owner{u.Ref.Run, k.Tier}
		kid, rel, err := how.shelf.get(kidKey{k.Tier, k.Level.SHA256}, o, func() (T, int64, error) {
			var zero T
			t := tiergame.Tier(k.Tier)
			// The tier's set is often loaded already: this worker solved
			// ranges of it.
			set, releaseSet, err := w.tierSet(ctx, u.g, o, setSource{name: k.Set, level: &k.Level})
			if err != nil {
				return zero, 0, err
			}
			defer releaseSet()
			files := kidFiles{blobs: k.Records}
			if k.DB != nil {
				files.blobs = []api.Blob{*k.DB}
				if k.Planes != nil { // read beside it (chanceKids)
					files.blobs = append(files.blobs, *k.Planes)
				}
			}
			// The units this worker computes itself have no file yet.
			var download []api.Blob
			for _, b := range files.blobs {
				if b.SHA256 != "" {
					download = append(download, b)
				}
			}
			got, err := w.disk.paths(ctx, download)
			if err != nil {
				return zero, 0, err
			}
			files.paths = make([]string, len(files.blobs))
			for i, b := range files.blobs {
				if b.SHA256 != "" {
					files.paths[i], got = got[0], got[1:]
				}
			}
			return how.build(k, t, set, files)
		})
		if err != nil {
			release()
			return nil, nil, err
		}
		releases = append(releases, rel)
		kids = append(kids, kid)
	}
	return kids, release, nil
}

// solvedKids loads the solved child tiers of a unit of a game without
// chance.
func (w *Worker) solvedKids(ctx context.Context, u *unit) ([]*solved.Tier, func(), error) {
	return loadKids(ctx, w, u, kidLoader[*solved.Tier]{shelf: w.mem.solved,
		build: func(k api.KidInput, t tiergame.Tier, set *bitarray.Ranked, files kidFiles) (*solved.Tier, int64, error) {
			// The records this worker solved are in place already; the
			// solved tier owns the slice from now on.
			recs, _ := w.mem.tierRecords.take(k.Set)
			if uint64(len(recs)) != set.Total() {
				recs = make([]valuedb.Record, set.Total())
			}
			mine := map[int][]valuedb.Record{} // awaitMine checked they are computed
			for _, m := range k.Mine {
				w.mu.Lock()
				p := w.progress[m.Token]
				w.mu.Unlock()
				if p == nil || uint64(len(p.recs)) != (plan.Range{Lo: m.Lo, Hi: m.Hi}).Count(set) {
					return nil, 0, fmt.Errorf("tier %d unit %d: %w", t, m.Ref.Index, errNotMine)
				}
				mine[m.Ref.Index] = p.recs
			}
			db := unitio.TierDB{Game: u.g, Tier: t, Workers: w.cfg.Threads}
			err := gatherResults(recs, files, mine, w.mem.records, func(off uint64, path string) (uint64, error) {
				return db.RecordsInto(recs, off, path)
			})
			if err != nil {
				return nil, 0, fmt.Errorf("tier %d: %w", t, err)
			}
			st, err := solved.New(t, set, recs, w.cfg.Threads)
			if err != nil {
				return nil, 0, fmt.Errorf("tier %d: %w", t, err)
			}
			return st, int64(st.Bytes()), nil
		}})
}

// chanceKids loads the solved child tiers of a unit of a game with
// chance.
func (w *Worker) chanceKids(ctx context.Context, u *unit) ([]*chance.Tier, func(), error) {
	return loadKids(ctx, w, u, kidLoader[*chance.Tier]{shelf: w.mem.chance,
		build: func(k api.KidInput, t tiergame.Tier, set *bitarray.Ranked, files kidFiles) (*chance.Tier, int64, error) {
			if len(k.Mine) > 0 { // never leased so (provisional leases are not for chance): a coordinator that did
				return nil, 0, fmt.Errorf("tier %d: %w", t, errNotMine)
			}
			width := uint64(1 + tiergame.PlaneCount(u.g))
			db := unitio.TierDB{Game: u.g, Tier: t, Workers: w.cfg.Threads}
			var results []tiergame.Prob
			var err error
			if k.DB != nil && width > 1 { // the merged tier: probabilities and planes apart
				vals, planes := make([]tiergame.Prob, set.Total()), make([]tiergame.Prob, (width-1)*set.Total())
				if len(files.paths) != 2 {
					return nil, 0, fmt.Errorf("tier %d: no database of planes beside its probabilities", t)
				}
				if _, err = db.ChanceInto(vals, 0, files.paths[0]); err == nil {
					_, err = db.ChanceInto(planes, 0, files.paths[1])
				}
				results = unitio.JoinChance(vals, planes)
			} else {
				results = make([]tiergame.Prob, width*set.Total())
				err = gatherResults(results, files, nil, w.mem.probs, func(off uint64, path string) (uint64, error) {
					return db.ChanceInto(results, off, path)
				})
			}
			if err != nil {
				return nil, 0, fmt.Errorf("tier %d: %w", t, err)
			}
			vals, planes := unitio.SplitChance(results, width)
			ct := chance.New(t, set, vals, w.cfg.Threads)
			if planes != nil {
				if err := ct.SetPlanes(int(width-1), planes); err != nil {
					return nil, 0, err
				}
			}
			// At most: the values and planes, a copy by position, and the set.
			return ct, int64(4*(width*set.Total()+set.Len()) + set.Len()/8), nil
		}})
}
