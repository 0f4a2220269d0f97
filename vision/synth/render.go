package synth

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

// supersample is how many times finer than the output the scene is drawn,
// so edges are anti-aliased the way a lens does it.
const supersample = 2

// Render draws the scene and returns the image (BGR, Width x Height; the
// caller closes it) and the dice a perfect reader reports, in image pixels
// after perspective: cocked and half-hidden dice are marked Uncertain.
func Render(s Scene) (gocv.Mat, []vision.Die, error) {
	img, labels, err := RenderLabelled(s)
	if err != nil {
		return gocv.Mat{}, nil, err
	}
	truth := make([]vision.Die, len(labels))
	for i, l := range labels {
		truth[i] = l.Die
	}
	return img, truth, nil
}

// Label is what a training set records of one die: the truth a perfect
// reader reports, the artwork of the die's 1 face, and the box around all
// of the die the image shows.
type Label struct {
	vision.Die
	// Artwork is what the die prints on its 1 face, whichever face is up.
	Artwork Artwork
	// Box is the axis-aligned box, in image pixels, around the whole
	// visible die: its top face and the sides a tilted camera sees.
	Box Box
}

// Box is an axis-aligned box in image pixels.
type Box struct{ MinX, MinY, MaxX, MaxY float64 }

// RenderLabelled is Render with each die's label: the truth (X, Y the
// centre of the top face; Size its side, see below), its artwork and its
// box. Labels are in the order of the scene's dice. Seen straight down,
// Size is the die's side; by a tilted camera, it is the square root of
// the top face's area in the image (its mean side, foreshortening
// included).
func RenderLabelled(s Scene) (gocv.Mat, []Label, error) {
	if err := s.Validate(); err != nil {
		return gocv.Mat{}, nil, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0xca11))
	var (
		out    gocv.Mat
		labels []Label
		err    error
	)
	if s.tilted() {
		out, labels, err = render3D(s, rng)
	} else {
		out, labels, err = renderFlat(s, rng)
	}
	if err != nil {
		return gocv.Mat{}, nil, err
	}
	if s.Blur > 0 {
		blurSigma(&out, s.Blur)
	}
	// The table's fine grain and the camera's noise, from the scene's seed
	// (OpenCV's own random generator is global and unseeded).
	if sigma := math.Hypot(s.Noise, 3*s.Texture); sigma > 0 {
		if err := addNoise(&out, rng, sigma); err != nil {
			out.Close()
			return gocv.Mat{}, nil, err
		}
	}
	if s.JPEGQuality > 0 {
		if err := saveJPEG(&out, s.JPEGQuality, s.JPEGScale); err != nil {
			out.Close()
			return gocv.Mat{}, nil, err
		}
	}
	return out, labels, nil
}

// renderFlat draws the scene as a camera straight above the table sees it
// (with Scene.Perspective's slight skew): the renderer of old, unchanged
// for felt tables without clutter.
func renderFlat(s Scene, rng *rand.Rand) (gocv.Mat, []Label, error) {
	W, H := s.Width*supersample, s.Height*supersample
	canvas := gocv.NewMatWithSize(H, W, gocv.MatTypeCV8UC3)
	defer canvas.Close()
	fr := frame{k: supersample}
	if s.Surface == Felt {
		if err := paintTable(&canvas, s, rng); err != nil {
			return gocv.Mat{}, nil, err
		}
	} else if err := paintSurface(&canvas, s, fr); err != nil {
		return gocv.Mat{}, nil, err
	}
	if err := drawClutter(&canvas, s, fr); err != nil {
		return gocv.Mat{}, nil, err
	}
	mask := gocv.NewMatWithSize(H, W, gocv.MatTypeCV8UC1)
	defer mask.Close()
	// Shadows first: every die's shadow falls on the table, under the dice.
	mask.SetTo(gocv.Scalar{})
	lightDX := -math.Cos(s.Light.Angle*math.Pi/180) * 0.12
	lightDY := -math.Sin(s.Light.Angle*math.Pi/180) * 0.12
	for _, d := range s.Dice {
		side := s.dieSide(d) * supersample
		cx, cy := s.px(d.X)*supersample+lightDX*side, s.px(d.Y)*supersample+lightDY*side
		fillPoly(&mask, roundedSquare(cx, cy, side*1.02, d.Rotation, 0.15), color.RGBA{255, 255, 255, 255})
	}
	if s.Light.Shadow > 0 {
		blurSigma(&mask, s.DieSize*supersample*0.08+1)
		if err := darken(&canvas, mask, 0.6*s.Light.Shadow); err != nil {
			return gocv.Mat{}, nil, err
		}
	}
	var labels []Label
	for _, d := range s.Dice {
		l, err := drawDie(&canvas, &mask, s, d, rng)
		if err != nil {
			return gocv.Mat{}, nil, err
		}
		labels = append(labels, l)
	}
	if err := light(&canvas, s); err != nil {
		return gocv.Mat{}, nil, err
	}
	out := gocv.NewMat()
	gocv.Resize(canvas, &out, image.Point{X: s.Width, Y: s.Height}, 0, 0, gocv.InterpolationArea)
	if s.Perspective > 0 {
		if err := perspective(&out, s, rng, labels); err != nil {
			out.Close()
			return gocv.Mat{}, nil, err
		}
	}
	for i := range labels {
		labels[i].Box = labels[i].Box.clip(s.Width, s.Height)
	}
	return out, labels, nil
}

