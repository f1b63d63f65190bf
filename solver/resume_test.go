package solver

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// A run that stops part-way and is started again must end with exactly
// what an uninterrupted run writes. The tests stop runs two ways: by
// rolling a finished run folder back to a state a crash leaves (the
// manifest records fewer finished steps, their files are gone, leftovers
// of the unfinished step remain), and by cancelling the context while a
// tier is being reached or solved.

// copyDir copies the run folder src to a new temporary folder.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// reopen opens the run folder dir for game with cfg.
func reopen(t testing.TB, g tiergame.Game, dir string, cfg Config) *Run {
	t.Helper()
	cfg.Game, cfg.Dir = g, dir
	r, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// forgetSolved clears the solving records of a tier and deletes its
// database.
func forgetSolved(t testing.TB, dir string, rec *runfolder.TierRecord) {
	t.Helper()
	if rec.DB != nil {
		if err := os.Remove(filepath.Join(dir, rec.DB.Path)); err != nil {
			t.Fatal(err)
		}
	}
	rec.Solved, rec.DB = false, nil
	rec.Win, rec.Lose, rec.Tie, rec.Draw = 0, 0, 0, 0
}

// cancelGame cancels a context once Moves has been called more than after
// times on tier, while armed. It hides the game's tiergame.Unmover, so a
// loopy game is solved with the reverse index.
type cancelGame struct {
	tiergame.Game
	tier   tiergame.Tier
	after  int64
	cancel context.CancelFunc
	armed  atomic.Bool
	calls  atomic.Int64
}

func (g *cancelGame) Moves(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
	if g.armed.Load() && t == g.tier && g.calls.Add(1) > g.after {
		g.cancel()
	}
	return g.Game.Moves(t, p, dst)
}

// biggestTier returns the tier with the most positions in a manifest.
func biggestTier(m *runfolder.Manifest) *runfolder.TierRecord {
	best := m.Tiers[0]
	for _, r := range m.Tiers {
		if r.Reachable > best.Reachable {
			best = r
		}
	}
	return best
}

func TestResume(t *testing.T) {
	for _, tc := range []struct{ game, option string }{
		{"connect4", "width=4,height=3"},
		{"quixo", "size=3"},
	} {
		t.Run(tc.game, func(t *testing.T) {
			g, err := games.New(tc.game, tc.option)
			if err != nil {
				t.Fatal(err)
			}
			// The uninterrupted run keeps its partial level files, so
			// that a copy rolled back into reachability finds the inputs
			// of the tiers it has to reach again.
			base := solveRun(t, tc.game, tc.option, Config{KeepPartials: true, Dir: t.TempDir()})
			order := base.Graph.Tiers
			big := tiergame.Tier(biggestTier(base.Manifest).Tier)

			t.Run("rollback-reach", func(t *testing.T) {
				dir := copyDir(t, base.Dir)
				m, err := runfolder.LoadManifest(dir)
				if err != nil {
					t.Fatal(err)
				}
				// Stop while expanding the tier before the middle one:
				// it is reached but not expanded, the later tiers are
				// not reached, and nothing is solved.
				j := len(order) / 2
				for i, tier := range order {
					rec := m.Tier(uint64(tier))
					forgetSolved(t, dir, rec)
					switch {
					case i == j-1:
						rec.Expanded = false
						// A partial file of a crashed expansion.
						for _, c := range base.Graph.Children[tier] {
							junk := filepath.Join(base.partialDir(c, tier), "junk.dat.gz")
							junk = filepath.Join(dir, mustRel(t, base.Dir, junk))
							if err := os.WriteFile(junk, []byte("not a level file"), 0o644); err != nil {
								t.Fatal(err)
							}
						}
					case i >= j:
						if err := os.Remove(filepath.Join(dir, rec.Level.Path)); err != nil {
							t.Fatal(err)
						}
						rec.Reached, rec.Expanded, rec.Level, rec.Reachable, rec.LevelType = false, false, nil, 0, 0
					}
				}
				m.Start, m.Total = nil, 0
				if err := m.Save(dir); err != nil {
					t.Fatal(err)
				}
				r := reopen(t, g, dir, Config{})
				if err := r.Solve(t.Context()); !errors.Is(err, ErrNotReached) {
					t.Fatalf("Solve before Reach: %v, want ErrNotReached", err)
				}
				if err := r.Reach(t.Context()); err != nil {
					t.Fatal(err)
				}
				if err := r.Solve(t.Context()); err != nil {
					t.Fatal(err)
				}
				compareRuns(t, base, r)
			})

			t.Run("rollback-solve", func(t *testing.T) {
				dir := copyDir(t, base.Dir)
				m, err := runfolder.LoadManifest(dir)
				if err != nil {
					t.Fatal(err)
				}
				// The first half of the tiers (children first) is
				// solved; the database of the last of them has been cut
				// short, so it must be solved again too.
				solveOrder := base.Graph.SolveOrder()
				j := len(solveOrder) / 2
				for i, tier := range solveOrder {
					rec := m.Tier(uint64(tier))
					switch {
					case i == j-1:
						path := filepath.Join(dir, rec.DB.Path)
						b, err := os.ReadFile(path)
						if err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(path, b[:len(b)-1], 0o644); err != nil {
							t.Fatal(err)
						}
					case i >= j:
						forgetSolved(t, dir, rec)
					}
				}
				m.Start = nil
				if err := m.Save(dir); err != nil {
					t.Fatal(err)
				}
				r := reopen(t, g, dir, Config{})
				if err := r.Reach(t.Context()); err != nil { // nothing to do
					t.Fatal(err)
				}
				if err := r.Solve(t.Context()); err != nil {
					t.Fatal(err)
				}
				compareRuns(t, base, r)
				checkVerifies(t, r, base.Manifest.Total)
			})

			// Cancel half-way through the biggest tier, in reachability
			// and in solving. Quixo's biggest tier is loopy: it is closed
			// while it is reached, before the tier that handed it its
			// children in memory may count as expanded (reacher.awaiting).
			for _, stage := range []string{"reach", "solve"} {
				t.Run("cancel-"+stage, func(t *testing.T) {
					if tc.game == "quixo" && stage == "solve" && (testing.Short() || race.Enabled) {
						t.Skip("the slowest case; skipped under -short and -race")
					}
					dir := t.TempDir()
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					cg := &cancelGame{Game: g, tier: big, after: int64(base.Manifest.Tier(uint64(big)).Reachable / 2), cancel: cancel}
					r := reopen(t, cg, dir, Config{})
					if stage == "solve" {
						if err := r.Reach(ctx); err != nil {
							t.Fatal(err)
						}
					}
					cg.armed.Store(true)
					err := r.Reach(ctx)
					if err == nil {
						err = r.Solve(ctx)
					}
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("%s with a context cancelled in tier %s: %v, want context.Canceled", stage, g.TierName(big), err)
					}
					if cg.calls.Load() == 0 {
						t.Fatalf("tier %s was never expanded", g.TierName(big))
					}
					r.Close()
					r = reopen(t, g, dir, Config{})
					if err := r.Reach(t.Context()); err != nil {
						t.Fatal(err)
					}
					if err := r.Solve(t.Context()); err != nil {
						t.Fatal(err)
					}
					compareRuns(t, base, r)
					if files := filesUnder(t, filepath.Join(dir, "partials")); len(files) != 0 {
						t.Errorf("partial files left: %v", files)
					}
				})
			}
		})
	}
}

