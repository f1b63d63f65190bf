package main

import (
	"fmt"
	"io"
	"strings"
)

// report is everything a harness run measured; it is printed as tables or
// encoded as JSON.
type report struct {
	Machine  machine     `json:"machine"`
	Suite    string      `json:"suite"`
	Reps     int         `json:"reps"`
	Bits     int         `json:"bits"`
	Solver   []solverRow `json:"solver,omitempty"`
	Write    []writeRow  `json:"level_write,omitempty"`
	Read     []readRow   `json:"level_read,omitempty"`
	Merge    []mergeRow  `json:"level_merge,omitempty"`
	Failures []string    `json:"failures,omitempty"`
}

func newReport(cfg config) *report {
	return &report{Machine: thisMachine(), Suite: cfg.suite, Reps: cfg.reps, Bits: cfg.bits}
}

// solverRow is one solver run: the tier solver with some workers, or the
// memo baseline (Solver "memo", whose time is all in SolveSec).
type solverRow struct {
	Solver    string  `json:"solver"`
	Game      string  `json:"game"`
	Option    string  `json:"option"`
	Workers   int     `json:"workers"`
	ReachSec  float64 `json:"reach_s"`
	SolveSec  float64 `json:"solve_s"`
	Positions uint64  `json:"positions"`
	// PosPerSec is Positions over the whole run (reach plus solve).
	PosPerSec float64 `json:"positions_per_s"`
	PerWorker float64 `json:"positions_per_s_per_worker"`
	// Speedup is the workers=1 run's time over this run's (0 when there
	// is no workers=1 run to compare with).
	Speedup     float64 `json:"speedup,omitempty"`
	PeakRSS     int64   `json:"peak_rss_bytes"`
	RSSPerPos   float64 `json:"rss_bytes_per_position"`
	LevelBytes  int64   `json:"level_file_bytes,omitempty"`
	DBBytes     int64   `json:"db_bytes,omitempty"`
	DBBytesPerP float64 `json:"db_bytes_per_position,omitempty"`
	Start       string  `json:"start"`
}

// fill computes the derived columns for a run of secs seconds.
func (r *solverRow) fill(secs float64) {
	if secs > 0 {
		r.PosPerSec = float64(r.Positions) / secs
		r.PerWorker = r.PosPerSec / float64(max(r.Workers, 1))
	}
	if r.Positions > 0 {
		r.RSSPerPos = float64(r.PeakRSS) / float64(r.Positions)
		r.DBBytesPerP = float64(r.DBBytes) / float64(r.Positions)
	}
}

// writeRow is one way of writing the level suite's tier.
type writeRow struct {
	Density    float64 `json:"density"`
	Variant    string  `json:"variant"`
	Type       int     `json:"type"`
	Seconds    float64 `json:"seconds"`
	Bytes      int64   `json:"bytes"`
	Positions  uint64  `json:"positions"`
	MposPerSec float64 `json:"mpos_per_s"`
	// RawDone is the uncompressed bytes compressed to decide and write.
	RawDone int64 `json:"raw_bytes_compressed"`
	// TimeVsAuto and BytesVsAuto compare with the auto row (1 for it).
	TimeVsAuto  float64 `json:"time_vs_auto,omitempty"`
	BytesVsAuto float64 `json:"bytes_vs_auto,omitempty"`
	PeakRSS     int64   `json:"peak_rss_bytes"`
}

// readRow is reading one type of the tier.
type readRow struct {
	Density    float64 `json:"density"`
	Type       int     `json:"type"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	MBPerSec   float64 `json:"mb_per_s"` // compressed input, 10^6 bytes
	MposPerSec float64 `json:"mpos_per_s"`
	PeakRSS    int64   `json:"peak_rss_bytes"`
}

// mergeRow is merging the partial files with some workers.
type mergeRow struct {
	Density    float64 `json:"density"`
	Files      int     `json:"files"`
	Workers    int     `json:"workers"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	MBPerSec   float64 `json:"mb_per_s"`
	MposPerSec float64 `json:"mpos_per_s"`
	Speedup    float64 `json:"speedup,omitempty"`
	PeakRSS    int64   `json:"peak_rss_bytes"`
}

