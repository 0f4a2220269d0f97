package synth

import "math"

// A die is a cube; in its own frame face 1 looks along +x, 2 along +y and
// 3 along +z, their opposites (6, 5, 4) the other way: opposite faces sum
// to 7 and the three meet at one corner, as on a real die. Each face's
// pips lie along its own axis u, with v = normal x u across.
var (
	faceNormal = [7][3]float64{1: {1, 0, 0}, 2: {0, 1, 0}, 3: {0, 0, 1}, 4: {0, 0, -1}, 5: {0, -1, 0}, 6: {-1, 0, 0}}
	faceU      = [7][3]float64{1: {0, 1, 0}, 2: {0, 0, 1}, 3: {1, 0, 0}, 4: {1, 0, 0}, 5: {0, 0, 1}, 6: {0, 1, 0}}
	// faceUp turns the die so that the face is on top (its normal to +z).
	faceUp = [7][9]float64{
		1: {0, 0, -1, 0, 1, 0, 1, 0, 0},  // about y, -90 degrees
		2: {1, 0, 0, 0, 0, -1, 0, 1, 0},  // about x, 90 degrees
		3: {1, 0, 0, 0, 1, 0, 0, 0, 1},   // as it is
		4: {1, 0, 0, 0, -1, 0, 0, 0, -1}, // about x, 180 degrees
		5: {1, 0, 0, 0, 0, 1, 0, -1, 0},  // about x, -90 degrees
		6: {0, 0, 1, 0, 1, 0, -1, 0, 0},  // about y, 90 degrees
	}
)

// orientation is a die's turn in the world: its face on top, turned by
// rot degrees about the vertical.
type orientation [9]float64

func orient(face int, rot float64) orientation {
	c, s := math.Cos(rot*math.Pi/180), math.Sin(rot*math.Pi/180)
	return orientation(mul3([9]float64{c, -s, 0, s, c, 0, 0, 0, 1}, faceUp[face]))
}

func (o orientation) apply(v [3]float64) [3]float64 {
	return [3]float64{
		o[0]*v[0] + o[1]*v[1] + o[2]*v[2],
		o[3]*v[0] + o[4]*v[1] + o[5]*v[2],
		o[6]*v[0] + o[7]*v[1] + o[8]*v[2],
	}
}

// faceTowards returns the face whose normal points along the world
// direction n.
func (o orientation) faceTowards(n [3]float64) int {
	best, bestDot := 1, math.Inf(-1)
	for f := 1; f <= 6; f++ {
		if d := dot(o.apply(faceNormal[f]), n); d > bestDot {
			best, bestDot = f, d
		}
	}
	return best
}

// faceAxes returns the world directions of face f's pip axes u and v.
func (o orientation) faceAxes(f int) (u, v [3]float64) {
	return o.apply(faceU[f]), o.apply(cross(faceNormal[f], faceU[f]))
}
