package vision

import (
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// The pip counter is the reader's second witness: plain image processing
// that shares nothing with the networks but the die's place. It cuts the
// die, measures how unlike the body's colour each pixel is, and finds the
// pip-sized blobs of that: points that stand out from the body all around
// them (the table beyond the die's edge, bright on one side only, does
// not). Every face's pips are symmetric about the face's centre, whatever
// the die's turn and however the camera foreshortens it: blobs that are
// not (a speck, a vein, a glint, a side face's pip) make the counter drop
// the weakest and try again, then give up; the pips must then lie on the
// face's 3x3 grid with every other grid point like the body (layoutHolds).
// A lone round mark in the middle with nothing where any other pip could
// be is a 1 (loneMark). It reads no star, and says nothing rather than
// guess: its word must be worth a veto.
const (
	pipPatch = 48 // the counter's window, px square
	// pipWindow is the window's side in units of the die's extent.
	pipWindow = 1.1
	// pipMinResponse is the least blob response (Lab units) of a pip.
	pipMinResponse = 12
)

// pipRead is the pip counter's read of one die: the face it counts, 0
// when it cannot make the face out. Its 1 is a plain round pip.
type pipRead struct {
	face int
	// star reports that the counter's 1 is a five-pointed mark, not a
	// round pip: the star artwork.
	star bool
}

// agrees reports whether the counter's read is the face the network read.
// The counter's round 1 agrees with the network's star, and its star with
// the network's plain 1, only where the dice's 1 is known (oneKnown: star
// dice, or plain dice whose star read is a doubt anyway).
func (p pipRead) agrees(face int, star, oneKnown bool) bool {
	if p.face == 0 || p.face != face {
		return false
	}
	if p.star { // a five-pointed mark: the star, or the 1 of dice whose 1 is known
		return star || oneKnown
	}
	return !star || oneKnown
}

// countPips reads the die whose box of side extent is centred on (x, y).
func countPips(bgr gocv.Mat, x, y, extent float64) pipRead {
	win, err := cutWindow(bgr, x, y, pipWindow*extent, pipPatch)
	if err != nil {
		return pipRead{}
	}
	defer win.Close()
	lab := gocv.NewMat()
	defer lab.Close()
	gocv.CvtColor(win, &lab, gocv.ColorBGRToLab)
	return countPipsLab(lab.ToBytes())
}

// pipBlob is a blob found by the counter: its place and response.
type pipBlob struct{ x, y, r float64 }

// countPipsLab counts the pips of a pipPatch-square Lab window, the die
// in its middle.
func countPipsLab(lab []byte) pipRead {
	const n = pipPatch * pipPatch
	if len(lab) != 3*n {
		return pipRead{}
	}
	c := float64(pipPatch-1) / 2
	ext := float64(pipPatch) / pipWindow
	// The body's colour: the median of a ring around the middle, where no
	// face has a pip (the 1's may be large; the 6's side pips lie further
	// out).
	d := fromBody(lab, c, 0.11*ext, 0.2*ext)
	fine := gaussian(d, pipPatch, 0.04*ext)
	// A pip stands out from the body all around it: its response is its
	// own distance less the largest of eight points around it, a pip's
	// diameter away. The edge of the table beyond the die, bright on one
	// side only, answers nothing.
	reach := 0.12 * ext
	response := func(x, y float64) float64 {
		var around [8]float64
		for k := range around {
			a := float64(k) * math.Pi / 4
			around[k] = sample(fine, pipPatch, x+reach*math.Cos(a), y+reach*math.Sin(a))
		}
		// The second largest: one neighbouring pip may come close (a
		// 6's rows, a 5's centre), a table's edge fills three or more.
		sort.Float64s(around[:])
		return sample(fine, pipPatch, x, y) - around[6]
	}
	var blobs []pipBlob
	top := 0.0
	nms := int(math.Max(2, 0.09*ext))
	for y := 0; y < pipPatch; y++ {
		for x := 0; x < pipPatch; x++ {
			v := fine[y*pipPatch+x]
			if math.Hypot(float64(x)-c, float64(y)-c) > 0.45*ext {
				continue
			}
			isMax := true
			for dy := -nms; dy <= nms && isMax; dy++ {
				for dx := -nms; dx <= nms; dx++ {
					xx, yy := x+dx, y+dy
					if (dx != 0 || dy != 0) && xx >= 0 && yy >= 0 && xx < pipPatch && yy < pipPatch {
						if w := fine[yy*pipPatch+xx]; w > v || (w == v && yy*pipPatch+xx < y*pipPatch+x) {
							isMax = false
							break
						}
					}
				}
			}
			if !isMax {
				continue
			}
			if r := response(float64(x), float64(y)); r >= pipMinResponse {
				blobs = append(blobs, pipBlob{float64(x), float64(y), r})
				top = math.Max(top, r)
			}
		}
	}
	kept := blobs[:0]
	for _, b := range blobs {
		if b.r >= 0.35*top {
			kept = append(kept, b)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].r > kept[j].r })
	// The star's points may answer as blobs of their own: a five-pointed
	// mark in the middle is looked for first.
	if starMark(lab, c, ext) {
		return pipRead{face: 1, star: true}
	}
	// No pips found around the middle: a lone mark there is a 1, if it
	// is one.
	if len(blobs) <= 1 {
		if len(blobs) == 1 && math.Hypot(blobs[0].x-c, blobs[0].y-c) > 0.12*ext {
			return pipRead{}
		}
		r, _ := loneMark(fine, c, ext)
		return r
	}
	// Try the blobs, then without the weakest (a speck, a glint, a side
	// face's pip).
	for try := 0; try < 2 && len(kept) > 0; try++ {
		if len(kept) >= 2 && len(kept) <= 6 && symmetric(kept, c, ext) {
			if !layoutHolds(kept, fine, ext) {
				return pipRead{}
			}
			return pipRead{face: len(kept)}
		}
		kept = kept[:len(kept)-1]
	}
	return pipRead{}
}

