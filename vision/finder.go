package vision

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gocv.io/x/gocv"
)

// The dice finder is a small fully convolutional network that marks the
// centre of every die on a copy of the image scaled so that dice are about
// finderDie pixels wide. Its output, one cell per finderStride pixels, has
// four maps: how likely a die's centre lies in the cell, the die's side
// (as the log of its ratio to finderDie), and where in the cell the centre
// lies. It learns from the boxes of the train/ split's photographs and
// from synthetic tables, so it finds white dice on a white tray and dice
// that touch, where a threshold cannot.

const (
	finderDie    = 10.0 // die side in the finder's input, in pixels
	finderStride = 4    // input pixels per output cell
	finderCrop   = 96   // side of the training crops
	finderPeak   = 0.2  // lowest probability kept as a candidate
)

// newFinderNet makes an untrained dice finder.
func newFinderNet(seed uint64) *network {
	n := newNetwork(seed, shape{3, finderCrop, finderCrop},
		nnLayer{Kind: layerConv, Out: 12, ReLU: true},
		nnLayer{Kind: layerPool},
		nnLayer{Kind: layerConv, Out: 24, ReLU: true},
		nnLayer{Kind: layerPool},
		nnLayer{Kind: layerConv, Out: 32, ReLU: true},
		nnLayer{Kind: layerConv, Out: 32, ReLU: true, Dilated: 2},
		nnLayer{Kind: layerConv, Out: 4},
	)
	// Start from "no die anywhere" (a probability of about 0.1), as
	// almost every cell is.
	n.Layers[len(n.Layers)-1].B[0] = -2.2
	return n
}

// finderInput fills x (3 planes of s.h x s.w) from the BGR image pix (w x
// h), mirrored and transposed as asked: each channel less its mean over
// the whole image, over the image's spread.
func finderInput(pix []byte, w, h int, x0, y0 int, s shape, flipX, flipY, transpose bool, cj colourJitter, x []float32) {
	var mean [3]float64
	var sq float64
	for i := 0; i < len(pix); i += 3 {
		for c := 0; c < 3; c++ {
			v := float64(pix[i+c])
			mean[c] += v
			sq += v * v
		}
	}
	n := float64(w * h)
	for c := range mean {
		mean[c] /= n
	}
	variance := sq/(3*n) - (mean[0]*mean[0]+mean[1]*mean[1]+mean[2]*mean[2])/3
	sd := float32(math.Sqrt(math.Max(variance, 0)) + 4)
	plane := s.h * s.w
	for v := 0; v < s.h; v++ {
		for u := 0; u < s.w; u++ {
			// Turned, then mirrored: finderExample undoes it in that
			// order for the dice.
			a, b := u, v
			if transpose {
				a, b = v, u
			}
			if flipX {
				a = s.w - 1 - a
			}
			if flipY {
				b = s.h - 1 - b
			}
			px := min(max(x0+a, 0), w-1)
			py := min(max(y0+b, 0), h-1)
			i := (py*w + px) * 3
			k := v*s.w + u
			for c := 0; c < 3; c++ {
				src := cj.perm[c]
				val := float32(pix[i+src]) - float32(mean[src])
				if cj.gray {
					val = (float32(pix[i])+float32(pix[i+1])+float32(pix[i+2]))/3 - float32(mean[0]+mean[1]+mean[2])/3
				}
				x[c*plane+k] = val * cj.gain[c] / sd
			}
		}
	}
}

// finderCandidate is a place the finder marks as a die's centre, in the
// pixels of the image it was given.
type finderCandidate struct {
	x, y, size, score float64
}

// finder runs the dice finder; it keeps its buffers between calls.
type finder struct {
	net  *network
	pass *pass
	x    []float32
	// smaller is the scale of the second look for smaller dice
	// (finderSmaller), 0 for none.
	smaller float64
}

func newFinder(n *network) *finder { return &finder{net: n, smaller: finderSmaller} }

