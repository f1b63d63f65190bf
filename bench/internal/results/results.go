// Package results is the model of a benchmark run as it is stored in
// results.json: the machine, the settings, and for every group of
// measurements each variant's times and metrics with their spread. It also
// summarizes samples (Summarize), fits Amdahl's law to speed-ups
// (FitAmdahl) and compares two runs (Compare). It does no measuring.
//
// The JSON keys are stable: a new field may be added, an existing one is
// never renamed or given another meaning without changing Schema.
package results

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Schema names this layout of results.json.
const Schema = "tiersolve-bench/1"

// Results is one run of the harness.
type Results struct {
	Schema string `json:"schema"`
	// Command is the command line that produced the file.
	Command     string    `json:"command"`
	Quick       bool      `json:"quick"`
	Started     time.Time `json:"started"`
	WallSeconds float64   `json:"wall_s"`
	// Interrupted is set when the run was stopped before its end; the
	// groups that finished are kept.
	Interrupted bool     `json:"interrupted,omitempty"`
	Machine     Machine  `json:"machine"`
	Settings    Settings `json:"settings"`
	Groups      []Group  `json:"groups"`
}

// Machine is where the numbers were taken.
type Machine struct {
	CPUModel    string `json:"cpu_model"`
	Cores       int    `json:"cores"`
	MemoryBytes uint64 `json:"memory_bytes"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	GoVersion   string `json:"go_version"`
	// Commit is the checked-out commit ("" when unknown); Dirty says the
	// work tree had uncommitted changes.
	Commit string `json:"commit"`
	Dirty  bool   `json:"dirty"`
	// LoadStart and LoadEnd are the 1-minute load averages when the run
	// started and ended: how busy the machine was with other work.
	LoadStart float64 `json:"load_start"`
	LoadEnd   float64 `json:"load_end"`
}

// Settings are how each figure was measured.
type Settings struct {
	// WarmupRounds rounds run before the measured ones, not recorded.
	WarmupRounds int `json:"warmup_rounds"`
	// Rounds is how many measured runs each figure is the median of.
	Rounds int `json:"rounds"`
	// MinSampleSeconds: a job shorter than this is repeated within one
	// run until it has taken this long, and its time is the mean per
	// repetition.
	MinSampleSeconds float64 `json:"min_sample_s"`
}

// Group is one comparison: variants measured in the same rounds,
// interleaved, so that ratios between them are taken pair by pair.
type Group struct {
	// ID is "suite/name", unique and stable: Compare matches groups by it.
	ID    string `json:"id"`
	Suite string `json:"suite"`
	// Table names the table of the suite the group is shown in.
	Table string `json:"table"`
	Title string `json:"title"`
	// Params are the group's numeric parameters (bits, density, ...).
	Params map[string]float64 `json:"params,omitempty"`
	// Reference is the variant the others' ratios are taken against.
	Reference string `json:"reference,omitempty"`
	// Command reproduces this group alone.
	Command  string    `json:"command"`
	Variants []Variant `json:"variants"`
	// Amdahl is set for scaling groups: the serial fraction fitted to the
	// speed-ups of the variants by worker count.
	Amdahl *Amdahl `json:"amdahl,omitempty"`
	// Skipped says why the group was not run (an input is missing).
	Skipped string `json:"skipped,omitempty"`
	// Error is a failure of the group as a whole (its setup).
	Error string `json:"error,omitempty"`
}

// Variant kinds.
const (
	KindSubject  = "subject"  // tiersolve's own code
	KindBaseline = "baseline" // a naive baseline in bench/
	KindPeer     = "peer"     // another program, timed as a whole process
)

// Variant is one contender of a group.
type Variant struct {
	Name   string             `json:"name"`
	Kind   string             `json:"kind"`
	Params map[string]float64 `json:"params,omitempty"`
	// Seconds is the time of one run (or one repetition, see
	// Settings.MinSampleSeconds), lower is better.
	Seconds Stat `json:"seconds"`
	// Ratio is this variant's time over the reference's, taken round by
	// round; nil for the reference itself.
	Ratio *Stat `json:"ratio_to_reference,omitempty"`
	// Metrics are other figures by name, e.g. "mpos_per_s",
	// "peak_rss_bytes", "bytes", "speedup".
	Metrics map[string]Stat `json:"metrics,omitempty"`
	// Facts are what a run found, as text (the same in every round), e.g.
	// "start": "tie in 20", "type": "3".
	Facts map[string]string `json:"facts,omitempty"`
	Error string            `json:"error,omitempty"`
}

// Amdahl is a fit of Amdahl's law, speed-up(n) = 1 / (s + (1-s)/n), to a
// scaling group.
type Amdahl struct {
	// SerialFraction s, fitted round by round; its median is the figure.
	SerialFraction Stat `json:"serial_fraction"`
	// MaxSpeedup is 1/s of the median: the limit with unboundedly many
	// workers (0 when s <= 0).
	MaxSpeedup float64 `json:"max_speedup"`
}

// Group returns the group with the given ID, or nil.
func (r *Results) Group(id string) *Group {
	for i := range r.Groups {
		if r.Groups[i].ID == id {
			return &r.Groups[i]
		}
	}
	return nil
}

// Variant returns the variant with the given name, or nil.
func (g *Group) Variant(name string) *Variant {
	for i := range g.Variants {
		if g.Variants[i].Name == name {
			return &g.Variants[i]
		}
	}
	return nil
}

// Read reads a results.json file.
func Read(name string) (*Results, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %q, want %q", name, r.Schema, Schema)
	}
	return &r, nil
}
