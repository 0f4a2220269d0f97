package vision

import (
	"fmt"
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// The finder's geometry, as vision/recipe/nets.py trains it: one cell of
// its maps per finderStride input pixels, die extents in units of
// finderSizeUnit, and dice read best at finderTarget px across. It learned
// to mark dice finderMin to finderMax px across and to leave bigger ones
// (and their pips) to a coarser look.
const (
	finderStride   = 4
	finderSizeUnit = 16.0
	finderTarget   = 16.0
	finderMin      = 7.0
	finderMax      = 48.0
	// finderMultiple is what the finder's input sides must divide by (its
	// deepest maps are a sixteenth of the input).
	finderMultiple = 16
	// smallestDie is the least extent, px, of a die the reader looks for
	// when the dice's size is unknown, and largestDie the greatest as a
	// share of the image's longer side.
	smallestDie = 12.0
	largestDie  = 1.0 / 3
	// pyramidStep is the ratio of one look's scale to the next's: the
	// finder's band (finderMin to finderMax, a ratio of about 7) covers
	// it with room at both ends, so every die lies well inside one look's
	// band.
	pyramidStep = 4.0
)

// candidate is a place the finder marks as a die's centre, in the work
// image's pixels: the die's extent (the side of its box as seen) and the
// finder's probability.
type candidate struct {
	x, y, extent, p float64
}

// finder runs the dice finder network (model/finder.onnx).
type finder struct {
	net gocv.Net
}

func newFinder(model []byte) (*finder, error) {
	net, err := gocv.ReadNetFromONNXBytes(model)
	if err != nil {
		return nil, fmt.Errorf("vision: dice finder: %w", err)
	}
	if net.Empty() {
		return nil, fmt.Errorf("vision: dice finder: OpenCV read no network")
	}
	return &finder{net: net}, nil
}

func (f *finder) close() { f.net.Close() }

// find runs the finder on bgr scaled by scale and returns the places whose
// probability is at least minP and at least that of their eight
// neighbours, in bgr's pixels.
func (f *finder) find(bgr gocv.Mat, scale, minP float64) ([]candidate, error) {
	w, h := bgr.Cols(), bgr.Rows()
	sw := max(finderMultiple*2, int(math.Round(float64(w)*scale/finderMultiple))*finderMultiple)
	sh := max(finderMultiple*2, int(math.Round(float64(h)*scale/finderMultiple))*finderMultiple)
	small := gocv.NewMat()
	defer small.Close()
	interp := gocv.InterpolationArea
	if scale > 1 {
		interp = gocv.InterpolationLinear
	}
	gocv.Resize(bgr, &small, image.Pt(sw, sh), 0, 0, interp)
	blob := gocv.BlobFromImage(small, 1.0/64, image.Pt(sw, sh), gocv.NewScalar(128, 128, 128, 0), false, false)
	defer blob.Close()
	f.net.SetInput(blob, "image")
	out := f.net.Forward("maps")
	defer out.Close()
	maps, err := out.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("vision: dice finder output: %w", err)
	}
	gw, gh := sw/finderStride, sh/finderStride
	if len(maps) != 4*gw*gh {
		return nil, fmt.Errorf("vision: dice finder gave %d values for a %dx%d map", len(maps), gw, gh)
	}
	heat, offX, offY, size := maps[:gw*gh], maps[gw*gh:2*gw*gh], maps[2*gw*gh:3*gw*gh], maps[3*gw*gh:]
	fx, fy := float64(w)/float64(sw), float64(h)/float64(sh)
	var found []candidate
	for iy := 0; iy < gh; iy++ {
		for ix := 0; ix < gw; ix++ {
			i := iy*gw + ix
			p := heat[i]
			if float64(p) < minP || !peak(heat, gw, gh, ix, iy) {
				continue
			}
			ext := math.Exp(float64(size[i])) * finderSizeUnit
			found = append(found, candidate{
				x:      (float64(ix) + float64(offX[i])) * finderStride * fx,
				y:      (float64(iy) + float64(offY[i])) * finderStride * fy,
				extent: ext * (fx + fy) / 2,
				p:      float64(p),
			})
		}
	}
	return found, nil
}

