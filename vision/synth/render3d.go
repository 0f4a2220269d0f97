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

// frame maps table points to a canvas's pixels: the flat image's
// supersampled canvas, or the table plane's canvas that a tilted camera's
// homography warps into the image.
type frame struct {
	k      float64 // canvas pixels per table unit
	x0, y0 float64 // the table point at the canvas's origin
	cam    *camera // nil: seen straight down, heights change nothing
}

// at returns the canvas point where the point (x, y) at height z shows.
func (f frame) at(x, y, z float64) pt {
	if f.cam != nil && z != 0 {
		x, y = f.cam.ground(x, y, z)
	}
	return pt{(x - f.x0) * f.k, (y - f.y0) * f.k}
}

// maxCanvas bounds the table plane's canvas, in pixels: a camera tilted
// far sees a long stretch of table.
const maxCanvas = 24e6

// render3D draws the scene as the tilted camera sees it.
func render3D(s Scene, rng *rand.Rand) (gocv.Mat, []Label, error) {
	cam := newCamera(s)
	// The table the image shows, and a little more for the warp's edges.
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]float64{{-0.03, -0.03}, {1.03, -0.03}, {1.03, 1.03}, {-0.03, 1.03}} {
		x, y := cam.unproject(c[0]*cam.w, c[1]*cam.h)
		x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
	}
	k := float64(supersample)
	if a := (x1 - x0) * (y1 - y0) * k * k; a > maxCanvas {
		k *= math.Sqrt(maxCanvas / a)
	}
	fr := frame{k: k, x0: x0, y0: y0, cam: &cam}
	cw, ch := int(math.Ceil((x1-x0)*k)), int(math.Ceil((y1-y0)*k))
	canvas := gocv.NewMatWithSize(ch, cw, gocv.MatTypeCV8UC3)
	defer canvas.Close()
	if err := paintSurface(&canvas, s, fr); err != nil {
		return gocv.Mat{}, nil, err
	}
	if err := drawClutter(&canvas, s, fr); err != nil {
		return gocv.Mat{}, nil, err
	}
	if s.Surface == Glass {
		for _, d := range s.Dice {
			if err := reflectDie(&canvas, s, fr, d); err != nil {
				return gocv.Mat{}, nil, err
			}
		}
	}
	if err := shadows3D(&canvas, s, fr); err != nil {
		return gocv.Mat{}, nil, err
	}
	// Far to near, so that nearer dice hide farther ones.
	order := make([]int, len(s.Dice))
	for i := range order {
		order[i] = i
	}
	depth := func(i int) float64 {
		d := s.Dice[i]
		return cam.depth(s.px(d.X), s.px(d.Y), s.dieSide(d)/2)
	}
	sort.SliceStable(order, func(a, b int) bool { return depth(order[a]) > depth(order[b]) })
	labels := make([]Label, len(s.Dice))
	for _, i := range order {
		l, err := drawCube(&canvas, s, fr, s.Dice[i], rng)
		if err != nil {
			return gocv.Mat{}, nil, err
		}
		labels[i] = l
	}
	// The canvas to the supersampled image: canvas pixels to table points,
	// the camera's homography, then twice the image's size.
	toTable := [9]float64{1 / k, 0, x0, 0, 1 / k, y0, 0, 0, 1}
	big := [9]float64{supersample, 0, 0, 0, supersample, 0, 0, 0, 1}
	m := mat3(mul3(big, mul3(cam.homography(), toTable)))
	defer m.Close()
	img := gocv.NewMat()
	defer img.Close()
	gocv.WarpPerspectiveWithParams(canvas, &img, m, image.Point{X: s.Width * supersample, Y: s.Height * supersample},
		gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	if err := light(&img, s); err != nil {
		return gocv.Mat{}, nil, err
	}
	out := gocv.NewMat()
	gocv.Resize(img, &out, image.Point{X: s.Width, Y: s.Height}, 0, 0, gocv.InterpolationArea)
	return out, labels, nil
}

// cubeCorners returns a die's four footprint corners on the table, in
// order around it.
func cubeCorners(s Scene, d Die) [4]pt {
	side := s.dieSide(d)
	cx, cy := s.px(d.X), s.px(d.Y)
	ux, uy := math.Cos(d.Rotation*math.Pi/180), math.Sin(d.Rotation*math.Pi/180)
	var c [4]pt
	for i, sg := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		a, b := sg[0]*side/2, sg[1]*side/2
		c[i] = pt{cx + a*ux - b*uy, cy + a*uy + b*ux}
	}
	return c
}

