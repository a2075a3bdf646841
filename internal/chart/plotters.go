package chart

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// whisker is an interval [lo, hi] at position at (an X value for
// vertical whiskers, a bar position for horizontal ones). An infinite
// end runs to the edge of the plot, without a cap.
type whisker struct{ at, lo, hi float64 }

// whiskers draws intervals. plotter.YErrorBars is not used because it
// takes errors relative to the point (and their absolute values), so it
// cannot draw an interval that excludes its point or has an open end.
type whiskers struct {
	pts        []whisker
	horizontal bool
	style      draw.LineStyle
	cap        vg.Length
}

func (w *whiskers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	// Drawn in (a, v): a along the whiskers' positions, v along their
	// values; pt turns that into the canvas's (x, y), so that both
	// orientations are one drawing.
	trA, trV, vMin, vMax := trX, trY, c.Min.Y, c.Max.Y
	pt := func(a, v vg.Length) vg.Point { return vg.Point{X: a, Y: v} }
	if w.horizontal {
		trA, trV, vMin, vMax = trY, trX, c.Min.X, c.Max.X
		pt = func(a, v vg.Length) vg.Point { return vg.Point{X: v, Y: a} }
	}
	for _, wh := range w.pts {
		a := trA(wh.at)
		v0, v1 := vMin, vMax
		if !math.IsInf(wh.lo, 0) {
			v0 = trV(wh.lo)
		}
		if !math.IsInf(wh.hi, 0) {
			v1 = trV(wh.hi)
		}
		c.StrokeLines(w.style, c.ClipLinesXY([]vg.Point{pt(a, v0), pt(a, v1)})...)
		for _, e := range [...]struct {
			v  float64
			at vg.Length
		}{{wh.lo, v0}, {wh.hi, v1}} {
			if !math.IsInf(e.v, 0) && c.Contains(pt(a, e.at)) {
				c.StrokeLines(w.style, []vg.Point{pt(a-w.cap/2, e.at), pt(a+w.cap/2, e.at)})
			}
		}
	}
}

// DataRange covers the finite interval ends, so the axes include them.
func (w *whiskers) DataRange() (xmin, xmax, ymin, ymax float64) {
	amin, amax := math.Inf(1), math.Inf(-1)
	vmin, vmax := math.Inf(1), math.Inf(-1)
	for _, wh := range w.pts {
		amin, amax = math.Min(amin, wh.at), math.Max(amax, wh.at)
		for _, v := range [...]float64{wh.lo, wh.hi} {
			if !math.IsInf(v, 0) {
				vmin, vmax = math.Min(vmin, v), math.Max(vmax, v)
			}
		}
	}
	if w.horizontal {
		return vmin, vmax, amin, amax
	}
	return amin, amax, vmin, vmax
}

// hbar is one horizontal bar from 0 to value at vertical position pos.
type hbar struct{ pos, value float64 }

// hbars draws horizontal bars thick data units high; the caller sets
// the axis ranges.
type hbars struct {
	bars  []hbar
	thick float64
	color color.Color
}

func (b *hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, hb := range b.bars {
		x0, x1 := trX(0), trX(hb.value)
		y0, y1 := trY(hb.pos-b.thick/2), trY(hb.pos+b.thick/2)
		rect := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
		c.FillPolygon(b.color, c.ClipPolygonXY(rect))
	}
}
