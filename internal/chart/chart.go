// Package chart draws the PNG charts of `palace report` (Elo and loss per
// training generation, opening statistics) with gonum.org/v1/plot.
//
// Two kinds of chart exist: line charts (Line, one or more series of
// points joined by lines, with markers and optional 95% interval
// whiskers) and horizontal bar charts (Bars, one bar per label, with
// optional interval whiskers). Write* renders to a file crash-safely
// through internal/atomicfile; Encode* renders to any io.Writer.
//
// Unplottable numbers are left out rather than rejected: a point whose X
// or Y is NaN, ±Inf or larger in magnitude than MaxAbs is not drawn (an
// Elo of a 100% score is +Inf), and the line of its series is broken
// there. An interval end that is ±Inf (or beyond MaxAbs) runs the whisker
// to the edge of the plot, without a cap; an interval with a NaN end, or
// with Lo == Hi, draws no whisker. Structural mistakes (mismatched slice
// lengths, Lo > Hi, nothing at all to draw, silly image sizes) are errors
// prefixed "chart: ". No input makes these functions panic.
package chart

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"strconv"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/palace-chess/palace/internal/atomicfile"
)

// Series is one line of a line chart.
type Series struct {
	Name string
	X, Y []float64
	// Lo and Hi optionally give a 95% interval per point, drawn as a
	// vertical whisker from Lo to Hi. Both nil for none; when set, both
	// have the length of Y.
	Lo, Hi []float64
}

// Line is a line chart: each series drawn as a line through its points
// (in the order given, not sorted), with point markers, and whiskers
// where intervals are set. Each series gets its own colour and marker
// (distinct for up to 7 series); a legend, right of the plot, appears
// when there is more than one series.
type Line struct {
	Title, XLabel, YLabel string
	Series                []Series
	Width, Height         int // pixels; 0 → DefaultWidth × DefaultHeight
	// IntegerX marks the X axis at whole numbers only (generations:
	// no tick at 2.5), every one or every 2nd, 5th, 10th... one.
	IntegerX bool
}

// Bar is one bar of a bar chart. Lo and Hi are its interval, NaN when
// none (Lo == Hi, which includes the zero value, also draws no whisker).
type Bar struct {
	Label  string
	Value  float64
	Lo, Hi float64
}

// Bars is a horizontal bar chart: the first bar at the top, labels down
// the left side (the Y axis, titled YLabel) and values along the bottom
// (the X axis, titled XLabel); every bar starts at zero. A bar whose
// Value is not plottable (NaN, ±Inf) is left out, its label kept.
type Bars struct {
	Title, XLabel, YLabel string
	Bars                  []Bar
	// Width and Height in pixels; 0 → DefaultWidth, and DefaultHeight or
	// more, growing with the number of bars so labels stay readable.
	Width, Height int
}

const (
	// DefaultWidth and DefaultHeight are the image size used when a
	// chart's Width or Height is 0.
	DefaultWidth  = 900
	DefaultHeight = 500
	// MinSide and MaxSide bound an image side, in pixels.
	MinSide = 100
	MaxSide = 8000
	// MaxAbs is the largest magnitude drawn; larger values are treated
	// like ±Inf (plot's axis code misbehaves near the float64 limits).
	MaxAbs = 1e15

	dpi       = 96
	maxLabel  = 40 // runes of a series name or bar label; longer ones are cut
	barPixels = 24 // default height per bar
)

// ErrEmpty is wrapped by the error for a chart with nothing to draw: no
// series or bars, or no point or bar with plottable values. A report can
// test for it with errors.Is and leave the chart out.
var ErrEmpty = errors.New("chart: nothing to draw")

var (
	sans     = font.Font{Typeface: "Liberation", Variant: "Sans"}
	sansBold = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
)

// WriteLines draws c and writes it as a PNG to path, crash-safely
// (a reader sees the old file or the whole new one). Points with
// unplottable values are left out (see the package comment).
func WriteLines(path string, c Line) error { return writePNG(path, c) }

// EncodeLines draws c and writes it as a PNG to w.
func EncodeLines(w io.Writer, c Line) error { return encodePNG(w, c) }

// WriteBars draws c and writes it as a PNG to path, crash-safely.
func WriteBars(path string, c Bars) error { return writePNG(path, c) }

// EncodeBars draws c and writes it as a PNG to w.
func EncodeBars(w io.Writer, c Bars) error { return encodePNG(w, c) }

// drawing is a kind of chart (Line, Bars): what it builds, validated, is
// written the same way for all.
type drawing interface{ build() (*figure, error) }

func writePNG(path string, d drawing) error {
	f, err := d.build()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, 0o644, f.encode); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}

func encodePNG(w io.Writer, d drawing) error {
	f, err := d.build()
	if err != nil {
		return err
	}
	return f.encode(w)
}

// figure is a validated chart, ready to render.
type figure struct {
	p      *plot.Plot
	legend *plot.Legend // nil for none
	w, h   int
}

// seriesColor is the colour of series i (plotutil's default palette).
func seriesColor(i int) color.Color { return plotutil.Color(i) }

