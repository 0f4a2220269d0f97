package vision

import (
	"fmt"
	"image"
	"math"
	"sort"
	"unsafe"

	"gocv.io/x/gocv"
)

// candidate is a region that may be one die.
type candidate struct {
	rect
	pts       []point // the pixels of the region
	cx, cy    float64
	side      float64
	dieLike   bool    // square and of a die's size
	shapeConf float64 // how die-like the outline is, 0-1
}

// Tuned on the train/ split of the real photographs and on synthetic tables.
const (
	// fgThreshold is the colour distance from the local background (in
	// OpenCV's 8-bit Lab, chroma counted twice) above which a pixel belongs
	// to something on the table.
	fgThreshold = 24
	// shadowDrop is how much darker than the table (Lab L, 0-255) a
	// shadow may be.
	shadowDrop = 28
	// bgShrink is the factor the background is estimated at.
	bgShrink = 8
)

// findCandidates segments the things on the table from the table itself
// and cuts them into die-sized regions. dieSize may be 0 (unknown). The
// table is the calibration's background where it fits the frame, else
// estimated from the frame.
func findCandidates(bgr gocv.Mat, dieSize float64, background *Background) ([]candidate, error) {
	w, h := bgr.Cols(), bgr.Rows()
	lab := tableLab(bgr)
	defer lab.Close()
	var bg gocv.Mat
	if background.fits(w, h) {
		var err error
		if bg, err = background.at(lab); err != nil {
			return nil, err
		}
	} else {
		bg = medianTable(lab, dieSize)
	}
	defer bg.Close()

	labBytes, err := lab.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	bgBytes, err := bg.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	diff := make([]byte, w*h)
	for i := range diff {
		dl := int32(labBytes[3*i]) - int32(bgBytes[3*i])
		da := int32(labBytes[3*i+1]) - int32(bgBytes[3*i+1])
		db := int32(labBytes[3*i+2]) - int32(bgBytes[3*i+2])
		if dl < 0 {
			// Darker than the table with the table's hue is mostly shadow:
			// only a drop well beyond a shadow's counts.
			dl = min(0, dl+shadowDrop)
		}
		if dl*dl+2*(da*da+db*db) >= fgThreshold*fgThreshold {
			diff[i] = 255
		}
	}
	mask, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC1, diff)
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	defer mask.Close()
	ks := 5
	if dieSize > 0 {
		ks = max(3, int(dieSize/8)) | 1
	}
	closeK := gocv.GetStructuringElement(gocv.MorphEllipse, image.Point{X: ks, Y: ks})
	defer closeK.Close()
	openK := gocv.GetStructuringElement(gocv.MorphEllipse, image.Point{X: 3, Y: 3})
	defer openK.Close()
	// A white die on a white table barely differs in colour, but its pips
	// and edges are sharp: strong local gradients join the mask.
	var table *gocv.Mat
	if background.fits(w, h) {
		table = &bg
	}
	if err := addEdges(lab, table, &mask); err != nil {
		return nil, err
	}
	gocv.MorphologyEx(mask, &mask, gocv.MorphClose, closeK)
	gocv.MorphologyEx(mask, &mask, gocv.MorphOpen, openK)

	labels := gocv.NewMat()
	defer labels.Close()
	stats := gocv.NewMat()
	defer stats.Close()
	cents := gocv.NewMat()
	defer cents.Close()
	nLabels := gocv.ConnectedComponentsWithStats(mask, &labels, &stats, &cents)
	labBytes32, err := labels.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	// gocv v0.31 has no DataPtrInt32: view the CV_32S labels in place.
	lab32 := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(labBytes32))), len(labBytes32)/4)
	type region struct {
		pts  []point
		rect rect
	}
	regions := make([]region, 0, nLabels)
	index := make([]int, nLabels)
	minArea := 64
	if dieSize > 0 {
		minArea = int(dieSize * dieSize * 0.3)
	}
	for l := 1; l < nLabels; l++ {
		index[l] = -1
		if int(stats.GetIntAt(l, int(gocv.CC_STAT_AREA))) < minArea {
			continue
		}
		index[l] = len(regions)
		regions = append(regions, region{pts: make([]point, 0, stats.GetIntAt(l, int(gocv.CC_STAT_AREA)))})
	}
	for i, l := range lab32 {
		if l > 0 && index[l] >= 0 {
			r := &regions[index[l]]
			r.pts = append(r.pts, point{float64(i % w), float64(i / w)})
		}
	}
	for i := range regions {
		regions[i].rect = minAreaRect(rowExtremes(regions[i].pts))
	}
	if dieSize <= 0 {
		var sides []float64
		for _, r := range regions {
			if isSquare(r.rect) && float64(len(r.pts)) > 0.72*r.rect.w*r.rect.h {
				sides = append(sides, math.Sqrt(r.rect.w*r.rect.h))
			}
		}
		dieSize = estimateSize(sides)
		if dieSize == 0 {
			return nil, nil
		}
	}
	var cands []candidate
	for _, r := range regions {
		area := float64(len(r.pts))
		units := area / (dieSize * dieSize)
		switch {
		case units < 0.35:
			continue
		case units < 1.6:
			c := newCandidate(r.rect, dieSize)
			c.pts = r.pts
			cands = append(cands, c)
		case units < 14:
			k := int(math.Round(units))
			for _, part := range splitRegion(r.pts, k) {
				if float64(len(part)) < 0.35*dieSize*dieSize {
					continue
				}
				c := newCandidate(minAreaRect(rowExtremes(part)), dieSize)
				c.pts = part
				cands = append(cands, c)
			}
		}
	}
	return cands, nil
}