// silhouette returns the die's outline in the image, in pixels (the hull
// of its eight corners), and its top face's four corners.
func silhouette(cam camera, s Scene, d Die) (outline, top []pt) {
	side := s.dieSide(d)
	var all []pt
	for _, c := range cubeCorners(s, d) {
		u, v := cam.project(c.x, c.y, 0)
		all = append(all, pt{u, v})
		u, v = cam.project(c.x, c.y, side)
		top = append(top, pt{u, v})
	}
	return hull(append(all, top...)), top
}

// roundedOutline is the outline of a w x h rectangle centred on (cx, cy)
// with corners rounded by radius (a share of the shorter side), turned by
// rot degrees, in table units.
func roundedOutline(cx, cy, w, h, rot, radius float64) []pt {
	r := radius * math.Min(w, h)
	ux, uy := math.Cos(rot*math.Pi/180), math.Sin(rot*math.Pi/180)
	var pts []pt
	corners := [4][3]float64{{w/2 - r, h/2 - r, 0}, {-w/2 + r, h/2 - r, 90}, {-w/2 + r, -h/2 + r, 180}, {w/2 - r, -h/2 + r, 270}}
	for _, c := range corners {
		for k := 0; k <= 4; k++ {
			a := (c[2] + float64(k)*22.5) * math.Pi / 180
			x, y := c[0]+r*math.Cos(a), c[1]+r*math.Sin(a)
			pts = append(pts, pt{cx + x*ux - y*uy, cy + x*uy + y*ux})
		}
	}
	return pts
}

// lightDir is the direction, on the table, the light comes from.
func lightDir(s Scene) (lx, ly float64) {
	a := s.Light.Angle * math.Pi / 180
	return math.Cos(a), math.Sin(a)
}

// sideShade is how bright a die's side facing outward along (nx, ny) is
// against its top: the light comes from above at about 55 degrees, so
// every side is darker than the top, the one facing the light least.
func sideShade(s Scene, nx, ny float64) float64 {
	lx, ly := lightDir(s)
	const elevation = 55 * math.Pi / 180
	lit := math.Max(0, nx*lx+ny*ly) * math.Cos(elevation)
	top := 0.35 + 0.65*math.Sin(elevation)
	return (0.35 + 0.65*lit) / top
}

// shadows3D darkens the table under and beside every die, away from the
// light.
func shadows3D(canvas *gocv.Mat, s Scene, fr frame) error {
	if s.Light.Shadow <= 0 || len(s.Dice) == 0 {
		return nil
	}
	mask := gocv.NewMatWithSize(canvas.Rows(), canvas.Cols(), gocv.MatTypeCV8UC1)
	defer mask.Close()
	mask.SetTo(gocv.Scalar{})
	lx, ly := lightDir(s)
	sides := 0.0
	for _, d := range s.Dice {
		side := s.dieSide(d)
		sides += side
		// The shadow of a cube lit from 55 degrees up reaches about 0.7 of
		// its height beyond it.
		var pts []pt
		for _, c := range cubeCorners(s, d) {
			pts = append(pts, fr.at(c.x, c.y, 0), fr.at(c.x-lx*side*0.7, c.y-ly*side*0.7, 0))
		}
		fillPoly(&mask, intPoints(hull(pts), 1), color.RGBA{255, 255, 255, 255})
	}
	softBlur(&mask, sides/float64(len(s.Dice))*fr.k*0.12+1)
	return darken(canvas, mask, 0.55*s.Light.Shadow)
}

// intPoints rounds points, times f, to pixels.
func intPoints(p []pt, f float64) []image.Point {
	out := make([]image.Point, len(p))
	for i, q := range p {
		out[i] = image.Point{X: int(math.Round(q.x * f)), Y: int(math.Round(q.y * f))}
	}
	return out
}