// symmetric reports whether the blobs are a face's pips: symmetric about
// their mean, which lies near the window's middle, each blob's mirror image
// a blob too (the centre pip its own), and no two closer than pips are.
func symmetric(bs []pipBlob, c, ext float64) bool {
	mx, my := 0.0, 0.0
	for _, b := range bs {
		mx += b.x
		my += b.y
	}
	mx /= float64(len(bs))
	my /= float64(len(bs))
	if math.Hypot(mx-c, my-c) > 0.2*ext {
		return false
	}
	tol := 0.1 * ext
	centred := 0
	for i, b := range bs {
		if math.Hypot(b.x-mx, b.y-my) < tol {
			centred++
			continue
		}
		partner := false
		for j, o := range bs {
			if j != i && math.Hypot(b.x+o.x-2*mx, b.y+o.y-2*my) < tol {
				partner = true
				break
			}
		}
		if !partner {
			return false
		}
	}
	// An odd count has its centre pip; an even count has none.
	return centred == len(bs)%2
}

// layoutHolds checks the blobs against the layout of their count: the
// face's grid (its centre, its axes and its pitch, found from the blobs),
// a pitch a die of this extent can have, and every grid point that holds
// no pip of this face like the body. A face with a pip missed (a 6 read
// as a 4, a 5 as a 4) fails here rather than read as another face.
func layoutHolds(bs []pipBlob, fine []float64, ext float64) bool {
	mx, my := 0.0, 0.0
	weakest := math.Inf(1)
	for _, b := range bs {
		mx += b.x
		my += b.y
		weakest = math.Min(weakest, sample(fine, pipPatch, b.x, b.y))
	}
	mx /= float64(len(bs))
	my /= float64(len(bs))
	body := func(x, y float64) bool { return sample(fine, pipPatch, x, y) < 0.45*weakest }
	if len(bs) == 1 {
		// A lone pip: nothing where a corner or side pip would be.
		for k := 0; k < 8; k++ {
			a := float64(k) * math.Pi / 4
			if !body(mx+0.3*ext*math.Cos(a), my+0.3*ext*math.Sin(a)) {
				return false
			}
		}
		return true
	}
	// The grid's axes, e1 and e2, each a pitch long: both found from the
	// pips where the face has pips on both (4, 5, 6: a foreshortened face's
	// grid is a parallelogram), else e2 a quarter turn from e1.
	var e1x, e1y, e2x, e2y float64
	byDistance := append([]pipBlob(nil), bs...)
	sort.Slice(byDistance, func(i, j int) bool {
		return math.Hypot(byDistance[i].x-mx, byDistance[i].y-my) < math.Hypot(byDistance[j].x-mx, byDistance[j].y-my)
	})
	switch len(bs) {
	case 6:
		// The middle pips of the long sides are the two nearest the
		// centre, one pitch along e1; a corner is e1 + e2 (or e1 - e2).
		e1x, e1y = byDistance[0].x-mx, byDistance[0].y-my
		for _, b := range byDistance[2:] {
			if (b.x-mx)*e1x+(b.y-my)*e1y > 0 {
				e2x, e2y = b.x-mx-e1x, b.y-my-e1y
				break
			}
		}
	case 4, 5:
		// Corners: one at e1 + e2, the next round at e1 - e2.
		corners := byDistance[len(bs)-4:]
		a := corners[0]
		var b pipBlob
		best := math.Inf(1)
		for _, o := range corners[1:] {
			// The neighbouring corner is the one nearest a quarter turn
			// round (its dot product with a's nearest zero).
			if d := math.Abs((o.x-mx)*(a.x-mx) + (o.y-my)*(a.y-my)); d < best {
				b, best = o, d
			}
		}
		ux, uy, vx, vy := a.x-mx, a.y-my, b.x-mx, b.y-my
		e1x, e1y = (ux+vx)/2, (uy+vy)/2
		e2x, e2y = (ux-vx)/2, (uy-vy)/2
	default:
		// A corner pip, the farthest from the centre, lies at e1 + e2.
		far := byDistance[len(bs)-1]
		ux, uy := far.x-mx, far.y-my
		e1x, e1y = (ux+uy)/2, (uy-ux)/2
		e2x, e2y = (ux-uy)/2, (uy+ux)/2
	}
	// A face seen at up to 60 degrees: axes no more than 2:1 and within
	// 30 degrees of square to each other.
	l1, l2 := math.Hypot(e1x, e1y), math.Hypot(e2x, e2y)
	if math.Min(l1, l2) < 0.07*ext || math.Max(l1, l2) > 2*math.Min(l1, l2) || math.Abs(e1x*e2x+e1y*e2y) > 0.5*l1*l2 {
		return false
	}
	if pitch := math.Hypot(e1x, e1y); pitch < 0.1*ext || pitch > 0.34*ext {
		return false
	}
	for gy := -1; gy <= 1; gy++ {
		for gx := -1; gx <= 1; gx++ {
			x := mx + float64(gx)*e1x + float64(gy)*e2x
			y := my + float64(gx)*e1y + float64(gy)*e2y
			pip := false
			for _, b := range bs {
				if math.Hypot(b.x-x, b.y-y) < 0.1*ext {
					pip = true
					break
				}
			}
			if !pip && !body(x, y) {
				return false
			}
		}
	}
	// And every blob sits on a grid point.
	for _, b := range bs {
		on := false
		for gy := -1; gy <= 1 && !on; gy++ {
			for gx := -1; gx <= 1; gx++ {
				x := mx + float64(gx)*e1x + float64(gy)*e2x
				y := my + float64(gx)*e1y + float64(gy)*e2y
				if math.Hypot(b.x-x, b.y-y) < 0.1*ext {
					on = true
					break
				}
			}
		}
		if !on {
			return false
		}
	}
	return true
}

