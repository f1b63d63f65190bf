package runfolder

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/tiersolve/tiersolve/internal/atomicfile"
)

// TimesName is the file of a run folder that records how long its steps
// took. It is kept apart from the manifest, so that the manifest depends
// only on the game and its options: a run's manifest is the same bytes
// however, wherever and in how many sessions it ran.
const TimesName = "times.json"

// Times is the time spent on the steps of a run, over all its sessions.
type Times struct {
	ReachSeconds float64 `json:"reach_seconds"`
	SolveSeconds float64 `json:"solve_seconds"`
}

// LoadTimes reads dir's times; a missing or unreadable file is zero.
func LoadTimes(dir string) Times {
	var t Times
	if b, err := os.ReadFile(filepath.Join(dir, TimesName)); err == nil {
		json.Unmarshal(b, &t)
	}
	return t
}

// Save writes the times into run folder dir, atomically.
func (t Times) Save(dir string) error {
	b, _ := json.Marshal(t)
	return atomicfile.WriteFile(filepath.Join(dir, TimesName), append(b, '\n'))
}
