package chart

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	nan  = math.NaN()
	pinf = math.Inf(1)
	ninf = math.Inf(-1)
)

func decode(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decoding PNG: %v", err)
	}
	return img
}

// keep copies a chart into the directory $CHART_KEEP, if set, for
// looking at: CHART_KEEP=/tmp/charts go test ./internal/chart
func keep(t *testing.T, name, path string) {
	if os.Getenv("CHART_KEEP") == "" {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keepBytes(t, name, data)
}

func keepBytes(t *testing.T, name string, data []byte) {
	dir := os.Getenv("CHART_KEEP")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, strings.NewReplacer(" ", "-", "/", "-").Replace(name)+".png"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, data)
}

// countNear counts the pixels within a small distance of want.
func countNear(img image.Image, want color.Color) int {
	wr, wg, wb, _ := want.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			d := absDiff(r, wr) + absDiff(g, wg) + absDiff(bl, wb)
			if d <= 3*4*257 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func nonWhite(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return n
}

func checkSize(t *testing.T, img image.Image, w, h int) {
	t.Helper()
	if got := img.Bounds().Size(); got != image.Pt(w, h) {
		t.Fatalf("image size %v, want %dx%d", got, w, h)
	}
}

func eloChart() Line {
	return Line{
		Title:  "Elo per generation",
		XLabel: "generation",
		YLabel: "Elo",
		Series: []Series{
			{
				Name: "vs previous",
				X:    []float64{1, 2, 3, 4, 5, 6},
				Y:    []float64{0, 35, 60, 72, 110, 130},
				Lo:   []float64{-20, 10, 30, 40, 80, 95},
				Hi:   []float64{20, 60, 90, 104, 140, 165},
			},
			{
				Name: "vs gen 1",
				X:    []float64{1, 2, 3, 4, 5, 6},
				Y:    []float64{0, 20, 45, 60, 70, 95},
			},
		},
	}
}

func TestWriteLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "elo.png")
	c := eloChart()
	if err := WriteLines(path, c); err != nil {
		t.Fatal(err)
	}
	img := readPNG(t, path)
	checkSize(t, img, DefaultWidth, DefaultHeight)
	if n := nonWhite(img); n < 1000 {
		t.Errorf("only %d non-white pixels", n)
	}
	for i := range c.Series {
		if n := countNear(img, seriesColor(i)); n < 100 {
			t.Errorf("series %d: only %d pixels of its colour", i, n)
		}
	}
	keep(t, "elo", path)
}

func TestEncodeLinesSize(t *testing.T) {
	for _, sz := range [][2]int{{MinSide, MinSide}, {640, 360}, {333, 777}} {
		c := eloChart()
		c.Width, c.Height = sz[0], sz[1]
		var buf bytes.Buffer
		if err := EncodeLines(&buf, c); err != nil {
			t.Fatalf("%v: %v", sz, err)
		}
		checkSize(t, decode(t, buf.Bytes()), sz[0], sz[1])
	}
}

func TestWriteBars(t *testing.T) {
	moves := []string{"h2e2", "b2e2", "c3c4", "g3g4", "h0g2", "b0c2", "c0e2", "i0i1", "a3a4", "e3e4",
		"h2d2", "b2d2", "h2f2", "b2f2", "g0e2", "a0a1", "h2h4", "b2b4", "h2i2", "b2a2"}
	var bars []Bar
	for i, m := range moves {
		v := 0.7 - 0.02*float64(i)
		bars = append(bars, Bar{Label: m, Value: v, Lo: v - 0.05, Hi: v + 0.05})
	}
	bars[3].Lo, bars[3].Hi = nan, nan  // no interval
	bars[4].Value = nan                // left out, label kept
	bars[5].Lo, bars[5].Hi = 0.1, pinf // open interval
	c := Bars{Title: "First moves", XLabel: "score", YLabel: "move", Bars: bars}
	path := filepath.Join(t.TempDir(), "bars.png")
	if err := WriteBars(path, c); err != nil {
		t.Fatal(err)
	}
	img := readPNG(t, path)
	checkSize(t, img, DefaultWidth, 120+barPixels*len(bars))
	if n := countNear(img, seriesColor(2)); n < 1000 {
		t.Errorf("only %d pixels of the bar colour", n)
	}
	keep(t, "bars", path)

	c.Width, c.Height = 400, 300
	var buf bytes.Buffer
	if err := EncodeBars(&buf, c); err != nil {
		t.Fatal(err)
	}
	checkSize(t, decode(t, buf.Bytes()), 400, 300)
}

