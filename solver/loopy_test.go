package solver

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/examples/dodgem"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/bigmem"
	"github.com/tiersolve/tiersolve/internal/race"
	"github.com/tiersolve/tiersolve/solver/internal/cells"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// goldenCost says which test runs solve a golden run.
type goldenCost int

const (
	// everyRun: every run, the race detector's too.
	everyRun goldenCost = iota
	// noRace: not under the race detector, which makes these runs
	// minutes long on 2 cores (xiangqi K+R v K+A+B, dshogi's lions and
	// chicks: 110 s and 40 s in 3 parts); quixo, dodgem and tic-tac-toe
	// keep the loopy tiers and their parts under it. .ci/run runs them
	// without it.
	noRace
	// longRun: neither under the race detector nor, in parts, under -short.
	longRun
)

// loopyGolden are the runs of small variants of every bundled loopy game
// (and tic-tac-toe, loop-free) as the solver of 4-byte work words and
// 8-byte queue entries wrote them (commit 7ee83d4, before the cells): the
// SHA-256 of the list of their value databases' and manifest's names and
// SHA-256s. The cells change how a tier is solved, never what is written.
var loopyGolden = []struct {
	game, option string
	symmetry     bool
	files        int
	sum          string
	cost         goldenCost
}{
	{"quixo", "size=3", false, 56, "1d27fbfba0984020674e47cf1a6c1787da854be09a648660088922990d48102a", everyRun},
	{"quixo", "size=3", true, 56, "fd4b84aa15fcb357e873afab78307dd65289bbdcb83ce5ea411cd268f07a5a37", longRun},
	{"dshogi", "pieces=LC", false, 4, "a5c9fab0434b45935eb1073e6a0ad82835bd50a69f1458f42d2cdb23242741cc", noRace},
	{"dshogi", "pieces=LC", true, 4, "c3ceff05a4b7d82ec1ff09850221cb96019f3c1c9681c0f84fe630f6211321bb", longRun},
	{"dshogi", "pieces=LGE", false, 4, "b618286fd2bd8571391093f52146b65bf08133dda51e2490297b2b6c7d557f09", longRun},
	{"xiangqi", "material=KRvKAB", false, 9, "d2db357963de7bccb412d5afdf0c4695b78b639e4dfbc1a0c1d810b371e319cc", noRace},
	{"xiangqi", "material=KNvKAB", false, 9, "3d65b51ca4e68d785205196c83e1842583f7a7d1de347f0cbe0c09839a564be5", longRun},
	{"xiangqi", "material=KCvKA", false, 5, "9963fb2df2430d362d13cef3de25deed1cfa8bb95ef187880ca67047450eb751", longRun},
	{"xiangqi", "material=KRvKAB", true, 9, "97d49a0bf8185415db68f3ed274326b3db53cf1c8fab9586462498c21b04e0fd", longRun},
	{"dodgem", "size=3", false, 9, "532104b65afeb2a89be5c909c018bd7eb0ca181c0b2bc8d2a041994d7a293667", everyRun},
	{"dodgem", "size=4", false, 16, "36001eaf25eb91dc740dcad50b9a5e31bc51e0ed24c7ef147c9626708c51e6a4", longRun},
	{"tictactoe", "", false, 11, "116b67e34d17314f203217142492dab379d4ece8f08e0fb6cf395314b94ea6c2", everyRun},
}

