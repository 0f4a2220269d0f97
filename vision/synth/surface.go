package synth

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"
)

// Surface is what the table is made of.
type Surface int

const (
	// Felt is a cloth-covered games table: an even colour with a soft,
	// blotchy grain (the zero value, and every scene before surfaces).
	Felt Surface = iota
	// Wood is a desk of planks: grain along them, seams between them, a
	// varnish that catches the light.
	Wood
	// Cloth is a woven tablecloth: the weave's threads, and plain,
	// striped or checked colours.
	Cloth
	// Paper is a light sheet or desk pad: fibres, and often ruled lines,
	// a grid or printed text.
	Paper
	// Glass is a dark, glossy top: soft reflections of the lights and of
	// the dice, dust.
	Glass
	// Tray is the photographs' table: a light grey board in a tray with a
	// dark printed border, on a white desk.
	Tray
)

// Surfaces lists every surface.
var Surfaces = []Surface{Felt, Wood, Cloth, Paper, Glass, Tray}

// String names the surface.
func (s Surface) String() string {
	switch s {
	case Felt:
		return "felt"
	case Wood:
		return "wood"
	case Cloth:
		return "cloth"
	case Paper:
		return "paper"
	case Glass:
		return "glass"
	case Tray:
		return "tray"
	}
	return fmt.Sprintf("surface(%d)", int(s))
}

// ParseSurface returns the surface String names.
func ParseSurface(name string) (Surface, error) {
	for _, s := range Surfaces {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("synth: unknown surface %q (want felt, wood, cloth, paper, glass or tray)", name)
}

// surfaceColour draws a colour for a surface.
func surfaceColour(s Surface, rng *rand.Rand) color.RGBA {
	j := func(c color.RGBA, amount float64) color.RGBA {
		f := 1 + amount*(2*rng.Float64()-1)
		return color.RGBA{clamp8(float64(c.R) * f), clamp8(float64(c.G) * f), clamp8(float64(c.B) * f), 255}
	}
	switch s {
	case Wood:
		woods := []color.RGBA{rgb(196, 150, 100), rgb(170, 115, 70), rgb(120, 75, 45), rgb(80, 50, 32), rgb(210, 180, 140), rgb(150, 100, 70)}
		return j(woods[rng.IntN(len(woods))], 0.12)
	case Cloth:
		return hsv(rng.Float64()*360, 0.2+0.6*rng.Float64(), 0.25+0.65*rng.Float64())
	case Paper:
		papers := []color.RGBA{rgb(244, 243, 238), rgb(238, 232, 215), rgb(235, 238, 242), rgb(250, 250, 248)}
		return j(papers[rng.IntN(len(papers))], 0.04)
	case Glass:
		glasses := []color.RGBA{rgb(18, 20, 22), rgb(30, 38, 36), rgb(12, 16, 30), rgb(40, 40, 44)}
		return j(glasses[rng.IntN(len(glasses))], 0.3)
	case Tray:
		return j(rgb(196, 196, 192), 0.08)
	}
	return Tables[rng.IntN(len(Tables))]
}

// hsv converts a hue (degrees), saturation and value (0-1) to a colour.
func hsv(h, s, v float64) color.RGBA {
	h = math.Mod(h, 360) / 60
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h, 2)-1))
	var r, g, b float64
	switch int(h) {
	case 0:
		r, g, b = c, x, 0
	case 1:
		r, g, b = x, c, 0
	case 2:
		r, g, b = 0, c, x
	case 3:
		r, g, b = 0, x, c
	case 4:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	m := v - c
	return color.RGBA{clamp8((r + m) * 255), clamp8((g + m) * 255), clamp8((b + m) * 255), 255}
}

func clamp8(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }

// mmPer is how many table units a millimetre is: dice are about 16 mm.
func (s Scene) mmPer() float64 { return s.dieSide(Die{}) / 16 }

// surfaceRNG is the random stream of the table's surface and clutter, apart
// from the render's own, so that a felt table draws as it always has.
func surfaceRNG(s Scene, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(s.Seed, 0x5afe0000+stream))
}