func mustRel(t testing.TB, base, path string) string {
	t.Helper()
	rel, err := filepath.Rel(base, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// TestResumeDamagedLevelFile damages the level file of a middle tier of a
// finished run (one byte more) and runs it again. The tier's inputs, the
// partial files of its parents, were deleted once it was reached, so the
// run cannot rebuild it from them; it must either rebuild it correctly or
// fail. Writing the tier again from no inputs would make it empty and
// silently lose its positions.
func TestResumeDamagedLevelFile(t *testing.T) {
	base := solveRun(t, "connect4", "width=4,height=3", Config{})
	dir := copyDir(t, base.Dir)
	tier := base.Graph.Tiers[len(base.Graph.Tiers)/2]
	path := filepath.Join(dir, base.Manifest.Tier(uint64(tier)).Level.Path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	r := reopen(t, base.Game, dir, Config{})
	err = r.Reach(t.Context())
	if err == nil {
		err = r.Solve(t.Context())
	}
	if err != nil {
		t.Logf("the run fails: %v", err)
		return
	}
	if got, want := r.Manifest.Tier(uint64(tier)).Reachable, base.Manifest.Tier(uint64(tier)).Reachable; got != want {
		t.Fatalf("after resuming with a damaged level file, tier %s has %d positions, want %d", base.Game.TierName(tier), got, want)
	}
	compareRuns(t, base, r)
}

// TestResolveUnderSolvedParents deletes the database of a tier whose only
// parent is the next tier to solve, so a resumed run solves it again and,
// its parent being solved, needs it no more at once, while its database
// is still being written from it (a run's last tier is freed so, under
// the race detector a use after free). The files must be the
// uninterrupted run's.
func TestResolveUnderSolvedParents(t *testing.T) {
	g, err := games.New("quixo", "size=3")
	if err != nil {
		t.Fatal(err)
	}
	base := solveRun(t, "quixo", "size=3", Config{Dir: t.TempDir()})
	base.Close()
	n0, sum0 := runSum(t, base.Dir)
	dir := copyDir(t, base.Dir)
	order := base.Graph.SolveOrder()
	deleted := false
	for i, c := range order[:len(order)-1] {
		if ps := base.Graph.Parents[c]; len(ps) == 1 && ps[0] == order[i+1] {
			if err := os.Remove(filepath.Join(dir, runfolder.DBFile(base.Game, c))); err != nil {
				t.Fatal(err)
			}
			deleted = true
			break
		}
	}
	if !deleted {
		t.Fatal("no tier has the next tier as its only parent")
	}
	r := reopen(t, g, dir, Config{Workers: 2})
	if err := r.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if n, sum := runSum(t, dir); n != n0 || sum != sum0 {
		t.Errorf("re-solved run: %d files, sum %s; the uninterrupted run %d, %s", n, sum, n0, sum0)
	}
}
