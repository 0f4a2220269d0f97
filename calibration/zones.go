package calibration

import (
	"errors"
	"fmt"
	"math"
)

// Point is a point on the board, in millimetres.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Seat is where one seat's dice lie: a polygon on the board, and the point
// in front of the seat that a die nearest to belongs to when it falls
// outside every zone.
type Seat struct {
	Name   string  `json:"name"`
	Centre Point   `json:"centre"`
	Zone   []Point `json:"zone"`
}

// Zones are the seat zones of a table, clockwise.
type Zones []Seat

// Assign returns the seat a die at p belongs to: the seat whose zone holds
// it, else the seat whose centre is nearest. ok is false when there are no
// seats.
func (z Zones) Assign(p Point) (name string, inZone bool, ok bool) {
	for _, s := range z {
		if contains(s.Zone, p) {
			return s.Name, true, true
		}
	}
	best, bestD := "", math.Inf(1)
	for _, s := range z {
		if d := math.Hypot(p.X-s.Centre.X, p.Y-s.Centre.Y); d < bestD {
			best, bestD = s.Name, d
		}
	}
	return best, false, best != ""
}

// contains reports whether the polygon holds p (even-odd rule).
func contains(poly []Point, p Point) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

// RoundTable draws zones for seats evenly spaced around a round table of
// the given centre and radius, clockwise from the top (as the camera sees
// the board: y grows downward). Each zone is the wedge between the bisectors
// with its neighbours, out to the table's edge.
func RoundTable(names []string, centre Point, radius float64) (Zones, error) {
	if len(names) == 0 || radius <= 0 {
		return nil, errors.New("calibration: a round table needs seats and a positive radius")
	}
	angles := make([]float64, len(names))
	for i := range names {
		angles[i] = -math.Pi/2 + 2*math.Pi*float64(i)/float64(len(names))
	}
	return wedges(names, centre, angles, radius, radius*0.6)
}

// RectTable draws zones for seats spread evenly along the edge of a
// rectangular table of width x height millimetres whose centre lies at
// centre on the board (the board's origin is the card's first inner
// corner, and the card lies in the middle of the board), clockwise from
// the middle of the top edge.
func RectTable(names []string, centre Point, width, height float64) (Zones, error) {
	if len(names) == 0 || width <= 0 || height <= 0 {
		return nil, errors.New("calibration: a rectangular table needs seats and a positive size")
	}
	perimeter := 2 * (width + height)
	// edge is where seat i sits on the table's edge, on the board.
	edge := func(i int) Point {
		p := perimeterPoint(width, height, math.Mod(width/2+perimeter*float64(i)/float64(len(names)), perimeter))
		return Point{centre.X - width/2 + p.X, centre.Y - height/2 + p.Y}
	}
	angles := make([]float64, len(names))
	for i := range names {
		p := edge(i)
		angles[i] = math.Atan2(p.Y-centre.Y, p.X-centre.X)
	}
	reach := math.Hypot(width, height)
	zones, err := wedges(names, centre, angles, reach, 0)
	if err != nil {
		return nil, err
	}
	for i := range zones { // the point in front of each seat, on the table
		p := edge(i)
		zones[i].Centre = Point{centre.X + 0.7*(p.X-centre.X), centre.Y + 0.7*(p.Y-centre.Y)}
	}
	return zones, nil
}

// perimeterPoint walks d millimetres clockwise along the rectangle's edge
// from its top-left corner.
func perimeterPoint(w, h, d float64) Point {
	switch {
	case d < w:
		return Point{d, 0}
	case d < w+h:
		return Point{w, d - w}
	case d < 2*w+h:
		return Point{w - (d - w - h), h}
	}
	return Point{0, h - (d - 2*w - h)}
}

// Taught makes zones from dice laid in front of each seat in turn: each
// seat's centre is the middle of its dice, and its zone the wedge, around
// the middle of all seats, between the bisectors with its neighbours.
func Taught(names []string, samples map[string][]Point) (Zones, error) {
	if len(names) < 2 {
		return nil, errors.New("calibration: teaching zones needs two seats or more")
	}
	centres := make([]Point, len(names))
	var mid Point
	for i, n := range names {
		pts := samples[n]
		if len(pts) == 0 {
			return nil, fmt.Errorf("calibration: no dice were found in front of seat %q", n)
		}
		for _, p := range pts {
			centres[i].X += p.X / float64(len(pts))
			centres[i].Y += p.Y / float64(len(pts))
		}
		mid.X += centres[i].X / float64(len(names))
		mid.Y += centres[i].Y / float64(len(names))
	}
	angles := make([]float64, len(names))
	reach := 0.0
	for i, c := range centres {
		angles[i] = math.Atan2(c.Y-mid.Y, c.X-mid.X)
		reach = math.Max(reach, 3*math.Hypot(c.X-mid.X, c.Y-mid.Y))
	}
	zones, err := wedges(names, mid, angles, reach, 0)
	if err != nil {
		return nil, err
	}
	for i := range zones {
		zones[i].Centre = centres[i]
	}
	return zones, nil
}

// wedges makes one wedge per seat around centre: from the bisector with
// the previous seat to the bisector with the next, out to reach. The seats'
// angles must run clockwise (increasing in image coordinates).
func wedges(names []string, centre Point, angles []float64, reach, centreAt float64) (Zones, error) {
	n := len(names)
	if n == 1 {
		return Zones{{Name: names[0], Centre: centre, Zone: circle(centre, reach)}}, nil
	}
	// Clockwise seats go round exactly once.
	turn := 0.0
	for i := range angles {
		turn += angleDiff(angles[(i+1)%n], angles[i])
	}
	if math.Abs(turn-2*math.Pi) > 1e-6 {
		return nil, fmt.Errorf("calibration: the seats %v are not in clockwise order around the table", names)
	}
	zones := make(Zones, n)
	for i := range names {
		prev, next := angles[(i+n-1)%n], angles[(i+1)%n]
		a := angles[i]
		from := a - angleDiff(a, prev)/2
		to := a + angleDiff(next, a)/2
		zone := []Point{centre}
		const steps = 8
		for k := 0; k <= steps; k++ {
			t := from + (to-from)*float64(k)/steps
			zone = append(zone, Point{centre.X + reach*math.Cos(t), centre.Y + reach*math.Sin(t)})
		}
		zones[i] = Seat{Name: names[i], Zone: zone,
			Centre: Point{centre.X + centreAt*math.Cos(a), centre.Y + centreAt*math.Sin(a)}}
	}
	return zones, nil
}

// angleDiff is the clockwise angle from b to a, in (0, 2π].
func angleDiff(a, b float64) float64 {
	d := math.Mod(a-b, 2*math.Pi)
	if d <= 0 {
		d += 2 * math.Pi
	}
	return d
}

func circle(c Point, r float64) []Point {
	var pts []Point
	for k := range 16 {
		t := 2 * math.Pi * float64(k) / 16
		pts = append(pts, Point{c.X + r*math.Cos(t), c.Y + r*math.Sin(t)})
	}
	return pts
}