// find returns the candidates in the BGR image img whose dice are known
// to be dieSize pixels wide, or (dieSize 0) of unknown size, about hint
// pixels if hint is not 0: the finder then looks at a few sizes and keeps
// the first its own sizes agree with, and takes a second look for smaller
// dice (finderSmaller) when the finder has one.
func (f *finder) find(img gocv.Mat, dieSize, hint float64) ([]finderCandidate, error) {
	if dieSize > 0 {
		return f.findAt(img, dieSize)
	}
	c, size := f.settle(img, hint)
	if len(c) == 0 || f.smaller == 0 {
		return c, nil
	}
	more, err := f.findAt(img, size*f.smaller)
	if err != nil {
		// Too small to look at: the first look stands.
		return c, nil
	}
	return mergeLooks(c, more), nil
}

// settle looks for dice of unknown size (about hint pixels if hint is not
// 0) at a few sizes and returns the candidates of the look whose sizes
// agreed with the size it looked for, and that size.
func (f *finder) settle(img gocv.Mat, hint float64) ([]finderCandidate, float64) {
	guess := float64(max(img.Cols(), img.Rows())) / 16
	guesses := []float64{guess, guess * 1.8, guess / 1.8}
	if hint > 0 {
		guesses = append([]float64{hint}, guesses...)
	}
	for _, g := range guesses {
		c, err := f.findAt(img, g)
		if err != nil {
			// A guess too small to look at (a hint from specks): the
			// next one.
			continue
		}
		med := medianSize(c)
		if med == 0 {
			continue
		}
		// The finder's sizes lean towards the size it looked for: look
		// again at the size it found until the two agree.
		for try := 0; try < 3 && math.Abs(med/g-1) > 0.1; try++ {
			again, err := f.findAt(img, med)
			if err != nil || medianSize(again) == 0 {
				break
			}
			c, g, med = again, med, medianSize(again)
		}
		return c, g
	}
	return nil, 0
}

// finderSmaller is the scale of the finder's second look when the dice's
// size is not known: at the size it settled on, the finder misses some
// dice smaller than the rest (the photographs mix sets of dice) and some
// squeezed between two others; looked for a fifth smaller, it finds them.
// Held out (networks trained without the images they read) the reader
// with it leaves 27 of 3,044 dice unfound instead of 46 and reads none
// more wrong (docs/vision-history.md).
const finderSmaller = 0.8

// mergeLooks adds to first the candidates of a second look that are no
// first-look candidate seen again (sameDie).
func mergeLooks(first, second []finderCandidate) []finderCandidate {
	merged := first
	for _, s := range second {
		seen := false
		for _, c := range first {
			if sameDie(s, c) {
				seen = true
				break
			}
		}
		if !seen {
			merged = append(merged, s)
		}
	}
	return merged
}

// sameDie reports whether two candidates of the finder's looks are one
// die: the centre of either lies within the other's square (half the
// larger side). Within the smaller side alone, the second look's box on a
// pip of a larger die was a die of its own (a glossy 2 read as a 1 beside
// itself, on a synthetic table).
func sameDie(a, b finderCandidate) bool {
	return math.Hypot(a.x-b.x, a.y-b.y) < 0.5*math.Max(a.size, b.size)
}

// medianSize is the median side of the candidates the finder is fairly
// sure of, or 0.
func medianSize(c []finderCandidate) float64 {
	var s []float64
	for _, d := range c {
		if d.score >= 0.5 {
			s = append(s, d.size)
		}
	}
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	return s[len(s)/2]
}

