package synth

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"sort"

	"gocv.io/x/gocv"
)

// Kind is a kind of thing on a desk beside the dice.
type Kind int

const (
	// Keyboard is a computer keyboard: rows of rounded square keys with
	// letters on them, the likeliest thing to be read as dice.
	Keyboard Kind = iota
	// Cable is a thick, shaded cable curving across the table, sometimes
	// with a plug.
	Cable
	// Coin is a coin with a rim, a numeral and sometimes a ring of dots.
	Coin
	// Pen is a pen with a cap and a clip.
	Pen
	// Card is a playing card, face up (suit pips, like dice pips) or down.
	Card
	// Phone is a phone, face up (screen, app icons) or down (camera lenses).
	Phone
	// Sheet is a sheet of paper with printed text.
	Sheet
	// Stickers are round coloured dot stickers, scattered or in a row.
	Stickers
	// Note is a square sticky note with handwriting.
	Note
)

// Kinds lists every kind of thing.
var Kinds = []Kind{Keyboard, Cable, Coin, Pen, Card, Phone, Sheet, Stickers, Note}

// String names the kind.
func (k Kind) String() string {
	names := []string{"keyboard", "cable", "coin", "pen", "card", "phone", "sheet", "stickers", "note"}
	if k >= 0 && int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Thing is something on the table that is not a die.
type Thing struct {
	Kind Kind
	// X and Y are its centre, in the scene's units.
	X, Y float64
	// Size is its length (a keyboard's, a coin's diameter, a cable's
	// span), in the scene's units; 0 is its usual size beside dice of
	// 16 mm.
	Size float64
	// Rotation is its turn in degrees.
	Rotation float64
	// Seed draws its details: colours, letters, the cable's path.
	Seed uint64
}

// usualSize is a kind's usual length in millimetres.
var usualSize = map[Kind]float64{Keyboard: 310, Cable: 380, Coin: 23, Pen: 140, Card: 88, Phone: 150, Sheet: 297, Stickers: 60, Note: 76}

// layer orders things from the lowest (paper) to the highest, so that a
// keyboard lies over a sheet and not under it.
var layer = map[Kind]int{Sheet: 0, Note: 1, Card: 1, Stickers: 1, Coin: 2, Cable: 3, Pen: 3, Phone: 4, Keyboard: 4}

func (t Thing) validate() error {
	if t.Kind < Keyboard || t.Kind > Note {
		return fmt.Errorf("unknown kind %d", int(t.Kind))
	}
	if !(t.Size >= 0) || math.IsInf(t.Size, 0) || math.IsNaN(t.X+t.Y+t.Rotation) || math.IsInf(t.X+t.Y+t.Rotation, 0) {
		return fmt.Errorf("bad size %v or place (%v,%v)", t.Size, t.X, t.Y)
	}
	return nil
}

// length is the thing's length in table units.
func (t Thing) length(s Scene) float64 {
	if t.Size > 0 {
		return s.px(t.Size)
	}
	return usualSize[t.Kind] * s.mmPer()
}

// drawClutter draws the scene's things on the table, lowest first.
func drawClutter(canvas *gocv.Mat, s Scene, fr frame) error {
	if len(s.Clutter) == 0 {
		return nil
	}
	things := append([]Thing(nil), s.Clutter...)
	sort.SliceStable(things, func(i, j int) bool { return layer[things[i].Kind] < layer[things[j].Kind] })
	for _, t := range things {
		if err := drawThing(canvas, s, fr, t); err != nil {
			return err
		}
	}
	return nil
}

// sprite is a thing drawn flat in its own frame: colour, coverage, and
// how many texture pixels a table unit is.
type sprite struct {
	tex, alpha gocv.Mat
	res        float64
}

func newSprite(w, h, res float64) sprite {
	cols, rows := max(int(math.Ceil(w*res)), 2), max(int(math.Ceil(h*res)), 2)
	sp := sprite{tex: gocv.NewMatWithSize(rows, cols, gocv.MatTypeCV8UC3), alpha: gocv.NewMatWithSize(rows, cols, gocv.MatTypeCV8UC1), res: res}
	sp.tex.SetTo(gocv.Scalar{})
	sp.alpha.SetTo(gocv.Scalar{})
	return sp
}

func (sp sprite) Close() {
	sp.tex.Close()
	sp.alpha.Close()
}

func (sp sprite) w() float64 { return float64(sp.tex.Cols()) }
func (sp sprite) h() float64 { return float64(sp.tex.Rows()) }

// fill paints the rounded rectangle (texture pixels) in c, and covers it.
func (sp sprite) fill(cx, cy, w, h, radius float64, c color.RGBA) {
	p := roundedRect(cx, cy, w, h, 0, radius)
	fillPoly(&sp.tex, p, c)
	fillPoly(&sp.alpha, p, color.RGBA{255, 255, 255, 255})
}

// drawThing draws one thing on the table.
func drawThing(canvas *gocv.Mat, s Scene, fr frame, t Thing) error {
	rng := rand.New(rand.NewPCG(t.Seed, 0x7419))
	L := t.length(s)
	mm := s.mmPer()
	// Texture pixels per table unit: the canvas's, within reason.
	res := math.Min(fr.k, 3000/L)
	var (
		sp     sprite
		z      float64 // the height its texture lies at
		raised float64 // the height its shadow is cast from
		base   color.RGBA
	)
	switch t.Kind {
	case Keyboard:
		sp, z, base = keyboard(L, res, mm, fr, s, t, rng)
		raised = z + 10*mm
	case Cable:
		sp = cable(L, res, mm, s, rng)
		raised = 5 * mm
	case Coin:
		sp = coin(L, res, rng)
		raised = 1.5 * mm
	case Pen:
		sp = pen(L, res, mm, rng)
		raised = 10 * mm
	case Card:
		sp = card(L, res, mm, rng)
	case Phone:
		sp, base = phone(L, res, mm, rng)
		z = 8 * mm
		raised = z
	case Sheet:
		sp = sheet(L, res, mm, rng)
		raised = 0.5 * mm
	case Stickers:
		sp = stickers(L, res, mm, rng)
	case Note:
		sp = note(L, res, mm, rng)
		raised = 0.5 * mm
	}
	defer sp.Close()
	// The texture's corners on the table.
	ca, sa := math.Cos(t.Rotation*math.Pi/180), math.Sin(t.Rotation*math.Pi/180)
	X, Y := s.px(t.X), s.px(t.Y)
	place := func(px, py, h float64) pt {
		lx, ly := px/sp.res-sp.w()/sp.res/2, py/sp.res-sp.h()/sp.res/2
		return fr.at(X+lx*ca-ly*sa, Y+lx*sa+ly*ca, h)
	}
	corners := func(h float64) [4]pt {
		return [4]pt{place(0, 0, h), place(sp.w(), 0, h), place(sp.w(), sp.h(), h), place(0, sp.h(), h)}
	}
	if raised > 0 && s.Light.Shadow > 0 {
		lx, ly := lightDir(s)
		off := raised * 0.7
		X, Y = X-lx*off, Y-ly*off
		err := warpSprite(canvas, sp, corners(0), raised*0.25*fr.k+1, func(region *gocv.Mat, alpha gocv.Mat, b image.Rectangle) error {
			return darken(region, alpha, 0.45*s.Light.Shadow)
		})
		X, Y = X+lx*off, Y+ly*off
		if err != nil {
			return err
		}
	}
	if z > 0 && fr.cam != nil {
		// The sides of a boxy thing (a phone, a keyboard's case): the hull
		// of its outline at the table and at its top.
		lo, hi := corners(0), corners(z)
		pts := append(lo[:], hi[:]...)
		fillPoly(canvas, intPoints(hull(pts), 1), scale(base, 0.55))
	}
	return warpSprite(canvas, sp, corners(z), 0, func(region *gocv.Mat, alpha gocv.Mat, b image.Rectangle) error {
		warped := gocv.NewMat()
		defer warped.Close()
		m, size := spriteWarp(sp, corners(z), b)
		defer m.Close()
		gocv.WarpPerspectiveWithParams(sp.tex, &warped, m, size, gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
		return blendLayer(region, warped, alpha, image.Rect(0, 0, b.Dx(), b.Dy()), 1)
	})
}

// spriteWarp is the homography from the sprite's texture to the quad,
// within the canvas region b, and b's size.
func spriteWarp(sp sprite, quad [4]pt, b image.Rectangle) (gocv.Mat, image.Point) {
	src := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 0, Y: 0}, {X: float32(sp.w()), Y: 0}, {X: float32(sp.w()), Y: float32(sp.h())}, {X: 0, Y: float32(sp.h())}})
	defer src.Close()
	d := make([]gocv.Point2f, 4)
	for i, q := range quad {
		d[i] = gocv.Point2f{X: float32(q.x - float64(b.Min.X)), Y: float32(q.y - float64(b.Min.Y))}
	}
	dst := gocv.NewPoint2fVectorFromPoints(d)
	defer dst.Close()
	return gocv.GetPerspectiveTransform2f(src, dst), image.Point{X: b.Dx(), Y: b.Dy()}
}