// peak reports whether cell (x, y) of m is at least each of its eight
// neighbours.
func peak(m []float32, w, h, x, y int) bool {
	v := m[y*w+x]
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			nx, ny := x+dx, y+dy
			if (dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= w || ny >= h {
				continue
			}
			if m[ny*w+nx] > v {
				return false
			}
		}
	}
	return true
}

// locate finds the dice of bgr: at the scale that makes a die of the
// known extent finderTarget px, or, the size unknown, in a pyramid of
// looks (pyramidScales) from dice of smallestDie px to a third of the
// image, and once more at the scale the sure dice's median extent asks for
// when no look was near it. The looks' candidates are returned together:
// a die found by two looks is one for suppress, and a place inside a
// bigger die (a pip) is left to the face classifier and wholeDice.
func (f *finder) locate(bgr gocv.Mat, extent float64, bars Bars) ([]candidate, error) {
	if extent > 0 {
		return f.find(bgr, finderTarget/extent, bars.Candidate)
	}
	var all []candidate
	scales := pyramidScales(bgr.Cols(), bgr.Rows())
	for _, scale := range scales {
		found, err := f.find(bgr, scale, bars.Candidate)
		if err != nil {
			return nil, err
		}
		all = append(all, found...)
	}
	if med := medianExtent(all, bars.Found); med > 0 {
		want := math.Min(1, finderTarget/med)
		near := false
		for _, s := range scales {
			if r := want / s; r > 0.75 && r < 1.33 {
				near = true
			}
		}
		if !near {
			refined, err := f.find(bgr, want, bars.Candidate)
			if err != nil {
				return nil, err
			}
			all = append(all, refined...)
		}
	}
	return all, nil
}

// pyramidScales returns the scales of the looks for an image of w x h
// pixels whose dice's size is unknown: the first makes a die of
// smallestDie px finderMin+1 px (never enlarging), each next one is
// pyramidStep smaller, and the last is the first whose band reaches a
// die a third of the image's longer side.
func pyramidScales(w, h int) []float64 {
	long := float64(max(w, h))
	scale := math.Min(1, (finderMin+1)/smallestDie)
	scales := []float64{scale}
	for finderMax/scale < largestDie*long && scale*long > 2*finderMultiple {
		scale /= pyramidStep
		scales = append(scales, scale)
	}
	return scales
}

// medianExtent is the median extent of the candidates at least minP sure,
// or 0 when there are none.
func medianExtent(cs []candidate, minP float64) float64 {
	var ext []float64
	for _, c := range cs {
		if c.p >= minP {
			ext = append(ext, c.extent)
		}
	}
	if len(ext) == 0 {
		return 0
	}
	sort.Float64s(ext)
	return ext[len(ext)/2]
}

// suppress removes what several looks make of the same dice before the
// classifier reads them: the same die marked twice (extents within a
// quarter of each other, centres closer than a quarter of the smaller:
// the surer stays; looks that disagree more on a die's size or place all
// go to the classifier, and wholeDice keeps the larger that is a die),
// and a cluster of dice a coarse look took for one big die (a candidate
// whose box holds two or more sure candidates of 0.45 to 0.9 of its
// extent: the dice stay; a pip is less). A candidate inside one much
// bigger (a pip inside a die) is kept for wholeDice, which knows what the
// classifier says of each: the big one may be no die (a phone, a coaster)
// with dice on it.
func suppress(cs []candidate, found float64) []candidate {
	sort.Slice(cs, func(i, j int) bool { return cs[i].p > cs[j].p })
	out := cs[:0]
	for _, c := range cs {
		keep := true
		for _, k := range out {
			small, big := math.Min(c.extent, k.extent), math.Max(c.extent, k.extent)
			if big < 1.25*small && math.Hypot(c.x-k.x, c.y-k.y) < 0.25*small {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, c)
		}
	}
	kept := out[:0:0]
	for _, b := range out {
		inside := 0
		for _, c := range out {
			if c.p >= found && c.extent >= 0.45*b.extent && c.extent <= 0.9*b.extent &&
				math.Abs(c.x-b.x) < b.extent/2 && math.Abs(c.y-b.y) < b.extent/2 {
				inside++
			}
		}
		if inside < 2 {
			kept = append(kept, b)
		}
	}
	return kept
}