// findAt runs the finder on img scaled so that dice of dieSize pixels
// become finderDie wide.
func (f *finder) findAt(img gocv.Mat, dieSize float64) ([]finderCandidate, error) {
	scale := finderDie / dieSize
	w := max(int(math.Round(float64(img.Cols())*scale))/finderStride*finderStride, 2*finderStride)
	h := max(int(math.Round(float64(img.Rows())*scale))/finderStride*finderStride, 2*finderStride)
	if w > 4096 || h > 4096 {
		return nil, fmt.Errorf("vision: dice of %.1f px are too small to find in a %dx%d image", dieSize, img.Cols(), img.Rows())
	}
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(img, &small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	pix, err := small.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	s := shape{3, h, w}
	if f.pass == nil || f.pass.in != s {
		f.pass = f.net.newPass(s, false)
		f.x = make([]float32, s.size())
	}
	finderInput(pix, w, h, 0, 0, s, false, false, false, noJitter, f.x)
	out := f.net.forward(f.x, f.pass)
	sx := float64(img.Cols()) / float64(w)
	sy := float64(img.Rows()) / float64(h)
	var found []finderCandidate
	for _, p := range finderPeaks(out, h/finderStride, w/finderStride) {
		found = append(found, finderCandidate{
			x: (p.x*finderStride + 1.5) * sx, y: (p.y*finderStride + 1.5) * sy,
			size: p.size * sx, score: p.score,
		})
	}
	return found, nil
}

// finderPeaks reads the finder's output (4 maps of gh x gw cells): every
// cell likelier than its eight neighbours and than finderPeak, with its
// centre in cells and its size in input pixels.
func finderPeaks(out []float32, gh, gw int) []finderCandidate {
	plane := gh * gw
	heat := out[:plane]
	var peaks []finderCandidate
	for y := 0; y < gh; y++ {
		for x := 0; x < gw; x++ {
			v := heat[y*gw+x]
			if sigmoid(v) < finderPeak {
				continue
			}
			top := true
			for dy := -1; dy <= 1 && top; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if (dx != 0 || dy != 0) && nx >= 0 && ny >= 0 && nx < gw && ny < gh {
						n := heat[ny*gw+nx]
						// Ties go to the first cell in reading order.
						if n > v || (n == v && (dy < 0 || (dy == 0 && dx < 0))) {
							top = false
							break
						}
					}
				}
			}
			if !top {
				continue
			}
			k := y*gw + x
			peaks = append(peaks, finderCandidate{
				x:     float64(x) + clampOffset(out[2*plane+k]),
				y:     float64(y) + clampOffset(out[3*plane+k]),
				size:  finderDie * math.Exp(math.Max(math.Min(float64(out[plane+k]), 1.5), -1.5)),
				score: sigmoid(v),
			})
		}
	}
	return peaks
}

func clampOffset(v float32) float64 { return math.Max(-0.75, math.Min(0.75, float64(v))) }

func sigmoid(v float32) float64 { return 1 / (1 + math.Exp(-float64(v))) }

// finderTarget is one training crop's truth on the output grid.
type finderTarget struct {
	heat                []float32 // gaussian peaks, 1 at each die's cell
	peak                []bool
	logSize, offX, offY []float32
	dice                int
}

// trainFinderNet trains the dice finder on crops of the tables.
func trainFinderNet(tables []trainTable, o fitOptions, cropsPerTable int) (*network, error) {
	var examples []int
	for ti, t := range tables {
		if len(t.dice) == 0 {
			continue
		}
		for k := 0; k < cropsPerTable; k++ {
			examples = append(examples, ti)
		}
	}
	in := shape{3, finderCrop, finderCrop}
	g := finderCrop / finderStride
	n := newFinderNet(o.Seed)
	var mu sync.Mutex
	var failed error
	stopped := fit(n, in, len(examples), o, func(k int, rng *rand.Rand, x []float32, p *pass) (float64, int, int) {
		t := &tables[examples[k]]
		tgt, err := finderExample(t, rng, x)
		if err != nil {
			mu.Lock()
			failed = err
			mu.Unlock()
		}
		out := n.forward(x, p)
		grad := p.grad[len(p.grad)-1]
		clear(grad)
		if err != nil {
			return 0, 0, 0 // no gradient
		}
		return finderLoss(out, grad, tgt, g*g), 0, 0
	})
	if stopped != nil {
		return nil, stopped
	}
	return n, failed
}