// paintSurface fills the canvas with the scene's surface.
func paintSurface(canvas *gocv.Mat, s Scene, fr frame) error {
	rng := surfaceRNG(s, uint64(s.Surface))
	base := s.Table
	if base.A == 0 {
		base = surfaceColour(s.Surface, rng)
	}
	if s.Surface == Felt {
		return paintFelt(canvas, base, s.Texture, max(canvas.Rows()/(24*supersample), 2), max(canvas.Cols()/(24*supersample), 2), rng)
	}
	// The pattern is drawn at half the canvas's resolution, a function of
	// the table point in millimetres, and enlarged.
	const half = 2
	w, h := (canvas.Cols()+half-1)/half, (canvas.Rows()+half-1)/half
	buf := make([]float32, w*h*3)
	mm := s.mmPer()
	// Table millimetres of the pixel (px, py) of the half-size buffer.
	toMM := func(px, py int) (float64, float64) {
		return (fr.x0 + (float64(px)+0.5)*half/fr.k) / mm, (fr.y0 + (float64(py)+0.5)*half/fr.k) / mm
	}
	col := [3]float64{float64(base.B), float64(base.G), float64(base.R)}
	var gloss bool
	switch s.Surface {
	case Wood:
		paintWood(buf, w, h, toMM, col, s.Texture, rng)
		gloss = true
	case Cloth:
		paintCloth(buf, w, h, toMM, col, rng)
	case Paper, Tray:
		paintSpeckle(buf, w, h, toMM, col, rng, s.Surface == Tray)
	case Glass:
		for i := 0; i < len(buf); i += 3 {
			buf[i], buf[i+1], buf[i+2] = float32(col[0]), float32(col[1]), float32(col[2])
		}
		gloss = true
	}
	if gloss {
		highlights(buf, w, h, toMM, s, rng)
	}
	small, err := floatMat(buf, w, h)
	if err != nil {
		return err
	}
	defer small.Close()
	// Blotches over it all: no surface is even.
	if err := blotches(&small, 4+6*s.Texture, rng); err != nil {
		return err
	}
	gocv.Resize(small, canvas, image.Point{X: canvas.Cols(), Y: canvas.Rows()}, 0, 0, gocv.InterpolationLinear)
	switch s.Surface {
	case Paper:
		printPaper(canvas, s, fr, rng)
	case Tray:
		trayBorder(canvas, s, fr, rng)
	case Glass:
		dust(canvas, s, fr, rng)
	}
	return nil
}

// paintFelt is the felt table: its colour and coarse grain (rows x cols
// blotches).
func paintFelt(canvas *gocv.Mat, c color.RGBA, texture float64, rows, cols int, rng *rand.Rand) error {
	canvas.SetTo(gocv.NewScalar(float64(c.B), float64(c.G), float64(c.R), 0))
	if texture <= 0 {
		return nil
	}
	coarse, err := gaussianMat(rng, rows, cols, 8*texture)
	if err != nil {
		return err
	}
	defer coarse.Close()
	big := gocv.NewMat()
	defer big.Close()
	gocv.Resize(coarse, &big, image.Point{X: canvas.Cols(), Y: canvas.Rows()}, 0, 0, gocv.InterpolationCubic)
	wide := gocv.NewMat()
	defer wide.Close()
	canvas.ConvertTo(&wide, gocv.MatTypeCV16SC3)
	gocv.Add(wide, big, &wide)
	wide.ConvertTo(canvas, gocv.MatTypeCV8UC3)
	return nil
}

// blotches adds soft, large patches of light and dark of the given
// strength (grey levels).
func blotches(canvas *gocv.Mat, strength float64, rng *rand.Rand) error {
	return paintFeltOver(canvas, strength, rng)
}

