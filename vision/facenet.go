package vision

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The face network reads a die's top face from the image around it: a
// colour window of the die, turned and scaled to a fixed grid, into nine
// classes (the six faces, the star, "not a die", and "a die whose face
// cannot be read"). Its weights are in model/facenet.json; `liarsd
// readtrain` makes them from the train/ split of the photographs and
// synthetic tables.

const (
	// faceNetGrid is the side of the sampled window, in cells.
	faceNetGrid = 32
	// faceNetWindow is the window's side over the die's side: a little
	// of the table around the die, so that the net sees the die's edges.
	faceNetWindow = 1.25
)

var faceNetShape = shape{3, faceNetGrid, faceNetGrid}

// newFaceNet makes an untrained face network.
func newFaceNet(seed uint64) *network {
	return newNetwork(seed, faceNetShape,
		nnLayer{Kind: layerConv, Out: 24, ReLU: true},
		nnLayer{Kind: layerConv, Out: 24, ReLU: true},
		nnLayer{Kind: layerPool},
		nnLayer{Kind: layerConv, Out: 48, ReLU: true},
		nnLayer{Kind: layerConv, Out: 48, ReLU: true},
		nnLayer{Kind: layerPool},
		nnLayer{Kind: layerConv, Out: 64, ReLU: true},
		nnLayer{Kind: layerPool},
		nnLayer{Kind: layerDense, Out: 128, ReLU: true},
		nnLayer{Kind: layerDense, Out: faceNetClasses},
	)
}

// colourJitter changes a window's colours in training: each channel's
// gain, which channel is which, and the tones' gamma, so that the net
// learns dice of any colour and light from the ones it was shown.
type colourJitter struct {
	gain  [3]float32
	perm  [3]int
	gray  bool
	gamma float64 // 0 or 1 leaves the tones as they are
}

var noJitter = colourJitter{gain: [3]float32{1, 1, 1}, perm: [3]int{0, 1, 2}}

// sampleWindow fills out (3 x faceNetGrid squared) with the window of
// side faceNetWindow*side around (cx, cy) of the BGR image pix (w x h),
// turned by angle and mirrored when flip is set, by bilinear sampling, then
// standardised (zero mean, unit spread over the window) so that light and
// exposure do not matter. Outside the image reads as the nearest edge.
func sampleWindow(pix []byte, w, h int, cx, cy, side, angle float64, flip bool, cj colourJitter, out []float32) {
	const g = faceNetGrid
	step := side * faceNetWindow / g
	ca, sa := math.Cos(angle)*step, math.Sin(angle)*step
	fs := 1.0
	if flip {
		fs = -1
	}
	plane := g * g
	var sum, sq float64
	for v := 0; v < g; v++ {
		dv := float64(v) - (g-1)/2.0
		for u := 0; u < g; u++ {
			du := (float64(u) - (g-1)/2.0) * fs
			x := cx + ca*du - sa*dv
			y := cy + sa*du + ca*dv
			px := bgrAt(pix, w, h, x, y)
			if cj.gray {
				m := (px[0] + px[1] + px[2]) / 3
				px = [3]float64{m, m, m}
			}
			if cj.gamma != 0 && cj.gamma != 1 {
				for c := range px {
					px[c] = 255 * math.Pow(px[c]/255, cj.gamma)
				}
			}
			k := v*g + u
			for c := 0; c < 3; c++ {
				val := float32(px[cj.perm[c]]) * cj.gain[c]
				out[c*plane+k] = val
				sum += float64(val)
				sq += float64(val) * float64(val)
			}
		}
	}
	n := float64(3 * plane)
	mean := sum / n
	sd := math.Sqrt(math.Max(sq/n-mean*mean, 0)) + 4
	for i := range out[:3*plane] {
		out[i] = float32((float64(out[i]) - mean) / sd)
	}
}

// faceNets is the face network: several trained from different seeds,
// whose probabilities are averaged.
type faceNets struct {
	Nets []*network `json:"nets"`
}

func (f *faceNets) check() error {
	if len(f.Nets) == 0 {
		return fmt.Errorf("vision: face network has no nets")
	}
	for _, n := range f.Nets {
		if err := n.check(faceNetShape); err != nil {
			return err
		}
	}
	return nil
}

// faceVerdict is what the face network makes of a window: the averaged
// probability of each class, the best class, and the lowest probability
// any single view gave it.
type faceVerdict struct {
	probs [faceNetClasses]float64
	class int
	p     float64
	worst float64
	// agree is the share of the views (each net at each view) whose
	// likeliest class is class.
	agree float64
	per   [][faceNetClasses]float64 // each net at each view
}