// clip cuts the box to a w x h image.
func (b Box) clip(w, h int) Box {
	return Box{math.Max(b.MinX, 0), math.Max(b.MinY, 0), math.Min(b.MaxX, float64(w)), math.Min(b.MaxY, float64(h))}
}

// boxOf is the box around points, in image pixels.
func boxOf(pts []pt) Box {
	b := Box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		b.MinX, b.MinY = math.Min(b.MinX, p.x), math.Min(b.MinY, p.y)
		b.MaxX, b.MaxY = math.Max(b.MaxX, p.x), math.Max(b.MaxY, p.y)
	}
	return b
}

// saveJPEG replaces img by what a JPEG of the given quality holds of it,
// saved at scale times its size when scale is between 0 and 1 (and
// enlarged back, as a small photograph is for reading).
func saveJPEG(img *gocv.Mat, quality int, scale float64) error {
	src := *img
	if scale > 0 && scale < 1 {
		small := gocv.NewMat()
		defer small.Close()
		size := image.Point{X: max(int(float64(img.Cols())*scale+0.5), 8), Y: max(int(float64(img.Rows())*scale+0.5), 8)}
		gocv.Resize(*img, &small, size, 0, 0, gocv.InterpolationArea)
		src = small
	}
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, src, []int{gocv.IMWriteJpegQuality, quality})
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	defer buf.Close()
	saved, err := vision.DecodeImage(buf.GetBytes(), fmt.Sprintf("a JPEG of quality %d", quality))
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if saved.Cols() != img.Cols() || saved.Rows() != img.Rows() {
		back := gocv.NewMat()
		gocv.Resize(saved, &back, image.Point{X: img.Cols(), Y: img.Rows()}, 0, 0, gocv.InterpolationLinear)
		saved.Close()
		saved = back
	}
	img.Close()
	*img = saved
	return nil
}

// paintTable fills the canvas with the table's colour and grain.
func paintTable(canvas *gocv.Mat, s Scene, rng *rand.Rand) error {
	canvas.SetTo(gocv.NewScalar(float64(s.Table.B), float64(s.Table.G), float64(s.Table.R), 0))
	if s.Texture <= 0 {
		return nil
	}
	// Grain: coarse blotches, as felt, wood or board; the fine speckle is
	// added with the camera's noise.
	coarse, err := gaussianMat(rng, max(s.Height/24, 2), max(s.Width/24, 2), 8*s.Texture)
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

// gaussianMat returns a rows x cols 3-channel 16-bit Mat of normal noise
// with the given sigma, drawn from rng.
func gaussianMat(rng *rand.Rand, rows, cols int, sigma float64) (gocv.Mat, error) {
	buf := make([]byte, rows*cols*3*2)
	for i := 0; i < len(buf); i += 2 {
		v := int16(math.Round(rng.NormFloat64() * sigma))
		binary.NativeEndian.PutUint16(buf[i:], uint16(v))
	}
	m, err := gocv.NewMatFromBytes(rows, cols, gocv.MatTypeCV16SC3, buf)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("synth: %w", err)
	}
	return m, nil
}