// writeText prints the report as aligned tables, numbers right-aligned.
func (r *report) writeText(w io.Writer) error {
	m := r.Machine
	fmt.Fprintf(w, "%s %s/%s, %d CPUs, %s\n", m.GoVersion, m.GOOS, m.GOARCH, m.CPUs, m.Time)
	if len(r.Solver) > 0 {
		t := table{head: []string{"solver", "game", "option", "workers", "reach s", "solve s", "positions",
			"positions/s", "per worker", "speed-up", "peak RSS", "RSS B/pos", "level-file bytes", "db B/pos", "start"}}
		for _, s := range r.Solver {
			reach, level, db := f2(s.ReachSec), fmt.Sprint(s.LevelBytes), f2(s.DBBytesPerP)
			if s.Solver == "memo" {
				reach, level = "-", "-"
			}
			if s.DBBytes == 0 {
				db = "-"
			}
			solve := f2(s.SolveSec)
			if s.SolveSec == 0 {
				solve = "-"
			}
			t.add(s.Solver, s.Game, s.Option, fmt.Sprint(s.Workers), reach, solve, fmt.Sprint(s.Positions),
				fmt.Sprintf("%.0f", s.PosPerSec), fmt.Sprintf("%.0f", s.PerWorker), ratio(s.Speedup),
				mib(s.PeakRSS), f2(s.RSSPerPos), level, db, s.Start)
		}
		fmt.Fprintln(w, "\nsolver runs (positions/s over reach+solve; speed-up = workers=1 time / this time)")
		t.print(w)
	}
	if len(r.Write) > 0 {
		t := table{head: []string{"density", "variant", "type", "best s", "bytes", "Mpos/s", "raw MB compressed",
			"time/auto", "bytes/auto", "peak RSS"}}
		for _, x := range r.Write {
			t.add(fmt.Sprint(x.Density), x.Variant, fmt.Sprint(x.Type), f3(x.Seconds), fmt.Sprint(x.Bytes),
				f2(x.MposPerSec), fmt.Sprintf("%.1f", float64(x.RawDone)/1e6), ratio(x.TimeVsAuto), ratio(x.BytesVsAuto), mib(x.PeakRSS))
		}
		fmt.Fprintf(w, "\nlevel-file write, 2^%d positions, real files (best of %d)\n", r.Bits, r.Reps)
		t.print(w)
	}
	if len(r.Read) > 0 {
		t := table{head: []string{"density", "type", "bytes", "best s", "MB/s", "Mpos/s", "peak RSS"}}
		for _, x := range r.Read {
			t.add(fmt.Sprint(x.Density), fmt.Sprint(x.Type), fmt.Sprint(x.Bytes), f3(x.Seconds), f2(x.MBPerSec), f2(x.MposPerSec), mib(x.PeakRSS))
		}
		fmt.Fprintf(w, "\nlevel-file read into a set (MB/s of compressed input; best of %d)\n", r.Reps)
		t.print(w)
	}
	if len(r.Merge) > 0 {
		t := table{head: []string{"density", "files", "workers", "bytes", "best s", "MB/s", "Mpos/s", "speed-up", "peak RSS"}}
		for _, x := range r.Merge {
			t.add(fmt.Sprint(x.Density), fmt.Sprint(x.Files), fmt.Sprint(x.Workers), fmt.Sprint(x.Bytes), f3(x.Seconds),
				f2(x.MBPerSec), f2(x.MposPerSec), ratio(x.Speedup), mib(x.PeakRSS))
		}
		fmt.Fprintf(w, "\nlevel-file merge of partial files (best of %d)\n", r.Reps)
		t.print(w)
	}
	if len(r.Failures) > 0 {
		fmt.Fprintln(w, "\nfailed jobs:")
		for _, f := range r.Failures {
			fmt.Fprintln(w, "  "+f)
		}
	}
	return nil
}

func f2(x float64) string { return fmt.Sprintf("%.2f", x) }
func f3(x float64) string { return fmt.Sprintf("%.3f", x) }

func ratio(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", x)
}

// mib formats a byte count in MiB.
func mib(n int64) string {
	if n <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// table is a text table: text columns left-aligned, the rest right-aligned.
type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) print(w io.Writer) {
	// A column with a cell that starts with a letter is text; the others
	// (numbers, and "-" for nothing) are right-aligned.
	text := make([]bool, len(t.head))
	for _, row := range t.rows {
		for c, v := range row {
			if v != "" && isLetter(v[0]) {
				text[c] = true
			}
		}
	}
	widths := make([]int, len(t.head))
	for _, row := range append([][]string{t.head}, t.rows...) {
		for c, v := range row {
			widths[c] = max(widths[c], len(v))
		}
	}
	for _, row := range append([][]string{t.head}, t.rows...) {
		var b strings.Builder
		for c, v := range row {
			pad := strings.Repeat(" ", widths[c]-len(v))
			if text[c] {
				b.WriteString(v + pad)
			} else {
				b.WriteString(pad + v)
			}
			if c < len(row)-1 {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