// warpSprite warps the sprite's coverage onto the quad of the canvas,
// blurred by sigma when above 0, and hands fn the canvas's region under
// it, the coverage there, and the region's bounds.
func warpSprite(canvas *gocv.Mat, sp sprite, quad [4]pt, sigma float64, fn func(region *gocv.Mat, alpha gocv.Mat, b image.Rectangle) error) error {
	qb := boxOf(quad[:])
	pad := 3*sigma + 2
	b := image.Rect(int(qb.MinX-pad), int(qb.MinY-pad), int(qb.MaxX+pad)+1, int(qb.MaxY+pad)+1).Intersect(image.Rect(0, 0, canvas.Cols(), canvas.Rows()))
	if b.Empty() {
		return nil
	}
	alpha := gocv.NewMat()
	defer alpha.Close()
	if sigma > 0 {
		// A soft shadow: warped and blurred at a quarter of the
		// resolution, then enlarged.
		small := [4]pt{}
		for i, q := range quad {
			small[i] = pt{float64(b.Min.X) + (q.x-float64(b.Min.X))/4, float64(b.Min.Y) + (q.y-float64(b.Min.Y))/4}
		}
		sb := image.Rectangle{Min: b.Min, Max: b.Min.Add(image.Point{X: (b.Dx() + 3) / 4, Y: (b.Dy() + 3) / 4})}
		m, size := spriteWarp(sp, small, sb)
		lo := gocv.NewMat()
		gocv.WarpPerspectiveWithParams(sp.alpha, &lo, m, size, gocv.InterpolationArea, gocv.BorderConstant, color.RGBA{})
		m.Close()
		blurSigma(&lo, sigma/4)
		gocv.Resize(lo, &alpha, image.Point{X: b.Dx(), Y: b.Dy()}, 0, 0, gocv.InterpolationLinear)
		lo.Close()
	} else {
		m, size := spriteWarp(sp, quad, b)
		defer m.Close()
		gocv.WarpPerspectiveWithParams(sp.alpha, &alpha, m, size, gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	}
	region := canvas.Region(b)
	defer region.Close()
	// Work on a copy: the region of a Mat is not continuous.
	work := region.Clone()
	defer work.Close()
	if err := fn(&work, alpha, b); err != nil {
		return err
	}
	work.CopyTo(&region)
	return nil
}

// keyboard draws a keyboard L long: its case and rows of keys with their
// legends, each key's top shifted from its skirt as the camera sees a key
// standing up. It returns the sprite, the case's height and its colour.
func keyboard(L, res, mm float64, fr frame, s Scene, t Thing, rng *rand.Rand) (sprite, float64, color.RGBA) {
	u := L / 16 // the key pitch
	sp := newSprite(L, 6.9*u, res)
	styles := []struct{ body, key, legend color.RGBA }{
		{rgb(30, 30, 32), rgb(38, 38, 40), rgb(225, 225, 225)},
		{rgb(235, 235, 232), rgb(245, 245, 243), rgb(40, 40, 45)},
		{rgb(190, 192, 196), rgb(25, 25, 28), rgb(235, 235, 235)},
		{rgb(20, 20, 22), rgb(140, 140, 145), rgb(20, 20, 20)},
		{rgb(60, 60, 64), rgb(220, 215, 200), rgb(50, 50, 50)},
	}
	st := styles[rng.IntN(len(styles))]
	chiclet := rng.Float64() < 0.35 // flat laptop keys
	p := u * res
	sp.fill(sp.w()/2, sp.h()/2, sp.w(), sp.h(), 0.06, st.body)
	// How far, in texture pixels, a key's top stands off its skirt: the
	// ground shift of its height near the keyboard's centre, turned into
	// the keyboard's frame.
	keyH := 0.45 * u
	if chiclet {
		keyH = 0.12 * u
	}
	z := 0.35 * u
	var sx, sy float64
	if fr.cam != nil {
		X, Y := s.px(t.X), s.px(t.Y)
		x0, y0 := fr.cam.ground(X, Y, z)
		x1, y1 := fr.cam.ground(X, Y, z+keyH)
		dx, dy := x1-x0, y1-y0
		ca, sa := math.Cos(t.Rotation*math.Pi/180), math.Sin(t.Rotation*math.Pi/180)
		sx, sy = (dx*ca+dy*sa)*res, (-dx*sa+dy*ca)*res
	}
	rows := []struct {
		widths []float64
		labels []string
	}{
		{[]float64{1, -0.5, 1, 1, 1, 1, -0.5, 1, 1, 1, 1, -0.5, 1, 1, 1, 1}, []string{"Esc", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12"}},
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, []string{"~", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-", "=", "Back"}},
		{[]float64{1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.5}, []string{"Tab", "Q", "W", "E", "R", "T", "Y", "U", "I", "O", "P", "[", "]", "\\"}},
		{[]float64{1.75, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2.25}, []string{"Caps", "A", "S", "D", "F", "G", "H", "J", "K", "L", ";", "'", "Enter"}},
		{[]float64{2.25, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2.75}, []string{"Shift", "Z", "X", "C", "V", "B", "N", "M", ",", ".", "/", "Shift"}},
		{[]float64{1.25, 1.25, 1.25, 6.25, 1.25, 1.25, 1.25, 1.25}, []string{"Ctrl", "", "Alt", "", "Alt", "Fn", "", "Ctrl"}},
	}
	y := 0.45 * p
	for r, row := range rows {
		x := 0.5 * p
		li := 0
		for _, w := range row.widths {
			if w < 0 {
				x -= w * p
				continue
			}
			kw := w*p - 0.1*p
			kh := 0.9 * p
			cx, cy := x+w*p/2, y+p/2
			if chiclet {
				fillPoly(&sp.tex, roundedRect(cx, cy, kw, kh, 0, 0.12), scale(st.body, 0.6))
				fillPoly(&sp.tex, roundedRect(cx+sx, cy+sy, kw*0.94, kh*0.94, 0, 0.12), st.key)
			} else {
				fillPoly(&sp.tex, roundedRect(cx, cy, kw, kh, 0, 0.15), scale(st.key, 0.62))
				fillPoly(&sp.tex, roundedRect(cx+sx, cy+sy, kw*0.74, kh*0.74, 0, 0.2), st.key)
			}
			label := row.labels[li]
			li++
			if label != "" {
				size := 0.28 * p
				if len(label) > 1 {
					size = 0.16 * p
				}
				sc := size / 22
				thick := max(1, int(size/7))
				ts := gocv.GetTextSize(label, gocv.FontHersheySimplex, sc, thick)
				org := image.Point{X: int(cx + sx - float64(ts.X)/2), Y: int(cy + sy + float64(ts.Y)/2)}
				if len(label) == 1 && rng.Float64() < 0.5 {
					org = image.Point{X: int(cx + sx - kw*0.25), Y: int(cy + sy - kh*0.05)}
				}
				gocv.PutTextWithParams(&sp.tex, label, org, gocv.FontHersheySimplex, sc, st.legend, thick, gocv.LineAA, false)
			}
			x += w * p
		}
		y += p
		if r == 0 {
			y += 0.25 * p
		}
	}
	return sp, z, st.body
}

// cable draws a cable spanning about L: a thick curve, dark at its edges
// and lit along one side, sometimes ending in a plug.
func cable(L, res, mm float64, s Scene, rng *rand.Rand) sprite {
	sp := newSprite(L, L*0.7, res)
	w, h := sp.w(), sp.h()
	thick := (3 + 5*rng.Float64()) * mm * res
	colours := []color.RGBA{rgb(25, 25, 28), rgb(230, 230, 228), rgb(120, 120, 125), rgb(180, 40, 40), rgb(40, 80, 170), rgb(230, 140, 30)}
	c := colours[rng.IntN(len(colours))]
	p := [4]pt{
		{thick, h * (0.1 + 0.8*rng.Float64())},
		{w * (0.2 + 0.3*rng.Float64()), h * rng.Float64()},
		{w * (0.5 + 0.3*rng.Float64()), h * rng.Float64()},
		{w - thick, h * (0.1 + 0.8*rng.Float64())},
	}
	var path []pt
	for i := 0; i <= 64; i++ {
		t := float64(i) / 64
		a, b, cc, d := (1-t)*(1-t)*(1-t), 3*t*(1-t)*(1-t), 3*t*t*(1-t), t*t*t
		path = append(path, pt{a*p[0].x + b*p[1].x + cc*p[2].x + d*p[3].x, a*p[0].y + b*p[1].y + cc*p[2].y + d*p[3].y})
	}
	lx, ly := lightDir(s)
	stroke := func(width, dx, dy float64, col color.RGBA, cover bool) {
		for i := 1; i < len(path); i++ {
			a := image.Point{X: int((path[i-1].x + dx) * 16), Y: int((path[i-1].y + dy) * 16)}
			b := image.Point{X: int((path[i].x + dx) * 16), Y: int((path[i].y + dy) * 16)}
			thickLine(&sp.tex, a, b, max(1, int(width)), col)
			if cover {
				thickLine(&sp.alpha, a, b, max(1, int(width)), color.RGBA{255, 255, 255, 255})
			}
		}
	}
	stroke(thick, 0, 0, scale(c, 0.55), true)
	stroke(thick*0.7, lx*thick*0.08, ly*thick*0.08, c, false)
	lit := color.RGBA{clamp8(float64(c.R)*1.3 + 50), clamp8(float64(c.G)*1.3 + 50), clamp8(float64(c.B)*1.3 + 50), 255}
	stroke(thick*0.22, lx*thick*0.22, ly*thick*0.22, lit, false)
	if rng.Float64() < 0.5 {
		// A plug at the start: a moulded grip and a metal tip.
		end, next := path[0], path[3]
		a := math.Atan2(end.y-next.y, end.x-next.x) * 180 / math.Pi
		fillPoly(&sp.tex, roundedRect(end.x, end.y, thick*3, thick*1.6, a, 0.2), scale(c, 0.8))
		fillPoly(&sp.alpha, roundedRect(end.x, end.y, thick*3, thick*1.6, a, 0.2), color.RGBA{255, 255, 255, 255})
	}
	return sp
}

// coin draws a coin L across: metal lit from one side, a raised rim, a
// numeral and sometimes a ring of dots.
func coin(L, res float64, rng *rand.Rand) sprite {
	sp := newSprite(L, L, res)
	metals := []color.RGBA{rgb(205, 165, 70), rgb(190, 190, 195), rgb(185, 110, 65), rgb(170, 150, 90)}
	m := metals[rng.IntN(len(metals))]
	c := sp.w() / 2
	r := c * 0.98
	gocv.Circle(&sp.alpha, image.Point{X: int(c), Y: int(c)}, int(r), color.RGBA{255, 255, 255, 255}, -1)
	circleF(&sp.tex, c, c, r, scale(m, 0.8))
	circleF(&sp.tex, c, c, r*0.88, m)
	a := rng.Float64() * 2 * math.Pi
	// A soft sheen across the face.
	circleF(&sp.tex, c+math.Cos(a)*r*0.3, c+math.Sin(a)*r*0.3, r*0.45, color.RGBA{clamp8(float64(m.R)*1.15 + 15), clamp8(float64(m.G)*1.15 + 15), clamp8(float64(m.B)*1.15 + 15), 255})
	blurSigma(&sp.tex, r*0.12+1)
	gocv.CircleWithParams(&sp.tex, image.Point{X: int(c * 16), Y: int(c * 16)}, int(r*0.9*16), scale(m, 1.2), max(1, int(r*0.05)), gocv.LineAA, 4)
	numeral := []string{"1", "2", "5", "10", "20", "50", "25"}[rng.IntN(7)]
	size := r * 0.6
	thick := max(1, int(size/6))
	ts := gocv.GetTextSize(numeral, gocv.FontHersheyDuplex, size/22, thick)
	gocv.PutTextWithParams(&sp.tex, numeral, image.Point{X: int(c - float64(ts.X)/2), Y: int(c + float64(ts.Y)/2)}, gocv.FontHersheyDuplex, size/22, scale(m, 0.6), thick, gocv.LineAA, false)
	if rng.Float64() < 0.5 {
		for i := 0; i < 12; i++ {
			t := float64(i) * math.Pi / 6
			circleF(&sp.tex, c+math.Cos(t)*r*0.72, c+math.Sin(t)*r*0.72, r*0.05, scale(m, 0.65))
		}
	}
	return sp
}

// pen draws a pen L long: a shaded barrel, a cap with a clip, a tip.
func pen(L, res, mm float64, rng *rand.Rand) sprite {
	wide := (8 + 4*rng.Float64()) * mm
	sp := newSprite(L, wide*1.6, res)
	colours := []color.RGBA{rgb(30, 60, 160), rgb(20, 20, 22), rgb(190, 30, 35), rgb(235, 235, 235), rgb(180, 180, 185), rgb(30, 130, 70)}
	c := colours[rng.IntN(len(colours))]
	w, h := sp.w(), sp.h()
	bw := wide * res
	cy := h / 2
	tip := w * 0.1
	sp.fill(tip+(w-tip)/2, cy, w-tip, bw, 0.3, scale(c, 0.7))
	fillPoly(&sp.tex, roundedRect(tip+(w-tip)/2, cy-bw*0.1, w-tip, bw*0.55, 0, 0.3), c)
	fillPoly(&sp.tex, roundedRect(tip+(w-tip)/2, cy-bw*0.22, w-tip, bw*0.12, 0, 0.3), color.RGBA{clamp8(float64(c.R)*1.2 + 60), clamp8(float64(c.G)*1.2 + 60), clamp8(float64(c.B)*1.2 + 60), 255})
	// The tip: a cone and its point.
	cone := []image.Point{{X: int(tip + 1), Y: int(cy - bw*0.45)}, {X: int(tip + 1), Y: int(cy + bw*0.45)}, {X: int(w * 0.01), Y: int(cy)}}
	fillPoly(&sp.tex, cone, rgb(170, 170, 165))
	fillPoly(&sp.alpha, cone, color.RGBA{255, 255, 255, 255})
	// A clip along the cap.
	clip := roundedRect(w*0.8, cy-bw*0.05, w*0.28, bw*0.22, 0, 0.4)
	fillPoly(&sp.tex, clip, rgb(200, 200, 205))
	return sp
}

// card draws a playing card L long: face up with its rank and suit pips,
// or face down with a patterned back.
func card(L, res, mm float64, rng *rand.Rand) sprite {
	sp := newSprite(L*63/88, L, res)
	w, h := sp.w(), sp.h()
	sp.fill(w/2, h/2, w, h, 0.05, rgb(248, 248, 245))
	if rng.Float64() < 0.3 {
		back := []color.RGBA{rgb(170, 30, 40), rgb(30, 60, 150)}[rng.IntN(2)]
		fillPoly(&sp.tex, roundedRect(w/2, h/2, w*0.86, h*0.9, 0, 0.04), back)
		step := w / 10
		for x := -h; x < w+h; x += step {
			gocv.Line(&sp.tex, image.Point{X: int(x), Y: 0}, image.Point{X: int(x + h), Y: int(h)}, scale(back, 1.4), max(1, int(step/6)))
			gocv.Line(&sp.tex, image.Point{X: int(x + h), Y: 0}, image.Point{X: int(x), Y: int(h)}, scale(back, 1.4), max(1, int(step/6)))
		}
		fillPoly(&sp.alpha, roundedRect(w/2, h/2, w, h, 0, 0.05), color.RGBA{255, 255, 255, 255})
		return sp
	}
	suit := rng.IntN(4)
	ink := rgb(200, 25, 35)
	if suit >= 2 {
		ink = rgb(20, 20, 22)
	}
	rank := 1 + rng.IntN(13)
	label := []string{"", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}[rank]
	size := w * 0.14
	thick := max(1, int(size/6))
	gocv.PutTextWithParams(&sp.tex, label, image.Point{X: int(w * 0.05), Y: int(h*0.04 + size)}, gocv.FontHersheySimplex, size/22, ink, thick, gocv.LineAA, false)
	suitMark(&sp.tex, suit, w*0.1, h*0.04+size*1.7, size*0.7, ink)
	gocv.PutTextWithParams(&sp.tex, label, image.Point{X: int(w*0.95) - int(size*float64(len(label))*0.7), Y: int(h * 0.96)}, gocv.FontHersheySimplex, size/22, ink, thick, gocv.LineAA, false)
	switch {
	case rank == 1:
		suitMark(&sp.tex, suit, w/2, h/2, w*0.3, ink)
	case rank <= 10:
		// The pips in two or three columns, as printed.
		cols := [][]float64{{0.5}, {0.3, 0.7}, {0.3, 0.5, 0.7}}
		n := rank
		colsUsed := cols[1]
		if n%2 == 1 && n > 1 {
			colsUsed = cols[2]
		}
		var places [][2]float64
		side := (n - n%2) / 2
		if n%2 == 1 {
			side = (n - 1) / 2
		}
		for i := 0; i < side; i++ {
			t := 0.2 + 0.6*float64(i)/math.Max(1, float64(side-1))
			if side == 1 {
				t = 0.5
			}
			places = append(places, [2]float64{colsUsed[0], t}, [2]float64{colsUsed[len(colsUsed)-1], t})
		}
		if n%2 == 1 {
			places = append(places, [2]float64{0.5, 0.5})
		}
		for _, p := range places {
			suitMark(&sp.tex, suit, w*p[0], h*p[1], w*0.14, ink)
		}
	default:
		fillPoly(&sp.tex, roundedRect(w/2, h/2, w*0.6, h*0.65, 0, 0.03), rgb(230, 200, 90))
		fillPoly(&sp.tex, roundedRect(w/2, h/2, w*0.45, h*0.4, 0, 0.1), []color.RGBA{rgb(180, 30, 40), rgb(30, 60, 150)}[rng.IntN(2)])
		suitMark(&sp.tex, suit, w/2, h*0.3, w*0.12, ink)
	}
	return sp
}

// suitMark draws a heart, diamond, club or spade (0 to 3) of the given
// size centred on (x, y).
func suitMark(img *gocv.Mat, suit int, x, y, size float64, c color.RGBA) {
	r := size / 4
	switch suit {
	case 0: // heart
		circleF(img, x-r, y-r*0.5, r*1.05, c)
		circleF(img, x+r, y-r*0.5, r*1.05, c)
		fillPoly(img, []image.Point{{X: int(x - 2*r), Y: int(y - r*0.2)}, {X: int(x + 2*r), Y: int(y - r*0.2)}, {X: int(x), Y: int(y + 2*r)}}, c)
	case 1: // diamond
		fillPoly(img, []image.Point{{X: int(x), Y: int(y - 2*r)}, {X: int(x + 1.5*r), Y: int(y)}, {X: int(x), Y: int(y + 2*r)}, {X: int(x - 1.5*r), Y: int(y)}}, c)
	case 2: // club
		circleF(img, x, y-r, r, c)
		circleF(img, x-r, y+r*0.3, r, c)
		circleF(img, x+r, y+r*0.3, r, c)
		fillPoly(img, []image.Point{{X: int(x), Y: int(y)}, {X: int(x + r*0.6), Y: int(y + 2*r)}, {X: int(x - r*0.6), Y: int(y + 2*r)}}, c)
	default: // spade
		circleF(img, x-r, y+r*0.3, r*1.05, c)
		circleF(img, x+r, y+r*0.3, r*1.05, c)
		fillPoly(img, []image.Point{{X: int(x - 2*r), Y: int(y + r*0.1)}, {X: int(x + 2*r), Y: int(y + r*0.1)}, {X: int(x), Y: int(y - 2*r)}}, c)
		fillPoly(img, []image.Point{{X: int(x), Y: int(y)}, {X: int(x + r*0.6), Y: int(y + 2*r)}, {X: int(x - r*0.6), Y: int(y + 2*r)}}, c)
	}
}

// phone draws a phone L long, face up (a dark or lit screen with app
// icons) or face down (its camera's lenses). It returns its colour too.
func phone(L, res, mm float64, rng *rand.Rand) (sprite, color.RGBA) {
	sp := newSprite(L*0.48, L, res)
	w, h := sp.w(), sp.h()
	bodies := []color.RGBA{rgb(20, 20, 22), rgb(230, 230, 232), rgb(60, 80, 120), rgb(200, 170, 170), rgb(120, 130, 110)}
	body := bodies[rng.IntN(len(bodies))]
	sp.fill(w/2, h/2, w, h, 0.14, body)
	if rng.Float64() < 0.6 {
		fillPoly(&sp.tex, roundedRect(w/2, h/2, w*0.92, h*0.96, 0, 0.1), rgb(8, 8, 10))
		if rng.Float64() < 0.6 {
			// A lit home screen: a wallpaper and a grid of icons.
			bg := hsv(rng.Float64()*360, 0.5, 0.5)
			fillPoly(&sp.tex, roundedRect(w/2, h/2, w*0.88, h*0.93, 0, 0.08), bg)
			icon := w * 0.16
			for r := 0; r < 6; r++ {
				for c := 0; c < 4; c++ {
					if r == 4 || rng.Float64() < 0.15 {
						continue
					}
					x, y := w*(0.17+0.22*float64(c)), h*(0.12+0.14*float64(r))
					fillPoly(&sp.tex, roundedRect(x, y, icon, icon, 0, 0.25), hsv(rng.Float64()*360, 0.6+0.4*rng.Float64(), 0.5+0.5*rng.Float64()))
					if rng.Float64() < 0.5 {
						circleF(&sp.tex, x, y, icon*0.22, rgb(250, 250, 250))
					}
				}
			}
		}
	} else {
		// Face down: the camera's lenses in their bump.
		bx, by := w*0.3, h*0.13
		fillPoly(&sp.tex, roundedRect(bx, by, w*0.45, w*0.45, 0, 0.25), scale(body, 0.8))
		for _, o := range [][2]float64{{-0.1, -0.1}, {-0.1, 0.1}, {0.1, 0}} {
			circleF(&sp.tex, bx+o[0]*w, by+o[1]*w, w*0.08, rgb(30, 30, 34))
			circleF(&sp.tex, bx+o[0]*w, by+o[1]*w, w*0.045, rgb(10, 10, 20))
		}
	}
	return sp, body
}

// sheet draws a sheet of A4 paper L long with printed text.
func sheet(L, res, mm float64, rng *rand.Rand) sprite {
	sp := newSprite(L*210/297, L, res)
	w, h := sp.w(), sp.h()
	paper := []color.RGBA{rgb(246, 246, 242), rgb(240, 236, 222), rgb(250, 250, 250)}[rng.IntN(3)]
	sp.fill(w/2, h/2, w, h, 0.005, paper)
	size := (2.5 + 2*rng.Float64()) * mm * res
	printText(&sp.tex, image.Rect(int(w*0.08), int(h*0.06), int(w*0.92), int(h*0.94)), size, rgb(35, 35, 40), rng)
	return sp
}

// stickers draws round dot stickers: scattered, in a row, or on their
// backing sheet in a grid.
func stickers(L, res, mm float64, rng *rand.Rand) sprite {
	sp := newSprite(L, L, res)
	w := sp.w()
	d := (8 + 11*rng.Float64()) * mm * res
	c := []color.RGBA{rgb(220, 40, 40), rgb(240, 210, 40), rgb(40, 170, 70), rgb(40, 90, 200), rgb(250, 250, 250), rgb(240, 130, 30)}[rng.IntN(6)]
	dot := func(x, y float64) {
		circleF(&sp.tex, x, y, d/2, c)
		circleF(&sp.alpha, x, y, d/2, color.RGBA{255, 255, 255, 255})
	}
	switch rng.IntN(3) {
	case 0:
		for n := 3 + rng.IntN(8); n > 0; n-- {
			dot(d/2+rng.Float64()*(w-d), d/2+rng.Float64()*(w-d))
		}
	case 1:
		for x := d / 2; x < w-d/2; x += d * 1.3 {
			dot(x, w/2)
		}
	default:
		sp.fill(w/2, w/2, w, w, 0.02, rgb(245, 245, 240))
		for y := d * 0.7; y < w-d/2; y += d * 1.25 {
			for x := d * 0.7; x < w-d/2; x += d * 1.25 {
				if rng.Float64() < 0.85 {
					dot(x, y)
				}
			}
		}
	}
	return sp
}

// note draws a square sticky note L across with a few handwritten words.
func note(L, res, mm float64, rng *rand.Rand) sprite {
	sp := newSprite(L, L, res)
	w := sp.w()
	c := []color.RGBA{rgb(250, 235, 120), rgb(250, 170, 200), rgb(170, 230, 170), rgb(160, 210, 245)}[rng.IntN(4)]
	sp.fill(w/2, w/2, w, w, 0.01, c)
	ink := []color.RGBA{rgb(30, 40, 120), rgb(20, 20, 20), rgb(180, 30, 30)}[rng.IntN(3)]
	size := w * 0.12
	for y := w * 0.25; y < w*0.9; y += size * 1.8 {
		word := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
		gocv.PutTextWithParams(&sp.tex, word, image.Point{X: int(w * 0.08), Y: int(y)}, gocv.FontHersheyScriptSimplex, size/22, ink, max(1, int(size/8)), gocv.LineAA, false)
	}
	return sp
}