// reflectDie draws the faint, blurred reflection of a die in a glossy
// table: the die mirrored below the table, as the camera sees it.
func reflectDie(canvas *gocv.Mat, s Scene, fr frame, d Die) error {
	side := s.dieSide(d)
	var pts []pt
	for _, c := range cubeCorners(s, d) {
		pts = append(pts, fr.at(c.x, c.y, 0))
		x, y := fr.cam.mirror(c.x, c.y, side)
		pts = append(pts, pt{(x - fr.x0) * fr.k, (y - fr.y0) * fr.k})
	}
	h := hull(pts)
	b := boxOf(h)
	pad := side * fr.k * 0.3
	bounds := image.Rect(int(b.MinX-pad), int(b.MinY-pad), int(b.MaxX+pad), int(b.MaxY+pad)).Intersect(image.Rect(0, 0, canvas.Cols(), canvas.Rows()))
	if bounds.Empty() {
		return nil
	}
	alpha := gocv.NewMatWithSize(bounds.Dy(), bounds.Dx(), gocv.MatTypeCV8UC1)
	defer alpha.Close()
	alpha.SetTo(gocv.Scalar{})
	for i := range h {
		h[i].x -= float64(bounds.Min.X)
		h[i].y -= float64(bounds.Min.Y)
	}
	fillPoly(&alpha, intPoints(h, 1), color.RGBA{255, 255, 255, 255})
	softBlur(&alpha, side*fr.k*0.08+1)
	return blendColour(canvas, alpha, bounds, d.Colour, 0.3)
}

// blendColour paints colour c over the canvas's region b where alpha (the
// size of b) is set, at most at the given opacity.
func blendColour(canvas *gocv.Mat, alpha gocv.Mat, b image.Rectangle, c color.RGBA, opacity float64) error {
	cb, err := canvas.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	ab, err := alpha.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	w, aw := canvas.Cols(), alpha.Cols()
	col := [3]float64{float64(c.B), float64(c.G), float64(c.R)}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			a := float64(ab[(y-b.Min.Y)*aw+x-b.Min.X]) / 255 * opacity
			if a == 0 {
				continue
			}
			i := (y*w + x) * 3
			for k := 0; k < 3; k++ {
				cb[i+k] = uint8(float64(cb[i+k])*(1-a) + col[k]*a + 0.5)
			}
		}
	}
	return nil
}