// addNoise adds normal noise of the given sigma to an 8-bit BGR image.
func addNoise(img *gocv.Mat, rng *rand.Rand, sigma float64) error {
	b, err := img.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	for i := range b {
		v := float64(b[i]) + rng.NormFloat64()*sigma
		b[i] = uint8(math.Max(0, math.Min(255, math.Round(v))))
	}
	return nil
}

// drawDie draws one die (body, face, glare, occluder) and returns its
// label: what a perfect reader reports for it, and its box.
func drawDie(canvas, mask *gocv.Mat, s Scene, d Die, rng *rand.Rand) (Label, error) {
	side := s.dieSide(d) * supersample
	cx, cy := s.px(d.X)*supersample, s.px(d.Y)*supersample
	rot := d.Rotation
	// A cocked die shows its top face foreshortened and one side beside it.
	squash := math.Cos(d.Tilt * math.Pi / 180)
	bodyPts := roundedRect(cx, cy, side, side*squash, rot, d.corner())
	box := boxOf(toPts(bodyPts, 1.0/supersample))
	opacity := 1.0
	if d.Translucent {
		opacity = 0.72
	}
	bounds := polyBounds(bodyPts).Inset(-4).Intersect(image.Rect(0, 0, canvas.Cols(), canvas.Rows()))
	if bounds.Empty() {
		return Label{}, fmt.Errorf("synth: die at (%.0f,%.0f) is off the table", d.X, d.Y)
	}
	if d.Tilt > 0 {
		// The side face: a strip beside the top face, in a darker shade.
		sideW := side * math.Sin(d.Tilt*math.Pi/180)
		ux, uy := math.Cos(rot*math.Pi/180), math.Sin(rot*math.Pi/180)
		vx, vy := -uy, ux
		off := (side*squash + sideW) / 2
		strip := roundedRect(cx+vx*off, cy+vy*off, side, sideW, rot, 0.05)
		sb := boxOf(toPts(strip, 1.0/supersample))
		box = Box{math.Min(box.MinX, sb.MinX), math.Min(box.MinY, sb.MinY), math.Max(box.MaxX, sb.MaxX), math.Max(box.MaxY, sb.MaxY)}
		shade := scale(d.Colour, 0.6)
		fillPoly(canvas, strip, shade)
		// A pip or two on the side, as a real cocked die shows.
		if sideW > side*0.25 {
			r := int(side * 0.08)
			circle(canvas, cx+vx*off-ux*side*0.27, cy+vy*off-uy*side*0.27, r, scale(d.PipColour, 0.8))
			circle(canvas, cx+vx*off+ux*side*0.27, cy+vy*off+uy*side*0.27, r, scale(d.PipColour, 0.8))
		}
	}
	region := mask.Region(bounds)
	region.SetTo(gocv.Scalar{})
	region.Close()
	fillPoly(mask, bodyPts, color.RGBA{255, 255, 255, 255})
	var veins *marbling
	if d.Swirl.A != 0 {
		veins = newMarbling(d.SwirlSeed, d.Swirl, side)
	}
	if err := blendBody(canvas, *mask, bounds, d.Colour, veins, opacity, cx, cy, side, s.Light.Angle); err != nil {
		return Label{}, err
	}
	drawFace(canvas, d, cx, cy, side, squash, rot)
	if d.Glints {
		glintPips(canvas, d, cx, cy, side, squash, rot, s.Light.Angle)
	}
	if s.Light.Glare > 0 && rng.Float64() < s.Light.Glare {
		glare(canvas, mask, cx, cy, side, rng)
	}
	if d.Hidden > 0 {
		hide(canvas, s, d, cx, cy, side, rng)
	}
	t := vision.Die{
		Face:       d.Face,
		Star:       d.Face == 1 && d.One != Pip,
		X:          cx / supersample,
		Y:          cy / supersample,
		Size:       side / supersample,
		Confidence: 1,
	}
	return Label{Die: d.uncertain(t), Artwork: d.One, Box: box}, nil
}