// finderExample draws one training crop of t into x: scaled so dice are
// about finderDie wide (give or take a third), mirrored, turned, with its
// colours changed.
func finderExample(t *trainTable, rng *rand.Rand, x []float32) (finderTarget, error) {
	sizes := make([]float64, len(t.dice))
	for i, d := range t.dice {
		sizes[i] = d.size
	}
	slices.Sort(sizes)
	scale := finderDie / sizes[len(sizes)/2] * math.Exp((rng.Float64()-0.5)*0.6)
	w, h := int(float64(t.w)*scale), int(float64(t.h)*scale)
	src, err := gocv.NewMatFromBytes(t.h, t.w, gocv.MatTypeCV8UC3, t.pix)
	if err != nil {
		return finderTarget{}, err
	}
	defer src.Close()
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(src, &small, image.Pt(w, h), 0, 0, gocv.InterpolationArea)
	pix, err := small.DataPtrUint8()
	if err != nil {
		return finderTarget{}, err
	}
	sx, sy := float64(w)/float64(t.w), float64(h)/float64(t.h)
	// Most crops are around a die, so that they hold dice; some anywhere.
	var x0, y0 int
	if rng.IntN(4) > 0 {
		d := t.dice[rng.IntN(len(t.dice))]
		x0 = int(d.x*sx) - finderCrop/2 + rng.IntN(finderCrop/2) - finderCrop/4
		y0 = int(d.y*sy) - finderCrop/2 + rng.IntN(finderCrop/2) - finderCrop/4
	} else {
		x0, y0 = rng.IntN(max(w-finderCrop, 1)), rng.IntN(max(h-finderCrop, 1))
	}
	flipX, flipY, transpose := rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0
	cj := colourJitter{perm: [3]int{0, 1, 2}, gray: rng.IntN(10) == 0}
	if rng.IntN(2) == 0 {
		cj.perm = [3]int(rng.Perm(3))
	}
	for c := range cj.gain {
		cj.gain[c] = 0.75 + 0.5*rng.Float32()
	}
	s := shape{3, finderCrop, finderCrop}
	finderInput(pix, w, h, x0, y0, s, flipX, flipY, transpose, cj, x)
	g := finderCrop / finderStride
	tgt := finderTarget{heat: make([]float32, g*g), peak: make([]bool, g*g),
		logSize: make([]float32, g*g), offX: make([]float32, g*g), offY: make([]float32, g*g)}
	for _, d := range t.dice {
		// The die's centre in the crop, as the crop was mirrored and
		// turned.
		a, b := d.x*sx-float64(x0), d.y*sy-float64(y0)
		if flipX {
			a = finderCrop - 1 - a
		}
		if flipY {
			b = finderCrop - 1 - b
		}
		if transpose {
			a, b = b, a
		}
		u, v := (a-1.5)/finderStride, (b-1.5)/finderStride
		side := d.size * sx
		if u < -1 || v < -1 || u > float64(g) || v > float64(g) {
			continue
		}
		sigma := math.Max(0.5, side/finderStride*0.25)
		cu, cv := int(math.Round(u)), int(math.Round(v))
		for yy := max(cv-3, 0); yy <= min(cv+3, g-1); yy++ {
			for xx := max(cu-3, 0); xx <= min(cu+3, g-1); xx++ {
				e := float32(math.Exp(-(math.Pow(float64(xx)-u, 2) + math.Pow(float64(yy)-v, 2)) / (2 * sigma * sigma)))
				k := yy*g + xx
				tgt.heat[k] = max(tgt.heat[k], e)
			}
		}
		if cu >= 0 && cv >= 0 && cu < g && cv < g {
			k := cv*g + cu
			tgt.heat[k], tgt.peak[k] = 1, true
			tgt.logSize[k] = float32(math.Log(side / finderDie))
			tgt.offX[k], tgt.offY[k] = float32(u-float64(cu)), float32(v-float64(cv))
			tgt.dice++
		}
	}
	return tgt, nil
}

// finderLoss is the finder's loss on one crop (CenterNet's focal loss on
// the centres, L1 on size and offset at them), with its gradient at the
// output written into grad.
func finderLoss(out, grad []float32, t finderTarget, plane int) float64 {
	norm := float64(max(t.dice, 1))
	var loss float64
	for k := 0; k < plane; k++ {
		p := math.Min(math.Max(sigmoid(out[k]), 1e-6), 1-1e-6)
		if t.peak[k] {
			loss -= math.Pow(1-p, 2) * math.Log(p)
			grad[k] = float32((2*p*math.Pow(1-p, 2)*math.Log(p) - math.Pow(1-p, 3)) / norm)
			for ch, want := range [3]float32{t.logSize[k], t.offX[k], t.offY[k]} {
				d := out[(ch+1)*plane+k] - want
				loss += 0.5 * math.Abs(float64(d))
				grad[(ch+1)*plane+k] = float32(0.5 * sign(d) / norm)
			}
			continue
		}
		wn := math.Pow(1-float64(t.heat[k]), 4)
		loss -= wn * p * p * math.Log(1-p)
		grad[k] = float32(-wn * (2*p*p*(1-p)*math.Log(1-p) - p*p*p) / norm)
	}
	return loss / norm
}

func sign(v float32) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
