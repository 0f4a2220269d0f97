package vision

import (
	"math"
	"sort"
)

// point is a pixel position in float coordinates.
type point struct{ x, y float64 }

// rect is a rotated rectangle: a centre, two half-axes along unit vectors
// (ux, uy) and (-uy, ux), and their lengths.
type rect struct {
	cx, cy float64
	ux, uy float64 // unit vector along the first side
	w, h   float64 // side lengths
}

// convexHull returns the hull of pts counter-clockwise (Andrew's monotone
// chain). pts is reordered.
func convexHull(pts []point) []point {
	if len(pts) < 3 {
		return pts
	}
	sort.Slice(pts, func(i, j int) bool {
		if pts[i].x != pts[j].x {
			return pts[i].x < pts[j].x
		}
		return pts[i].y < pts[j].y
	})
	cross := func(o, a, b point) float64 {
		return (a.x-o.x)*(b.y-o.y) - (a.y-o.y)*(b.x-o.x)
	}
	hull := make([]point, 0, 2*len(pts))
	for _, p := range pts {
		for len(hull) >= 2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	lower := len(hull) + 1
	for i := len(pts) - 2; i >= 0; i-- {
		p := pts[i]
		for len(hull) >= lower && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	return hull[:len(hull)-1]
}

// minAreaRect returns the smallest rotated rectangle around pts, which are
// pixel centres: the rectangle is grown by half a pixel on every side so a
// filled square of k pixels gives sides of k.
func minAreaRect(pts []point) rect {
	hull := convexHull(pts)
	if len(hull) == 0 {
		return rect{}
	}
	if len(hull) < 3 {
		c := hull[0]
		return rect{cx: c.x, cy: c.y, ux: 1, w: 1, h: 1}
	}
	best := rect{}
	bestArea := math.Inf(1)
	for i := range hull {
		a, b := hull[i], hull[(i+1)%len(hull)]
		ex, ey := b.x-a.x, b.y-a.y
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		ux, uy := ex/l, ey/l
		minU, maxU, minV, maxV := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range hull {
			u := p.x*ux + p.y*uy
			v := -p.x*uy + p.y*ux
			minU, maxU = math.Min(minU, u), math.Max(maxU, u)
			minV, maxV = math.Min(minV, v), math.Max(maxV, v)
		}
		area := (maxU - minU + 1) * (maxV - minV + 1)
		if area < bestArea {
			bestArea = area
			cu, cv := (minU+maxU)/2, (minV+maxV)/2
			best = rect{
				cx: cu*ux - cv*uy,
				cy: cu*uy + cv*ux,
				ux: ux, uy: uy,
				w: maxU - minU + 1,
				h: maxV - minV + 1,
			}
		}
	}
	return best
}

// rowExtremes keeps, for each row, the leftmost and rightmost pixel: the
// hull of those is the hull of the whole region, at a fraction of the cost.
func rowExtremes(pts []point) []point {
	if len(pts) == 0 {
		return nil
	}
	minY, maxY := pts[0].y, pts[0].y
	for _, p := range pts {
		minY, maxY = math.Min(minY, p.y), math.Max(maxY, p.y)
	}
	rows := int(maxY-minY) + 1
	lo := make([]float64, rows)
	hi := make([]float64, rows)
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	for _, p := range pts {
		r := int(p.y - minY)
		lo[r], hi[r] = math.Min(lo[r], p.x), math.Max(hi[r], p.x)
	}
	out := make([]point, 0, 2*rows)
	for r := range lo {
		if !math.IsInf(lo[r], 1) {
			y := minY + float64(r)
			out = append(out, point{lo[r], y}, point{hi[r], y})
		}
	}
	return out
}