// TestLoopyDatabasesUnchanged solves small variants of every bundled
// loopy game (Teeko has no small variant: TestSymmetricAgainstGamesmanOne
// in games/teeko checks it whole) and compares the databases and the
// manifest, byte for byte, with what the solver wrote before the cells.
// Under the race detector only those of every run (see goldenCost).
func TestLoopyDatabasesUnchanged(t *testing.T) {
	for _, tc := range loopyGolden {
		if tc.cost != everyRun && race.Enabled && !longTests() {
			continue
		}
		t.Run(fmt.Sprintf("%s/%s/symmetry=%v", tc.game, tc.option, tc.symmetry), func(t *testing.T) {
			var g tiergame.Game
			var err error
			if tc.game == "dodgem" {
				o, _ := tiergame.ParseOptions(tc.option)
				g, err = dodgem.New(o)
			} else {
				g, err = games.New(tc.game, tc.option)
			}
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			r := solvedRun(t, reopen(t, g, dir, Config{Workers: 2, Symmetry: tc.symmetry}))
			r.Close()
			n, sum := runSum(t, dir)
			if n != tc.files || sum != tc.sum {
				t.Errorf("%d files, SHA-256 of their sums %s; before the cells %d, %s", n, sum, tc.files, tc.sum)
			}
		})
	}
}

// runSum returns the number of value databases and manifests of the run
// in dir, and the SHA-256 of their names and SHA-256s, one a line.
func runSum(t *testing.T, dir string) (int, string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "db", "*.vdb"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(dir, "manifest.json"))
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %x\n", rel, sha256.Sum256(b))
	}
	return len(files), fmt.Sprintf("%x", h.Sum(nil))
}

// TestLoopyCellPaths solves random games (loopy tiers with ties, draws
// and repeated moves) with the cells' rarer paths forced, against the
// reference solver: no child counts (every position that can lose checks
// its children), a byte layout of 3 remoteness codes a value, 2 tie codes
// and 1 counter (so cells widen to 16 bits in the first pass, during the
// levels and among ties, and counters overflow), cells by rank, lean
// (the longest wins elsewhere looked up when a position loses, not kept),
// and all of them at once.
func TestLoopyCellPaths(t *testing.T) {
	narrow := cells.ForcedNarrow
	variants := []struct {
		name  string
		paths work.Paths
	}{
		{"verify", work.Paths{Verify: true}},
		{"narrow", work.Paths{Narrow: true}},
		{"ranked", work.Paths{Ranked: true}},
		{"lean", work.Paths{Lean: true}},
		{"all", work.Paths{Verify: true, Narrow: true, Ranked: true, Lean: true}},
	}
	seeds := 12
	if testing.Short() || race.Enabled {
		seeds = 4
	}
	var widened int
	for _, v := range variants {
		for seed := range uint64(seeds) {
			g := newRandGame(seed)
			ref := g.reference()
			for i, cfg := range []Config{{Workers: 1, Ranges: 1}, {Workers: 2, Ranges: 3}, {Workers: 2, Ranges: 3, ReverseIndex: true}} {
				cfg.Paths = &v.paths
				var game tiergame.Game = randUnmover{g}
				if i == 1 {
					game = g
				}
				t.Run(fmt.Sprintf("%s/seed%d/cfg%d", v.name, seed, i), func(t *testing.T) {
					r := solvedRun(t, reopen(t, game, t.TempDir(), cfg))
					checkVerifies(t, r, uint64(len(ref)))
					checkAgainstRef(t, r, slices.Values(ref))
				})
			}
			if v.paths.Narrow {
				for _, p := range ref {
					if p.rec.rem >= int(narrow.Rem) {
						widened++
						break
					}
				}
			}
		}
	}
	if widened == 0 {
		t.Errorf("no random game has remoteness of %d or more: the narrow layout never widened", narrow.Rem)
	}
}

// TestFreeWaitsForHolders: a solved tier whose cells a goroutine holds
// (writing its database) is freed only once it lets go.
func TestFreeWaitsForHolders(t *testing.T) {
	set := bitarray.New(0, 1<<21)
	set.AddRange(0, 1<<21-1) // inclusive
	recs := make([]valuedb.Record, 1<<21)
	for i := range recs {
		recs[i] = valuedb.Make(tiergame.Win, i%50)
	}
	st, err := solved.New(0, bitarray.NewRanked(set), recs, 2)
	if err != nil {
		t.Fatal(err)
	}
	release := st.Hold()
	freed := make(chan struct{})
	go func() {
		st.Free()
		close(freed)
	}()
	select {
	case <-freed:
		t.Fatal("Free returned while the cells were held")
	case <-time.After(50 * time.Millisecond):
	}
	got := make([]valuedb.Record, 1000)
	st.Records(got, 1<<20)
	if !slices.Equal(got, recs[1<<20:1<<20+1000]) {
		t.Error("records read while held differ")
	}
	release()
	<-freed
}