// loneMark reads a face with one mark in its middle: a plain 1. The marks
// are the window's pixels at least half as unlike the body as the most
// unlike near the middle, less those that run to the window's border (the
// table); the mark touching the middle must be all there is near the
// middle and where any other face's pips would be, and round and no wider
// than a large pip. Anything else (a star, a vein, a glint) it leaves to
// the network.
func loneMark(fine []float64, c, ext float64) (pipRead, bool) {
	const n = pipPatch * pipPatch
	peak := 0.0
	for i := 0; i < n; i++ {
		if math.Hypot(float64(i%pipPatch)-c, float64(i/pipPatch)-c) < 0.12*ext {
			peak = math.Max(peak, fine[i])
		}
	}
	if peak < 2*pipMinResponse {
		return pipRead{}, false
	}
	mark := make([]bool, n)
	for i := range mark {
		mark[i] = fine[i] >= peak/2
	}
	// What is marked and reaches the window's border is the table beyond
	// the die (or something on it), not a mark on the face.
	var stack []int
	for i := 0; i < n; i++ {
		if x, y := i%pipPatch, i/pipPatch; mark[i] && (x == 0 || y == 0 || x == pipPatch-1 || y == pipPatch-1) {
			mark[i] = false
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range neighbours4(i) {
			if mark[j] {
				mark[j] = false
				stack = append(stack, j)
			}
		}
	}
	// The mark touching the middle.
	in := make([]bool, n)
	for i := 0; i < n; i++ {
		if mark[i] && math.Hypot(float64(i%pipPatch)-c, float64(i/pipPatch)-c) < 0.12*ext {
			in[i] = true
			stack = append(stack, i)
		}
	}
	area, reach := 0, 0.0
	minX, minY, maxX, maxY := pipPatch, pipPatch, 0, 0
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%pipPatch, i/pipPatch
		area++
		reach = math.Max(reach, math.Hypot(float64(x)-c, float64(y)-c))
		minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
		if reach > 0.4*ext {
			return pipRead{}, false // runs off the face: a vein, the table, a large star
		}
		for _, j := range neighbours4(i) {
			if mark[j] && !in[j] {
				in[j] = true
				stack = append(stack, j)
			}
		}
	}
	if area == 0 {
		return pipRead{}, false // the middle is no mark of its own
	}

	// Nothing else marked near the middle, and nothing where another
	// face's corner or side pips would be (within the face whatever its
	// turn: a die turned 45 degrees has its edge 0.35 of its extent out).
	for i := 0; i < n; i++ {
		if mark[i] && !in[i] && math.Hypot(float64(i%pipPatch)-c, float64(i/pipPatch)-c) < 0.3*ext {
			return pipRead{}, false
		}
	}
	for k := 0; k < 16; k++ {
		a := float64(k) * math.Pi / 8
		if x, y := c+0.32*ext*math.Cos(a), c+0.32*ext*math.Sin(a); mark[int(y)*pipPatch+int(x)] && !in[int(y)*pipPatch+int(x)] {
			return pipRead{}, false
		}
	}
	// A plain pip is round and fills about pi/4 of its box; a mark with
	// points, holes or spokes, or wider than a large pip, may be the
	// star, a vein or a glint: the counter leaves it to the network.
	box := float64((maxX - minX + 1) * (maxY - minY + 1))

	if fill := float64(area) / box; fill < 0.62 || reach > 0.2*ext {
		return pipRead{}, false
	}
	return pipRead{face: 1}, true
}

