// Package chart draws the harness's charts with gonum.org/v1/plot: lines
// or dots of medians with min–max error bars, on linear, logarithmic or
// power-of-two axes, written as SVG. A Chart is one figure of one or more
// plots side by side.
package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/tiersolve/tiersolve/bench/internal/results"
)

func init() {
	// Liberation Sans has Arial's metrics, so an SVG viewer without it
	// (which falls back to Arial or Helvetica) lays text out as drawn.
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	plot.DefaultFont = sans
	plotter.DefaultFont = sans
}

// Chart is one figure: a grid of plots (most charts have one).
type Chart struct {
	// Name is the file name without extension, e.g. "level-write".
	Name string
	// Title is the caption, also the image's alt text in the report.
	Title string
	// Plots are rows of plots drawn as tiles of equal size.
	Plots [][]*plot.Plot
	// Width and Height of the whole figure; 0 picks a size from the grid.
	Width, Height vg.Length
}

// WriteSVG draws the chart as SVG. The legend of the first plot that has
// one is drawn once, to the right of all plots (the plots of a grid show
// the same series), so that it never hides a point.
func (c Chart) WriteSVG(w io.Writer) error {
	rows := len(c.Plots)
	if rows == 0 || len(c.Plots[0]) == 0 {
		return fmt.Errorf("chart %s: no plots", c.Name)
	}
	cols := len(c.Plots[0])
	for i, row := range c.Plots {
		if len(row) != cols {
			return fmt.Errorf("chart %s: row %d has %d plots, row 0 has %d", c.Name, i, len(row), cols)
		}
	}
	legend := c.takeLegend()
	width, height := c.Width, c.Height
	if width == 0 {
		width = vg.Length(cols) * 4.5 * vg.Inch
		if cols == 1 {
			width = 6 * vg.Inch
		}
	}
	if height == 0 {
		height = vg.Length(rows) * 3.4 * vg.Inch
	}
	pad := vg.Millimeter * 3
	var reserve vg.Length
	if legend != nil {
		r := legend.Rectangle(draw.Canvas{})
		reserve = r.Max.X - r.Min.X + 2*pad
		width += reserve
	}
	canvas := vgsvg.New(width, height)
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: pad * 2, PadY: pad * 2,
		PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	area := draw.Crop(dc, 0, -reserve, 0, 0)
	if rows == 1 && cols == 1 {
		// plot.Align is for grids; it also leaves a gap above a plot
		// whose tick labels are rotated.
		c.Plots[0][0].Draw(draw.Crop(area, pad, -pad, pad, -pad))
		return writeSVG(w, canvas, legend, dc, width, reserve, pad)
	}
	canvases := plot.Align(c.Plots, tiles, area)
	for i, row := range c.Plots {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	return writeSVG(w, canvas, legend, dc, width, reserve, pad)
}

// writeSVG draws the legend, if any, in the reserved strip on the right
// and writes the canvas.
func writeSVG(w io.Writer, canvas *vgsvg.Canvas, legend *plot.Legend, dc draw.Canvas, width, reserve, pad vg.Length) error {
	if legend != nil {
		legend.Draw(draw.Crop(dc, width-reserve+pad, -pad, pad, -pad*4))
	}
	_, err := canvas.WriteTo(w)
	return err
}

// takeLegend removes the legends from the plots and returns the first
// one with entries, or nil.
func (c Chart) takeLegend() *plot.Legend {
	var first *plot.Legend
	for _, row := range c.Plots {
		for _, p := range row {
			if p == nil {
				continue
			}
			l := p.Legend
			empty := l.Rectangle(draw.Canvas{}).Max.Y == 0
			if first == nil && !empty {
				first = &l
			}
			p.Legend = plot.NewLegend()
		}
	}
	if first != nil {
		first.Top, first.Left = true, true
	}
	return first
}

// Series is one line of a chart: at each X, the median of Y with its
// min–max range as an error bar.
type Series struct {
	Name string
	X    []float64
	Y    []results.Stat
	// Bold draws the line thicker: the subject the others are compared
	// with.
	Bold bool
}

// palette are ten colours that stay apart on screen and in print (the
// "Tableau 10" set): gonum's default soft colours put orange next to
// brown.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xff, 0x7f, 0x0e, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

// Color is the i-th colour of the charts' palette.
func Color(i int) color.Color { return palette[i%len(palette)] }

// Axes describe a plot.
type Axes struct {
	Title, X, Y string
	// LogX and LogY draw logarithmic axes; Pow2X labels X as powers of 2.
	LogX, LogY, Pow2X bool
	// YFrom0 starts a linear Y axis at 0.
	YFrom0 bool
	// XTicks, when set, are the only ticks of the X axis.
	XTicks []plot.Tick
}

// Lines returns a plot of each series as a line through its medians with
// error bars. Points with a median <= 0 are left out of a log axis.
func Lines(a Axes, series []Series) *plot.Plot {
	p := newPlot(a)
	for i, s := range series {
		pts, errs := points(a, s.X, s.Y)
		if len(pts) == 0 {
			continue
		}
		line, dots, err := plotter.NewLinePoints(pts)
		if err != nil {
			continue
		}
		line.Color = Color(i)
		line.Dashes = plotutil.Dashes(i)
		line.Width = vg.Points(1.2)
		if s.Bold {
			line.Width = vg.Points(2.5)
		}
		dots.Color = Color(i)
		dots.Shape = plotutil.Shape(i)
		p.Add(line, dots)
		if bars := errorBars(pts, errs, Color(i)); bars != nil {
			p.Add(bars)
		}
		p.Legend.Add(s.Name, line, dots)
	}
	finish(p, a)
	return p
}

// Dots returns a plot with one column per category (X of a series is the
// category's index) and one marker per series in each, side by side, with
// error bars: for times of several programs on several jobs. A category
// name may hold "\n" to break its label in lines.
func Dots(a Axes, categories []string, series []Series) *plot.Plot {
	p := newPlot(a)
	// In each category the series that have a point there stand side by
	// side around its tick, step apart.
	const step = 0.22
	present := map[float64]int{}
	for _, s := range series {
		for _, x := range s.X {
			present[x]++
		}
	}
	placed := map[float64]int{}
	for i, s := range series {
		x := make([]float64, len(s.X))
		for k, c := range s.X {
			x[k] = c + step*(float64(placed[c])-float64(present[c]-1)/2)
			placed[c]++
		}
		pts, errs := points(a, x, s.Y)
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			continue
		}
		sc.Color = Color(i)
		sc.Shape = plotutil.Shape(i)
		sc.Radius = vg.Points(3.5)
		p.Add(sc)
		if bars := errorBars(pts, errs, Color(i)); bars != nil {
			p.Add(bars)
		}
		p.Legend.Add(s.Name, sc)
	}
	ticks := make([]plot.Tick, len(categories))
	for i, c := range categories {
		ticks[i] = plot.Tick{Value: float64(i), Label: c}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.6, float64(len(categories))-0.4
	finish(p, a)
	p.X.Min, p.X.Max = -0.6, float64(len(categories))-0.4
	return p
}

// AddFunc draws f as a thin line over the plot's X range, named in the
// legend (a model next to the measurements).
func AddFunc(p *plot.Plot, name string, c color.Color, f func(float64) float64) {
	fn := plotter.NewFunction(f)
	fn.Color = c
	fn.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	fn.Samples = 200
	p.Add(fn)
	p.Legend.Add(name, fn)
}

func newPlot(a Axes) *plot.Plot {
	p := plot.New()
	p.Title.Text = a.Title
	p.X.Label.Text = a.X
	p.Y.Label.Text = a.Y
	p.Legend.ThumbnailWidth = vg.Points(20)
	p.Add(plotter.NewGrid())
	if a.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if a.Pow2X {
		p.X.Tick.Marker = pow2Ticks{}
	}
	if a.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	if a.XTicks != nil {
		p.X.Tick.Marker = plot.ConstantTicks(a.XTicks)
	}
	return p
}

// finish pads log axes so that the extreme points and their bars are not
// on the frame, and starts a linear Y at 0 when asked.
func finish(p *plot.Plot, a Axes) {
	if a.LogY && p.Y.Min > 0 {
		p.Y.Min /= 1.3
		p.Y.Max *= 1.3
	}
	if a.LogX && p.X.Min > 0 {
		p.X.Min /= 1.15
		p.X.Max *= 1.15
	}
	if a.YFrom0 && !a.LogY {
		p.Y.Min = 0
		p.Y.Max *= 1.08
	}
}

// points returns the medians as points and the error bars' extents,
// leaving out what a log axis cannot show.
func points(a Axes, xs []float64, ys []results.Stat) (plotter.XYs, plotter.YErrors) {
	var pts plotter.XYs
	var errs plotter.YErrors
	for i := range min(len(xs), len(ys)) {
		y := ys[i]
		if y.N == 0 || (a.LogY && y.Median <= 0) || (a.LogX && xs[i] <= 0) {
			continue
		}
		pts = append(pts, plotter.XY{X: xs[i], Y: y.Median})
		lo, hi := y.Median-y.Min, y.Max-y.Median
		if a.LogY && y.Min <= 0 {
			lo = 0
		}
		errs = append(errs, struct{ Low, High float64 }{lo, hi})
	}
	return pts, errs
}

type xyErrs struct {
	plotter.XYs
	plotter.YErrors
}

func errorBars(pts plotter.XYs, errs plotter.YErrors, c color.Color) *plotter.YErrorBars {
	bars, err := plotter.NewYErrorBars(xyErrs{pts, errs})
	if err != nil {
		return nil
	}
	bars.Color = c
	bars.CapWidth = vg.Points(4)
	return bars
}

// logTicks labels 1, 2 and 5 times the powers of ten over a narrow range,
// the powers of ten alone over a wide one, with minor ticks between.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	decades := math.Log10(hi / lo)
	labelled := []float64{1, 2, 5}
	if decades > 4 {
		labelled = []float64{1}
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			for _, l := range labelled {
				if m == l {
					t.Label = Human(v)
				}
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// pow2Ticks labels the powers of two ("2^20"), every other one when there
// are many.
type pow2Ticks struct{}

func (pow2Ticks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	first, last := int(math.Ceil(math.Log2(lo))), int(math.Floor(math.Log2(hi)))
	step := 1
	if last-first > 6 {
		step = 2
	}
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		t := plot.Tick{Value: math.Ldexp(1, e)}
		if (e-first)%step == 0 {
			t.Label = "2^" + strconv.Itoa(e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// Human prints a number compactly with a metric prefix: 0.002, 0.5, 20,
// 1.5k, 20M, 3G.
func Human(x float64) string {
	ax := math.Abs(x)
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if ax >= u.div {
			return strconv.FormatFloat(x/u.div, 'g', 3, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// SeriesSet gathers points into series by name, in the order the names
// first appear.
type SeriesSet struct {
	byName map[string]*Series
	names  []string
}

// Add appends the point (x, y) to the series called name.
func (s *SeriesSet) Add(name string, x float64, y results.Stat) {
	if s.byName == nil {
		s.byName = map[string]*Series{}
	}
	ser := s.byName[name]
	if ser == nil {
		ser = &Series{Name: name}
		s.byName[name] = ser
		s.names = append(s.names, name)
	}
	ser.X = append(ser.X, x)
	ser.Y = append(ser.Y, y)
}

// Series returns the series sorted by name with cmp (nil: in the order
// their names first appeared).
func (s *SeriesSet) Series(cmp func(a, b string) int) []Series {
	names := slices.Clone(s.names)
	if cmp != nil {
		slices.SortStableFunc(names, cmp)
	}
	out := make([]Series, len(names))
	for i, n := range names {
		out[i] = *s.byName[n]
	}
	return out
}