// drawCube draws one die as the tilted camera sees it, in the table
// plane's canvas: its outline, the sides facing the camera with their own
// faces' pips, then the top face as the flat renderer draws it (the
// ground image of a top face is a square, scaled about the camera's foot).
func drawCube(canvas *gocv.Mat, s Scene, fr frame, d Die, rng *rand.Rand) (Label, error) {
	cam := *fr.cam
	side := s.dieSide(d)
	cx, cy := s.px(d.X), s.px(d.Y)
	corners := cubeCorners(s, d)
	var outline []pt
	for _, c := range roundedOutline(cx, cy, side, side, d.Rotation, d.corner()) {
		outline = append(outline, fr.at(c.x, c.y, 0), fr.at(c.x, c.y, side))
	}
	outline = hull(outline)
	ob := boxOf(outline)
	bounds := image.Rect(int(ob.MinX)-4, int(ob.MinY)-4, int(ob.MaxX)+5, int(ob.MaxY)+5).Intersect(image.Rect(0, 0, canvas.Cols(), canvas.Rows()))
	if bounds.Empty() {
		return Label{}, fmt.Errorf("synth: die at (%.0f,%.0f) is off the table", d.X, d.Y)
	}
	off := pt{float64(bounds.Min.X), float64(bounds.Min.Y)}
	local := func(p pt) pt { return pt{p.x - off.x, p.y - off.y} }
	region := canvas.Region(bounds)
	layer := region.Clone()
	region.Close()
	defer layer.Close()
	alpha := gocv.NewMatWithSize(bounds.Dy(), bounds.Dx(), gocv.MatTypeCV8UC1)
	defer alpha.Close()
	alpha.SetTo(gocv.Scalar{})
	// The outline, in the shade of the rounded edges between the faces.
	lo := make([]pt, len(outline))
	for i, p := range outline {
		lo[i] = local(p)
	}
	edge := scale(d.Colour, 0.7)
	fillPoly(&layer, intPoints(lo, 1), edge)
	fillPoly(&alpha, intPoints(lo, 1), color.RGBA{255, 255, 255, 255})
	o := orient(d.Face, d.Rotation)
	var veins *marbling
	if d.Swirl.A != 0 {
		veins = newMarbling(d.SwirlSeed, d.Swirl, side*fr.k)
	}
	for i := range corners {
		a, b := corners[i], corners[(i+1)%4]
		mx, my := (a.x+b.x)/2, (a.y+b.y)/2
		nx, ny := (mx-cx)/(side/2), (my-cy)/(side/2)
		if (cam.pos[0]-mx)*nx+(cam.pos[1]-my)*ny <= 0 {
			continue // this side faces away from the camera
		}
		quad := [4]pt{local(fr.at(a.x, a.y, side)), local(fr.at(b.x, b.y, side)), local(fr.at(b.x, b.y, 0)), local(fr.at(a.x, a.y, 0))}
		if err := drawSide(&layer, d, o, [3]float64{nx, ny, 0}, [3]float64{(b.x - a.x) / side, (b.y - a.y) / side, 0}, quad, side*fr.k, sideShade(s, nx, ny), veins); err != nil {
			return Label{}, err
		}
	}
	// The top face, squashed as the flat renderer squashes a cocked die's.
	tc := local(fr.at(cx, cy, side))
	topSide := side * fr.k * cam.pos[2] / (cam.pos[2] - side)
	squash := math.Cos(d.Tilt * math.Pi / 180)
	u, _ := o.faceAxes(d.Face)
	rot := math.Atan2(u[1], u[0]) * 180 / math.Pi
	top := gocv.NewMatWithSize(bounds.Dy(), bounds.Dx(), gocv.MatTypeCV8UC1)
	defer top.Close()
	top.SetTo(gocv.Scalar{})
	topPts := roundedRect(tc.x, tc.y, topSide, topSide*squash, d.Rotation, d.corner())
	fillPoly(&top, topPts, color.RGBA{255, 255, 255, 255})
	if err := blendBody(&layer, top, image.Rect(0, 0, bounds.Dx(), bounds.Dy()), d.Colour, veins, 1, tc.x, tc.y, topSide, s.Light.Angle); err != nil {
		return Label{}, err
	}
	opacity := 1.0
	if d.Translucent {
		opacity = 0.72
	}
	if err := blendLayer(canvas, layer, alpha, bounds, opacity); err != nil {
		return Label{}, err
	}
	// The face is printed on the body, opaque even on a translucent die;
	// the pattern turns with the die's orientation.
	fc := pt{tc.x + off.x, tc.y + off.y}
	face := d
	face.Rotation = rot
	drawFace(canvas, face, fc.x, fc.y, topSide, squash, rot)
	if d.Glints {
		glintPips(canvas, face, fc.x, fc.y, topSide, squash, rot, s.Light.Angle)
	}
	if s.Light.Glare > 0 && rng.Float64() < s.Light.Glare {
		glare(canvas, nil, fc.x, fc.y, topSide, rng)
	}
	if d.Hidden > 0 {
		finger(canvas, d, fc.x, fc.y, topSide, rng)
	}
	// The truth, in the image.
	outlineImg, topImg := silhouette(cam, s, d)
	x, y := cam.project(cx, cy, side)
	t := d.uncertain(truthDie(d, x, y, math.Sqrt(area(topImg))))
	return Label{Die: t, Artwork: d.One, Box: boxOf(outlineImg).clip(s.Width, s.Height)}, nil
}

