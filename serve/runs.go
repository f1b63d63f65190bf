package serve

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// ErrNotRun marks a --db folder that is not a finished run: no manifest,
// or a run not solved to the end.
var ErrNotRun = errors.New("not a finished run")

// Run is one solved run the server offers.
type Run struct {
	// ID is the run folder's base name (with "-2", "-3", ... when two
	// folders share it), the {id} of /api/v1/runs/{id}.
	ID     string
	Dir    string
	Oracle *oracle.Oracle
	// Info is the run as /api/v1/runs lists it.
	Info RunInfo
}

// RunInfo is a run as /api/v1/runs/{id} answers it.
type RunInfo struct {
	ID        string `json:"id"`
	Game      string `json:"game"`
	Option    string `json:"option"`
	Symmetry  bool   `json:"symmetry"`
	Chance    bool   `json:"chance"`
	Cube      string `json:"cube"` // "money" for a bearoff run with cube=money
	Positions uint64 `json:"positions"`
	Start     string `json:"start"` // "" when the run does not hold the game's start (a run from seeds)
	Tiers     int    `json:"tiers"`
}

// openRun opens the run in dir read-only, refusing a folder that is not a
// finished run.
func openRun(dir string, reg *games.Registry, open func(dir string, g tiergame.Game) (*oracle.Oracle, error)) (*Run, error) {
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotRun, err) // err names dir
	}
	if !m.Done() {
		return nil, fmt.Errorf("%s: %w: the run of %s (%s) is not solved to the end; finish it with tierd solve --out %s", dir, ErrNotRun, m.Game, m.Option, dir)
	}
	g, err := reg.New(m.Game, m.Option)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	o, err := open(dir, g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	info := RunInfo{Game: m.Game, Option: m.Option, Symmetry: m.Symmetry, Positions: m.Total, Tiers: len(m.Tiers)}
	_, info.Chance = o.Game.(tiergame.Chance)
	if b, ok := o.Game.(*bearoff.Game); ok && b.Cube() == bearoff.CubeMoney {
		info.Cube = bearoff.CubeMoney
	}
	if m.Start != nil {
		info.Start = m.Start.Position
	} else if t, p := o.Game.Start(); holds(o, t, p) {
		// A chance game's start (its value a probability) or a run from
		// seeds, whose start the manifest does not record.
		info.Start = o.Game.Format(t, p)
	}
	return &Run{Dir: dir, Oracle: o, Info: info}, nil
}

// runIDs gives each run its id: the folder's base name, with "-2", "-3",
// ... for a name taken already.
func runIDs(runs []*Run) {
	taken := map[string]bool{}
	for _, r := range runs {
		dir := r.Dir
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs // "." is the folder's own name
		}
		base := filepath.Base(dir)
		id := base
		for n := 2; taken[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		taken[id] = true
		r.ID, r.Info.ID = id, id
	}
}

// holds reports whether run o holds position (t, p): it is reachable in
// the run (a run from seeds may not hold the game's start).
func holds(o *oracle.Oracle, t tiergame.Tier, p tiergame.Position) bool {
	var err error
	if _, ok := o.Game.(tiergame.Chance); ok {
		_, err = o.Win(t, p)
	} else {
		_, err = o.Lookup(t, p)
	}
	return err == nil
}
