package solver

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Verify must find a correct run clean, report a stored record that its
// children do not justify even when every checksum has been fixed to
// match it, and report a changed file whose checksum was not fixed.

// tamperTarget finds a position of a solved run that is not primitive and
// whose value is v, in a tier that is loopy or not as asked; it returns
// the tier, the position and its rank in the tier.
func tamperTarget(t *testing.T, r *Run, v tiergame.Value, loopy bool) (tiergame.Tier, tiergame.Position, uint64) {
	t.Helper()
	for _, tier := range r.Graph.SolveOrder() {
		if r.Graph.Loopy[tier] != loopy {
			continue
		}
		recs, _ := readDB(t, r, tier)
		_, members := levelMembers(t, r.levelPath(tier))
		for i, rec := range recs {
			if rec.Value() != v {
				continue
			}
			if pv, _ := r.Game.Moves(tier, tiergame.Position(members[i]), nil); pv != tiergame.Undecided {
				continue
			}
			return tier, tiergame.Position(members[i]), uint64(i)
		}
	}
	t.Fatalf("no %v position that is not primitive in a tier with loopy=%v", v, loopy)
	return 0, 0, 0
}

// rewriteRecord replaces the record of rank i of a tier's database in the
// run folder dir and updates the manifest to match the new file (size,
// SHA-256, counts), so that only the check of the values can tell.
func rewriteRecord(t *testing.T, dir string, tier tiergame.Tier, i uint64, rec valuedb.Record) {
	t.Helper()
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := m.Tier(uint64(tier))
	path := filepath.Join(dir, tr.DB.Path)
	db, err := valuedb.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	old := db.Header()
	recs, err := db.ReadAll(1)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	recs[i] = rec
	h, err := valuedb.Write(path, valuedb.Header{Game: old.Game, Option: old.Option, Tier: old.Tier, TierName: old.TierName},
		recs, &valuedb.WriteOptions{BlockRecords: old.BlockRecords})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	tr.DB.Bytes, tr.DB.SHA256 = int64(len(b)), hex.EncodeToString(sum[:])
	tr.Win, tr.Lose, tr.Tie, tr.Draw = h.Win, h.Lose, h.Tie, h.Draw
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
}

// flipByte changes the byte in the middle of a file.
func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x20
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func verifyDir(t *testing.T, g tiergame.Game, dir string) *VerifyReport {
	t.Helper()
	rep, err := reopen(t, g, dir, Config{}).Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestVerifyTampering(t *testing.T) {
	for _, tc := range []struct {
		name  string
		game  tiergame.Game
		loopy bool
	}{
		{"tictactoe", nil, false},
		{"randgame-loopy", randUnmover{newRandGame(0)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var base *Run
			if tc.game == nil {
				base = solveRun(t, tc.name, "", Config{Dir: t.TempDir()})
			} else {
				base = solvedRun(t, reopen(t, tc.game, t.TempDir(), Config{}))
			}
			g := base.Game
			checkVerifies(t, base, base.Manifest.Total)

			// A win made slower, and a loss made a win: both with every
			// file checksum and count in the manifest fixed to match.
			for _, tamper := range []struct {
				name string
				from tiergame.Value
				to   func(valuedb.Record) valuedb.Record
			}{
				{"remoteness", tiergame.Win, func(r valuedb.Record) valuedb.Record { return valuedb.Make(tiergame.Win, r.Remoteness()+2) }},
				{"value", tiergame.Lose, func(r valuedb.Record) valuedb.Record { return valuedb.Make(tiergame.Win, r.Remoteness()) }},
			} {
				t.Run(tamper.name, func(t *testing.T) {
					tier, pos, rank := tamperTarget(t, base, tamper.from, tc.loopy)
					orig, _ := readDB(t, base, tier)
					stored := tamper.to(orig[rank])
					dir := copyDir(t, base.Dir)
					rewriteRecord(t, dir, tier, rank, stored)
					rep := verifyDir(t, g, dir)
					if len(rep.FileErrors) != 0 {
						t.Fatalf("file errors %v: the manifest should match the rewritten database", rep.FileErrors)
					}
					if rep.OK() || rep.Mismatches == 0 {
						t.Fatalf("Verify found nothing wrong with %s of tier %s stored as %v instead of %v", g.Format(tier, pos), g.TierName(tier), stored, orig[rank])
					}
					found := false
					for _, ex := range rep.Examples {
						if ex.Tier == tier && ex.Position == pos {
							found = true
							if ex.Stored != stored || ex.Derived != orig[rank] || ex.Err != nil {
								t.Errorf("mismatch %v, want stored %v, derived %v", ex, stored, orig[rank])
							}
						}
					}
					if !found && rep.Mismatches <= uint64(len(rep.Examples)) {
						t.Errorf("the tampered position is not among the mismatches %v", rep.Examples)
					}
					t.Logf("%s tier %s: %v -> %v: %d mismatches, first %v", g.Format(tier, pos), g.TierName(tier), orig[rank], stored, rep.Mismatches, rep.Examples[0])
				})
			}

			// Files changed without fixing the manifest.
			mid := base.Manifest.Tiers[len(base.Manifest.Tiers)/2]
			for _, fc := range []struct {
				name string
				path string
			}{
				{"level-file", mid.Level.Path},
				{"database", mid.DB.Path},
			} {
				t.Run(fc.name, func(t *testing.T) {
					dir := copyDir(t, base.Dir)
					flipByte(t, filepath.Join(dir, fc.path))
					rep := verifyDir(t, g, dir)
					if rep.OK() || len(rep.FileErrors) == 0 || !strings.Contains(strings.Join(rep.FileErrors, "\n"), fc.path) {
						t.Fatalf("a changed byte in %s: file errors %v, %d mismatches", fc.path, rep.FileErrors, rep.Mismatches)
					}
				})
			}

			// Counts in the manifest that the database does not have.
			t.Run("manifest-counts", func(t *testing.T) {
				dir := copyDir(t, base.Dir)
				m, err := runfolder.LoadManifest(dir)
				if err != nil {
					t.Fatal(err)
				}
				rec := m.Tier(mid.Tier)
				rec.Win++
				if err := m.Save(dir); err != nil {
					t.Fatal(err)
				}
				if rep := verifyDir(t, g, dir); rep.OK() || len(rep.FileErrors) == 0 {
					t.Fatalf("manifest counts changed: file errors %v, %d mismatches", rep.FileErrors, rep.Mismatches)
				}
			})
		})
	}
}
