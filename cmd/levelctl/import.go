package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/tiersolve/tiersolve/gamecodecs/egf"
	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
	"github.com/tiersolve/tiersolve/gamecodecs/xg"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/tiergame"
)

func init() {
	program.Register(&cli.Command{
		Name:    "import",
		Usage:   "import --game NAME [--option K=V,...] --out DIR [--json] SOURCE...",
		Summary: "turn the positions of .xg matches, gnubg Position ID lists and EGF xiangqi games into level files a run can start from (tierd solve --from)",
		Run:     runImport,
	})
}

// importSummary is what import reports (--json prints it).
type importSummary struct {
	Game       string         `json:"game"`
	Option     string         `json:"option"`
	Out        string         `json:"out"`
	Seen       int            `json:"seen"`       // positions read from the sources
	Kept       int            `json:"kept"`       // distinct positions of the game
	Duplicates int            `json:"duplicates"` // positions of the game seen before
	Skipped    map[string]int `json:"skipped"`    // positions not of the game, by reason
	Files      []importFile   `json:"files"`
}

type importFile struct {
	Tier      uint64 `json:"tier"`
	Name      string `json:"name"`
	Path      string `json:"path"`
	Positions uint64 `json:"positions"`
	Type      int    `json:"type"`
	Bytes     int64  `json:"bytes"`
}

func runImport(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("import"))
	game := fs.String("game", "", "game the positions belong to (see tierd games)")
	option := fs.String("option", "", "game options, K=V,...")
	out := fs.String("out", "", "folder for the level files (new or empty of this game's)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *game == "" || *out == "" || fs.NArg() == 0 {
		return cli.UsageError("need --game, --out and at least one SOURCE")
	}
	g, err := games.New(*game, *option)
	if err != nil {
		return cli.UsageError("%v", err)
	}
	if holdsLevels(*out, g) {
		return fmt.Errorf("%s already holds level files of %s (%s): import into an empty folder", *out, g.Name(), g.Option())
	}
	sum := importSummary{Game: g.Name(), Option: g.Option(), Out: *out, Skipped: map[string]int{}}
	seen := map[tiergame.Child]bool{}
	positions := map[tiergame.Tier][]tiergame.Position{}
	for _, src := range fs.Args() {
		ids, err := readSource(src)
		if err != nil {
			return err
		}
		for _, id := range ids {
			sum.Seen++
			t, p, err := g.Parse(id)
			if err != nil {
				sum.Skipped[rootCause(err)]++
				continue
			}
			if c := (tiergame.Child{Tier: t, Pos: p}); seen[c] {
				sum.Duplicates++
				continue
			} else {
				seen[c] = true
			}
			sum.Kept++
			positions[t] = append(positions[t], p)
		}
	}
	files, err := reach.WriteSeeds(*out, g, positions)
	if err != nil {
		return err
	}
	for _, f := range files {
		sum.Files = append(sum.Files, importFile{Tier: uint64(f.Tier), Name: g.TierName(f.Tier), Path: f.Path, Positions: f.Positions, Type: int(f.Type), Bytes: f.Bytes})
	}
	if *asJSON {
		return json.NewEncoder(e.Stdout).Encode(sum)
	}
	fmt.Fprintf(e.Stdout, "%d positions read from %d sources: %d kept, %d duplicates, %d skipped\n",
		sum.Seen, fs.NArg(), sum.Kept, sum.Duplicates, sum.Seen-sum.Kept-sum.Duplicates)
	reasons := make([]string, 0, len(sum.Skipped))
	for r := range sum.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(e.Stdout, "  skipped %d: %s\n", sum.Skipped[r], r)
	}
	fmt.Fprintf(e.Stdout, "%d level files in %s (tierd solve --game %s --option %s --from %s)\n", len(files), *out, g.Name(), g.Option(), *out)
	return nil
}

// readSource returns the positions of a source in text form: the gnubg
// Position ID of the position before every decision of an eXtreme Gammon
// match, the entries of a text list of Position IDs, or the FEN of every
// position of an EGF xiangqi game (the start and after each move).
func readSource(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if bytes.Equal(head[:n], []byte("RGMH")) {
		m, err := xg.Open(name)
		if err != nil {
			return nil, err
		}
		ds, err := m.Decisions()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ids := make([]string, len(ds))
		for i, d := range ds {
			ids[i] = d.PositionID
		}
		return ids, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if bytes.HasPrefix(head[:n], egfMagic) {
		g, err := egf.Decode(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ps, err := g.Positions()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		fens := make([]string, len(ps))
		for i := range ps {
			fens[i] = ps[i].FEN()
		}
		return fens, nil
	}
	es, err := gnubgid.ReadList(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids, nil
}

// egfMagic opens every EGF file.
var egfMagic = []byte{7, 13}

// holdsLevels reports whether dir has level files of g's variant.
func holdsLevels(dir string, g tiergame.Game) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n, err := levelfile.ParseName(e.Name()); err == nil && n.Game == g.Name() &&
			levelfile.PortableOption(n.Option) == levelfile.PortableOption(g.Option()) {
			return true
		}
	}
	return false
}

// invalidID are the errors of a Position ID that does not decode.
var invalidID = []error{gnubgid.ErrLength, gnubgid.ErrBadChar, gnubgid.ErrNonCanonical, gnubgid.ErrNegative,
	gnubgid.ErrTooManyCheckers, gnubgid.ErrSharedPoint, gnubgid.ErrClosedBoards}

// rootCause is the message of the innermost error err wraps, so that
// positions skipped for the same reason are counted together.
func rootCause(err error) string {
	for _, e := range invalidID {
		if errors.Is(err, e) {
			return "invalid position ID: " + e.Error()
		}
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
