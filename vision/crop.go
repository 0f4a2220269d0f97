package vision

import (
	_ "embed"
	"encoding/json"
	"math"
	"sort"
)

// The die verifier: small convolutional networks (two, averaged) that look
// at the image itself around each candidate region, not at the rules'
// reading of it. It tells
// the six faces, the star and "not a die" apart from a colour-distance map
// of a window around the candidate, so it still reads a die whose face the
// rules could not isolate (a small die, a marbled one, a die showing its
// sides, a die cut from a cluster) and it rejects shadows and marks on the
// table. Its weights are in model/crop.json; `liarsd readtrain` makes them
// from the train/ split of the photographs and synthetic tables.

const (
	// cropGrid is the side of the sampled map.
	cropGrid = 24
	// cropWindow is the sampled window's side over the candidate's side.
	cropWindow = 1.4
	// cropClasses are faces 1-6, the star and not a die.
	cropClasses = 8
	notADie     = 7
)

// cropPatch is the image around one candidate: BGR pixels of a w x h box
// whose corner is (x0, y0) in the image.
type cropPatch struct {
	bgr    []byte
	w, h   int
	x0, y0 int
}

// newCropPatch copies the image around (cx, cy) (image pixels) wide enough
// for the window of a candidate of the given side at any turn, with some
// room for the jitter of training.
func newCropPatch(img []byte, w, h int, cx, cy, side float64) cropPatch {
	r := int(math.Ceil(side*cropWindow*0.85)) + 2
	x0, y0 := max(int(cx)-r, 0), max(int(cy)-r, 0)
	x1, y1 := min(int(cx)+r, w-1), min(int(cy)+r, h-1)
	p := cropPatch{w: max(x1-x0+1, 1), h: max(y1-y0+1, 1), x0: x0, y0: y0}
	p.bgr = make([]byte, p.w*p.h*3)
	for y := 0; y < p.h && y0+y < h; y++ {
		copy(p.bgr[y*p.w*3:(y+1)*p.w*3], img[((y0+y)*w+x0)*3:((y0+y)*w+x0+p.w)*3])
	}
	return p
}

// cropFeatures samples the window of side cropWindow*side centred on (cx,
// cy) (image pixels), turned by angle, into out (cropGrid squared values in
// 0-1): each cell's colour distance from the window's central colour (the
// die's body, light or dark alike), scaled by the window's own contrast.
func cropFeatures(p cropPatch, cx, cy, side, angle float64, flip bool, out []float32) {
	step := side * cropWindow / cropGrid
	ca, sa := math.Cos(angle)*step, math.Sin(angle)*step
	flipSign := 1.0
	if flip {
		// A die's faces are their own mirror images, give or take a turn.
		flipSign = -1
	}
	var cols [cropGrid * cropGrid][3]float32
	for j := 0; j < cropGrid; j++ {
		v := (float64(j) - cropGrid/2 + 0.5) * flipSign
		for i := 0; i < cropGrid; i++ {
			u := float64(i) - cropGrid/2 + 0.5
			x := cx + u*ca - v*sa - float64(p.x0)
			y := cy + u*sa + v*ca - float64(p.y0)
			cols[j*cropGrid+i] = bilinear3(p.bgr, p.w, p.h, x, y)
		}
	}
	// The body's colour: the per-channel median of the central cells.
	const c0, c1 = cropGrid / 4, cropGrid * 3 / 4
	var ch [3][]float32
	for k := range ch {
		ch[k] = make([]float32, 0, (c1-c0)*(c1-c0))
	}
	for j := c0; j < c1; j++ {
		for i := c0; i < c1; i++ {
			for k := range ch {
				ch[k] = append(ch[k], cols[j*cropGrid+i][k])
			}
		}
	}
	var body [3]float32
	for k := range ch {
		sort.Slice(ch[k], func(a, b int) bool { return ch[k][a] < ch[k][b] })
		body[k] = ch[k][len(ch[k])/2]
	}
	var dist [cropGrid * cropGrid]float32
	for i, c := range cols {
		d0, d1, d2 := c[0]-body[0], c[1]-body[1], c[2]-body[2]
		dist[i] = float32(math.Sqrt(float64(d0*d0 + d1*d1 + d2*d2)))
	}
	// Contrast: a high percentile of the central distances, so faint pips
	// on a dark die and bold ones on a white die look alike.
	central := make([]float32, 0, (c1-c0)*(c1-c0))
	for j := c0; j < c1; j++ {
		for i := c0; i < c1; i++ {
			central = append(central, dist[j*cropGrid+i])
		}
	}
	sort.Slice(central, func(a, b int) bool { return central[a] < central[b] })
	scale := max(central[len(central)*95/100], 30)
	for i, d := range dist {
		out[i] = min(d/scale, 1.5) / 1.5
	}
}