// uncertain marks t uncertain when the die is cocked or half hidden.
func (d Die) uncertain(t vision.Die) vision.Die {
	if d.Tilt > 12 || d.Hidden > 0.2 {
		t.Uncertain = true
		t.Confidence = 0
	}
	return t
}

// corner is the die's corner radius as a share of its side.
func (d Die) corner() float64 {
	if d.Corner > 0 {
		return d.Corner
	}
	return 0.12
}

// pipScale is the die's pip size against the usual.
func (d Die) pipScale() float64 {
	if d.PipScale > 0 {
		return d.PipScale
	}
	return 1
}

// toPts converts image points to pt, times f.
func toPts(p []image.Point, f float64) []pt {
	out := make([]pt, len(p))
	for i, q := range p {
		out[i] = pt{float64(q.X) * f, float64(q.Y) * f}
	}
	return out
}

// pipOffsets are the pip positions of each face, in units of the pip
// pitch, around the face's centre.
var pipOffsets = map[int][][2]float64{
	1: {{0, 0}},
	2: {{-1, -1}, {1, 1}},
	3: {{-1, -1}, {0, 0}, {1, 1}},
	4: {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}},
	5: {{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}},
	6: {{-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {1, 1}},
}

// drawFace draws the pips, or the star artwork, of the top face.
func drawFace(canvas *gocv.Mat, d Die, cx, cy, side, squash, rot float64) {
	if d.Face == 1 && d.One != Pip {
		drawStar(canvas, d.One, cx, cy, side, squash, rot, d.PipColour)
		return
	}
	r := pipRadius(d.Face, side) * d.pipScale()
	for _, o := range pipOffsets[d.Face] {
		px, py := pipCentre(o, cx, cy, side, squash, rot)
		ellipse(canvas, px, py, r, r*squash, rot, d.PipColour)
	}
}

// pipRadius is the radius of a pip on a face of the given side.
func pipRadius(face int, side float64) float64 {
	if face == 1 {
		return side * 0.12
	}
	return side * 0.09
}

// pipCentre is where the pip at offset o lies on a face centred at cx, cy.
func pipCentre(o [2]float64, cx, cy, side, squash, rot float64) (float64, float64) {
	ux, uy := math.Cos(rot*math.Pi/180), math.Sin(rot*math.Pi/180)
	vx, vy := -uy*squash, ux*squash
	pitch := side * 0.27
	return cx + (o[0]*ux+o[1]*vx)*pitch, cy + (o[0]*uy+o[1]*vy)*pitch
}

// glintPips draws the lit rim of each recessed pip: a white crescent on
// the side away from the light, whose far wall it strikes.
func glintPips(canvas *gocv.Mat, d Die, cx, cy, side, squash, rot, lightAngle float64) {
	if d.Face == 1 && d.One != Pip {
		return
	}
	r := pipRadius(d.Face, side) * d.pipScale()
	// The arc's angles are measured in the pip's own (turned) frame.
	mid := lightAngle + 180 - rot
	thick := max(1, int(r*0.35))
	for _, o := range pipOffsets[d.Face] {
		px, py := pipCentre(o, cx, cy, side, squash, rot)
		gocv.EllipseWithParams(canvas, image.Point{X: int(px * 16), Y: int(py * 16)},
			image.Point{X: int(r * 0.9 * 16), Y: int(r * 0.9 * squash * 16)}, rot, mid-60, mid+60,
			color.RGBA{240, 240, 235, 255}, thick, gocv.LineAA, 4)
	}
}

