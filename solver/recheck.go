package solver

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// checkRecorded checks, once per Run, every file the manifest records
// against its size and SHA-256 (on the workers: it costs one read of the
// files, which the steps that load them then find in the page cache), and
// marks what is missing or damaged to be done again, saying so in the log:
// a resume reuses only what is exactly as recorded. A damaged level file is
// rebuilt by expanding its parents again (its partials are gone, merged
// and removed); if the rebuilt file differs, recordLevel unsolves the tiers
// above it. A damaged database is solved again.
func (r *Run) checkRecorded() {
	if r.checked {
		return
	}
	r.checked = true
	type damage struct {
		tier tiergame.Tier
		db   bool
		err  error
	}
	var (
		mu      sync.Mutex
		damaged []damage
		eg      errgroup.Group
	)
	eg.SetLimit(max(r.Workers, 1))
	for _, t := range r.Graph.Tiers {
		rec := r.Manifest.Tier(uint64(t))
		for _, f := range []struct {
			recorded bool
			fi       *runfolder.FileInfo
			db       bool
		}{{rec.Reached, rec.Level, false}, {rec.Solved, rec.DB, true}} {
			if !f.recorded {
				continue
			}
			eg.Go(func() error {
				if err := f.fi.Check(r.Dir, true); err != nil {
					mu.Lock()
					damaged = append(damaged, damage{t, f.db, err})
					mu.Unlock()
				}
				return nil
			})
		}
	}
	eg.Wait()
	for _, d := range damaged {
		rec := r.Manifest.Tier(uint64(d.tier))
		name := r.Game.TierName(d.tier)
		if d.db {
			r.Log.Warn(fmt.Sprintf("tier %s: value database missing or damaged; solving the tier again", name), "error", d.err)
			rec.Solved = false
			r.Manifest.Start, r.Manifest.Solved = nil, false
			continue
		}
		r.Log.Warn(fmt.Sprintf("tier %s: level file missing or damaged; rebuilding it from its parents", name), "error", d.err)
		rec.Reached, rec.Expanded = false, false
		for _, p := range r.Graph.Parents[d.tier] {
			r.Manifest.Tier(uint64(p)).Expanded = false
		}
		os.RemoveAll(filepath.Join(r.Dir, "partials", fmt.Sprint(d.tier)))
	}
}