func paintFeltOver(canvas *gocv.Mat, strength float64, rng *rand.Rand) error {
	coarse, err := gaussianMat(rng, 6, 8, strength)
	if err != nil {
		return err
	}
	defer coarse.Close()
	// The same offset on the three channels: light, not colour.
	b, err := coarse.DataPtrInt16()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	for i := 0; i+2 < len(b); i += 3 {
		b[i+1], b[i+2] = b[i], b[i]
	}
	big := gocv.NewMat()
	defer big.Close()
	gocv.Resize(coarse, &big, image.Point{X: canvas.Cols(), Y: canvas.Rows()}, 0, 0, gocv.InterpolationCubic)
	wide := gocv.NewMat()
	defer wide.Close()
	canvas.ConvertTo(&wide, gocv.MatTypeCV16SC3)
	gocv.Add(wide, big, &wide)
	wide.ConvertTo(canvas, gocv.MatTypeCV8UC3)
	return nil
}

// floatMat makes an 8-bit BGR Mat of a w x h buffer of BGR floats.
func floatMat(buf []float32, w, h int) (gocv.Mat, error) {
	b := make([]byte, 4*len(buf))
	for i, v := range buf {
		binary.NativeEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	f, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV32FC3, b)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("synth: %w", err)
	}
	defer f.Close()
	m := gocv.NewMat()
	f.ConvertTo(&m, gocv.MatTypeCV8UC3) // rounds and saturates
	return m, nil
}

// noise1D is smooth 1D noise: random values at whole points, blended
// with a smooth step, repeating after len(v).
type noise1D []float64

func newNoise1D(rng *rand.Rand, n int) noise1D {
	v := make(noise1D, n)
	for i := range v {
		v[i] = 2*rng.Float64() - 1
	}
	return v
}

func (v noise1D) at(x float64) float64 {
	f := math.Floor(x)
	t := x - f
	i := int(f) % len(v)
	if i < 0 {
		i += len(v)
	}
	t = t * t * (3 - 2*t)
	return v[i] + t*(v[(i+1)%len(v)]-v[i])
}

// paintWood draws planks of wood: each plank a little lighter or darker,
// grain running along it (bands that wander, and fine streaks), dark
// seams between planks and at their ends.
func paintWood(buf []float32, w, h int, toMM func(int, int) (float64, float64), col [3]float64, texture float64, rng *rand.Rand) {
	a := rng.Float64() * math.Pi
	ca, sa := math.Cos(a), math.Sin(a)
	width := 80 + 120*rng.Float64()
	length := 500 + 1200*rng.Float64()
	bands := newNoise1D(rng, 512)
	streaks := newNoise1D(rng, 2048)
	wander := newNoise1D(rng, 256)
	type plank struct{ shade, offset, phase float64 }
	planks := make([]plank, 64)
	for i := range planks {
		planks[i] = plank{0.85 + 0.3*rng.Float64(), rng.Float64() * length, rng.Float64() * 400}
	}
	dark := [3]float64{col[0] * 0.55, col[1] * 0.5, col[2] * 0.5}
	strength := 0.5 + 0.5*texture
	for py := 0; py < h; py++ {
		for px := 0; px < w; px++ {
			x, y := toMM(px, py)
			along, across := x*ca+y*sa, -x*sa+y*ca
			pi := math.Floor(across / width)
			c := across - pi*width
			p := planks[int(pi)&63]
			// Growth rings cut along the plank: broad bands bent slowly.
			bend := 6 * wander.at(along/90+p.phase)
			ring := bands.at((c+bend)/4 + p.phase)
			streak := streaks.at((c+bend*0.6)*1.2 + p.phase)
			t := strength * (0.32*math.Max(0, ring) + 0.12*(streak+1)/2)
			seam := 0.0
			if c < 0.7 || c > width-0.7 {
				seam = 0.7
			} else if e := math.Mod(along+p.offset, length); e < 0.7 && e > -0.7 || e > length-0.7 || e < 0.7-length {
				seam = 0.6
			}
			i := (py*w + px) * 3
			for k := 0; k < 3; k++ {
				v := (col[k] + t*(dark[k]-col[k])) * p.shade
				v += seam * (dark[k]*0.5 - v)
				buf[i+k] = float32(v)
			}
		}
	}
}