// drawStar draws one of the star artworks centred on the face.
func drawStar(canvas *gocv.Mat, art Artwork, cx, cy, side, squash, rot float64, c color.RGBA) {
	ux, uy := math.Cos(rot*math.Pi/180), math.Sin(rot*math.Pi/180)
	vx, vy := -uy*squash, ux*squash
	at := func(a, rad float64) image.Point {
		x, y := math.Sin(a)*rad, -math.Cos(a)*rad
		return image.Point{
			X: int(math.Round((cx + x*ux + y*vx) * 16)),
			Y: int(math.Round((cy + x*uy + y*vy) * 16)),
		}
	}
	switch art {
	case FilledStar, OutlinedStar:
		outer := side * 0.36
		inner := outer * 0.42
		pts := make([]image.Point, 0, 10)
		for i := 0; i < 10; i++ {
			rad := outer
			if i%2 == 1 {
				rad = inner
			}
			pts = append(pts, at(float64(i)*math.Pi/5, rad))
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		defer pv.Close()
		if art == FilledStar {
			gocv.FillPolyWithParams(canvas, pv, c, gocv.LineAA, 4, image.Point{})
		} else {
			polylines(canvas, pts, max(1, int(side*0.055)), c)
		}
	case ShipsWheel:
		thick := max(1, int(side*0.05))
		rim := side * 0.22
		var ring []image.Point
		for i := 0; i < 48; i++ {
			ring = append(ring, at(float64(i)*math.Pi/24, rim))
		}
		polylines(canvas, ring, thick, c)
		for i := 0; i < 8; i++ {
			a := float64(i)*math.Pi/4 + math.Pi/8
			thickLine(canvas, at(a, 0), at(a, side*0.34), thick, c)
			knob := at(a, side*0.34)
			gocv.CircleWithParams(canvas, knob, int(side*0.04*16), c, -1, gocv.LineAA, 4)
		}
		gocv.CircleWithParams(canvas, at(0, 0), int(side*0.07*16), c, -1, gocv.LineAA, 4)
	}
}

// glare adds a soft white highlight on the die, as a glossy face catches
// a lamp.
func glare(canvas, mask *gocv.Mat, cx, cy, side float64, rng *rand.Rand) {
	gx := cx + (rng.Float64()-0.5)*side*0.5
	gy := cy + (rng.Float64()-0.5)*side*0.5
	r := side * (0.05 + 0.08*rng.Float64()) // a specular spot, not a floodlight
	bounds := image.Rect(int(gx-2*r), int(gy-2*r), int(gx+2*r), int(gy+2*r)).Intersect(image.Rect(0, 0, canvas.Cols(), canvas.Rows()))
	if bounds.Empty() {
		return
	}
	layer := canvas.Region(bounds)
	defer layer.Close()
	spot := gocv.NewMatWithSize(bounds.Dy(), bounds.Dx(), gocv.MatTypeCV8UC3)
	defer spot.Close()
	spot.SetTo(gocv.Scalar{})
	gocv.Circle(&spot, image.Point{X: int(gx) - bounds.Min.X, Y: int(gy) - bounds.Min.Y}, int(r*0.7), color.RGBA{255, 255, 255, 255}, -1)
	blurSigma(&spot, r*0.4+1)
	amount := 0.5 + 0.4*rng.Float64()
	gocv.AddWeighted(layer, 1, spot, amount, 0, &layer)
}

// hide covers part of the die with a dark, soft-edged occluder, as a hand
// or a cup's rim does.
func hide(canvas *gocv.Mat, s Scene, d Die, cx, cy, side float64, rng *rand.Rand) {
	a := rng.Float64() * 2 * math.Pi
	ux, uy := math.Cos(a), math.Sin(a)
	// The occluder (a fingertip, a cup's rim) cuts the die at the right
	// depth and reaches a little past it, not onto its neighbours.
	edge := side * (0.5 - d.Hidden)
	far := side*(0.5+d.Hidden) + side*0.3
	px, py := cx+ux*edge, cy+uy*edge
	vx, vy := -uy, ux
	pts := []image.Point{
		{X: int(px + vx*side*0.8), Y: int(py + vy*side*0.8)},
		{X: int(px + vx*side*0.8 + ux*far), Y: int(py + vy*side*0.8 + uy*far)},
		{X: int(px - vx*side*0.8 + ux*far), Y: int(py - vy*side*0.8 + uy*far)},
		{X: int(px - vx*side*0.8), Y: int(py - vy*side*0.8)},
	}
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
	defer pv.Close()
	gocv.FillPoly(canvas, pv, color.RGBA{70, 55, 45, 255})
}

// marbling is the veins of a marbled die's body: bands along a direction,
// bent by a few waves so that they swirl, of varying width and strength.
type marbling struct {
	colour      [3]float64 // BGR
	strength    float64
	freq, width float64
	dx, dy      float64 // the bands' direction, over the die's side in pixels
	waves       [3][4]float64
	side, phase float64
}

// newMarbling draws the veins of a die side pixels across, in colour c,
// from seed.
func newMarbling(seed uint64, c color.RGBA, side float64) *marbling {
	rng := rand.New(rand.NewPCG(seed, 0x5a1))
	a := rng.Float64() * math.Pi
	m := &marbling{
		colour:   [3]float64{float64(c.B), float64(c.G), float64(c.R)},
		strength: 0.6 + 0.35*rng.Float64(),
		freq:     0.4 + 1.4*rng.Float64(),
		width:    0.25 + 0.5*rng.Float64(),
		dx:       math.Cos(a) / side,
		dy:       math.Sin(a) / side,
		side:     side,
		phase:    rng.Float64() * 2 * math.Pi,
	}
	for i := range m.waves {
		// Amplitude (radians), frequency in x and y (radians per side),
		// phase: each finer wave weaker, as in turbulence.
		f := 3 * float64(int(1)<<i)
		m.waves[i] = [4]float64{(1.5 + 2*rng.Float64()) / float64(i+1), f * (0.6 + 0.8*rng.Float64()), f * (0.6 + 0.8*rng.Float64()), rng.Float64() * 2 * math.Pi}
	}
	return m
}

// at is how much of the vein colour shows at (x, y), relative to the die's
// centre in pixels: 0 in the body, up to strength on a vein.
func (m *marbling) at(x, y float64) float64 {
	u, v := x/m.side, y/m.side
	t := m.freq*2*math.Pi*(x*m.dx+y*m.dy) + m.phase
	for _, w := range m.waves {
		t += w[0] * math.Sin(w[1]*u+w[3]) * math.Cos(w[2]*v-w[3])
	}
	s := math.Sin(t)
	// The veins fade in and out along their length.
	fade := 0.65 + 0.35*math.Sin(m.waves[0][2]*u*0.7-m.waves[1][1]*v*0.7+m.phase)
	return m.strength * fade * math.Exp(-s*s/(m.width*m.width))
}

// blendBody paints the die's body where mask is set, shaded so the face is
// a little brighter towards the light, at the given opacity, with veins
// when the die is marbled (veins nil for a plain body).
func blendBody(canvas *gocv.Mat, mask gocv.Mat, b image.Rectangle, c color.RGBA, veins *marbling, opacity, cx, cy, side, lightAngle float64) error {
	cb, err := canvas.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	mb, err := mask.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	w := canvas.Cols()
	lx, ly := math.Cos(lightAngle*math.Pi/180), math.Sin(lightAngle*math.Pi/180)
	col := [3]float64{float64(c.B), float64(c.G), float64(c.R)}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			m := float64(mb[y*w+x]) / 255
			if m == 0 {
				continue
			}
			shade := 1 + 0.12*((float64(x)-cx)*lx+(float64(y)-cy)*ly)/side
			a := m * opacity
			i := (y*w + x) * 3
			body := col
			if veins != nil {
				t := veins.at(float64(x)-cx, float64(y)-cy)
				for k := range body {
					body[k] += t * (veins.colour[k] - body[k])
				}
			}
			for k := 0; k < 3; k++ {
				v := float64(cb[i+k])*(1-a) + math.Min(255, body[k]*shade)*a
				cb[i+k] = uint8(math.Max(0, math.Min(255, v)))
			}
		}
	}
	return nil
}