func TestErrors(t *testing.T) {
	ok := Series{X: []float64{1, 2}, Y: []float64{3, 4}}
	lines := map[string]Line{
		"no series":        {},
		"empty series":     {Series: []Series{{Name: "a"}, {Name: "b"}}},
		"all NaN":          {Series: []Series{{X: []float64{1, nan}, Y: []float64{nan, 2}}}},
		"all Inf":          {Series: []Series{{X: []float64{1, 2}, Y: []float64{pinf, ninf}}}},
		"X/Y lengths":      {Series: []Series{ok, {X: []float64{1, 2}, Y: []float64{1}}}},
		"Lo without Hi":    {Series: []Series{{X: ok.X, Y: ok.Y, Lo: []float64{1, 2}}}},
		"Lo/Hi lengths":    {Series: []Series{{X: ok.X, Y: ok.Y, Lo: []float64{1}, Hi: []float64{5}}}},
		"Lo > Hi":          {Series: []Series{{X: ok.X, Y: ok.Y, Lo: []float64{1, 5}, Hi: []float64{5, 4}}}},
		"negative width":   {Series: []Series{ok}, Width: -1},
		"tiny height":      {Series: []Series{ok}, Height: 10},
		"huge width":       {Series: []Series{ok}, Width: 1 << 30},
		"empty, bad sizes": {Width: -5},
	}
	for name, c := range lines {
		path := filepath.Join(t.TempDir(), "x.png")
		err := WriteLines(path, c)
		if err == nil || !strings.HasPrefix(err.Error(), "chart: ") {
			t.Errorf("%s: error %v", name, err)
		}
		if _, serr := os.Stat(path); !os.IsNotExist(serr) {
			t.Errorf("%s: file written despite the error", name)
		}
		if err := EncodeLines(&bytes.Buffer{}, c); err == nil {
			t.Errorf("%s: EncodeLines: no error", name)
		}
	}
	for _, name := range []string{"no series", "empty series", "all NaN", "all Inf"} {
		if err := EncodeLines(&bytes.Buffer{}, lines[name]); !errors.Is(err, ErrEmpty) {
			t.Errorf("%s: %v is not ErrEmpty", name, err)
		}
	}

	bars := map[string]Bars{
		"no bars":    {},
		"all NaN":    {Bars: []Bar{{Label: "a", Value: nan}, {Label: "b", Value: pinf}}},
		"Lo > Hi":    {Bars: []Bar{{Label: "a", Value: 1, Lo: 2, Hi: 1}}},
		"bad height": {Bars: []Bar{{Label: "a", Value: 1}}, Height: -3},
	}
	for name, c := range bars {
		err := WriteBars(filepath.Join(t.TempDir(), "x.png"), c)
		if err == nil || !strings.HasPrefix(err.Error(), "chart: ") {
			t.Errorf("bars %s: error %v", name, err)
		}
	}
	if err := EncodeBars(&bytes.Buffer{}, bars["all NaN"]); !errors.Is(err, ErrEmpty) {
		t.Errorf("bars all NaN: %v is not ErrEmpty", err)
	}

	// A failed write leaves an existing chart alone.
	path := filepath.Join(t.TempDir(), "keep.png")
	if err := WriteLines(path, eloChart()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := WriteLines(path, Line{}); err == nil {
		t.Fatal("no error")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("failed write changed the existing file")
	}
	if err := WriteLines(filepath.Join(t.TempDir(), "no", "such", "dir.png"), eloChart()); err == nil ||
		!strings.HasPrefix(err.Error(), "chart: ") {
		t.Errorf("unwritable path: %v", err)
	}
}

func encodeLines(t *testing.T, c Line) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := EncodeLines(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Unplottable points are left out: a chart with them draws exactly what
// the chart without them draws.
func TestSkipsUnplottable(t *testing.T) {
	small := Line{Width: 300, Height: 200, Series: []Series{
		{Name: "a", X: []float64{1, 2, 3}, Y: []float64{10, 20, 15}},
		{Name: "b", X: []float64{1, 2, 3}, Y: []float64{12, 18, 19}, Lo: []float64{10, 15, 17}, Hi: []float64{14, 21, 22}},
	}}
	odd := Line{Width: 300, Height: 200, Series: []Series{
		{Name: "a", X: []float64{nan, 1, 2, 3, 4, pinf}, Y: []float64{5, 10, 20, 15, pinf, 7}},
		{Name: "b", X: []float64{0, 1, 2, 3, 1e300}, Y: []float64{ninf, 12, 18, 19, 3},
			Lo: []float64{-1e9, 10, 15, 17, 0}, Hi: []float64{1e9, 14, 21, 22, 4}},
	}}
	if !bytes.Equal(encodeLines(t, small), encodeLines(t, odd)) {
		t.Error("the chart with unplottable points differs from the chart without them")
	}
	// A series with no points at all is fine next to one with points.
	withEmpty := small
	withEmpty.Series = append([]Series{}, small.Series...)
	withEmpty.Series = append(withEmpty.Series, Series{Name: "none yet"}, Series{Name: "all inf", X: []float64{1}, Y: []float64{pinf}})
	img := decode(t, encodeLines(t, withEmpty))
	checkSize(t, img, 300, 200)
}

// Odd but legal inputs must draw something and never panic.
func TestOddInputs(t *testing.T) {
	xs := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)
		}
		return v
	}
	cases := map[string]Line{
		"single point":     {Series: []Series{{X: []float64{3}, Y: []float64{1500}}}},
		"single at zero":   {Series: []Series{{X: []float64{0}, Y: []float64{0}}}},
		"all equal Y":      {Series: []Series{{X: xs(5), Y: []float64{2, 2, 2, 2, 2}}}},
		"all equal X":      {Series: []Series{{X: []float64{1, 1, 1}, Y: []float64{1, 2, 3}}}},
		"negative":         {Series: []Series{{X: []float64{-5, -3, -1}, Y: []float64{-400, -900, -100}}}},
		"tiny values":      {Series: []Series{{X: []float64{0, 5e-324, 1e-310}, Y: []float64{1e-300, 2e-300, 0}}}},
		"tiny span":        {Series: []Series{{X: []float64{1, 1 + 1e-15}, Y: []float64{1e14, 1e14 + 0.01}}}},
		"limits":           {Series: []Series{{X: []float64{-MaxAbs, MaxAbs}, Y: []float64{MaxAbs, -MaxAbs}}}},
		"unsorted X":       {Series: []Series{{X: []float64{3, 1, 2, 0}, Y: []float64{1, 2, 3, 4}}}},
		"interval off Y":   {Series: []Series{{X: xs(2), Y: []float64{1, 2}, Lo: []float64{5, -3}, Hi: []float64{6, -1}}}},
		"open intervals":   {Series: []Series{{X: xs(3), Y: []float64{1, 2, 3}, Lo: []float64{ninf, 1, ninf}, Hi: []float64{2, pinf, pinf}}}},
		"Inf both ends":    {Series: []Series{{X: xs(2), Y: []float64{1, 2}, Lo: []float64{pinf, ninf}, Hi: []float64{pinf, ninf}}}},
		"NaN intervals":    {Series: []Series{{X: xs(2), Y: []float64{1, 2}, Lo: []float64{nan, 1}, Hi: []float64{3, nan}}}},
		"empty Lo/Hi":      {Series: []Series{{Name: "e", Lo: []float64{}, Hi: []float64{}}, {X: xs(1), Y: xs(1)}}},
		"many series":      {Series: manySeries(12)},
		"long names":       {Series: []Series{{Name: strings.Repeat("very long name ", 20), X: xs(2), Y: xs(2)}, {Name: "", X: xs(2), Y: []float64{1, 0}}}},
		"odd text":         {Title: "炮二平五 \x00\xff $x_1^2$ \\n", XLabel: "\n\n", YLabel: "\t", Series: []Series{{Name: "马\xff", X: xs(2), Y: xs(2)}, {Name: "\x00", X: xs(2), Y: xs(2)}}},
		"legend no room":   {Width: MinSide, Height: MinSide, Series: []Series{{Name: strings.Repeat("w", 40), X: xs(2), Y: xs(2)}, {Name: "b", X: xs(2), Y: xs(2)}}},
		"smallest image":   {Title: "a title far too long for a tiny image", XLabel: "x", YLabel: "y", Width: MinSide, Height: MinSide, Series: []Series{{X: xs(3), Y: xs(3)}}},
		"many points":      {Series: []Series{{X: xs(2000), Y: xs(2000)}}},
		"isolated points":  {Series: []Series{{X: xs(5), Y: []float64{1, nan, 3, nan, 5}}}},
		"big and negative": {Series: []Series{{X: xs(3), Y: []float64{-1e12, 1e12, 0}}}},
	}
	for name, c := range cases {
		var buf bytes.Buffer
		if err := EncodeLines(&buf, c); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		keepBytes(t, "line-"+name, buf.Bytes())
		img := decode(t, buf.Bytes())
		w, h := c.Width, c.Height
		if w == 0 {
			w, h = DefaultWidth, DefaultHeight
		}
		checkSize(t, img, w, h)
		if n := nonWhite(img); n == 0 {
			t.Errorf("%s: blank image", name)
		}
	}

	barCases := map[string]Bars{
		"single":      {Bars: []Bar{{Label: "h2e2", Value: 0.5, Lo: nan, Hi: nan}}},
		"zero value":  {Bars: []Bar{{Label: "a"}, {Label: "b", Value: 1}}},
		"all zero":    {Bars: []Bar{{Label: "a"}, {Label: "b"}}},
		"negative":    {Bars: []Bar{{Label: "a", Value: -3, Lo: -4, Hi: -2}, {Label: "b", Value: 2, Lo: 1, Hi: 3}}},
		"all equal":   {Bars: []Bar{{Label: "a", Value: 7}, {Label: "b", Value: 7}, {Label: "c", Value: 7}}},
		"open":        {Bars: []Bar{{Label: "a", Value: 1, Lo: ninf, Hi: pinf}, {Label: "b", Value: 2, Lo: 1e300, Hi: pinf}}},
		"empty label": {Bars: []Bar{{Label: "", Value: 1}, {Label: strings.Repeat("x", 200), Value: 2}}},
		"odd labels":  {Bars: []Bar{{Label: "炮二平五\xff", Value: 1}, {Label: "\n", Value: 2}}},
		"many bars":   {Bars: make([]Bar, 200)},
		"tiny image":  {Width: MinSide, Height: MinSide, Bars: []Bar{{Label: "a", Value: 1}, {Label: "b", Value: 2}}},
	}
	for name, c := range barCases {
		var buf bytes.Buffer
		if err := EncodeBars(&buf, c); err != nil {
			t.Errorf("bars %s: %v", name, err)
			continue
		}
		keepBytes(t, "bars-"+name, buf.Bytes())
		if n := nonWhite(decode(t, buf.Bytes())); n == 0 {
			t.Errorf("bars %s: blank image", name)
		}
	}
}