// paintCloth draws a woven cloth: a plain weave of threads 1 to 2.5 mm
// apart, each thread shaded across, in one colour, stripes or a check.
func paintCloth(buf []float32, w, h int, toMM func(int, int) (float64, float64), col [3]float64, rng *rand.Rand) {
	a := rng.Float64() * math.Pi
	ca, sa := math.Cos(a), math.Sin(a)
	pitch := 1 + 1.5*rng.Float64()
	other := hsv(rng.Float64()*360, 0.1+0.6*rng.Float64(), 0.3+0.65*rng.Float64())
	second := [3]float64{float64(other.B), float64(other.G), float64(other.R)}
	band := 5 + 15*rng.Float64()
	pattern := rng.IntN(3) // plain, stripes, check
	folds := newNoise1D(rng, 64)
	for py := 0; py < h; py++ {
		for px := 0; px < w; px++ {
			x, y := toMM(px, py)
			u, v := x*ca+y*sa, -x*sa+y*ca
			iu, iv := math.Floor(u/pitch), math.Floor(v/pitch)
			fu, fv := u/pitch-iu, v/pitch-iv
			var profile float64
			if (int(iu)+int(iv))&1 == 0 {
				profile = math.Sin(math.Pi * fu) // the warp thread on top
			} else {
				profile = math.Sin(math.Pi * fv)
			}
			// Between threads the shadowed gaps; along a thread, light.
			shade := 0.72 + 0.33*profile
			mix := 0.0
			switch pattern {
			case 1:
				if int(math.Floor(v/band))&1 == 1 {
					mix = 1
				}
			case 2:
				mix = 0.5 * (float64(int(math.Floor(v/band))&1) + float64(int(math.Floor(u/band))&1))
			}
			shade *= 1 + 0.08*folds.at(u/60+v/83)
			i := (py*w + px) * 3
			for k := 0; k < 3; k++ {
				buf[i+k] = float32((col[k] + mix*(second[k]-col[k])) * shade)
			}
		}
	}
}

// paintSpeckle draws paper or card: an even colour with faint fibres and,
// on card (the tray's board), dark specks.
func paintSpeckle(buf []float32, w, h int, toMM func(int, int) (float64, float64), col [3]float64, rng *rand.Rand, specks bool) {
	fibres := newNoise1D(rng, 4096)
	for py := 0; py < h; py++ {
		for px := 0; px < w; px++ {
			x, y := toMM(px, py)
			f := fibres.at(x*1.7+y*0.3) * fibres.at(y*1.9-x*0.4+1000)
			shade := 1 + 0.03*f
			if specks && f > 0.93 {
				shade = 0.75
			}
			i := (py*w + px) * 3
			for k := 0; k < 3; k++ {
				buf[i+k] = float32(col[k] * shade)
			}
		}
	}
}

// highlights brightens soft patches where a glossy surface reflects a
// window or a lamp: long soft bands and a round spot.
func highlights(buf []float32, w, h int, toMM func(int, int) (float64, float64), s Scene, rng *rand.Rand) {
	type spot struct{ x, y, ca, sa, rx, ry, gain float64 }
	x0, y0 := toMM(0, 0)
	x1, y1 := toMM(w-1, h-1)
	var spots []spot
	for n := 1 + rng.IntN(3); n > 0; n-- {
		a := rng.Float64() * math.Pi
		spots = append(spots, spot{
			x0 + (x1-x0)*rng.Float64(), y0 + (y1-y0)*rng.Float64(), math.Cos(a), math.Sin(a),
			40 + 200*rng.Float64(), 15 + 60*rng.Float64(), 25 + 60*rng.Float64(),
		})
	}
	for py := 0; py < h; py++ {
		for px := 0; px < w; px++ {
			x, y := toMM(px, py)
			g := 0.0
			for _, sp := range spots {
				dx, dy := x-sp.x, y-sp.y
				u, v := (dx*sp.ca+dy*sp.sa)/sp.rx, (-dx*sp.sa+dy*sp.ca)/sp.ry
				if r := u*u + v*v; r < 9 {
					g += sp.gain * math.Exp(-r)
				}
			}
			if g == 0 {
				continue
			}
			i := (py*w + px) * 3
			for k := 0; k < 3; k++ {
				buf[i+k] += float32(g)
			}
		}
	}
}