// starMark reports whether the middle of a pipPatch-square Lab window
// holds a lone five-pointed star: a mark, told from the body's colour
// round the star's points (a star is larger than a pip: the counter's
// ring near the middle may lie on its arms), that touches the middle and
// stays on the face, whose outline, seen from its centre, rises to five
// points, evenly spaced, well beyond the notches between them. A round
// pip, a vein, a glint or a smudge has no such rhythm.
func starMark(lab []byte, c, ext float64) bool {
	const n = pipPatch * pipPatch
	d := fromBody(lab, c, 0.3*ext, 0.37*ext)
	peak := 0.0
	for i := 0; i < n; i++ {
		if math.Hypot(float64(i%pipPatch)-c, float64(i/pipPatch)-c) < 0.08*ext {
			peak = math.Max(peak, d[i])
		}
	}
	if peak < 2*pipMinResponse {
		return false
	}
	in := make([]bool, n)
	var stack []int
	for i := 0; i < n; i++ {
		if d[i] >= peak/2 && math.Hypot(float64(i%pipPatch)-c, float64(i/pipPatch)-c) < 0.05*ext {
			in[i] = true
			stack = append(stack, i)
		}
	}
	var sx, sy, area float64
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := float64(i%pipPatch), float64(i/pipPatch)
		if math.Hypot(x-c, y-c) > 0.42*ext {
			return false // runs off the face: a vein, the table
		}
		sx, sy, area = sx+x, sy+y, area+1
		for _, j := range neighbours4(i) {
			if !in[j] && d[j] >= peak/2 {
				in[j] = true
				stack = append(stack, j)
			}
		}
	}
	if area == 0 {
		return false
	}
	cx, cy := sx/area, sy/area
	const bins = 40
	var r [bins]float64
	for i, ok := range in {
		if !ok {
			continue
		}
		dx, dy := float64(i%pipPatch)-cx, float64(i/pipPatch)-cy
		b := int((math.Atan2(dy, dx) + math.Pi) / (2 * math.Pi) * bins)
		r[b%bins] = math.Max(r[b%bins], math.Hypot(dx, dy)+0.5)
	}
	var sm [bins]float64
	for b := range sm {
		sm[b] = (r[(b+bins-1)%bins] + 2*r[b] + r[(b+1)%bins]) / 4
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range sm {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi < 0.1*ext || lo <= 0 || hi/lo < 1.3 {
		return false
	}
	// The points: local maxima above the middle of the range, each the
	// highest within a tenth of a turn either way.
	mid := (lo + hi) / 2
	var peaks []int
	for b := range sm {
		if sm[b] < mid {
			continue
		}
		top := true
		for k := 1; k <= bins/10; k++ {
			if sm[(b+k)%bins] > sm[b] || sm[(b+bins-k)%bins] >= sm[b] {
				top = false
				break
			}
		}
		if top {
			peaks = append(peaks, b)
		}
	}
	if len(peaks) != 5 {
		return false
	}
	// Evenly spaced: each gap a fifth of a turn, within a third of it.
	for k := range peaks {
		gap := (peaks[(k+1)%5] - peaks[k] + bins) % bins
		if math.Abs(float64(gap)-bins/5) > bins/15 {
			return false
		}
	}
	return true
}

// neighbours4 are the 4-connected neighbours of pixel i in the window.
func neighbours4(i int) []int {
	x, y := i%pipPatch, i/pipPatch
	out := make([]int, 0, 4)
	if x > 0 {
		out = append(out, i-1)
	}
	if x < pipPatch-1 {
		out = append(out, i+1)
	}
	if y > 0 {
		out = append(out, i-pipPatch)
	}
	if y < pipPatch-1 {
		out = append(out, i+pipPatch)
	}
	return out
}

// sample reads m (w x w) at (x, y) between pixels; the border beyond.
func sample(m []float64, w int, x, y float64) float64 {
	x = math.Max(0, math.Min(float64(w-1), x))
	y = math.Max(0, math.Min(float64(w-1), y))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, w-1)
	fx, fy := x-float64(x0), y-float64(y0)
	a := m[y0*w+x0]*(1-fx) + m[y0*w+x1]*fx
	b := m[y1*w+x0]*(1-fx) + m[y1*w+x1]*fx
	return a*(1-fy) + b*fy
}