func manySeries(n int) []Series {
	var s []Series
	for i := range n {
		s = append(s, Series{Name: string(rune('A' + i)), X: []float64{0, 1, 2}, Y: []float64{float64(i), float64(i + 1), float64(2 * i)}})
	}
	return s
}

func TestFixRange(t *testing.T) {
	for _, r := range [][2]float64{{0, 0}, {1500, 1500}, {-3, -3}, {1e-300, 2e-300}, {1e14, 1e14 + 0.01}, {0, 5e-324}} {
		lo, hi := fixRange(r[0], r[1])
		if !(lo < hi) || hi-lo < 1e-12 || hi-lo <= 1e-9*math.Max(math.Abs(lo), math.Abs(hi)) {
			t.Errorf("fixRange(%v) = %v, %v: still degenerate", r, lo, hi)
		}
		if lo > r[0] || hi < r[1] {
			t.Errorf("fixRange(%v) = %v, %v: does not cover the data", r, lo, hi)
		}
	}
	if lo, hi := fixRange(1, 2); lo != 1 || hi != 2 {
		t.Errorf("fixRange(1, 2) = %v, %v", lo, hi)
	}
}

// IntegerX marks whole numbers only (a chart of generations has no tick
// at 2.5), at most 11 of them, and the chart draws with it.
func TestIntegerTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{0.95, 1.05, "1"},
		{-1, 1, "-1 0 1"},
		{0, 2.5, "0 1 2"},
		{0.2, 3.7, "1 2 3"},
		{0, 10, "0 1 2 3 4 5 6 7 8 9 10"},
		{0, 12, "0 2 4 6 8 10 12"},
		{1, 57, "10 20 30 40 50"},
		{3, 240, "50 100 150 200"},
		{0.3, 0.7, ""},
	} {
		var got []string
		for _, tk := range (integerTicks{}).Ticks(tc.min, tc.max) {
			if tk.Value != math.Trunc(tk.Value) || tk.Label == "" {
				t.Errorf("[%v, %v]: tick %v %q", tc.min, tc.max, tk.Value, tk.Label)
			}
			got = append(got, tk.Label)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("[%v, %v]: ticks %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
	c := Line{Title: "by generation", XLabel: "generation", IntegerX: true,
		Series: []Series{{Name: "a", X: []float64{1, 2, 3}, Y: []float64{0, 10, 5}}}}
	f, err := c.build()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.p.X.Tick.Marker.(integerTicks); !ok {
		t.Errorf("IntegerX: the X axis's ticks are %T", f.p.X.Tick.Marker)
	}
	var buf bytes.Buffer
	if err := EncodeLines(&buf, c); err != nil {
		t.Fatal(err)
	}
	checkSize(t, decode(t, buf.Bytes()), DefaultWidth, DefaultHeight)
}