// faceScratch is the buffers one reader uses to run the face network.
type faceScratch struct {
	x     []float32
	turn  []float32
	pass  *pass
	probs []float64
}

func (f *faceNets) newScratch() *faceScratch {
	return &faceScratch{x: make([]float32, faceNetShape.size()), turn: make([]float32, faceNetShape.size()),
		pass: f.Nets[0].newPass(faceNetShape, false), probs: make([]float64, faceNetClasses)}
}

// faceNetViews is how many views of a window an unsure read looks at:
// the four quarter turns. Views 5 to 8 would be the same mirrored (the
// faces, the star and the training are symmetric under both), but on the
// held-out half of train/ eight views read fewer dice confidently (76.7%
// against 77.7%) for one fewer wrong read: averaging more views lowers
// the network's surest reads more than its wrong ones.
var faceNetViews = 4

// read runs the network on the die at (cx, cy) of the given side, seen
// at views views (1 to 8, see turnWindow), every net at every view.
func (f *faceNets) read(s *faceScratch, pix []byte, w, h int, cx, cy, side float64, views int) faceVerdict {
	sampleWindow(pix, w, h, cx, cy, side, dieAngle(pix, w, h, cx, cy, side), false, noJitter, s.x)
	var v faceVerdict
	f.turns(s, &v, 0, max(views, 1))
	return v
}

// lookCloser adds the views the verdict of a one-view read (the last read
// with s) lacks, so that it stands for faceNetViews views: the window is
// sampled once and its first view is not run again.
func (f *faceNets) lookCloser(s *faceScratch, v *faceVerdict) {
	f.turns(s, v, len(v.per)/len(f.Nets), faceNetViews)
}

// turns runs every net on views from to to-1 of the window in s (see
// turnWindow), adds them to v and sums v up again.
func (f *faceNets) turns(s *faceScratch, v *faceVerdict, from, to int) {
	for turn := from; turn < to; turn++ {
		in := s.x
		if turn > 0 {
			turnWindow(s.x, s.turn, turn)
			in = s.turn
		}
		for _, n := range f.Nets {
			var one [faceNetClasses]float64
			copy(one[:], softmax(n.forward(in, s.pass), s.probs))
			v.per = append(v.per, one)
		}
	}
	v.sum()
}

// sum works out the verdict from per: the averaged probabilities, the
// likeliest class, its probability, its lowest in any view and the share
// of the views that put it first.
func (v *faceVerdict) sum() {
	v.probs, v.class = [faceNetClasses]float64{}, 0
	for _, one := range v.per {
		for c, p := range one {
			v.probs[c] += p
		}
	}
	for c := range v.probs {
		v.probs[c] /= float64(len(v.per))
		if v.probs[c] > v.probs[v.class] {
			v.class = c
		}
	}
	v.p, v.worst = v.probs[v.class], 1
	votes := 0
	for _, one := range v.per {
		v.worst = math.Min(v.worst, one[v.class])
		best := 0
		for c, p := range one {
			if p > one[best] {
				best = c
			}
		}
		if best == v.class {
			votes++
		}
	}
	v.agree = float64(votes) / float64(len(v.per))
}

// turnWindow writes src (3 grids) into dst turned by k%4 quarter turns,
// mirrored left to right first when k >= 4.
func turnWindow(src, dst []float32, k int) {
	const g = faceNetGrid
	for c := 0; c < 3; c++ {
		s, d := src[c*g*g:(c+1)*g*g], dst[c*g*g:(c+1)*g*g]
		for y := 0; y < g; y++ {
			for x := 0; x < g; x++ {
				sx, sy := x, y
				for i := 0; i < k%4; i++ {
					sx, sy = sy, g-1-sx
				}
				if k >= 4 {
					sx = g - 1 - sx
				}
				d[y*g+x] = s[sy*g+sx]
			}
		}
	}
}

// faceExample is one window to train on: a labelled die, a hard negative
// (t.hard[die] when hard is set), or (die < 0) a place on the table drawn
// afresh each time.
type faceExample struct {
	table, die int
	hard       bool
}

