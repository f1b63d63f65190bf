package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"time"

	"github.com/tiersolve/tiersolve/bench/baseline/connect4memo"
	"github.com/tiersolve/tiersolve/bench/internal/workload"
	"github.com/tiersolve/tiersolve/bench/naive"
	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/levelfile"
)

// A job is one measurement, run in a child process so that its peak RSS
// is its own. The parent passes it as JSON after the hidden -child flag.
type job struct {
	Kind string `json:"kind"` // one of the kind* constants

	// Solver runs (kindTier) and the memo baseline (kindMemo).
	Game    string `json:"game,omitempty"`
	Option  string `json:"option,omitempty"`
	Width   int    `json:"width,omitempty"`
	Height  int    `json:"height,omitempty"`
	Workers int    `json:"workers,omitempty"`
	Solve   bool   `json:"solve,omitempty"`

	// Level-file jobs: the random tier of 2^Bits positions at Density,
	// files in Dir (shared by the jobs of one density).
	Density float64 `json:"density,omitempty"`
	Bits    int     `json:"bits,omitempty"`
	Variant string  `json:"variant,omitempty"` // level-write: auto, winner, exhaustive or naive
	Type    int     `json:"type,omitempty"`    // level-write winner, level-read: the type
	Count   uint64  `json:"count,omitempty"`   // level-merge: the members expected
	Reps    int     `json:"reps,omitempty"`
	Dir     string  `json:"dir,omitempty"`
}

const (
	kindTier    = "tier"          // reach (and solve) a game in Dir
	kindMemo    = "memo"          // the memoized Connect Four baseline
	kindPrepare = "level-prepare" // write the files the other level jobs read
	kindWrite   = "level-write"   // time one way of writing the tier
	kindRead    = "level-read"    // time reading one type
	kindMerge   = "level-merge"   // time merging the partials
)

// result is what a child reports; which fields are set depends on the
// kind. Times are the best of the job's repetitions.
type result struct {
	ReachSec   float64 `json:"reach_s,omitempty"`
	SolveSec   float64 `json:"solve_s,omitempty"`
	Positions  uint64  `json:"positions,omitempty"`
	LevelBytes int64   `json:"level_bytes,omitempty"`
	DBBytes    int64   `json:"db_bytes,omitempty"`
	Start      string  `json:"start,omitempty"`

	Seconds float64 `json:"seconds,omitempty"`
	Bytes   int64   `json:"bytes,omitempty"`
	Type    int     `json:"type"`
	Count   uint64  `json:"count,omitempty"`
	// RawDone is how many uncompressed bytes the writer compressed
	// (levelfile: all candidates; naive: all four types).
	RawDone int64 `json:"raw_done,omitempty"`
	Files   int   `json:"files,omitempty"`
}

// childMain runs the job given as JSON and prints its result as JSON on
// stdout. It returns the process's exit code.
func childMain(spec string) int {
	var j job
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		fmt.Fprintf(os.Stderr, "harness child: bad job %q: %v\n", spec, err)
		return 2
	}
	res, err := j.run(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "harness child: %s: %v\n", j.Kind, err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintf(os.Stderr, "harness child: %v\n", err)
		return 1
	}
	return 0
}

func (j job) run(ctx context.Context) (result, error) {
	switch j.Kind {
	case kindTier:
		st, err := workload.Run(ctx, j.Game, j.Option, j.Workers, j.Dir, j.Solve)
		return result{
			ReachSec: st.Reach.Seconds(), SolveSec: st.Solve.Seconds(), Positions: st.Positions,
			LevelBytes: st.LevelBytes, DBBytes: st.DBBytes, Start: st.Start,
		}, err
	case kindMemo:
		t0 := time.Now()
		res, err := connect4memo.Solve(j.Width, j.Height)
		return result{SolveSec: time.Since(t0).Seconds(), Positions: uint64(res.Positions), Start: res.Start.String()}, err
	case kindPrepare:
		return j.prepare()
	case kindWrite:
		return j.write()
	case kindRead:
		return j.read()
	case kindMerge:
		return j.merge(ctx)
	}
	return result{}, fmt.Errorf("unknown job kind %q", j.Kind)
}

func (j job) tier() *bitarray.Set {
	return workload.RandomSet(1<<j.Bits, j.Density, 1)
}

// Files of the level jobs in Dir.
func typeFile(dir string, t levelfile.Type) string {
	return filepath.Join(dir, fmt.Sprintf("type%d.dat.gz", t))
}
func partialsDir(dir string) string { return filepath.Join(dir, "partials") }
func writeFile(dir string) string {
	return filepath.Join(dir, "write", levelfile.FullName("bench", "random", 0))
}

// mergeFiles is the number of partial files merged.
const mergeFiles = 8

