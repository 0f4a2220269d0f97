package synth

import (
	"math"

	"gocv.io/x/gocv"
)

// camera is a pinhole camera looking down at the table from CameraTurn's
// side, CameraTilt degrees off straight down, at the table point that the
// flat view puts at the image's centre. Table coordinates are the scene's
// pixels (x right, y down the flat image, z up from the table); the camera
// stands as far from that point as its focal length, so a length there
// across the view is as many pixels in the image as in the flat view.
//
// Tilted scenes are drawn in the table plane's frame and warped into the
// image with the plane's homography. A point at height z lies, for the
// camera, in front of the table point behind it on the same ray (ground):
// drawing each die's top and sides at their ground points and then warping
// the whole table plane gives exactly the pinhole projection of the 3D
// scene, with the table's texture foreshortened, and lets the flat
// renderer's drawing (pips, stars, marbling, glints, glare) draw the top
// faces unchanged: a top face's ground image is a square again, scaled
// about the camera's foot.
type camera struct {
	pos     [3]float64 // the camera's centre
	r, d, f [3]float64 // the image's right and down, and the view's direction
	focal   float64    // in pixels
	w, h    float64    // the image's size
}

// tilted reports whether the scene is seen by the tilted camera rather
// than straight down, as every scene was before it: a camera straight
// down is the flat renderer's, whatever its turn.
func (s Scene) tilted() bool { return s.CameraTilt > 0 }

// lens is the focal length as a share of the image's longer side.
func (s Scene) lens() float64 {
	if s.Lens > 0 {
		return s.Lens
	}
	return 1
}

// newCamera returns the scene's camera.
func newCamera(s Scene) camera {
	w, h := float64(s.Width), float64(s.Height)
	focal := s.lens() * math.Max(w, h)
	tilt := s.CameraTilt * math.Pi / 180
	turn := s.CameraTurn * math.Pi / 180
	// g is the table direction, from the centre, the camera stands in:
	// turn 0 is the flat image's bottom edge.
	gx, gy := math.Sin(turn), math.Cos(turn)
	c := camera{focal: focal, w: w, h: h}
	c.pos = [3]float64{w/2 + focal*math.Sin(tilt)*gx, h/2 + focal*math.Sin(tilt)*gy, focal * math.Cos(tilt)}
	c.f = [3]float64{-math.Sin(tilt) * gx, -math.Sin(tilt) * gy, -math.Cos(tilt)}
	c.r = [3]float64{math.Cos(turn), -math.Sin(turn), 0}
	c.d = cross(c.r, c.f)
	return c
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// project returns where the point (x, y, z) appears in the image, in
// pixels.
func (c camera) project(x, y, z float64) (u, v float64) {
	p := [3]float64{x - c.pos[0], y - c.pos[1], z - c.pos[2]}
	depth := dot(p, c.f)
	return c.focal*dot(p, c.r)/depth + c.w/2, c.focal*dot(p, c.d)/depth + c.h/2
}

// depth is how far ahead of the camera the point (x, y, z) is.
func (c camera) depth(x, y, z float64) float64 {
	return dot([3]float64{x - c.pos[0], y - c.pos[1], z - c.pos[2]}, c.f)
}

// ground returns the table point that the camera sees behind (x, y, z):
// where the ray from the camera through it meets the table.
func (c camera) ground(x, y, z float64) (gx, gy float64) {
	t := c.pos[2] / (c.pos[2] - z)
	return c.pos[0] + (x-c.pos[0])*t, c.pos[1] + (y-c.pos[1])*t
}

// mirror returns the table point the camera sees (x, y, z)'s reflection
// in a glossy table at: the point mirrored below the table.
func (c camera) mirror(x, y, z float64) (gx, gy float64) { return c.ground(x, y, -z) }

// homography returns the 3x3 matrix taking table points (x, y, 1) to
// image points (u, v, 1).
func (c camera) homography() [9]float64 {
	// u*depth = focal*(p.r) + w/2*depth, with p = (x, y, 0) - pos: linear
	// in x and y.
	row := func(a [3]float64, off float64) [3]float64 {
		k0 := c.focal*a[0] + off*c.f[0]
		k1 := c.focal*a[1] + off*c.f[1]
		k2 := c.focal*a[2] + off*c.f[2]
		return [3]float64{k0, k1, -(k0*c.pos[0] + k1*c.pos[1] + k2*c.pos[2])}
	}
	u := row(c.r, c.w/2)
	v := row(c.d, c.h/2)
	z := row([3]float64{}, 1)
	return [9]float64{u[0], u[1], u[2], v[0], v[1], v[2], z[0], z[1], z[2]}
}

// unproject returns the table point seen at image point (u, v).
func (c camera) unproject(u, v float64) (x, y float64) {
	// The ray through the pixel, followed down to the table.
	a := (u - c.w/2) / c.focal
	b := (v - c.h/2) / c.focal
	ray := [3]float64{c.f[0] + a*c.r[0] + b*c.d[0], c.f[1] + a*c.r[1] + b*c.d[1], c.f[2] + a*c.r[2] + b*c.d[2]}
	if ray[2] >= 0 {
		// Above the horizon: nowhere on the table; far away will do.
		ray[2] = -1e-3
	}
	t := -c.pos[2] / ray[2]
	return c.pos[0] + t*ray[0], c.pos[1] + t*ray[1]
}

// mat3 returns m as a 3x3 64-bit Mat; the caller closes it.
func mat3(m [9]float64) gocv.Mat {
	out := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	for i, v := range m {
		out.SetDoubleAt(i/3, i%3, v)
	}
	return out
}

// mul3 is the matrix product a b.
func mul3(a, b [9]float64) [9]float64 {
	var m [9]float64
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			for k := 0; k < 3; k++ {
				m[3*r+c] += a[3*r+k] * b[3*k+c]
			}
		}
	}
	return m
}

