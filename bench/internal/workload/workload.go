// Package workload builds the inputs that the benchmarks and the harness
// share, so that both measure the same thing: random tiers of a given
// density, partial level files cut from them, and solver runs of a game.
package workload

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver"
)

// TierBits is the size of the benchmark tiers: 2^26 positions, an 8 MiB
// bit array, large enough for every writer to run at full speed.
const TierBits = 26

// Densities are the two benchmark tiers: half the positions reachable (the
// type-3 bitmap wins) and 1% (a packed list wins).
var Densities = []float64{0.5, 0.01}

// RandomSet returns a set over [0, n) in which each position is a member
// with probability density, the same for the same arguments. Density 1/2
// takes random words; other densities draw geometric gaps between members,
// so a sparse set costs time in its members, not its range.
func RandomSet(n uint64, density float64, seed uint64) *bitarray.Set {
	s := bitarray.New(0, n)
	r := rand.New(rand.NewPCG(seed, math.Float64bits(density)))
	switch {
	case density <= 0:
	case density >= 1:
		if n > 0 {
			s.AddRange(0, n-1)
		}
	case density == 0.5:
		ws := s.Words()
		for i := range ws {
			ws[i] = r.Uint64()
		}
		if tail := n % 64; tail != 0 {
			ws[len(ws)-1] &= 1<<tail - 1
		}
	default:
		// The gap to the next member is geometric: floor(log U / log(1−d)).
		l := math.Log1p(-density)
		for p := uint64(0); ; p++ {
			gap := math.Floor(math.Log(1-r.Float64()) / l)
			if gap >= float64(n-p) {
				break
			}
			p += uint64(gap)
			s.Add(p)
		}
	}
	return s
}

// Partition cuts s into k sets over s's range, each member going to one of
// them at random: the shape of the partial level files that the workers
// of a reachability step write for one child tier.
func Partition(s *bitarray.Set, k int, seed uint64) []*bitarray.Set {
	r := rand.New(rand.NewPCG(seed, uint64(k)))
	parts := make([]*bitarray.Set, k)
	for i := range parts {
		parts[i] = bitarray.New(s.Base(), s.Len())
	}
	buf := make([]uint64, 4096)
	for c, ps := s.NextMany(0, buf); len(ps) > 0; c, ps = s.NextMany(c, buf) {
		for _, p := range ps {
			parts[r.IntN(k)].Add(p)
		}
	}
	return parts
}

// WritePartials writes parts as partial level files (any type, not synced
// one by one) in dir and returns their names and total size.
func WritePartials(dir string, parts []*bitarray.Set) (names []string, bytes int64, err error) {
	for i, p := range parts {
		nameFor := func(t levelfile.Type) string {
			return filepath.Join(dir, levelfile.PartialName("bench", "random", 0, uint64(i), t))
		}
		res, err := levelfile.WriteFileNamed(nameFor, p, &levelfile.WriteOptions{NoSync: true})
		if err != nil {
			return nil, 0, err
		}
		names = append(names, nameFor(res.Header.Type))
		bytes += res.Bytes
	}
	return names, bytes, nil
}

// RunStats is what a solver run measured.
type RunStats struct {
	Reach, Solve time.Duration
	// Positions is the number of reachable positions (the manifest's
	// total).
	Positions  uint64
	Tiers      int
	LevelBytes int64 // all full level files
	DBBytes    int64 // all value databases, planes included (0 without solving)
	Start      string
}

// Spec is a solver run to measure.
type Spec struct {
	Game, Option string
	Workers      int  // 0: all cores
	Symmetry     bool // keep one position per symmetry class
}

// Run reaches (and, when solve is set, solves) the run s in dir, which
// should be empty, and measures both steps.
func Run(ctx context.Context, s Spec, dir string, solve bool) (RunStats, error) {
	var st RunStats
	game, option := s.Game, s.Option
	g, err := games.New(game, option)
	if err != nil {
		return st, err
	}
	run, err := solver.Open(solver.Config{Game: g, Dir: dir, Workers: s.Workers, Symmetry: s.Symmetry})
	if err != nil {
		return st, fmt.Errorf("%s %s: %w", game, option, err)
	}
	t0 := time.Now()
	if err := run.Reach(ctx); err != nil {
		return st, fmt.Errorf("%s %s: %w", game, option, err)
	}
	st.Reach = time.Since(t0)
	if solve {
		t0 = time.Now()
		if err := run.Solve(ctx); err != nil {
			return st, fmt.Errorf("%s %s: %w", game, option, err)
		}
		st.Solve = time.Since(t0)
	}
	m := run.Manifest
	st.Positions = m.Total
	st.Tiers = len(m.Tiers)
	for _, rec := range m.Tiers {
		if rec.Level != nil {
			st.LevelBytes += rec.Level.Bytes
		}
		if rec.DB != nil {
			st.DBBytes += rec.DB.Bytes
		}
		if rec.Planes != nil {
			st.DBBytes += rec.Planes.Bytes
		}
	}
	switch {
	case m.Start != nil && m.Start.Win != nil: // a game with chance
		st.Start = fmt.Sprintf("win %.6f", *m.Start.Win)
	case m.Start != nil && m.Start.Value == "draw": // no distance: play never ends
		st.Start = "draw"
	case m.Start != nil:
		st.Start = fmt.Sprintf("%s in %d", m.Start.Value, m.Start.Remoteness)
	}
	return st, nil
}
