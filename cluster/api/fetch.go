package api

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/internal/atomicfile"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
)

// Fetch writes a finished run's level files, value databases and manifest
// into dir, in the layout tierd solve writes, so tierd query and tierd
// verify work on it. Files already there with the right SHA-256 are kept;
// the manifest is written last.
func (c *Client) Fetch(ctx context.Context, id, dir string, newGame func(name, option string) (tiergame.Game, error)) (*runfolder.Manifest, error) {
	run, err := c.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	if run.State != Done {
		solved := 0
		for _, t := range run.Tiers {
			if t.DB != nil {
				solved++
			}
		}
		msg := fmt.Sprintf("run %s is %s (%d of %d tiers solved)", id, run.State, solved, len(run.Tiers))
		if run.Error != "" {
			msg += ": " + run.Error
		}
		return nil, fmt.Errorf("%s", msg)
	}
	g, err := newGame(run.Game, run.Option)
	if err != nil {
		return nil, err
	}
	if g, err = quotient.Reduce(g, run.Settings.Symmetry); err != nil {
		return nil, err
	}
	gr, err := tiergraph.New(g)
	if err != nil {
		return nil, err
	}
	m := runfolder.NewManifest(g, gr)
	for _, rec := range m.Tiers {
		t := run.tier(rec.Tier)
		if t == nil || t.Level == nil || t.DB == nil {
			return nil, fmt.Errorf("run %s has no results for tier %d", id, rec.Tier)
		}
		if rec.Level, err = c.fetchFile(ctx, dir, runfolder.LevelFile(g, tiergame.Tier(rec.Tier)), t.Level.Blob); err != nil {
			return nil, err
		}
		if rec.DB, err = c.fetchFile(ctx, dir, runfolder.DBFile(g, tiergame.Tier(rec.Tier)), t.DB.Blob); err != nil {
			return nil, err
		}
		if t.DB.Planes != nil {
			if rec.Planes, err = c.fetchFile(ctx, dir, runfolder.PlanesFile(g, tiergame.Tier(rec.Tier)), *t.DB.Planes); err != nil {
				return nil, err
			}
		}
		rec.Reached, rec.Expanded, rec.Solved = true, true, true
		rec.Reachable, rec.LevelType = t.Level.Reachable, t.Level.Type
		rec.Win, rec.Lose, rec.Tie, rec.Draw = t.DB.Win, t.DB.Lose, t.DB.Tie, t.DB.Draw
		m.Total += rec.Reachable
	}
	m.Start = run.Start
	m.Solved = run.Chance // as tierd solve records it: a probability says nothing of "solved"
	if err := atomicfile.SyncFS(dir); err != nil {
		return nil, err
	}
	return m, m.Save(dir)
}

// fetchFile downloads blob b to dir/rel unless it is there already.
func (c *Client) fetchFile(ctx context.Context, dir, rel string, b Blob) (*runfolder.FileInfo, error) {
	path := filepath.Join(dir, rel)
	if sum, size, err := blobstore.HashFile(path); err != nil || sum != b.SHA256 || size != b.Size {
		if err := c.GetBlob(ctx, b, path); err != nil {
			return nil, err
		}
	}
	return &runfolder.FileInfo{Path: rel, Bytes: b.Size, SHA256: b.SHA256}, nil
}
