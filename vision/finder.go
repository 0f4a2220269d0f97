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
// finderSizeUnit, and dice read best at finderTarget px across.
const (
	finderStride   = 4
	finderSizeUnit = 16.0
	finderTarget   = 16.0
	// finderMultiple is what the finder's input sides must divide by (its
	// deepest maps are a sixteenth of the input).
	finderMultiple = 16
	// coarseSide is the long side of the first look when the dice's size
	// is unknown: dice of a twentieth to a tenth of the image are then
	// within the sizes the finder learned.
	coarseSide = 320
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
// known extent finderTarget px, or, the size unknown, first at a coarse
// scale (the long side at coarseSide), then, where nothing sure is found
// there, coarser (dice a sixth of the image and more) and finer (dice a
// fiftieth), and again at the scale the found dice's median extent asks
// for when that is far from the target.
func (f *finder) locate(bgr gocv.Mat, extent float64, bars Bars) ([]candidate, error) {
	if extent > 0 {
		return f.find(bgr, finderTarget/extent, bars.Candidate)
	}
	base := coarseSide / float64(max(bgr.Cols(), bgr.Rows()))
	var first []candidate
	tried := map[float64]bool{}
	for i, k := range []float64{1, 0.4, 2.5} {
		scale := math.Min(1, base*k)
		if tried[scale] {
			continue
		}
		tried[scale] = true
		found, err := f.find(bgr, scale, bars.Candidate)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = found
		}
		med := medianExtent(found, bars.Found)
		if med == 0 {
			continue
		}
		if r := med * scale / finderTarget; r > 0.75 && r < 1.33 {
			return found, nil
		}
		refined, err := f.find(bgr, finderTarget/med, bars.Candidate)
		if err != nil {
			return nil, err
		}
		if sure(refined, bars.Found) < sure(found, bars.Found) {
			// A small image scaled further down leaves the finder too
			// little to see: the look before was the better one.
			return found, nil
		}
		return refined, nil
	}
	return first, nil
}

// sure counts the candidates at least minP sure.
func sure(cs []candidate, minP float64) int {
	n := 0
	for _, c := range cs {
		if c.p >= minP {
			n++
		}
	}
	return n
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

// suppress keeps, of candidates closer than half an extent, the surer one.
func suppress(cs []candidate) []candidate {
	sort.Slice(cs, func(i, j int) bool { return cs[i].p > cs[j].p })
	out := cs[:0]
	for _, c := range cs {
		keep := true
		for _, k := range out {
			if math.Hypot(c.x-k.x, c.y-k.y) < 0.5*math.Min(c.extent, k.extent) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}
