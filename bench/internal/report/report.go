// Package report writes a run's results: results.json, REPORT.md with a
// table per suite table and the suites' charts as SVG files.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/chart"
	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/internal/atomicfile"
)

// Files written in the output folder.
const (
	JSONFile   = "results.json"
	ReportFile = "REPORT.md"
	ChartDir   = "charts"
)

// Write writes results.json, the charts and REPORT.md into dir (made if
// missing), each file atomically. changes, when not nil, are a comparison
// with an earlier run, added to the report.
func Write(dir string, r *results.Results, suites []harness.Suite, changes []results.Change, comparedWith string) error {
	if err := os.MkdirAll(filepath.Join(dir, ChartDir), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, JSONFile), append(data, '\n')); err != nil {
		return err
	}
	charts := Charts(r, suites)
	for _, c := range charts {
		var b bytes.Buffer
		if err := c.WriteSVG(&b); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, ChartDir, c.Name+".svg"), b.Bytes()); err != nil {
			return err
		}
	}
	var md bytes.Buffer
	if err := Markdown(&md, r, suites, charts, changes, comparedWith); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ReportFile), md.Bytes())
}

// Charts draws every suite's charts from its groups in r.
func Charts(r *results.Results, suites []harness.Suite) []chart.Chart {
	var out []chart.Chart
	for _, s := range suites {
		if s.Charts == nil {
			continue
		}
		if gs := suiteGroups(r, s.Name); len(gs) > 0 {
			out = append(out, s.Charts(gs)...)
		}
	}
	return out
}

func suiteGroups(r *results.Results, suite string) []results.Group {
	var gs []results.Group
	for _, g := range r.Groups {
		if g.Suite == suite {
			gs = append(gs, g)
		}
	}
	return gs
}