// TestLoopyParts solves loopy tiers in parts, passing notes as a
// cluster's workers do, and compares every record with the whole-tier
// solver's (the golden runs' databases and manifests, byte for byte, and
// random games against the reference), with 2, 3 and 7 parts, and with
// the rarer paths forced (cells by rank, a narrow layout that widens, and
// every part checkpointed and restored after every level). Under the race
// detector the golden runs of every run only; .ci/run runs the others
// but the long ones without it (-short).
func TestLoopyParts(t *testing.T) {
	mapped := bigmem.Mapped()
	var notes atomic.Int64
	for _, parts := range []int{2, 3, 7} {
		for _, tc := range loopyGolden {
			if tc.symmetry || (tc.cost != everyRun && race.Enabled || tc.cost == longRun && testing.Short()) && !longTests() {
				continue
			}
			t.Run(fmt.Sprintf("parts%d/%s/%s", parts, tc.game, tc.option), func(t *testing.T) {
				g := goldenGame(t, tc.game, tc.option)
				dir := t.TempDir()
				r := solvedRun(t, reopen(t, g, dir, Config{Workers: 2, Paths: &work.Paths{Parts: parts, Notes: &notes}}))
				r.Close()
				if n, sum := runSum(t, dir); n != tc.files || sum != tc.sum {
					t.Errorf("%d files, SHA-256 of their sums %s; the whole-tier solver's %d, %s", n, sum, tc.files, tc.sum)
				}
			})
		}
		for v, paths := range []work.Paths{{}, {Ranked: true}, {Narrow: true}, {Checkpoints: true}} {
			paths.Parts, paths.Notes = parts, &notes
			for seed := range uint64(6) {
				g := newRandGame(seed)
				ref := g.reference()
				t.Run(fmt.Sprintf("parts%d/variant%d/seed%d", parts, v, seed), func(t *testing.T) {
					r := solvedRun(t, reopen(t, randUnmover{g}, t.TempDir(), Config{Workers: 2, Ranges: 3, Paths: &paths}))
					checkVerifies(t, r, uint64(len(ref)))
					checkAgainstRef(t, r, slices.Values(ref))
				})
			}
		}
	}
	if notes.Load() == 0 {
		t.Error("the parts passed no notes")
	}
	t.Logf("%d notes of levels passed", notes.Load())
	// The parts' cells and tables are outside the Go heap: each freed.
	if now := bigmem.Mapped(); now != mapped {
		t.Errorf("%d bytes mapped after the runs, %d before", now, mapped)
	}
}

// goldenGame returns the game of a golden run.
func goldenGame(t *testing.T, game, option string) tiergame.Game {
	t.Helper()
	var g tiergame.Game
	var err error
	if game == "dodgem" {
		o, _ := tiergame.ParseOptions(option)
		g, err = dodgem.New(o)
	} else {
		g, err = games.New(game, option)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNewSolvedTierRefusesNoValue: records without a value (a range a
// solve left unfilled) are an error, not draws.
func TestNewSolvedTierRefusesNoValue(t *testing.T) {
	set := bitarray.New(0, 64)
	set.AddRange(0, 63) // inclusive
	recs := make([]valuedb.Record, 64)
	for i := range recs {
		recs[i] = valuedb.Make(tiergame.Lose, i%5)
	}
	recs[40] = 0 // undecided
	if st, err := solved.New(0, bitarray.NewRanked(set), recs, 2); !errors.Is(err, solved.ErrNoValue) {
		if st != nil {
			st.Free()
		}
		t.Fatalf("solved.New with an undecided record: %v, want ErrNoValue", err)
	}
}