// darken multiplies the canvas by 1 - strength*mask.
func darken(canvas *gocv.Mat, mask gocv.Mat, strength float64) error {
	cb, err := canvas.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	mb, err := mask.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	for i, m := range mb {
		if m == 0 {
			continue
		}
		f := 1 - strength*float64(m)/255
		for k := 0; k < 3; k++ {
			cb[3*i+k] = uint8(float64(cb[3*i+k]) * f)
		}
	}
	return nil
}

// light applies the uneven light: a gradient across the table and a
// vignette.
func light(canvas *gocv.Mat, s Scene) error {
	if s.Light.Gradient == 0 && s.Light.Vignette == 0 {
		return nil
	}
	cb, err := canvas.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	w, h := canvas.Cols(), canvas.Rows()
	lx, ly := math.Cos(s.Light.Angle*math.Pi/180), math.Sin(s.Light.Angle*math.Pi/180)
	diag := math.Hypot(float64(w), float64(h)) / 2
	for y := 0; y < h; y++ {
		dy := float64(y) - float64(h)/2
		for x := 0; x < w; x++ {
			dx := float64(x) - float64(w)/2
			g := 1 + s.Light.Gradient*(dx*lx+dy*ly)/diag/2
			r := math.Hypot(dx, dy) / diag
			g *= 1 - s.Light.Vignette*r*r
			i := (y*w + x) * 3
			for k := 0; k < 3; k++ {
				// An if, not math.Min: the same bytes, several times faster.
				if v := float64(cb[i+k]) * g; v < 255 {
					cb[i+k] = uint8(v)
				} else {
					cb[i+k] = 255
				}
			}
		}
	}
	return nil
}