// Markdown writes REPORT.md: the machine and settings, then for each
// suite its charts and one table per Group.Table, one row per variant.
func Markdown(w io.Writer, r *results.Results, suites []harness.Suite, charts []chart.Chart, changes []results.Change, comparedWith string) error {
	var b strings.Builder
	m := r.Machine
	b.WriteString("# tiersolve benchmark report\n\n")
	commit := m.Commit
	if commit == "" {
		commit = "unknown"
	} else if len(commit) > 12 {
		commit = commit[:12]
	}
	if m.Dirty {
		commit += " (uncommitted changes)"
	}
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| date | %s (took %s) |\n", r.Started.UTC().Format("2006-01-02 15:04 MST"), duration(r.WallSeconds))
	fmt.Fprintf(&b, "| machine | %s, %d cores, %s memory, %s/%s |\n", m.CPUModel, m.Cores, Bytes(float64(m.MemoryBytes)), m.OS, m.Arch)
	fmt.Fprintf(&b, "| Go, commit | %s, %s |\n", m.GoVersion, commit)
	fmt.Fprintf(&b, "| load average | %.2f at the start, %.2f at the end |\n", m.LoadStart, m.LoadEnd)
	fmt.Fprintf(&b, "| command | `%s` |\n", r.Command)
	if r.Interrupted {
		b.WriteString("| **interrupted** | the run was stopped; only the groups that finished are here |\n")
	}
	s := r.Settings
	fmt.Fprintf(&b, "\nEvery time is the **median of %d runs** after %d warm-up run(s), each in a fresh process, "+
		"the variants of a group interleaved (their order rotating from round to round); a run shorter than %s repeats "+
		"its operation and counts the mean. **±** is the spread: half of max − min, relative to the median. "+
		"A **ratio** (×) is taken pair by pair: a variant's time over the reference's time in the same round, then the median "+
		"of those ratios; below 1 means faster than the reference.\n", s.Rounds, s.WarmupRounds, duration(s.MinSampleSeconds))
	if changes != nil {
		fmt.Fprintf(&b, "\n## Compared with %s\n\n", comparedWith)
		writeChanges(&b, changes)
	}
	for _, su := range suites {
		gs := suiteGroups(r, su.Name)
		if len(gs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n", su.Name, su.Doc)
		for _, c := range charts {
			if strings.HasPrefix(c.Name, su.Name) {
				fmt.Fprintf(&b, "\n![%s](%s/%s.svg)\n", c.Title, ChartDir, c.Name)
			}
		}
		var tables []string
		for _, g := range gs {
			if !slices.Contains(tables, g.Table) {
				tables = append(tables, g.Table)
			}
		}
		for _, t := range tables {
			fmt.Fprintf(&b, "\n### %s: %s\n\n", su.Name, t)
			if !sharedVariants(gs, t) {
				writeTable(&b, gs, t, su.Columns)
				continue
			}
			writeSummary(&b, gs, t)
			b.WriteString("\n<details><summary>every figure, and the command of each row</summary>\n\n")
			writeTable(&b, gs, t, su.Columns)
			b.WriteString("\n</details>\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes the groups of one table, a row per variant.
func writeTable(b *strings.Builder, groups []results.Group, table string, cols []harness.Column) {
	var gs []results.Group
	amdahl := false
	for _, g := range groups {
		if g.Table == table {
			gs = append(gs, g)
			amdahl = amdahl || g.Amdahl != nil
		}
	}
	// Only the columns some variant has.
	var shown []harness.Column
	for _, c := range cols {
		if slices.ContainsFunc(gs, func(g results.Group) bool {
			return slices.ContainsFunc(g.Variants, func(v results.Variant) bool { return cell(v, c) != "" })
		}) {
			shown = append(shown, c)
		}
	}
	head := []string{"group", "variant", "time", "±", "ratio"}
	for _, c := range shown {
		head = append(head, c.Header)
	}
	if amdahl {
		head = append(head, "serial fraction")
	}
	head = append(head, "reproduce")
	row(b, head)
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---"
		if i >= 2 && i < len(head)-1 {
			seps[i] = "--:"
		}
	}
	row(b, seps)
	for _, g := range gs {
		cmd := "`" + g.Command + "`"
		switch {
		case g.Skipped != "":
			row(b, fill([]string{g.Title, "skipped: " + g.Skipped}, len(head), cmd))
			continue
		case g.Error != "":
			row(b, fill([]string{g.Title, "failed: " + g.Error}, len(head), cmd))
			continue
		}
		for i, v := range g.Variants {
			title, fit, repro := "", "", ""
			if i == 0 {
				title, repro = g.Title, cmd
				if g.Amdahl != nil {
					fit = fmt.Sprintf("%.3f ±%.3f", g.Amdahl.SerialFraction.Median, (g.Amdahl.SerialFraction.Max-g.Amdahl.SerialFraction.Min)/2)
				}
			}
			name := v.Name
			if v.Kind != "" && v.Kind != results.KindSubject {
				name += " (" + v.Kind + ")"
			}
			if v.Name == g.Reference && len(g.Variants) > 1 {
				name = "**" + name + "**"
			}
			cells := []string{title, name, Seconds(v.Seconds.Median), spread(v.Seconds), ratio(v.Ratio)}
			if v.Error != "" {
				cells[2], cells[3] = "failed: "+oneLine(v.Error), ""
			}
			for _, c := range shown {
				cells = append(cells, cell(v, c))
			}
			if amdahl {
				cells = append(cells, fit)
			}
			row(b, append(cells, repro))
		}
	}
}

// sharedVariants reports whether some variant name occurs in two groups
// of the table: only then does a column per variant summarize it.
func sharedVariants(groups []results.Group, table string) bool {
	seen := map[string]bool{}
	for _, g := range groups {
		if g.Table != table {
			continue
		}
		for _, v := range g.Variants {
			if seen[v.Name] {
				return true
			}
			seen[v.Name] = true
		}
	}
	return false
}

// writeSummary writes the groups of one table at a glance: a row per
// group, a column per variant with its median time, its spread and its
// ratio to the reference.
func writeSummary(b *strings.Builder, groups []results.Group, table string) {
	var gs []results.Group
	var names []string
	refs := map[string]bool{}
	for _, g := range groups {
		if g.Table != table {
			continue
		}
		gs = append(gs, g)
		refs[g.Reference] = true
		for _, v := range g.Variants {
			if !slices.Contains(names, v.Name) {
				names = append(names, v.Name)
			}
		}
	}
	head := []string{"group"}
	for _, n := range names {
		if refs[n] && len(names) > 1 {
			n = "**" + n + "**"
		}
		head = append(head, n)
	}
	row(b, head)
	seps := []string{"---"}
	for range names {
		seps = append(seps, "--:")
	}
	row(b, seps)
	for _, g := range gs {
		cells := []string{g.Title}
		if g.Skipped != "" || g.Error != "" {
			row(b, append(cells, strings.TrimSpace("skipped: "+g.Skipped+" "+g.Error)))
			continue
		}
		for _, n := range names {
			v := g.Variant(n)
			switch {
			case v == nil:
				cells = append(cells, "")
			case v.Error != "":
				cells = append(cells, "failed")
			default:
				c := Seconds(v.Seconds.Median)
				if sp := spread(v.Seconds); sp != "" {
					c += " ±" + sp
				}
				if v.Ratio != nil && v.Ratio.N > 0 {
					c += " (" + Ratio(v.Ratio.Median) + ")"
				}
				cells = append(cells, c)
			}
		}
		if g.Amdahl != nil {
			cells[0] += fmt.Sprintf(" (serial fraction %.3f)", g.Amdahl.SerialFraction.Median)
		}
		row(b, cells)
	}
}

// fill pads cells to n, the last being last.
func fill(cells []string, n int, last string) []string {
	for len(cells) < n-1 {
		cells = append(cells, "")
	}
	return append(cells, last)
}

func row(b *strings.Builder, cells []string) {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// cell formats a variant's column: the median of a metric or a fact.
func cell(v results.Variant, c harness.Column) string {
	if fact, ok := strings.CutPrefix(c.Key, "fact:"); ok {
		return v.Facts[fact]
	}
	st, ok := v.Metrics[c.Key]
	if !ok || st.N == 0 {
		return ""
	}
	switch c.Format {
	case "bytes":
		return Bytes(st.Median)
	case "si":
		return chart.Human(st.Median)
	}
	return fmt.Sprintf(c.Format, st.Median)
}

func spread(s results.Stat) string {
	if s.N < 2 {
		return ""
	}
	return fmt.Sprintf("%.0f%%", 100*s.Spread())
}

func ratio(s *results.Stat) string {
	if s == nil || s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%s ±%.0f%%", Ratio(s.Median), 100*s.Spread())
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func writeChanges(b *strings.Builder, changes []results.Change) {
	same := 0
	b.WriteString("| group | variant | figure | before | after | change | verdict |\n|---|---|---|--:|--:|--:|---|\n")
	for _, c := range changes {
		if c.Verdict == results.Same {
			same++
			continue
		}
		before, after := Seconds(c.Old.Median), Seconds(c.New.Median)
		if c.Figure == "ratio" {
			before, after = Ratio(c.Old.Median), Ratio(c.New.Median)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %+.1f%% | %s |\n", c.Group, c.Variant, c.Figure, before, after, 100*(c.Factor-1), c.Verdict)
	}
	fmt.Fprintf(b, "\n%d figures compared; %d within the noise band (the min–max of the runs, at least ±%.0f%%).\n",
		len(changes), same, 100*results.NoiseFloor)
}

// Ratio prints a ratio with three significant digits, in full from 1000
// up: 0.52×, 17.3×, 1107×.
func Ratio(x float64) string {
	if x >= 1000 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.3g×", x)
}

// Seconds prints a time with a unit that keeps 3 significant digits.
func Seconds(s float64) string {
	switch {
	case s == 0 || math.IsNaN(s):
		return ""
	case s < 1e-6:
		return fmt.Sprintf("%.3g ns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.3g µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.3g ms", s*1e3)
	}
	return fmt.Sprintf("%.3g s", s)
}

// duration prints seconds as a rounded time.Duration.
func duration(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// Bytes prints a byte count in B, KiB, MiB or GiB.
func Bytes(n float64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", n/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f B", n)
}