// drawSide draws one side of a die, the face along normal n (a world
// direction), into the quad (its top edge first, left to right as seen
// from outside, then the bottom edge right to left) of the layer: the
// body's colour shaded by the light, its pips or star, and rounded
// corners. along is the world direction of the quad's top edge, side the
// texture's size in pixels.
func drawSide(layer *gocv.Mat, d Die, o orientation, n, along [3]float64, quad [4]pt, side, shade float64, veins *marbling) error {
	f := o.faceTowards(n)
	T := max(int(math.Ceil(side)), 12)
	ts := float64(T)
	tex := gocv.NewMatWithSize(T, T, gocv.MatTypeCV8UC3)
	defer tex.Close()
	tex.SetTo(gocv.NewScalar(float64(d.Colour.B), float64(d.Colour.G), float64(d.Colour.R), 0))
	full := gocv.NewMatWithSize(T, T, gocv.MatTypeCV8UC1)
	defer full.Close()
	full.SetTo(gocv.NewScalar(255, 0, 0, 0))
	if veins != nil {
		if err := blendBody(&tex, full, image.Rect(0, 0, T, T), d.Colour, veins, 1, ts/2, ts/2, ts, 0); err != nil {
			return err
		}
	}
	// The face's pips: their places on the cube, in the texture's axes
	// (along the top edge, and down).
	u, v := o.faceAxes(f)
	down := [3]float64{0, 0, -1}
	if f == 1 && d.One != Pip {
		rot := math.Atan2(dot(u, down), dot(u, along)) * 180 / math.Pi
		drawStar(&tex, d.One, ts/2, ts/2, ts, 1, rot, d.PipColour)
	} else {
		r := pipRadius(f, ts) * d.pipScale()
		pitch := ts * 0.27
		for _, off := range pipOffsets[f] {
			p := [3]float64{off[0]*u[0] + off[1]*v[0], off[0]*u[1] + off[1]*v[1], off[0]*u[2] + off[1]*v[2]}
			circleF(&tex, ts/2+dot(p, along)*pitch, ts/2+dot(p, down)*pitch, r, d.PipColour)
		}
	}
	gocv.ConvertScaleAbs(tex, &tex, shade, 0)
	full.SetTo(gocv.Scalar{})
	fillPoly(&full, roundedRect(ts/2, ts/2, ts, ts, 0, d.corner()), color.RGBA{255, 255, 255, 255})
	src := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 0, Y: 0}, {X: float32(ts), Y: 0}, {X: float32(ts), Y: float32(ts)}, {X: 0, Y: float32(ts)}})
	defer src.Close()
	dst := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{
		{X: float32(quad[0].x), Y: float32(quad[0].y)}, {X: float32(quad[1].x), Y: float32(quad[1].y)},
		{X: float32(quad[2].x), Y: float32(quad[2].y)}, {X: float32(quad[3].x), Y: float32(quad[3].y)},
	})
	defer dst.Close()
	m := gocv.GetPerspectiveTransform2f(src, dst)
	defer m.Close()
	size := image.Point{X: layer.Cols(), Y: layer.Rows()}
	warped := gocv.NewMat()
	defer warped.Close()
	gocv.WarpPerspectiveWithParams(tex, &warped, m, size, gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	wmask := gocv.NewMat()
	defer wmask.Close()
	gocv.WarpPerspectiveWithParams(full, &wmask, m, size, gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	return blendLayer(layer, warped, wmask, image.Rect(0, 0, size.X, size.Y), 1)
}

// blendLayer paints layer (the size of b) over the canvas's region b
// where alpha is set, at the given opacity.
func blendLayer(canvas *gocv.Mat, layer, alpha gocv.Mat, b image.Rectangle, opacity float64) error {
	cb, err := canvas.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	lb, err := layer.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	ab, err := alpha.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	w, lw := canvas.Cols(), layer.Cols()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			j := (y-b.Min.Y)*lw + x - b.Min.X
			a := float64(ab[j]) / 255 * opacity
			if a == 0 {
				continue
			}
			i := (y*w + x) * 3
			for k := 0; k < 3; k++ {
				cb[i+k] = uint8(float64(cb[i+k])*(1-a) + float64(lb[3*j+k])*a + 0.5)
			}
		}
	}
	return nil
}

// circleF draws a filled, anti-aliased circle at sub-pixel precision.
func circleF(img *gocv.Mat, x, y, r float64, c color.RGBA) {
	gocv.CircleWithParams(img, image.Point{X: int(math.Round(x * 16)), Y: int(math.Round(y * 16))}, int(math.Round(r*16)), c, -1, gocv.LineAA, 4)
}

// finger covers part of the die with a fingertip reaching in from one
// side, as a player's hand over the dice does: skin, lit along its back,
// a nail at its tip.
func finger(canvas *gocv.Mat, d Die, cx, cy, side float64, rng *rand.Rand) {
	a := rng.Float64() * 360
	ux, uy := math.Cos(a*math.Pi/180), math.Sin(a*math.Pi/180)
	skins := []color.RGBA{rgb(224, 172, 140), rgb(198, 134, 100), rgb(141, 85, 50), rgb(250, 205, 175), rgb(110, 70, 50)}
	skin := skins[rng.IntN(len(skins))]
	width := side * (0.75 + 0.25*rng.Float64())
	length := side * 3
	// The tip reaches Hidden of the way across the die.
	tip := side * (0.5 - d.Hidden)
	mx, my := cx+ux*(tip+length/2), cy+uy*(tip+length/2)
	fillPoly(canvas, roundedRect(mx, my, length, width, a, 0.5), scale(skin, 0.75))
	fillPoly(canvas, roundedRect(mx+ux*width*0.05, my+uy*width*0.05, length-width*0.1, width*0.7, a, 0.5), skin)
	nail := color.RGBA{clamp8(float64(skin.R)*0.9 + 40), clamp8(float64(skin.G)*0.8 + 40), clamp8(float64(skin.B)*0.8 + 45), 255}
	fillPoly(canvas, roundedRect(cx+ux*(tip+width*0.35), cy+uy*(tip+width*0.35), width*0.5, width*0.45, a, 0.4), nail)
}