// printPaper prints ruled lines, a grid or lines of text on paper, or
// leaves it plain.
func printPaper(canvas *gocv.Mat, s Scene, fr frame, rng *rand.Rand) {
	mm := s.mmPer() * fr.k // canvas pixels per millimetre
	w, h := float64(canvas.Cols()), float64(canvas.Rows())
	ink := []color.RGBA{rgb(150, 175, 215), rgb(170, 170, 175), rgb(120, 150, 200)}[rng.IntN(3)]
	thick := max(1, int(mm*0.25))
	kind := 0 // plain
	switch r := rng.Float64(); {
	case r < 0.3:
		kind = 1
	case r < 0.5:
		kind = 2
	case r < 0.65:
		kind = 3
	}
	switch kind {
	case 1: // ruled, with a margin
		gap := (6 + 3*rng.Float64()) * mm
		for y := gap * rng.Float64(); y < h; y += gap {
			gocv.Line(canvas, image.Point{X: 0, Y: int(y)}, image.Point{X: int(w), Y: int(y)}, ink, thick)
		}
		x := w * rng.Float64()
		gocv.Line(canvas, image.Point{X: int(x), Y: 0}, image.Point{X: int(x), Y: int(h)}, rgb(220, 120, 120), thick)
	case 2: // squared
		gap := 5 * mm
		for y := gap * rng.Float64(); y < h; y += gap {
			gocv.Line(canvas, image.Point{X: 0, Y: int(y)}, image.Point{X: int(w), Y: int(y)}, ink, thick)
		}
		for x := gap * rng.Float64(); x < w; x += gap {
			gocv.Line(canvas, image.Point{X: int(x), Y: 0}, image.Point{X: int(x), Y: int(h)}, ink, thick)
		}
	case 3: // a printed page: a column of text, margins around it
		size := (2.5 + 2*rng.Float64()) * mm
		x0, y0 := w*0.3*rng.Float64(), h*0.3*rng.Float64()
		col := image.Rect(int(x0), int(y0), int(x0+160*mm), int(y0+250*mm))
		printText(canvas, col, size, rgb(40, 40, 45), rng)
	}
}

// words are what printed text and key legends say.
var words = []string{"the", "dice", "table", "liar", "bid", "five", "sixes", "round", "call", "player", "cup", "score", "and", "of", "a", "to", "in", "is", "rules", "wild", "star", "game", "turn", "next", "lose", "win", "2024", "12.50", "note", "page", "see", "total", "x", "4", "11", "plan"}

// printText fills r with lines of words size pixels high, left-aligned in
// paragraphs.
func printText(img *gocv.Mat, r image.Rectangle, size float64, c color.RGBA, rng *rand.Rand) {
	scale := size / 22 // Hershey simplex capitals are about 22 px at scale 1
	thick := max(1, int(size/9))
	lineGap := int(size * (1.6 + 0.6*rng.Float64()))
	margin := int(size * (1 + 3*rng.Float64()))
	for y := r.Min.Y + lineGap; y < r.Max.Y; y += lineGap {
		if rng.Float64() < 0.12 {
			continue // a paragraph's break
		}
		x := r.Min.X + margin
		end := r.Max.X - margin - int(size*8*rng.Float64())
		for x < end {
			word := words[rng.IntN(len(words))]
			ws := gocv.GetTextSize(word, gocv.FontHersheySimplex, scale, thick)
			if x+ws.X > end {
				break
			}
			gocv.PutTextWithParams(img, word, image.Point{X: x, Y: y}, gocv.FontHersheySimplex, scale, c, thick, gocv.LineAA, false)
			x += ws.X + int(size*0.6)
		}
	}
}