// gaussian blurs m (w x w) with a Gaussian of the given sigma, the border
// clamped.
func gaussian(m []float64, w int, sigma float64) []float64 {
	r := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*r+1)
	sum := 0.0
	for i := range k {
		x := float64(i - r)
		k[i] = math.Exp(-x * x / (2 * sigma * sigma))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	tmp := make([]float64, len(m))
	out := make([]float64, len(m))
	for y := 0; y < w; y++ {
		for x := 0; x < w; x++ {
			s := 0.0
			for i, kv := range k {
				s += kv * m[y*w+min(w-1, max(0, x+i-r))]
			}
			tmp[y*w+x] = s
		}
	}
	for y := 0; y < w; y++ {
		for x := 0; x < w; x++ {
			s := 0.0
			for i, kv := range k {
				s += kv * tmp[min(w-1, max(0, y+i-r))*w+x]
			}
			out[y*w+x] = s
		}
	}
	return out
}

// median is the middle value of v (v is reordered).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

// fromBody returns each pixel's distance, in a pipPatch-square Lab window,
// from the body's colour: the median of the ring between inner and outer
// from the middle c, with the chroma channels weighted twice.
func fromBody(lab []byte, c, inner, outer float64) []float64 {
	const n = pipPatch * pipPatch
	var ls, as, bs []float64
	for i := 0; i < n; i++ {
		if r := math.Hypot(float64(i%pipPatch)-c, float64(i/pipPatch)-c); r > inner && r < outer {
			ls, as, bs = append(ls, float64(lab[3*i])), append(as, float64(lab[3*i+1])), append(bs, float64(lab[3*i+2]))
		}
	}
	body := [3]float64{median(ls), median(as), median(bs)}
	d := make([]float64, n)
	for i := range d {
		dl := float64(lab[3*i]) - body[0]
		da := float64(lab[3*i+1]) - body[1]
		db := float64(lab[3*i+2]) - body[2]
		d[i] = math.Sqrt(dl*dl + 2*da*da + 2*db*db)
	}
	return d
}