// plottable reports whether v can be placed on an axis.
func plottable(v float64) bool { return !math.IsNaN(v) && math.Abs(v) <= MaxAbs }

// end maps an interval end to what is drawn: NaN stays NaN (no
// whisker), values beyond MaxAbs become ±Inf (whisker to the edge).
func end(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return v
	case v > MaxAbs:
		return math.Inf(1)
	case v < -MaxAbs:
		return math.Inf(-1)
	}
	return v
}

// newWhisker returns the whisker for the interval [lo, hi] at position
// at, and whether there is one to draw.
func newWhisker(at, lo, hi float64) (whisker, bool) {
	lo, hi = end(lo), end(hi)
	if math.IsNaN(lo) || math.IsNaN(hi) || lo == hi {
		return whisker{}, false
	}
	return whisker{at: at, lo: lo, hi: hi}, true
}

func size(w, h, defW, defH int) (int, int, error) {
	if w == 0 {
		w = defW
	}
	if h == 0 {
		h = defH
	}
	if w < MinSide || w > MaxSide || h < MinSide || h > MaxSide {
		return 0, 0, fmt.Errorf("chart: image size %d×%d outside %d..%d pixels a side", w, h, MinSide, MaxSide)
	}
	return w, h, nil
}

func shorten(s string) string {
	r := []rune(s)
	if len(r) <= maxLabel {
		return s
	}
	return string(r[:maxLabel-3]) + "..."
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sansBold, 14)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 12)
		a.Tick.Label.Font = font.From(sans, 10)
	}
	return p
}

func (c Line) build() (*figure, error) {
	w, h, err := size(c.Width, c.Height, DefaultWidth, DefaultHeight)
	if err != nil {
		return nil, err
	}
	if len(c.Series) == 0 {
		return nil, fmt.Errorf("%w: line chart %q has no series", ErrEmpty, c.Title)
	}
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("chart: series %d (%q): %d X values but %d Y values", i, s.Name, len(s.X), len(s.Y))
		}
		if (s.Lo == nil) != (s.Hi == nil) {
			return nil, fmt.Errorf("chart: series %d (%q): Lo and Hi must both be set or both be nil", i, s.Name)
		}
		if s.Lo != nil && (len(s.Lo) != len(s.Y) || len(s.Hi) != len(s.Y)) {
			return nil, fmt.Errorf("chart: series %d (%q): %d Y values but %d Lo and %d Hi", i, s.Name, len(s.Y), len(s.Lo), len(s.Hi))
		}
		for j := range s.Lo {
			if s.Lo[j] > s.Hi[j] {
				return nil, fmt.Errorf("chart: series %d (%q) point %d: interval Lo %v > Hi %v", i, s.Name, j, s.Lo[j], s.Hi[j])
			}
		}
	}

	p := newPlot(c.Title, c.XLabel, c.YLabel)
	p.Add(plotter.NewGrid())
	var (
		leg       *plot.Legend
		whisks    []plot.Plotter
		lines     []plot.Plotter
		markers   []plot.Plotter
		anyPoints bool
	)
	if len(c.Series) > 1 {
		l := plot.NewLegend()
		l.TextStyle.Font = font.From(sans, 11)
		l.Top, l.Left = true, true
		l.Padding = vg.Points(2)
		leg = &l
	}
	for i, s := range c.Series {
		col := seriesColor(i)
		lineStyle := draw.LineStyle{Color: col, Width: vg.Points(2)}
		glyph := draw.GlyphStyle{Color: col, Shape: plotutil.Shape(i), Radius: vg.Points(3)}
		var (
			kept plotter.XYs
			seg  plotter.XYs
			ws   []whisker
		)
		flush := func() {
			if len(seg) >= 2 {
				lines = append(lines, &plotter.Line{XYs: seg, LineStyle: lineStyle})
			}
			seg = nil
		}
		for j := range s.X {
			x, y := s.X[j], s.Y[j]
			if !plottable(x) || !plottable(y) {
				flush()
				continue
			}
			kept = append(kept, plotter.XY{X: x, Y: y})
			seg = append(seg, plotter.XY{X: x, Y: y})
			if s.Lo != nil {
				if wh, ok := newWhisker(x, s.Lo[j], s.Hi[j]); ok {
					ws = append(ws, wh)
				}
			}
		}
		flush()
		if len(kept) > 0 {
			anyPoints = true
			markers = append(markers, &plotter.Scatter{XYs: kept, GlyphStyle: glyph})
		}
		if len(ws) > 0 {
			whisks = append(whisks, &whiskers{pts: ws, style: draw.LineStyle{Color: col, Width: vg.Points(1)}, cap: vg.Points(6)})
		}
		if leg != nil {
			leg.Add(shorten(s.Name), &plotter.Line{LineStyle: lineStyle}, &plotter.Scatter{GlyphStyle: glyph})
		}
	}
	if !anyPoints {
		return nil, fmt.Errorf("%w: line chart %q has no point with plottable X and Y", ErrEmpty, c.Title)
	}
	p.Add(whisks...)
	p.Add(lines...)
	p.Add(markers...)
	p.X.Min, p.X.Max = fixRange(p.X.Min, p.X.Max)
	p.Y.Min, p.Y.Max = fixRange(p.Y.Min, p.Y.Max)
	if c.IntegerX {
		p.X.Tick.Marker = integerTicks{}
	}
	return &figure{p: p, legend: leg, w: w, h: h}, nil
}

