package solver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tiersolve/tiersolve/internal/atomicfile"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// A run normally starts from the game's start position. It can start from
// seeds instead: a folder of full level files, one per tier, named as a
// run names them (levelctl import writes them from matches and position
// lists). Then the run's tiers are those of the seeds and the tiers below
// them, and only what the seeds reach is solved. An exhaustive game
// (tiergame.Exhaustive) without seeds has every position reachable, and so
// has an exhaustive game of whole tiers (tiergame.WholeTiers, the xiangqi
// endgames) with seeds.

// exhaustive reports whether every position of every tier is reachable:
// the game says so and the run has no seeds, or its seeds name whole tiers.
func (r *Run) exhaustive() bool {
	return tiergame.IsExhaustive(r.Game) && (len(r.Manifest.Seeds) == 0 || tiergame.HasWholeTiers(r.Game))
}

// seedTiers returns the tiers of g that have a level file in the seeds
// folder dir, in increasing order.
func seedTiers(g tiergame.Game, dir string) ([]tiergame.Tier, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("seeds: %w", err)
	}
	var tiers []tiergame.Tier
	for _, e := range entries {
		n, err := levelfile.ParseName(e.Name())
		if err != nil || e.Name() != levelfile.FullName(g.Name(), g.Option(), n.Tier) {
			continue // not a level file of this game: copySeeds does not take it either
		}
		tiers = append(tiers, tiergame.Tier(n.Tier))
	}
	if len(tiers) == 0 {
		return nil, fmt.Errorf("seeds %s: no level files of %s (%s)", dir, g.Name(), g.Option())
	}
	slices.Sort(tiers)
	return tiers, nil
}

// seedFile returns the run's seed level file of tier t, if it has one.
func (r *Run) seedFile(t tiergame.Tier) (string, bool) {
	rel := filepath.Join(runfolder.SeedsDir, levelfile.FullName(r.Game.Name(), r.Game.Option(), uint64(t)))
	for _, fi := range r.Manifest.Seeds {
		if fi.Path == rel {
			return filepath.Join(r.Dir, rel), true
		}
	}
	return "", false
}

// copySeeds finds the seed level files of the game's tiers in
// Config.Seeds and returns their descriptions as they are recorded in the
// manifest (under seeds/). Unless the manifest already has seeds, it
// copies them into the run folder; if it has, they must be the same.
func (r *Run) copySeeds(m *runfolder.Manifest) ([]*runfolder.FileInfo, error) {
	if r.Seeds == "" {
		return nil, nil
	}
	var infos []*runfolder.FileInfo
	var srcs []string
	for _, t := range r.Graph.Tiers {
		name := levelfile.FullName(r.Game.Name(), r.Game.Option(), uint64(t))
		src := filepath.Join(r.Seeds, name)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		fi, err := runfolder.HashFile(r.Seeds, name)
		if err != nil {
			return nil, err
		}
		fi.Path = filepath.Join(runfolder.SeedsDir, name)
		infos, srcs = append(infos, fi), append(srcs, src)
	}
	if len(infos) == 0 {
		return nil, fmt.Errorf("seeds %s: no level files of %s (%s)", r.Seeds, r.Game.Name(), r.Game.Option())
	}
	if m != nil {
		if !slices.EqualFunc(m.Seeds, infos, func(a, b *runfolder.FileInfo) bool { return *a == *b }) {
			return nil, fmt.Errorf("%s holds a run from other seeds than %s", r.Dir, r.Seeds)
		}
		return infos, nil
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, runfolder.SeedsDir), 0o755); err != nil {
		return nil, err
	}
	for k, src := range srcs {
		if err := atomicfile.CopyFile(src, filepath.Join(r.Dir, infos[k].Path)); err != nil {
			return nil, fmt.Errorf("seeds: %w", err)
		}
	}
	return infos, nil
}
