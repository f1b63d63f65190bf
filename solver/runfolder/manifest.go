// Package runfolder is the run folder's format: the manifest, the files'
// names, the lock and the times, which every command and the cluster's
// protocol read without the engine that writes them.
package runfolder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tiersolve/tiersolve/internal/atomicfile"
	"github.com/tiersolve/tiersolve/solver/tiergraph"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
)

// ManifestName is the manifest's file name in a run folder.
const ManifestName = "manifest.json"

// manifestVersion changes when the layout of a run folder does.
const manifestVersion = 1

// Manifest describes a run folder: the game, every tier, its files with
// their sizes and checksums, and the counts found. It is rewritten
// (atomically) after every finished step, so a run resumes where it
// stopped and can be verified later.
type Manifest struct {
	Version int    `json:"version"`
	Game    string `json:"game"`
	Option  string `json:"option"`
	// Symmetry marks a symmetric run: its files hold one canonical
	// position per symmetry class (see Config.Symmetry).
	Symmetry bool          `json:"symmetry,omitempty"`
	Tiers    []*TierRecord `json:"tiers"`
	Total    uint64        `json:"total"` // reachable positions, when reachability is done
	Start    *StartRecord  `json:"start,omitempty"`
	// Seeds are the level files a run started from instead of the start
	// position (Config.Seeds), copied into the run folder.
	Seeds []*FileInfo `json:"seeds,omitempty"`
	// Solved is set when every tier is solved and Start is not enough to
	// say so: the start is not reachable from the seeds, or its value is a
	// probability.
	Solved bool `json:"solved,omitempty"`
}

// Done reports whether every tier of the run is solved.
func (m *Manifest) Done() bool { return m.Start != nil || m.Solved }

// TierRecord is what a run knows of one tier.
type TierRecord struct {
	Tier     uint64 `json:"tier"`
	Name     string `json:"name"`
	TierSize uint64 `json:"tier_size"`
	Loopy    bool   `json:"loopy,omitempty"`

	// Reachability.
	Reached   bool      `json:"reached"`
	Reachable uint64    `json:"reachable"`
	Level     *FileInfo `json:"level_file,omitempty"`
	LevelType int       `json:"type"`
	Expanded  bool      `json:"expanded"`

	// Solving.
	Solved bool      `json:"solved"`
	DB     *FileInfo `json:"db_file,omitempty"`
	// Planes is the database of a chance game's planes (tiergame.Planes),
	// beside DB.
	Planes *FileInfo `json:"planes_file,omitempty"`
	Win    uint64    `json:"win"`
	Lose   uint64    `json:"lose"`
	Tie    uint64    `json:"tie"`
	Draw   uint64    `json:"draw"`
}

// FileInfo names a file of the run (relative to the run folder) with its
// size and SHA-256.
type FileInfo struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// StartRecord is the value of the start position, once solved. In a
// game with chance, Value is "chance" and Win the probability that the
// player to move wins.
type StartRecord struct {
	Position   string   `json:"position"`
	Value      string   `json:"value"`
	Remoteness int      `json:"remoteness"`
	Win        *float64 `json:"win,omitempty"`
}

// String says the start's value for people: "tie in 20", "draw", or for
// a game with chance "wins with probability 0.594747".
func (s *StartRecord) String() string {
	switch {
	case s.Win != nil:
		return fmt.Sprintf("wins with probability %.6f", *s.Win)
	case s.Value == "draw":
		return s.Value
	}
	return fmt.Sprintf("%s in %d", s.Value, s.Remoteness)
}

// ReadManifest reads dir's manifest; a missing one is (nil, nil).
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestName), err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("%s: manifest version %d, this program reads %d", filepath.Join(dir, ManifestName), m.Version, manifestVersion)
	}
	return &m, nil
}

// LoadManifest reads the manifest of a run folder.
func LoadManifest(dir string) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if err == nil && m == nil {
		err = fmt.Errorf("%s: no %s: not a run folder", dir, ManifestName)
	}
	return m, err
}

// NewManifest is the manifest of a run of g that has done nothing yet; a
// run of a quotient (quotient.Reduce) is symmetric.
func NewManifest(g tiergame.Game, gr *tiergraph.Graph) *Manifest {
	m := &Manifest{Version: manifestVersion, Game: g.Name(), Option: g.Option(), Symmetry: quotient.Is(g)}
	for _, t := range gr.Tiers {
		m.Tiers = append(m.Tiers, &TierRecord{Tier: uint64(t), Name: g.TierName(t), TierSize: g.TierSize(t), Loopy: gr.Loopy[t]})
	}
	return m
}

// Save writes the manifest into the run folder dir, atomically.
func (m *Manifest) Save(dir string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ManifestName), append(b, '\n'))
}

// Tier returns the record of tier t, or nil.
func (m *Manifest) Tier(t uint64) *TierRecord {
	for _, r := range m.Tiers {
		if r.Tier == t {
			return r
		}
	}
	return nil
}

// HashFile hashes the file at path (relative to the run folder dir).
func HashFile(dir, path string) (*FileInfo, error) {
	f, err := os.Open(filepath.Join(dir, path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, err
	}
	return &FileInfo{Path: path, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Check reports whether the file is still as recorded (size, and the hash
// when full is set).
func (fi *FileInfo) Check(dir string, full bool) error {
	if fi == nil {
		return errors.New("no file recorded")
	}
	st, err := os.Stat(filepath.Join(dir, fi.Path))
	if err != nil {
		return err
	}
	if st.Size() != fi.Bytes {
		return fmt.Errorf("%s: %d bytes, manifest says %d", fi.Path, st.Size(), fi.Bytes)
	}
	if !full {
		return nil
	}
	now, err := HashFile(dir, fi.Path)
	if err != nil {
		return err
	}
	if now.SHA256 != fi.SHA256 {
		return fmt.Errorf("%s: SHA-256 %s, manifest says %s", fi.Path, now.SHA256, fi.SHA256)
	}
	return nil
}

// LevelPath is the path of tier t's level file, relative to the run
// folder: the one the manifest records, or else LevelFile's (also for a
// nil manifest). A folder made before the names changed keeps its own.
func (m *Manifest) LevelPath(g tiergame.Game, t tiergame.Tier) string {
	if rec := m.record(t); rec != nil && rec.Level != nil {
		return rec.Level.Path
	}
	return LevelFile(g, t)
}

// DBPath is the path of tier t's value database, relative to the run
// folder: the one the manifest records, or else DBFile's.
func (m *Manifest) DBPath(g tiergame.Game, t tiergame.Tier) string {
	if rec := m.record(t); rec != nil && rec.DB != nil {
		return rec.DB.Path
	}
	return DBFile(g, t)
}

// record is the record of tier t, or nil (also for a nil manifest).
func (m *Manifest) record(t tiergame.Tier) *TierRecord {
	if m == nil {
		return nil
	}
	return m.Tier(uint64(t))
}