// trainFaceNet trains one face network on the tables. hardWeight, 0 or
// more, counts a photographed die more the worse the network read it the
// last time it saw it (hardDieWeight); 0 counts every die alike.
func trainFaceNet(tables []trainTable, photoWeight int, hardWeight float64, o fitOptions) (*network, error) {
	examples := faceExamples(tables, photoWeight)
	// lastLoss is each example's loss when last seen. A batch's examples
	// are all different and each is one worker's, so no two goroutines
	// touch the same entry at once.
	lastLoss := make([]float32, len(examples))
	n := newFaceNet(o.Seed)
	err := fit(n, faceNetShape, len(examples), o, func(k int, rng *rand.Rand, x []float32, p *pass) (float64, int, int) {
		e := examples[k]
		t := &tables[e.table]
		weight := float32(1)
		if hardWeight > 0 && t.photo && e.die >= 0 && !e.hard {
			weight = hardDieWeight(hardWeight, float64(lastLoss[k]))
		}
		cx, cy, side, class := faceWindow(t, e, rng)
		cj := colourJitter{perm: [3]int{0, 1, 2}, gray: rng.IntN(10) == 0}
		if rng.IntN(2) == 0 {
			cj.perm = [3]int(rng.Perm(3))
		}
		for c := range cj.gain {
			cj.gain[c] = 0.75 + 0.5*rng.Float32()
		}
		if rng.IntN(2) == 0 {
			cj.gamma = math.Exp((rng.Float64() - 0.5) * 0.8)
		}
		angle := dieAngle(t.pix, t.w, t.h, cx, cy, side) + float64(rng.IntN(4))*math.Pi/2 + (rng.Float64()-0.5)*0.15
		sampleWindow(t.pix, t.w, t.h, cx, cy, side, angle, rng.IntN(2) == 0, cj, x)
		if rng.IntN(4) == 0 {
			blurWindow(x, float32(0.3+0.7*rng.Float64()))
		}
		if rng.IntN(3) == 0 {
			sd := float32(0.15 * rng.Float64())
			for i := range x {
				x[i] += sd * float32(rng.NormFloat64())
			}
		}
		probs := softmax(n.forward(x, p), make([]float64, faceNetClasses))
		out := p.grad[len(p.grad)-1]
		best := 0
		for c := range out {
			out[c] = float32(probs[c])
			if probs[c] > probs[best] {
				best = c
			}
		}
		out[class]--
		if weight != 1 {
			for c := range out {
				out[c] *= weight
			}
		}
		right := 0
		if best == class {
			right = 1
		}
		loss := -math.Log(math.Max(probs[class], 1e-9))
		lastLoss[k] = float32(loss)
		return loss, right, 1
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// hardDieWeight is how much a photographed die counts in the face
// network's training when its loss was lastLoss the last time the network
// saw it: 1 for a die read surely right, rising with the loss to 1 +
// strength at a loss of 2 (the right face at 14%) or more. The dice the
// networks stay unsure of are few among the photographs (small dark
// translucent dice with red pips): counting every photograph more did not
// help (readtrain -photo-weight), and counting the hard ones more is aimed
// at them. (Held out it did not help either: the networks ranked one
// quarter's dice better and the other's worse, docs/vision-history.md.)
func hardDieWeight(strength, lastLoss float64) float32 {
	return float32(1 + strength*math.Min(math.Max(lastLoss, 0), 2)/2)
}

// faceExamples lists what a pass of the face network's training shows it:
// every die (a photographed one photoWeight times), a window on no die for
// every other die, and each hard negative twice.
func faceExamples(tables []trainTable, photoWeight int) []faceExample {
	var examples []faceExample
	for ti, t := range tables {
		if len(t.dice) == 0 {
			continue
		}
		for di := range t.dice {
			examples = append(examples, faceExample{table: ti, die: di})
			for k := 1; t.photo && k < photoWeight; k++ {
				// Real photographs are fewer and harder than synthetic
				// tables: they count more.
				examples = append(examples, faceExample{table: ti, die: di})
			}
			// A window on no die for every other die.
			if di%2 == 0 {
				examples = append(examples, faceExample{table: ti, die: -1})
			}
		}
		for hi := range t.hard {
			// What the finder mistakes for a die, twice like the dice of
			// the photographs it is found on.
			examples = append(examples, faceExample{ti, hi, true}, faceExample{ti, hi, true})
		}
	}
	return examples
}

// faceWindow draws the window of example e of t: a labelled die, jittered
// as the finder's centres and sizes are; a hard negative, at the sizes a
// read looks at it; or a place on no die's centre: the bare table, or
// part of a die, or between two.
func faceWindow(t *trainTable, e faceExample, rng *rand.Rand) (cx, cy, side float64, class int) {
	if e.hard {
		d := t.hard[e.die]
		side = d.size * (0.75 + 0.55*rng.Float64())
		return d.x + (rng.Float64()-0.5)*0.2*d.size, d.y + (rng.Float64()-0.5)*0.2*d.size, side, classNotADie
	}
	if e.die >= 0 {
		d := t.dice[e.die]
		side = d.size * (0.88 + 0.24*rng.Float64())
		return d.x + (rng.Float64()-0.5)*0.2*d.size, d.y + (rng.Float64()-0.5)*0.2*d.size, side, d.class
	}
	ref := t.dice[rng.IntN(len(t.dice))]
	side = ref.size * (0.85 + 0.3*rng.Float64())
	for try := 0; ; try++ {
		if rng.IntN(2) == 0 {
			// Off a die's centre by half a die or more.
			a, r := rng.Float64()*2*math.Pi, ref.size*(0.5+0.5*rng.Float64())
			cx, cy = ref.x+r*math.Cos(a), ref.y+r*math.Sin(a)
		} else {
			cx, cy = rng.Float64()*float64(t.w), rng.Float64()*float64(t.h)
		}
		if try > 20 || !nearDieCentre(t, cx, cy, 0.4) {
			return cx, cy, side, classNotADie
		}
	}
}

// nearDieCentre reports whether (x, y) is within frac of a die's side from
// the centre of any die of t.
func nearDieCentre(t *trainTable, x, y, frac float64) bool {
	for _, d := range t.dice {
		if math.Hypot(x-d.x, y-d.y) < frac*d.size {
			return true
		}
	}
	return false
}

// dieAngle estimates the turn of the die at (cx, cy) from the edges around
// it: the dominant gradient direction modulo a quarter turn (angles are
// taken four times, so the four sides of a square agree while the round
// pips cancel out). The face network reads windows turned by it, so that
// it only has to learn the quarter turns of a square face.
func dieAngle(pix []byte, w, h int, cx, cy, side float64) float64 {
	const g = 24
	step := side * 1.15 / g
	var gray [g * g]float64
	for v := 0; v < g; v++ {
		for u := 0; u < g; u++ {
			gray[v*g+u] = grayAt(pix, w, h, cx+(float64(u)-(g-1)/2.0)*step, cy+(float64(v)-(g-1)/2.0)*step)
		}
	}
	var c4, s4 float64
	for v := 1; v < g-1; v++ {
		for u := 1; u < g-1; u++ {
			at := func(du, dv int) float64 { return gray[(v+dv)*g+u+du] }
			// Sobel: smooth across, difference along.
			gx := at(1, -1) + 2*at(1, 0) + at(1, 1) - at(-1, -1) - 2*at(-1, 0) - at(-1, 1)
			gy := at(-1, 1) + 2*at(0, 1) + at(1, 1) - at(-1, -1) - 2*at(0, -1) - at(1, -1)
			m := math.Hypot(gx, gy)
			if m == 0 {
				continue
			}
			// Four times the gradient's angle, weighted by its magnitude.
			a := 4 * math.Atan2(gy, gx)
			c4 += m * math.Cos(a)
			s4 += m * math.Sin(a)
		}
	}
	return math.Atan2(s4, c4) / 4
}

// grayAt is the brightness (the sum of B, G and R) of the BGR image pix
// (w x h) at (x, y), interpolated; outside reads as the nearest edge.
func grayAt(pix []byte, w, h int, x, y float64) float64 {
	px := bgrAt(pix, w, h, x, y)
	return px[0] + px[1] + px[2]
}

// bgrAt is the colour of the BGR image pix (w x h) at (x, y), bilinearly
// interpolated; outside reads as the nearest edge.
func bgrAt(pix []byte, w, h int, x, y float64) [3]float64 {
	x = math.Min(math.Max(x, 0), float64(w-1))
	y = math.Min(math.Max(y, 0), float64(h-1))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := x-float64(x0), y-float64(y0)
	i00, i01 := (y0*w+x0)*3, (y0*w+x1)*3
	i10, i11 := (y1*w+x0)*3, (y1*w+x1)*3
	var px [3]float64
	for c := 0; c < 3; c++ {
		top := float64(pix[i00+c])*(1-fx) + float64(pix[i01+c])*fx
		bot := float64(pix[i10+c])*(1-fx) + float64(pix[i11+c])*fx
		px[c] = top*(1-fy) + bot*fy
	}
	return px
}

// blurWindow softens a sampled window (3 grids) in place by a 3x3
// binomial blur mixed in at the given weight (0 to 1), as a small or
// out-of-focus die looks.
func blurWindow(x []float32, weight float32) {
	const g = faceNetGrid
	var tmp [g * g]float32
	for c := 0; c < 3; c++ {
		p := x[c*g*g : (c+1)*g*g]
		for y := 0; y < g; y++ {
			for u := 0; u < g; u++ {
				var sum, wsum float32
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						yy, xx := y+dy, u+dx
						if yy < 0 || yy >= g || xx < 0 || xx >= g {
							continue
						}
						w := float32((2 - dx*dx) * (2 - dy*dy))
						sum += w * p[yy*g+xx]
						wsum += w
					}
				}
				tmp[y*g+u] = sum / wsum
			}
		}
		for i := range p {
			p[i] = (1-weight)*p[i] + weight*tmp[i]
		}
	}
}