// trayBorder draws the tray's dark border around a board of the table's
// colour on a white desk: the photographs' table.
func trayBorder(canvas *gocv.Mat, s Scene, fr frame, rng *rand.Rand) {
	mm := s.mmPer()
	w, h := float64(s.Width), float64(s.Height)
	cx, cy := w/2+(rng.Float64()-0.5)*0.2*w, h/2+(rng.Float64()-0.5)*0.2*h
	hw, hh := w*(0.38+0.2*rng.Float64()), h*(0.38+0.2*rng.Float64())
	band := (5 + 10*rng.Float64()) * mm
	desk := rgb(232, 232, 228)
	outer := func(g float64) []image.Point {
		var p []pt
		for _, c := range [][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			p = append(p, fr.at(cx+c[0]*(hw+g), cy+c[1]*(hh+g), 0))
		}
		return intPoints(p, 1)
	}
	// The desk around the tray, then the border, then the board inside,
	// drawn as nested shapes: painting the desk is the outside of the
	// border's outer edge.
	board := canvas.Clone()
	defer board.Close()
	canvas.SetTo(gocv.NewScalar(float64(desk.B), float64(desk.G), float64(desk.R), 0))
	frame := []color.RGBA{rgb(35, 35, 40), rgb(25, 30, 45), rgb(50, 45, 45)}[rng.IntN(3)]
	fillPoly(canvas, outer(band), frame)
	// Flecks of colour printed on the border.
	for n := 0; n < 60; n++ {
		t := rng.Float64()
		side := rng.IntN(4)
		var x, y float64
		switch side {
		case 0:
			x, y = cx-hw+2*hw*t, cy-hh-band*rng.Float64()
		case 1:
			x, y = cx-hw+2*hw*t, cy+hh+band*rng.Float64()
		case 2:
			x, y = cx-hw-band*rng.Float64(), cy-hh+2*hh*t
		default:
			x, y = cx+hw+band*rng.Float64(), cy-hh+2*hh*t
		}
		p := fr.at(x, y, 0)
		circleF(canvas, p.x, p.y, mm*fr.k*(0.5+1.5*rng.Float64()), hsv(rng.Float64()*360, 0.7, 0.6))
	}
	inner := gocv.NewMatWithSize(canvas.Rows(), canvas.Cols(), gocv.MatTypeCV8UC1)
	defer inner.Close()
	inner.SetTo(gocv.Scalar{})
	fillPoly(&inner, outer(0), color.RGBA{255, 255, 255, 255})
	board.CopyToWithMask(canvas, inner)
	// The wall's shadow just inside the border.
	edge := gocv.NewMatWithSize(canvas.Rows(), canvas.Cols(), gocv.MatTypeCV8UC1)
	defer edge.Close()
	edge.SetTo(gocv.NewScalar(255, 0, 0, 0))
	fillPoly(&edge, outer(-band*0.6), color.RGBA{})
	softBlur(&edge, band*fr.k*0.4+1)
	gocv.BitwiseAnd(edge, inner, &edge)
	_ = darken(canvas, edge, 0.25)
}

// dust scatters specks and a few smears on glass.
func dust(canvas *gocv.Mat, s Scene, fr frame, rng *rand.Rand) {
	mm := s.mmPer() * fr.k
	n := int(float64(canvas.Cols()*canvas.Rows()) / (mm * mm * 2500))
	base := s.Table
	for i := 0; i < n; i++ {
		// Specks a little lighter than the glass: dust, not stars.
		c := mixRGB(base, rgb(200, 200, 200), 0.1+0.2*rng.Float64())
		circleF(canvas, rng.Float64()*float64(canvas.Cols()), rng.Float64()*float64(canvas.Rows()), mm*(0.1+0.2*rng.Float64()), c)
	}
}