// perspective warps the image as a camera slightly off straight down sees
// it, and moves the truth with it.
func perspective(img *gocv.Mat, s Scene, rng *rand.Rand, truth []Label) error {
	w, h := float64(s.Width), float64(s.Height)
	j := func() float64 { return (rng.Float64()*2 - 1) * s.Perspective }
	src := []image.Point{{0, 0}, {s.Width, 0}, {s.Width, s.Height}, {0, s.Height}}
	dst := []image.Point{
		{int(j() * w), int(j() * h)},
		{int(w + j()*w), int(j() * h)},
		{int(w + j()*w), int(h + j()*h)},
		{int(j() * w), int(h + j()*h)},
	}
	sv := gocv.NewPointVectorFromPoints(src)
	defer sv.Close()
	dv := gocv.NewPointVectorFromPoints(dst)
	defer dv.Close()
	m := gocv.GetPerspectiveTransform(sv, dv)
	defer m.Close()
	warped := gocv.NewMat()
	defer warped.Close()
	gocv.WarpPerspectiveWithParams(*img, &warped, m, image.Point{X: s.Width, Y: s.Height}, gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	warped.CopyTo(img)
	for i := range truth {
		x, y := truth[i].X, truth[i].Y
		half := truth[i].Size / 2
		tx, ty := project(m, x, y)
		ax, ay := project(m, x+half, y)
		bx, by := project(m, x, y+half)
		truth[i].X, truth[i].Y = tx, ty
		truth[i].Size = math.Hypot(ax-tx, ay-ty) + math.Hypot(bx-tx, by-ty)
		b := truth[i].Box
		var corners []pt
		for _, c := range [][2]float64{{b.MinX, b.MinY}, {b.MaxX, b.MinY}, {b.MaxX, b.MaxY}, {b.MinX, b.MaxY}} {
			u, v := project(m, c[0], c[1])
			corners = append(corners, pt{u, v})
		}
		truth[i].Box = boxOf(corners)
	}
	return nil
}

func project(m gocv.Mat, x, y float64) (float64, float64) {
	a := func(r, c int) float64 { return m.GetDoubleAt(r, c) }
	z := a(2, 0)*x + a(2, 1)*y + a(2, 2)
	return (a(0, 0)*x + a(0, 1)*y + a(0, 2)) / z, (a(1, 0)*x + a(1, 1)*y + a(1, 2)) / z
}

// roundedSquare is roundedRect with equal sides.
func roundedSquare(cx, cy, side, rot, radius float64) []image.Point {
	return roundedRect(cx, cy, side, side, rot, radius)
}

// roundedRect returns the outline of a w x h rectangle with rounded
// corners (radius as a share of the shorter side), turned by rot degrees.
func roundedRect(cx, cy, w, h, rot, radius float64) []image.Point {
	r := radius * math.Min(w, h)
	ux, uy := math.Cos(rot*math.Pi/180), math.Sin(rot*math.Pi/180)
	var pts []image.Point
	corners := [4][3]float64{{w/2 - r, h/2 - r, 0}, {-w/2 + r, h/2 - r, 90}, {-w/2 + r, -h/2 + r, 180}, {w/2 - r, -h/2 + r, 270}}
	for _, c := range corners {
		for k := 0; k <= 6; k++ {
			a := (c[2] + float64(k)*15) * math.Pi / 180
			x := c[0] + r*math.Cos(a)
			y := c[1] + r*math.Sin(a)
			pts = append(pts, image.Point{X: int(cx + x*ux - y*uy), Y: int(cy + x*uy + y*ux)})
		}
	}
	return pts
}

func polyBounds(pts []image.Point) image.Rectangle {
	b := image.Rectangle{Min: pts[0], Max: pts[0]}
	for _, p := range pts {
		b = b.Union(image.Rectangle{Min: p, Max: p.Add(image.Point{1, 1})})
	}
	return b
}

func fillPoly(img *gocv.Mat, pts []image.Point, c color.RGBA) {
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
	defer pv.Close()
	gocv.FillPolyWithParams(img, pv, c, gocv.LineAA, 0, image.Point{})
}

// polylines draws a closed outline; pts are in 1/16 px (shift 4).
func polylines(img *gocv.Mat, pts []image.Point, thick int, c color.RGBA) {
	for i := range pts {
		thickLine(img, pts[i], pts[(i+1)%len(pts)], thick, c)
	}
}

// thickLine draws an anti-aliased line with round caps between a and b,
// which are in 1/16 px (shift 4); gocv v0.31 has no line with a shift.
func thickLine(img *gocv.Mat, a, b image.Point, thick int, c color.RGBA) {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	l := math.Hypot(dx, dy)
	half := float64(thick) * 16 / 2
	if l > 0 {
		nx, ny := -dy/l*half, dx/l*half
		quad := []image.Point{
			{X: a.X + int(nx), Y: a.Y + int(ny)},
			{X: b.X + int(nx), Y: b.Y + int(ny)},
			{X: b.X - int(nx), Y: b.Y - int(ny)},
			{X: a.X - int(nx), Y: a.Y - int(ny)},
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{quad})
		gocv.FillPolyWithParams(img, pv, c, gocv.LineAA, 4, image.Point{})
		pv.Close()
	}
	gocv.CircleWithParams(img, a, int(half), c, -1, gocv.LineAA, 4)
	gocv.CircleWithParams(img, b, int(half), c, -1, gocv.LineAA, 4)
}

func circle(img *gocv.Mat, x, y float64, r int, c color.RGBA) {
	gocv.CircleWithParams(img, image.Point{X: int(x * 16), Y: int(y * 16)}, r*16, c, -1, gocv.LineAA, 4)
}

func ellipse(img *gocv.Mat, x, y, rx, ry, rot float64, c color.RGBA) {
	gocv.EllipseWithParams(img, image.Point{X: int(x * 16), Y: int(y * 16)},
		image.Point{X: int(rx * 16), Y: int(ry * 16)}, rot, 0, 360, c, -1, gocv.LineAA, 4)
}

func scale(c color.RGBA, f float64) color.RGBA {
	return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), 255}
}

// softBlur blurs img with a Gaussian of the given sigma, at a quarter of
// its resolution when sigma is large: shadows and soft edges, where the
// difference does not show and a full blur costs most of a render.
func softBlur(img *gocv.Mat, sigma float64) {
	if sigma < 6 || img.Cols() < 16 || img.Rows() < 16 {
		blurSigma(img, sigma)
		return
	}
	small := gocv.NewMat()
	defer small.Close()
	size := image.Point{X: img.Cols(), Y: img.Rows()}
	gocv.Resize(*img, &small, image.Point{X: (size.X + 3) / 4, Y: (size.Y + 3) / 4}, 0, 0, gocv.InterpolationArea)
	blurSigma(&small, sigma/4)
	gocv.Resize(small, img, size, 0, 0, gocv.InterpolationLinear)
}

// blurSigma blurs img with a Gaussian of the given sigma.
func blurSigma(img *gocv.Mat, sigma float64) {
	k := int(sigma*3)*2 + 1
	gocv.GaussianBlur(*img, img, image.Point{X: k, Y: k}, sigma, sigma, gocv.BorderReplicate)
}