// medianTable estimates the table from lab itself: what a wide median
// leaves, since dice are small next to it. The caller closes the result.
func medianTable(lab gocv.Mat, dieSize float64) gocv.Mat {
	w, h := lab.Cols(), lab.Rows()
	small := gocv.NewMat()
	defer small.Close()
	sw, sh := max(w/bgShrink, 8), max(h/bgShrink, 8)
	gocv.Resize(lab, &small, image.Point{X: sw, Y: sh}, 0, 0, gocv.InterpolationArea)
	k := max(w, h) / 7 / bgShrink
	if dieSize > 0 {
		k = int(3 * dieSize / bgShrink)
	}
	k = max(k, 5) | 1
	bgSmall := gocv.NewMat()
	defer bgSmall.Close()
	gocv.MedianBlur(small, &bgSmall, k)
	bg := gocv.NewMat()
	gocv.Resize(bgSmall, &bg, image.Point{X: w, Y: h}, 0, 0, gocv.InterpolationLinear)
	return bg
}

// newCandidate judges how die-like a region's outline is.
func newCandidate(r rect, dieSize float64) candidate {
	side := math.Sqrt(r.w * r.h)
	aspect := math.Max(r.w, r.h) / math.Min(r.w, r.h)
	sizeErr := math.Abs(side/dieSize - 1)
	shape := clamp01(1-(aspect-1.15)/0.25) * clamp01(1-(sizeErr-0.25)/0.25)
	return candidate{
		rect:      r,
		cx:        r.cx,
		cy:        r.cy,
		side:      side,
		dieLike:   aspect < 1.3 && sizeErr < 0.35,
		shapeConf: math.Sqrt(shape),
	}
}

func isSquare(r rect) bool {
	return r.w >= 8 && r.h >= 8 && math.Max(r.w, r.h) < 1.2*math.Min(r.w, r.h)
}

// estimateSize picks the dice's side from the sides of square regions: the
// median of those not far smaller than the larger ones, so specks of dirt
// do not drag it down.
func estimateSize(sides []float64) float64 {
	if len(sides) == 0 {
		return 0
	}
	sort.Float64s(sides)
	ref := sides[len(sides)*8/10]
	var kept []float64
	for _, s := range sides {
		if s >= 0.6*ref && s <= 1.5*ref {
			kept = append(kept, s)
		}
	}
	return kept[len(kept)/2]
}

// splitRegion cuts a region made of k touching dice into k parts with
// k-means on pixel positions, seeded by farthest-point sampling so the
// result does not depend on chance.
func splitRegion(pts []point, k int) [][]point {
	if k < 2 {
		return [][]point{pts}
	}
	centres := make([]point, 0, k)
	var mx, my float64
	for _, p := range pts {
		mx += p.x
		my += p.y
	}
	mx, my = mx/float64(len(pts)), my/float64(len(pts))
	centres = append(centres, farthest(pts, []point{{mx, my}}))
	for len(centres) < k {
		centres = append(centres, farthest(pts, centres))
	}
	assign := make([]int, len(pts))
	for iter := 0; iter < 12; iter++ {
		sx := make([]float64, k)
		sy := make([]float64, k)
		cnt := make([]int, k)
		for i, p := range pts {
			best, bd := 0, math.Inf(1)
			for j, c := range centres {
				d := (p.x-c.x)*(p.x-c.x) + (p.y-c.y)*(p.y-c.y)
				if d < bd {
					best, bd = j, d
				}
			}
			assign[i] = best
			sx[best] += p.x
			sy[best] += p.y
			cnt[best]++
		}
		for j := range centres {
			if cnt[j] > 0 {
				centres[j] = point{sx[j] / float64(cnt[j]), sy[j] / float64(cnt[j])}
			}
		}
	}
	parts := make([][]point, k)
	for i, p := range pts {
		parts[assign[i]] = append(parts[assign[i]], p)
	}
	return parts
}

