package results

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// NoiseFloor is the least relative noise assumed of any figure, however
// tight its samples: ±3% (timer resolution, frequency steps, a run of
// three that happened to agree).
const NoiseFloor = 0.03

// Band is the noise band of a figure: [Min, Max] of its samples, widened
// to at least ±NoiseFloor around the median.
func (s Stat) Band() (lo, hi float64) {
	return min(s.Min, s.Median*(1-NoiseFloor)), max(s.Max, s.Median*(1+NoiseFloor))
}

// Verdict of a comparison.
type Verdict string

const (
	Faster Verdict = "faster"
	Slower Verdict = "slower"
	Same   Verdict = "within noise"
)

// Change is one figure compared between two runs.
type Change struct {
	Group, Variant string
	// Figure is "seconds" (the variant's time) or "ratio" (its time over
	// the reference's in the same rounds: robust to a machine that was
	// slower as a whole).
	Figure   string
	Old, New Stat
	// Factor is New.Median / Old.Median.
	Factor  float64
	Verdict Verdict
}

// Compare compares every figure present in both runs, matched by group ID
// and variant name. A figure got faster (or slower) when the noise bands
// (Stat.Band) of the two runs do not overlap; otherwise it is Same.
// Changes are sorted: faster, slower, then within noise, each by group.
func Compare(old, cur *Results) []Change {
	var out []Change
	for _, g := range cur.Groups {
		og := old.Group(g.ID)
		if og == nil {
			continue
		}
		for _, v := range g.Variants {
			ov := og.Variant(v.Name)
			if ov == nil || v.Error != "" || ov.Error != "" {
				continue
			}
			if v.Seconds.N > 0 && ov.Seconds.N > 0 {
				out = append(out, compareStat(g.ID, v.Name, "seconds", ov.Seconds, v.Seconds))
			}
			if v.Ratio != nil && ov.Ratio != nil && v.Ratio.N > 0 && ov.Ratio.N > 0 {
				out = append(out, compareStat(g.ID, v.Name, "ratio", *ov.Ratio, *v.Ratio))
			}
		}
	}
	order := map[Verdict]int{Faster: 0, Slower: 1, Same: 2}
	slices.SortStableFunc(out, func(a, b Change) int { return order[a.Verdict] - order[b.Verdict] })
	return out
}

func compareStat(group, variant, figure string, old, cur Stat) Change {
	c := Change{Group: group, Variant: variant, Figure: figure, Old: old, New: cur, Verdict: Same}
	if old.Median != 0 {
		c.Factor = cur.Median / old.Median
	}
	olo, ohi := old.Band()
	nlo, nhi := cur.Band()
	switch {
	case nhi < olo:
		c.Verdict = Faster
	case nlo > ohi:
		c.Verdict = Slower
	}
	return c
}

// WriteChanges prints the changes beyond the noise band, one a line, and
// a count of the others.
func WriteChanges(w io.Writer, changes []Change) error {
	same := 0
	for _, c := range changes {
		if c.Verdict == Same {
			same++
			continue
		}
		unit := "s"
		if c.Figure == "ratio" {
			unit = "x of reference"
		}
		_, err := fmt.Fprintf(w, "%-6s %s %s %s: %.4g → %.4g %s (%+.1f%%; bands ±%.0f%% / ±%.0f%%)\n",
			c.Verdict, c.Group, c.Variant, c.Figure, c.Old.Median, c.New.Median, unit,
			100*(c.Factor-1), 100*halfBand(c.Old), 100*halfBand(c.New))
		if err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d figure(s) compared, %d within the noise band\n", len(changes), same)
	return err
}

// halfBand is the relative half-width of a figure's noise band.
func halfBand(s Stat) float64 {
	lo, hi := s.Band()
	if s.Median == 0 {
		return 0
	}
	return (hi - lo) / 2 / math.Abs(s.Median)
}
