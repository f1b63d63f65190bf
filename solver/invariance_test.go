package solver

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// The output of a run does not depend on how the work is split: the same
// game solved with different numbers of workers and ranges must give the
// same level files, value databases and manifest counts.

// gunzip returns the decompressed contents of a gzip file, read with the
// standard library rather than the project's reader.
func gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// levelMembers reads a level file with the project's reader: its header
// and its members.
func levelMembers(t testing.TB, path string) (levelfile.Header, []uint64) {
	t.Helper()
	f, err := levelfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []uint64
	for p := range f.All() {
		ps = append(ps, p)
	}
	if err := f.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f.Header, ps
}

// manifestCounts is what a manifest says of a run, without file paths
// and checksums.
type manifestCounts struct {
	Tier                             uint64
	Name                             string
	TierSize                         uint64
	Loopy, Reached, Expanded, Solved bool
	Reachable                        uint64
	LevelType                        int
	Win, Lose, Tie, Draw             uint64
}

func countsOf(m *runfolder.Manifest) ([]manifestCounts, uint64, runfolder.StartRecord) {
	var out []manifestCounts
	for _, r := range m.Tiers {
		out = append(out, manifestCounts{Tier: r.Tier, Name: r.Name, TierSize: r.TierSize, Loopy: r.Loopy,
			Reached: r.Reached, Expanded: r.Expanded, Solved: r.Solved, Reachable: r.Reachable,
			LevelType: r.LevelType, Win: r.Win, Lose: r.Lose, Tie: r.Tie, Draw: r.Draw})
	}
	var s runfolder.StartRecord
	if m.Start != nil {
		s = *m.Start
	}
	return out, m.Total, s
}

// compareRuns checks that two solved runs of a game are the same: the
// manifest's counts (reloaded from disk), the decompressed level files
// byte for byte, their types and members, and the value databases'
// headers and records.
func compareRuns(t *testing.T, a, b *Run) {
	t.Helper()
	ma, err := runfolder.LoadManifest(a.Dir)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := runfolder.LoadManifest(b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ca, ta, sa := countsOf(ma)
	cb, tb, sb := countsOf(mb)
	if !reflect.DeepEqual(ca, cb) || ta != tb || sa != sb {
		t.Errorf("manifests differ:\n%+v total %d start %+v\n%+v total %d start %+v", ca, ta, sa, cb, tb, sb)
	}
	for _, tier := range a.Graph.Tiers {
		pa, pb := a.levelPath(tier), b.levelPath(tier)
		if !bytes.Equal(gunzip(t, pa), gunzip(t, pb)) {
			t.Errorf("tier %s: decompressed level files differ", a.Game.TierName(tier))
		}
		ha, xa := levelMembers(t, pa)
		hb, xb := levelMembers(t, pb)
		if ha.Type != hb.Type || !slices.Equal(xa, xb) {
			t.Errorf("tier %s: level files of types %d and %d with %d and %d members differ", a.Game.TierName(tier), ha.Type, hb.Type, len(xa), len(xb))
		}
		if rec := ma.Tier(uint64(tier)); rec.Reachable != uint64(len(xa)) || rec.LevelType != int(ha.Type) {
			t.Errorf("tier %s: manifest says %d positions of type %d, the file has %d of type %d", a.Game.TierName(tier), rec.Reachable, rec.LevelType, len(xa), ha.Type)
		}
	}
	compareDBs(t, a, b)
}

// TestWorkersRangesInvariance solves connect4 4x4 with Workers 1/Ranges
// 1, Workers 2/Ranges 3 and Workers 2/Ranges 7 and compares the runs.
// (TestQuixoAgainstReference does the same for 3x3 Quixo, a loopy game.)
func TestWorkersRangesInvariance(t *testing.T) {
	var runs []*Run
	for _, wr := range [][2]int{{1, 1}, {2, 3}, {2, 7}} {
		runs = append(runs, solveRun(t, "connect4", "width=4,height=4", Config{Workers: wr[0], Ranges: wr[1]}))
	}
	for _, r := range runs[1:] {
		t.Run(fmt.Sprintf("workers%d-ranges%d", r.Workers, r.Ranges), func(t *testing.T) {
			compareRuns(t, runs[0], r)
		})
	}
}

// TestKeepPartials checks that KeepPartials keeps the partial level files
// and that, for a game without loopy tiers, each tier's level file is the
// union of the partials its parents wrote (plus the start); without it no
// partial file is left.
func TestKeepPartials(t *testing.T) {
	kept := solveRun(t, "connect4", "width=4,height=3", Config{Workers: 2, Ranges: 3, KeepPartials: true})
	plain := solveRun(t, "connect4", "width=4,height=3", Config{Workers: 2, Ranges: 3})
	compareRuns(t, kept, plain)
	if files := filesUnder(t, filepath.Join(plain.Dir, "partials")); len(files) != 0 {
		t.Errorf("partial files left without KeepPartials: %v", files)
	}
	g := kept.Game
	for _, tier := range kept.Graph.Tiers {
		files, _ := filepath.Glob(filepath.Join(kept.Dir, "partials", fmt.Sprint(tier), "*", "*"))
		var got []uint64
		if tier == kept.Graph.Start {
			_, p := g.Start()
			got = append(got, uint64(p))
		} else if len(files) == 0 {
			t.Errorf("tier %s: no partial files kept", g.TierName(tier))
		}
		for _, f := range files {
			_, ps := levelMembers(t, f)
			got = append(got, ps...)
		}
		slices.Sort(got)
		got = slices.Compact(got)
		_, want := levelMembers(t, kept.levelPath(tier))
		if !slices.Equal(got, want) {
			t.Errorf("tier %s: the partials hold %d positions, the level file %d", g.TierName(tier), len(got), len(want))
		}
	}
}

// filesUnder lists the regular files under dir (none if it is missing).
func filesUnder(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