// prepare writes the tier once in each type (for reading) and as
// mergeFiles partial files, and reports the type levelfile chooses and
// the number of members.
func (j job) prepare() (result, error) {
	s := j.tier()
	var res result
	res.Count = s.Count()
	for _, d := range []string{filepath.Dir(writeFile(j.Dir)), partialsDir(j.Dir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return res, err
		}
	}
	for t := levelfile.Type0; t <= levelfile.Type3; t++ {
		if _, err := levelfile.WriteFile(typeFile(j.Dir, t), s, &levelfile.WriteOptions{Types: levelfile.Types(t), NoSync: true}); err != nil {
			return res, err
		}
	}
	auto, err := levelfile.Write(discard{}, s, nil)
	if err != nil {
		return res, err
	}
	res.Type = int(auto.Header.Type)
	_, res.Bytes, err = workload.WritePartials(partialsDir(j.Dir), workload.Partition(s, mergeFiles, 2))
	res.Files = mergeFiles
	return res, err
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// write times writing the tier as a real file in one of four ways:
// levelfile's race (auto), levelfile with only the winning type, levelfile
// compressing all four types (exhaustive) and the naive baseline.
func (j job) write() (result, error) {
	s := j.tier()
	name := writeFile(j.Dir)
	var write func() (result, error)
	switch j.Variant {
	case "auto", "winner", "exhaustive":
		opts := &levelfile.WriteOptions{Exhaustive: j.Variant == "exhaustive"}
		if j.Variant == "winner" {
			opts.Types = levelfile.Types(levelfile.Type(j.Type))
		}
		write = func() (result, error) {
			r, err := levelfile.WriteFile(name, s, opts)
			res := result{Bytes: r.Bytes, Type: int(r.Header.Type), Count: r.Count}
			for _, c := range r.Candidates {
				res.RawDone += c.RawDone
			}
			return res, err
		}
	case "naive":
		write = func() (result, error) {
			r, err := naive.WriteFile(name, s)
			return result{Bytes: r.Bytes, Type: int(r.Type), Count: r.Count}, err
		}
	default:
		return result{}, fmt.Errorf("unknown write variant %q", j.Variant)
	}
	var res result
	best, err := bestOf(j.Reps, func() error {
		var err error
		res, err = write()
		return err
	})
	res.Seconds = best
	if err == nil && j.Variant == "naive" {
		// The naive writer compresses all of every type (not timed).
		for t := levelfile.Type0; t <= levelfile.Type3; t++ {
			res.RawDone += rawSize(s, t)
		}
	}
	return res, err
}

// rawSize is the uncompressed data size of type t for s (the header and
// trailer, some dozens of bytes, left out).
func rawSize(s *bitarray.Set, t levelfile.Type) int64 {
	lo, ok := s.Min()
	if !ok {
		return 0
	}
	hi, _ := s.Max()
	span, n := hi-lo+1, s.Count()
	width := uint64(max(1, bits.Len64(hi-lo)))
	switch t {
	case levelfile.Type0:
		var total int64
		for p := range s.All() {
			total += int64(digits(p)) + 1
		}
		return total
	case levelfile.Type1:
		return int64((n*width + 7) / 8)
	case levelfile.Type2:
		return int64(((span-n)*width + 7) / 8)
	}
	return int64((span + 7) / 8)
}

func digits(p uint64) int {
	n := 1
	for p >= 10 {
		p /= 10
		n++
	}
	return n
}

// read times reading the type-Type file into a set.
func (j job) read() (result, error) {
	name := typeFile(j.Dir, levelfile.Type(j.Type))
	st, err := os.Stat(name)
	if err != nil {
		return result{}, err
	}
	res := result{Type: j.Type, Bytes: st.Size(), Files: 1}
	dst := bitarray.New(0, 1<<j.Bits)
	res.Seconds, err = bestOf(j.Reps, func() error {
		f, err := levelfile.Open(name, nil)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.ReadInto(dst)
	})
	res.Count = dst.Count()
	return res, err
}

// merge times levelfile.Merge of the partial files with Workers workers.
func (j job) merge(ctx context.Context) (result, error) {
	names, err := filepath.Glob(filepath.Join(partialsDir(j.Dir), "*.dat.gz"))
	if err != nil {
		return result{}, err
	}
	if len(names) == 0 {
		return result{}, errors.New("no partial files to merge")
	}
	res := result{Files: len(names)}
	for _, n := range names {
		st, err := os.Stat(n)
		if err != nil {
			return res, err
		}
		res.Bytes += st.Size()
	}
	var m *bitarray.Set
	res.Seconds, err = bestOf(j.Reps, func() error {
		var err error
		m, err = levelfile.Merge(ctx, names, &levelfile.MergeOptions{Workers: j.Workers})
		return err
	})
	if err != nil {
		return res, err
	}
	res.Count = m.Count()
	if res.Count != j.Count {
		return res, fmt.Errorf("merged %d members, want %d", res.Count, j.Count)
	}
	return res, nil
}

// bestOf runs f reps times (at least once) and returns its best time in
// seconds.
func bestOf(reps int, f func() error) (float64, error) {
	best := math.Inf(1)
	for range max(reps, 1) {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		best = min(best, time.Since(t0).Seconds())
	}
	return best, nil
}