func bilinear3(m []byte, w, h int, x, y float64) [3]float32 {
	x = math.Max(0, math.Min(x, float64(w-1)))
	y = math.Max(0, math.Min(y, float64(h-1)))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	var out [3]float32
	for k := 0; k < 3; k++ {
		a := float32(m[(y0*w+x0)*3+k])*(1-fx) + float32(m[(y0*w+x1)*3+k])*fx
		b := float32(m[(y1*w+x0)*3+k])*(1-fx) + float32(m[(y1*w+x1)*3+k])*fx
		out[k] = a*(1-fy) + b*fy
	}
	return out
}

//go:embed model/crop.json
var cropModelJSON []byte

// verifier is a few convolutional networks, trained alike from different
// seeds, whose probabilities are averaged: their mistakes differ, so the
// average is surer where they agree and less sure where they do not.
type verifier struct {
	Nets []*convNet
}

// defaultCropModel is the embedded verifier, or nil when none is embedded.
var defaultCropModel = func() *verifier {
	var v verifier
	if err := json.Unmarshal(cropModelJSON, &v); err != nil || !v.valid() {
		return nil
	}
	return &v
}()

func (v *verifier) valid() bool {
	for _, n := range v.Nets {
		if n == nil || !n.valid() {
			return false
		}
	}
	return len(v.Nets) > 0
}

// valid reports that the network's weights have the shapes its sizes say
// and that it reads the verifier's input.
func (n *convNet) valid() bool {
	q := n.Grid / 4
	return n.Grid == cropGrid && n.Classes == cropClasses && n.C1 > 0 && n.C2 > 0 && n.Hidden > 0 &&
		len(n.W1) == n.C1*9 && len(n.B1) == n.C1 && len(n.W2) == n.C2*n.C1*9 && len(n.B2) == n.C2 &&
		len(n.W3) == n.Hidden*n.C2*q*q && len(n.B3) == n.Hidden && len(n.W4) == n.Classes*n.Hidden && len(n.B4) == n.Classes
}

// cropVerdict is the verifier's read of one candidate.
type cropVerdict struct {
	class int     // 0-5 faces 1-6, 6 the star, 7 not a die
	p     float64 // its probability averaged over the views read
	worst float64 // its lowest probability in any one view
	probs [cropClasses]float64
}

// verify runs the networks on the window around (cx, cy) in views views
// (1 to 8): the quarter turns of angle, then the same mirrored. A die's
// face reads the same turned a quarter or mirrored, so a trustworthy read
// is the same in every view.
func (vf *verifier) verify(p cropPatch, cx, cy, side, angle float64, views int) cropVerdict {
	n0 := vf.Nets[0]
	x := make([]float32, n0.Grid*n0.Grid)
	scratch := make([]*convScratch, len(vf.Nets))
	for i, n := range vf.Nets {
		scratch[i] = n.scratch(false)
	}
	var each [8][cropClasses]float64
	var v cropVerdict
	share := 1 / float64(len(vf.Nets))
	for k := 0; k < views; k++ {
		cropFeatures(p, cx, cy, side, angle+float64(k%4)*math.Pi/2, k >= 4, x)
		for i, n := range vf.Nets {
			n.forward(x, scratch[i])
			for c, pr := range scratch[i].probs {
				each[k][c] += pr * share
			}
		}
		for c := range v.probs {
			v.probs[c] += each[k][c] / float64(views)
		}
	}
	for c := range v.probs {
		if v.probs[c] > v.probs[v.class] {
			v.class = c
		}
	}
	v.p, v.worst = v.probs[v.class], 1
	for k := 0; k < views; k++ {
		v.worst = math.Min(v.worst, each[k][v.class])
	}
	return v
}