func farthest(pts, from []point) point {
	best, bd := pts[0], -1.0
	for _, p := range pts {
		d := math.Inf(1)
		for _, c := range from {
			d = math.Min(d, (p.x-c.x)*(p.x-c.x)+(p.y-c.y)*(p.y-c.y))
		}
		if d > bd {
			best, bd = p, d
		}
	}
	return best
}

// cutPatch cuts the candidate's box out of the image (BGR bytes, w x h)
// with the mask of its own pixels. The candidate was found on a copy of
// the image scaled by segScale (at most 1).
func cutPatch(img []byte, w, h int, c candidate, segScale float64) patch {
	sMinX, sMinY, sMaxX, sMaxY := math.MaxInt, math.MaxInt, 0, 0
	for _, p := range c.pts {
		sMinX, sMaxX = min(sMinX, int(p.x)), max(sMaxX, int(p.x))
		sMinY, sMaxY = min(sMinY, int(p.y)), max(sMaxY, int(p.y))
	}
	sw, sh := sMaxX-sMinX+1, sMaxY-sMinY+1
	seg := make([]bool, sw*sh)
	for _, p := range c.pts {
		seg[(int(p.y)-sMinY)*sw+int(p.x)-sMinX] = true
	}
	minX := max(int(float64(sMinX)/segScale)-1, 0)
	minY := max(int(float64(sMinY)/segScale)-1, 0)
	maxX := min(int(float64(sMaxX+1)/segScale)+1, w-1)
	maxY := min(int(float64(sMaxY+1)/segScale)+1, h-1)
	pw, ph := maxX-minX+1, maxY-minY+1
	pt := patch{x0: minX, y0: minY, bgr: make([]byte, pw*ph*3), die: make([]bool, pw*ph), w: pw, h: ph}
	for y := 0; y < ph; y++ {
		copy(pt.bgr[y*pw*3:(y+1)*pw*3], img[((minY+y)*w+minX)*3:((minY+y)*w+maxX+1)*3])
		sy := int((float64(minY+y)+0.5)*segScale) - sMinY
		if sy < 0 || sy >= sh {
			continue
		}
		for x := 0; x < pw; x++ {
			sx := int((float64(minX+x)+0.5)*segScale) - sMinX
			if sx >= 0 && sx < sw && seg[sy*sw+sx] {
				pt.die[y*pw+x] = true
			}
		}
	}
	return pt
}

// edgeThreshold is the morphological gradient of Lab lightness (3x3) above
// which a pixel is a sharp edge: a pip's rim, a die's edge.
const edgeThreshold = 45

// addEdges sets the mask where the image's lightness changes sharply.
func addEdges(lab gocv.Mat, table *gocv.Mat, mask *gocv.Mat) error {
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Point{X: 3, Y: 3})
	defer k.Close()
	grad := lightGradient(lab, k)
	defer grad.Close()
	gocv.Threshold(grad, &grad, edgeThreshold, 255, gocv.ThresholdBinary)
	if table != nil {
		// The board's own edges (its printing, a seam) are not dice: drop
		// the frame's edges where the empty board has one nearby.
		own := lightGradient(*table, k)
		defer own.Close()
		gocv.Threshold(own, &own, edgeThreshold/2, 255, gocv.ThresholdBinary)
		near := gocv.GetStructuringElement(gocv.MorphRect, image.Point{X: 5, Y: 5})
		defer near.Close()
		gocv.Dilate(own, &own, near)
		gocv.BitwiseNot(own, &own)
		gocv.BitwiseAnd(grad, own, &grad)
	}
	gocv.BitwiseOr(*mask, grad, mask)
	return nil
}

// lightGradient is the morphological gradient of lab's lightness. The
// caller closes it.
func lightGradient(lab gocv.Mat, k gocv.Mat) gocv.Mat {
	ch := gocv.Split(lab)
	defer func() {
		for _, c := range ch {
			c.Close()
		}
	}()
	grad := gocv.NewMat()
	gocv.MorphologyEx(ch[0], &grad, gocv.MorphGradient, k)
	return grad
}