func (c Bars) build() (*figure, error) {
	n := len(c.Bars)
	defH := DefaultHeight
	if hh := 120 + barPixels*n; hh > defH {
		defH = min(hh, MaxSide)
	}
	w, h, err := size(c.Width, c.Height, DefaultWidth, defH)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: bar chart %q has no bars", ErrEmpty, c.Title)
	}
	var (
		names = make([]string, n)
		hb    = &hbars{thick: 0.7, color: seriesColor(2)}
		ws    []whisker
		vmin  = 0.0
		vmax  = 0.0
	)
	for i, b := range c.Bars {
		if b.Lo > b.Hi {
			return nil, fmt.Errorf("chart: bar %d (%q): interval Lo %v > Hi %v", i, b.Label, b.Lo, b.Hi)
		}
		pos := float64(n - 1 - i) // first bar at the top
		names[n-1-i] = shorten(b.Label)
		if !plottable(b.Value) {
			continue
		}
		hb.bars = append(hb.bars, hbar{pos: pos, value: b.Value})
		vmin, vmax = math.Min(vmin, b.Value), math.Max(vmax, b.Value)
		if wh, ok := newWhisker(pos, b.Lo, b.Hi); ok {
			ws = append(ws, wh)
			if !math.IsInf(wh.lo, 0) {
				vmin = math.Min(vmin, wh.lo)
			}
			if !math.IsInf(wh.hi, 0) {
				vmax = math.Max(vmax, wh.hi)
			}
		}
	}
	if len(hb.bars) == 0 {
		return nil, fmt.Errorf("%w: bar chart %q has no bar with a plottable value", ErrEmpty, c.Title)
	}

	p := newPlot(c.Title, c.XLabel, c.YLabel)
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	p.Add(grid, hb)
	if len(ws) > 0 {
		p.Add(&whiskers{pts: ws, horizontal: true, style: draw.LineStyle{Color: color.Black, Width: vg.Points(1)}, cap: vg.Points(6)})
	}
	// Leave a margin beyond the longest bar or whisker, none beyond zero.
	span := vmax - vmin
	if vmax > 0 {
		vmax += 0.05 * span
	}
	if vmin < 0 {
		vmin -= 0.05 * span
	}
	p.X.Min, p.X.Max = fixRange(vmin, vmax)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.NominalY(names...)
	return &figure{p: p, w: w, h: h}, nil
}

// integerTicks marks whole numbers only: every one, or every 2nd, 5th,
// 10th, 20th... so that at most 11 are labelled.
type integerTicks struct{}

func (integerTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Ceil(min), math.Floor(max)
	if !(lo <= hi) {
		return nil
	}
	step := 1.0
	for i := 0; (hi-lo)/step > 10; i++ {
		step *= [3]float64{2, 2.5, 2}[i%3] // 1, 2, 5, 10, 20, 50...
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return ticks
}

// fixRange widens an axis range too narrow for plot's tick code, which
// can loop (practically) forever when the range is tiny next to its
// magnitude; all-equal values get a range around them rather than
// plot's default ±1.
func fixRange(lo, hi float64) (float64, float64) {
	scale := math.Max(math.Abs(lo), math.Abs(hi))
	span := hi - lo
	if span > 1e-9*scale && span >= 1e-12 {
		return lo, hi
	}
	mid := lo/2 + hi/2
	half := 0.05 * scale
	if half < 1e-12 {
		half = 1
	}
	return mid - half, mid + half
}

// encode renders f as a PNG of exactly f.w×f.h pixels. A panic in the
// plotting library is returned as an error.
func (f *figure) encode(w io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chart: drawing failed: %v", r)
		}
	}()
	img := image.NewRGBA(image.Rect(0, 0, f.w, f.h))
	cv := vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(dpi))
	dc := draw.New(cv)
	margin := vg.Points(8)
	dc = draw.Crop(dc, margin, -margin, margin/2, -margin)

	if f.legend != nil {
		r := f.legend.Rectangle(dc)
		lw := r.Max.X - r.Min.X
		gap := vg.Points(10)
		if lw+gap < 0.45*(dc.Max.X-dc.Min.X) { // else no room: leave it out
			var top vg.Length
			if t := f.p.Title; t.Text != "" {
				top = t.TextStyle.Rectangle(t.Text).Size().Y + t.Padding
			}
			f.p.Draw(draw.Crop(dc, 0, -(lw + gap), 0, 0))
			f.legend.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-lw, 0, 0, -top))
		} else {
			f.p.Draw(dc)
		}
	} else {
		f.p.Draw(dc)
	}
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(w); err != nil {
		return fmt.Errorf("chart: encoding PNG: %w", err)
	}
	return nil
}