// pt is a point in the plane.
type pt struct{ x, y float64 }

// hull returns the convex hull of pts, counter-clockwise in a y-down
// image (Andrew's monotone chain).
func hull(pts []pt) []pt {
	p := append([]pt(nil), pts...)
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && (p[j].x < p[j-1].x || p[j].x == p[j-1].x && p[j].y < p[j-1].y); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
	if len(p) < 3 {
		return p
	}
	turn := func(o, a, b pt) float64 { return (a.x-o.x)*(b.y-o.y) - (a.y-o.y)*(b.x-o.x) }
	var h []pt
	for _, q := range p {
		for len(h) >= 2 && turn(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	lower := len(h) + 1
	for i := len(p) - 2; i >= 0; i-- {
		for len(h) >= lower && turn(h[len(h)-2], h[len(h)-1], p[i]) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p[i])
	}
	return h[:len(h)-1]
}

// overlap reports whether two convex polygons, grown by gap, overlap
// (separating axes).
func overlap(a, b []pt, gap float64) bool {
	for _, poly := range [][]pt{a, b} {
		for i := range poly {
			p, q := poly[i], poly[(i+1)%len(poly)]
			nx, ny := q.y-p.y, p.x-q.x
			l := math.Hypot(nx, ny)
			if l == 0 {
				continue
			}
			nx, ny = nx/l, ny/l
			amin, amax := span(a, nx, ny)
			bmin, bmax := span(b, nx, ny)
			if amax+gap < bmin || bmax+gap < amin {
				return false
			}
		}
	}
	return true
}

func span(poly []pt, nx, ny float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range poly {
		v := p.x*nx + p.y*ny
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// area is the area of a simple polygon (shoelace).
func area(poly []pt) float64 {
	a := 0.0
	for i := range poly {
		p, q := poly[i], poly[(i+1)%len(poly)]
		a += p.x*q.y - q.x*p.y
	}
	return math.Abs(a) / 2
}
