package vision

import (
	"fmt"
	"math"
	"sort"
)

// faceRead is what readFace makes of one die.
type faceRead struct {
	face       int     // 1-6, or 0 when nothing readable was found
	star       bool    // the single central symbol is a star artwork
	confidence float64 // 0-1
	pips       int     // pip-like marks found
	cx, cy     float64 // the face's centre in the patch
	side       float64 // the face's side
	shape      float64 // how square the face is, 0-1: low for a cocked or half-hidden die
	angle      float64 // the turn of the face's sides, radians
	reason     string  // why confidence is low, for debugging

	// The face's distance-from-body map, for the learned classifier.
	dist      []uint8
	w, h      int
	threshold int
}

// patch is one die cut out of the image: BGR pixels of a w x h box around
// it and the mask of the pixels that belong to the die.
type patch struct {
	x0, y0 int // the patch's corner in the image
	bgr    []byte
	die    []bool
	w, h   int
}

// blob is one connected mark on a die's face.
type blob struct {
	area          int
	cx, cy        float64 // centroid
	minX, minY    int
	maxX, maxY    int
	touchesBorder bool // touches the edge of the die's face
	holeArea      int
	bodyLike      int        // pixels of body colour enclosed in the mark
	colour        [3]float64 // mean BGR
	colourSpread  float64    // RMS distance of its pixels from colour
	hullArea      float64
	meanDist      float64
	pts           []point
}

// principalAxis returns the unit vector along the blob's long axis and
// the variance along it.
func (b blob) principalAxis() (ux, uy, l1 float64) {
	var sxx, syy, sxy float64
	for _, p := range b.pts {
		dx, dy := p.x-b.cx, p.y-b.cy
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	n := float64(len(b.pts))
	sxx, syy, sxy = sxx/n, syy/n, sxy/n
	tr, det := sxx+syy, sxx*syy-sxy*sxy
	l1 = tr/2 + math.Sqrt(math.Max(0, tr*tr/4-det))
	a := 0.5 * math.Atan2(2*sxy, sxx-syy)
	return math.Cos(a), math.Sin(a), l1
}

// elongation is the ratio of the blob's principal axes: 1 for a round
// pip, more for a pip seen at a slant.
func (b blob) elongation() float64 {
	var sxx, syy, sxy float64
	for _, p := range b.pts {
		dx, dy := p.x-b.cx, p.y-b.cy
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	if len(b.pts) == 0 {
		return 1
	}
	n := float64(len(b.pts))
	sxx, syy, sxy = sxx/n+1.0/12, syy/n+1.0/12, sxy/n
	tr, det := sxx+syy, sxx*syy-sxy*sxy
	disc := math.Sqrt(math.Max(0, tr*tr/4-det))
	l1, l2 := tr/2+disc, tr/2-disc
	if l2 <= 0 {
		return math.Inf(1)
	}
	return math.Sqrt(l1 / l2)
}

func (b blob) w() int { return b.maxX - b.minX + 1 }
func (b blob) h() int { return b.maxY - b.minY + 1 }

// solidity is the blob's area over its convex hull's: about 1 for a pip,
// about 0.5 for a filled five-pointed star, less for outlines and wheels.
func (b blob) solidity() float64 {
	if b.hullArea <= 0 {
		return 1
	}
	return math.Min(1, float64(b.area)/b.hullArea)
}

// pip-pattern cells on a 3x3 grid, indexed (row+1)*3 + (col+1).
var facePatterns = map[int][][]int{
	2: {{0, 8}, {2, 6}},
	3: {{0, 4, 8}, {2, 4, 6}},
	4: {{0, 2, 6, 8}},
	5: {{0, 2, 4, 6, 8}},
	6: {{0, 2, 3, 5, 6, 8}, {0, 1, 2, 6, 7, 8}},
}

// readFace reads the top face of one die: it finds the die's body colour,
// takes the largest region of that colour as the face (which leaves out
// the shadow, the table and most of a side seen in perspective), and reads
// the marks the face encloses.
func readFace(p patch) faceRead {
	n := p.w * p.h
	dieArea := 0
	for _, in := range p.die {
		if in {
			dieArea++
		}
	}
	if dieArea < 64 {
		return faceRead{reason: "too small"}
	}
	looseSide := math.Sqrt(float64(dieArea))
	// The body's colour is the median of the die's core, clear of the
	// shadow and halo its outline may hold; pips cover well under half of
	// it on every face, stars included.
	core := erode(p.die, p.w, p.h, max(1, int(math.Round(looseSide*0.15))))
	count := 0
	for _, in := range core {
		if in {
			count++
		}
	}
	if count < 16 {
		return faceRead{reason: "no face"}
	}
	inner := erode(p.die, p.w, p.h, max(1, int(math.Round(looseSide*0.07))))
	body := bodyColour(p, inner, core)
	// Distance from the body's colour, light or dark alike, so pips of any
	// colour on dice of any colour stand out.
	dist := make([]uint8, n)
	var dh [256]int
	for i := 0; i < n; i++ {
		db := float64(p.bgr[3*i]) - body[0]
		dg := float64(p.bgr[3*i+1]) - body[1]
		dr := float64(p.bgr[3*i+2]) - body[2]
		dist[i] = uint8(math.Min(255, math.Sqrt(db*db+dg*dg+dr*dr)))
		if core[i] {
			dh[dist[i]]++
		}
	}
	t := otsu(dh[:], count)
	// The body's own texture and noise (marbled and translucent dice have
	// plenty) is the median distance of the body's pixels: marks must
	// stand clear of it.
	var bh [256]int
	bn := 0
	for i := 0; i < n; i++ {
		if core[i] && int(dist[i]) < t {
			bh[dist[i]]++
			bn++
		}
	}
	med := 0
	for acc, v := 0, 0; v < 256; v++ {
		acc += bh[v]
		if acc*2 >= bn {
			med = v
			break
		}
	}
	floor := float64(med)*2 + 24
	if float64(t) < floor {
		t = int(floor)
	}
	if t > 250 {
		return faceRead{reason: "no contrast"}
	}
	// The face: the largest body-coloured region of the die, with what it
	// encloses (the pips) filled in.
	bodyMask := make([]bool, n)
	for i := 0; i < n; i++ {
		bodyMask[i] = p.die[i] && int(dist[i]) <= t
	}
	bodyMask = largestComponent(bodyMask, p.w, p.h)
	face := fillHoles(bodyMask, p.w, p.h)
	faceArea := 0
	var fx, fy float64
	for i, in := range face {
		if in {
			faceArea++
			fx += float64(i % p.w)
			fy += float64(i / p.w)
		}
	}
	if faceArea < 32 || float64(faceArea) < 0.3*float64(dieArea) {
		return faceRead{reason: "no face"}
	}
	fx, fy = fx/float64(faceArea), fy/float64(faceArea)
	side := math.Sqrt(float64(faceArea))
	mask := make([]bool, n)
	for i := 0; i < n; i++ {
		mask[i] = face[i] && !bodyMask[i]
	}
	blobs := findBlobs(mask, face, dist, p.bgr, t, p.w, p.h)
	var marks []blob
	for _, b := range blobs {
		a := float64(b.area) / float64(faceArea)
		if a < 0.006 || b.area < 3 {
			continue // a speck of noise or texture
		}
		if b.elongation() > 2.2 && a < 0.05 {
			continue // a pip on a side of the die, seen edge-on
		}
		marks = append(marks, b)
	}
	// Empty cells are checked over the whole die, not just the face: a
	// pip cut by the face's edge is still a pip.
	r := classify(marks, side, fx, fy, t, distMap{dist, p.die, p.w, p.h}, distMap{dist, face, p.w, p.h})
	r.cx, r.cy, r.side = fx, fy, side
	r.dist, r.w, r.h, r.threshold = dist, p.w, p.h, t
	// A flat die's face is a square; a cocked die shows it foreshortened
	// and a half-hidden one shows part of it.
	var facePts []point
	for i, in := range face {
		if in {
			facePts = append(facePts, point{float64(i % p.w), float64(i / p.w)})
		}
	}
	fr := minAreaRect(rowExtremes(facePts))
	aspect := math.Max(fr.w, fr.h) / math.Max(1, math.Min(fr.w, fr.h))
	fill := float64(faceArea) / math.Max(1, fr.w*fr.h)
	r.shape = clamp01(1-(aspect-1.42)/0.3) * clamp01((fill-0.6)/0.15)
	r.angle = math.Atan2(fr.uy, fr.ux)
	return r
}

// bodyColour finds the colour of the die's body. The median fails on a 6
// with big pips, which can cover most of the die's core, so the colours
// inside the die's outline (inner, clear of its halo) are split in two and
// the body is the one that holds the rim between inner and core.
func bodyColour(p patch, inner, core []bool) [3]float64 {
	n := p.w * p.h
	rim := make([]bool, n)
	for i := range rim {
		rim[i] = inner[i] && !core[i]
	}
	// Two-means on colour, seeded with the darkest and lightest pixels.
	var lo, hi [3]float64
	loV, hiV := 1e9, -1.0
	for i := 0; i < n; i++ {
		if !inner[i] {
			continue
		}
		v := float64(p.bgr[3*i]) + float64(p.bgr[3*i+1]) + float64(p.bgr[3*i+2])
		if v < loV {
			loV, lo = v, [3]float64{float64(p.bgr[3*i]), float64(p.bgr[3*i+1]), float64(p.bgr[3*i+2])}
		}
		if v > hiV {
			hiV, hi = v, [3]float64{float64(p.bgr[3*i]), float64(p.bgr[3*i+1]), float64(p.bgr[3*i+2])}
		}
	}
	centres := [2][3]float64{lo, hi}
	var counts [2]int
	for iter := 0; iter < 6; iter++ {
		var sums [2][3]float64
		counts = [2]int{}
		for i := 0; i < n; i++ {
			if !inner[i] {
				continue
			}
			k := nearer(p.bgr[3*i:3*i+3], centres)
			counts[k]++
			for c := 0; c < 3; c++ {
				sums[k][c] += float64(p.bgr[3*i+c])
			}
		}
		for k := 0; k < 2; k++ {
			if counts[k] > 0 {
				for c := 0; c < 3; c++ {
					centres[k][c] = sums[k][c] / float64(counts[k])
				}
			}
		}
	}
	if counts[0] == 0 || counts[1] == 0 {
		return centres[0]
	}
	// The body is the colour of the die's rim: pips and stars keep clear
	// of the edges of the face.
	var rimVotes [2]int
	for i := 0; i < n; i++ {
		if rim[i] {
			rimVotes[nearer(p.bgr[3*i:3*i+3], centres)]++
		}
	}
	if rimVotes[1] > rimVotes[0] {
		return centres[1]
	}
	return centres[0]
}

func nearer(px []byte, centres [2][3]float64) int {
	var d [2]float64
	for k := 0; k < 2; k++ {
		for c := 0; c < 3; c++ {
			v := float64(px[c]) - centres[k][c]
			d[k] += v * v
		}
	}
	if d[1] < d[0] {
		return 1
	}
	return 0
}

// largestComponent keeps the largest 4-connected region of mask.
func largestComponent(mask []bool, w, h int) []bool {
	labels := make([]int32, len(mask))
	bestID, bestN := int32(0), 0
	stack := make([]int, 0, 256)
	id := int32(0)
	for i, in := range mask {
		if !in || labels[i] != 0 {
			continue
		}
		id++
		labels[i] = id
		stack = append(stack[:0], i)
		cnt := 0
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cnt++
			x, y := j%w, j/w
			for _, k := range [4]int{j - 1, j + 1, j - w, j + w} {
				if (k == j-1 && x == 0) || (k == j+1 && x == w-1) || (k == j-w && y == 0) || (k == j+w && y == h-1) {
					continue
				}
				if mask[k] && labels[k] == 0 {
					labels[k] = id
					stack = append(stack, k)
				}
			}
		}
		if cnt > bestN {
			bestID, bestN = id, cnt
		}
	}
	out := make([]bool, len(mask))
	for i, l := range labels {
		out[i] = l == bestID && l != 0
	}
	return out
}

// fillHoles returns mask with every region it encloses filled in.
func fillHoles(mask []bool, w, h int) []bool {
	outside := make([]bool, len(mask))
	stack := make([]int, 0, 256)
	push := func(k int) {
		if !mask[k] && !outside[k] {
			outside[k] = true
			stack = append(stack, k)
		}
	}
	for x := 0; x < w; x++ {
		push(x)
		push((h-1)*w + x)
	}
	for y := 0; y < h; y++ {
		push(y * w)
		push(y*w + w - 1)
	}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := j%w, j/w
		if x > 0 {
			push(j - 1)
		}
		if x < w-1 {
			push(j + 1)
		}
		if y > 0 {
			push(j - w)
		}
		if y < h-1 {
			push(j + w)
		}
	}
	out := make([]bool, len(mask))
	for i := range out {
		out[i] = !outside[i]
	}
	return out
}

// classify turns the marks found on a face into a face and a confidence.
// side is the die's side and (fx, fy) its face's centre.
func classify(marks []blob, side, fx, fy float64, t int, dm, faceDM distMap) faceRead {
	// Marks cut by the face's edge are a neighbour, a side of the die seen
	// in perspective or glare on an edge, not the top face.
	inner := marks[:0:0]
	edge := 0
	for _, m := range marks {
		if m.touchesBorder {
			edge++
			continue
		}
		inner = append(inner, m)
	}
	marks = inner
	if len(marks) == 0 {
		return faceRead{reason: "no marks"}
	}
	contrast := 0.0
	for _, m := range marks {
		contrast += m.meanDist
	}
	contrast /= float64(len(marks))
	// contrastConf rises from 0 at the threshold to 1 well above it.
	contrastConf := clamp01((contrast - float64(t)) / 30)
	edgeConf := 1.0
	if edge > 0 {
		edgeConf = 0.85
	}
	if len(marks) == 1 {
		// A lone pip's corners are checked on the face only: in perspective
		// the die's outline holds a side, whose pips are not this face's.
		return classifyOne(marks[0], side, fx, fy, contrastConf*edgeConf, t, faceDM)
	}
	marks = splitMerged(marks)
	r := readPips(marks, side, fx, fy, t, dm, contrastConf*edgeConf)
	if r.confidence >= DefaultMinConfidence || len(marks) < 3 {
		return r
	}
	// One mark too many (a pip of a side in view, glare on an edge): try
	// the face without each mark in turn, trusting the result less.
	for i := range marks {
		rest := append(append([]blob(nil), marks[:i]...), marks[i+1:]...)
		alt := readPips(rest, side, fx, fy, t, dm, contrastConf*edgeConf)
		alt.confidence *= 0.8
		if alt.face != 0 && alt.confidence > r.confidence {
			r = alt
		}
	}
	return r
}

// splitMerged cuts a mark that is two pips run together (twice a pip's
// area, twice as long as wide) into two.
func splitMerged(marks []blob) []blob {
	if len(marks) < 3 {
		return marks
	}
	areas := make([]int, len(marks))
	for i, m := range marks {
		areas[i] = m.area
	}
	sort.Ints(areas)
	pip := float64(areas[len(areas)/2])
	var out []blob
	for _, m := range marks {
		ratio := float64(m.area) / pip
		if ratio < 1.6 || ratio > 2.6 || m.elongation() < 1.6 {
			out = append(out, m)
			continue
		}
		ux, uy, l1 := m.principalAxis()
		r2 := pip / math.Pi
		d := math.Sqrt(math.Max(l1-r2/4, 1))
		for _, sgn := range []float64{-1, 1} {
			h := m
			h.area = m.area / 2
			h.cx, h.cy = m.cx+sgn*d*ux, m.cy+sgn*d*uy
			h.hullArea = 0 // a half is taken to be a round pip
			h.pts = nil
			out = append(out, h)
		}
	}
	return out
}

// readPips reads a face of two or more pips.
func readPips(marks []blob, side, fx, fy float64, t int, dm distMap, quality float64) faceRead {
	if len(marks) > 6 {
		return faceRead{pips: len(marks), reason: "too many marks"}
	}
	dieArea := side * side
	// Pips of one die share their size.
	minA, maxA := marks[0].area, marks[0].area
	for _, m := range marks {
		minA, maxA = min(minA, m.area), max(maxA, m.area)
		if float64(m.area)/dieArea > 0.09 || (m.area > 25 && m.solidity() < 0.65) {
			return faceRead{pips: len(marks), reason: fmt.Sprintf("marks are not pips: area %.3f solidity %.2f", float64(m.area)/dieArea, m.solidity())}
		}
	}
	// Pips of one die share their colour too; glare does not.
	colourConf := 1.0
	for _, m := range marks {
		var others [3]float64
		for _, o := range marks {
			for c := range others {
				others[c] += o.colour[c] / float64(len(marks))
			}
		}
		d := math.Sqrt(sq(m.colour[0]-others[0]) + sq(m.colour[1]-others[1]) + sq(m.colour[2]-others[2]))
		colourConf = math.Min(colourConf, clamp01(1-(d-45)/40))
	}
	sizeRatio := float64(maxA) / float64(minA)
	sizeConf := clamp01((2.6 - sizeRatio) / 0.8)
	// Every face's pips are symmetric about its centre, so their mean is
	// the centre even when the die's outline also holds a side in view.
	var cx, cy float64
	for _, m := range marks {
		cx += m.cx
		cy += m.cy
	}
	cx /= float64(len(marks))
	cy /= float64(len(marks))
	off := math.Hypot(cx-fx, cy-fy) / side
	face := len(marks)
	r := faceRead{face: face, pips: face}
	// Find the turn that puts the pips on a 3x3 grid in a face's pattern.
	best := math.Inf(1)
	bestG, bestA := 0.0, 0.0
	var bestCells []int
	for deg := 0.0; deg < 90; deg += 2 {
		a := deg * math.Pi / 180
		ca, sa := math.Cos(a), math.Sin(a)
		us := make([]float64, face)
		vs := make([]float64, face)
		g := 0.0
		for i, m := range marks {
			dx, dy := m.cx-cx, m.cy-cy
			us[i] = (dx*ca + dy*sa) / side
			vs[i] = (-dx*sa + dy*ca) / side
			g = math.Max(g, math.Max(math.Abs(us[i]), math.Abs(vs[i])))
		}
		if g < 0.09 || g > 0.42 {
			continue
		}
		cells := make([]int, face)
		worst := 0.0
		for i := range marks {
			col, row := math.Round(us[i]/g), math.Round(vs[i]/g)
			worst = math.Max(worst, math.Hypot(us[i]/g-col, vs[i]/g-row))
			cells[i] = int((row+1)*3 + (col + 1))
		}
		if worst < best && matchesPattern(face, cells) {
			best, bestG, bestA = worst, g, a
			bestCells = append(bestCells[:0], cells...)
		}
	}
	if math.IsInf(best, 1) {
		r.confidence = 0.2 * sizeConf
		r.reason = "pips do not make a face"
		return r
	}
	gridConf := clamp01(1 - (best-0.22)/0.3)
	// Pips spread far less or more than a die's are a pattern of something
	// else, or several dice's.
	pitchConf := clamp01(1 - (math.Abs(bestG-0.22)-0.12)/0.04)
	centreConf := clamp01(1 - (off-0.2)/0.15)
	// The cells the face leaves empty must be empty: a pip missed there
	// would turn a 3 into a 2.
	pipR := 0.0
	for _, m := range marks {
		pipR += math.Sqrt(float64(m.area) / math.Pi)
	}
	pipR /= float64(len(marks))
	occupied := map[int]bool{}
	for _, c := range bestCells {
		occupied[c] = true
	}
	emptiest := 0.0
	for cell := 0; cell < 9; cell++ {
		if occupied[cell] {
			continue
		}
		col, row := float64(cell%3-1), float64(cell/3-1)
		u, v := col*bestG*side, row*bestG*side
		x := cx + u*math.Cos(bestA) - v*math.Sin(bestA)
		y := cy + u*math.Sin(bestA) + v*math.Cos(bestA)
		emptiest = math.Max(emptiest, dm.meanAround(x, y, pipR))
	}
	emptyConf := clamp01(1 - (emptiest/float64(t)-0.45)/0.3)
	r.confidence = min(gridConf, sizeConf, pitchConf, centreConf, emptyConf, colourConf) * (0.6 + 0.4*quality)
	if r.confidence < DefaultMinConfidence {
		r.reason = fmt.Sprintf("pips irregular: grid %.2f size %.2f pitch %.2f (g=%.2f) centre %.2f empty %.2f quality %.2f", gridConf, sizeConf, pitchConf, bestG, centreConf, emptyConf, quality)
	}
	return r
}

// classifyOne reads a face with a single mark: a 1, or the star.
func classifyOne(m blob, side, fx, fy, quality float64, t int, dm distMap) faceRead {
	off := math.Hypot(m.cx-fx, m.cy-fy) / side
	rel := float64(m.area) / (side * side)
	if rel > 0.35 {
		return faceRead{pips: 1, reason: "mark too large"}
	}
	centred := clamp01(1 - (off-0.18)/0.15)
	sizeConf := clamp01((rel - 0.008) / 0.008)
	// A star artwork is far from a disc: spiky (filled star), hollow
	// (outlined star) or spoked (ship's wheel). Solidity tells them apart;
	// glare can hollow a pip, but not make it spiky.
	sol := m.solidity()
	hollow := float64(m.holeArea+m.bodyLike) / float64(m.area+m.holeArea)
	extent := float64(max(m.w(), m.h())) / side
	starScore := clamp01((0.78 - sol) / 0.12)
	// Stars and wheels are as wide one way as the other; two pips run
	// together are not.
	if m.elongation() > 1.4 {
		starScore = 0
	}
	if hollow > 0.2 && extent > 0.4 {
		starScore = math.Max(starScore, clamp01((hollow-0.15)/0.15))
	}
	discScore := clamp01((sol - 0.75) / 0.08)
	if hollow > 0.15 {
		discScore *= 0.5
	}
	r := faceRead{face: 1, pips: 1}
	emptyNote := ""
	if starScore > discScore {
		r.star = true
		r.confidence = min(starScore, centred, clamp01((extent-0.25)/0.1)) * (0.6 + 0.4*quality)
	} else {
		// A lone pip must really be alone: pips too faint to be found in
		// the corners would make it a 2, 3 or more.
		pipR := math.Sqrt(float64(m.area)/math.Pi) * 0.8
		emptiest := 0.0
		for _, g := range []float64{0.17, 0.22} {
			for _, c := range [4][2]float64{{-1, -1}, {1, -1}, {-1, 1}, {1, 1}} {
				for _, a := range []float64{0, math.Pi / 4} {
					u, v := c[0]*g*side, c[1]*g*side
					x := m.cx + u*math.Cos(a) - v*math.Sin(a)
					y := m.cy + u*math.Sin(a) + v*math.Cos(a)
					emptiest = math.Max(emptiest, dm.meanAround(x, y, pipR))
				}
			}
		}
		emptyConf := clamp01(1 - (emptiest/math.Max(m.meanDist, float64(t))-0.4)/0.25)
		r.confidence = min(discScore, centred, sizeConf, emptyConf) * (0.6 + 0.4*quality)
		emptyNote = fmt.Sprintf(" empty %.2f", emptyConf)
	}
	if r.confidence < DefaultMinConfidence {
		r.reason = fmt.Sprintf("single mark unclear: star %.2f disc %.2f (solidity %.2f hollow %.2f extent %.2f elong %.2f spread %.2f) centred %.2f size %.2f (%.3f) quality %.2f%s", starScore, discScore, sol, hollow, extent, m.elongation(), m.colourSpread/m.meanDist, centred, sizeConf, rel, quality, emptyNote)
	}
	return r
}

// distMap is a face's distance-from-body map.
type distMap struct {
	dist []uint8
	face []bool
	w, h int
}

// meanAround is the mean distance within r of (x, y), over face pixels;
// off the face it is 0.
func (d distMap) meanAround(x, y, r float64) float64 {
	r = math.Max(r, 1)
	sum, n := 0.0, 0
	for yy := int(y - r); yy <= int(y+r+1); yy++ {
		for xx := int(x - r); xx <= int(x+r+1); xx++ {
			if xx < 0 || yy < 0 || xx >= d.w || yy >= d.h {
				continue
			}
			if (float64(xx)-x)*(float64(xx)-x)+(float64(yy)-y)*(float64(yy)-y) > r*r {
				continue
			}
			i := yy*d.w + xx
			if d.face[i] {
				sum += float64(d.dist[i])
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func matchesPattern(face int, cells []int) bool {
	sort.Ints(cells)
	for _, p := range facePatterns[face] {
		q := append([]int(nil), p...)
		sort.Ints(q)
		same := true
		for i := range q {
			if q[i] != cells[i] {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

// erode shrinks a mask by r pixels (a square structuring element).
func erode(mask []bool, w, h, r int) []bool {
	// Separable: rows, then columns.
	tmp := make([]bool, len(mask))
	for y := 0; y < h; y++ {
		run := 0
		for x := 0; x < w; x++ {
			if mask[y*w+x] {
				run++
			} else {
				run = 0
			}
			// tmp at x-r is set when mask[x-2r..x] is all set.
			if run >= 2*r+1 && x-r >= 0 {
				tmp[y*w+x-r] = true
			}
		}
	}
	out := make([]bool, len(mask))
	for x := 0; x < w; x++ {
		run := 0
		for y := 0; y < h; y++ {
			if tmp[y*w+x] {
				run++
			} else {
				run = 0
			}
			if run >= 2*r+1 && y-r >= 0 {
				out[(y-r)*w+x] = true
			}
		}
	}
	return out
}

// findBlobs labels the 8-connected marks in mask; a mark touching a pixel
// outside face touches the border.
func findBlobs(mask, face []bool, dist []uint8, bgr []byte, t, w, h int) []blob {
	labels := make([]int32, w*h)
	var blobs []blob
	stack := make([]int, 0, 64)
	for i := range mask {
		if !mask[i] || labels[i] != 0 {
			continue
		}
		id := int32(len(blobs) + 1)
		x0, y0 := i%w, i/w
		b := blob{minX: x0, minY: y0, maxX: x0, maxY: y0}
		var sx, sy, sd, sq2 float64
		labels[i] = id
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			jx, jy := j%w, j/w
			b.area++
			sx += float64(jx)
			sy += float64(jy)
			sd += float64(dist[j])
			sq2 += sq(float64(bgr[3*j])) + sq(float64(bgr[3*j+1])) + sq(float64(bgr[3*j+2]))
			b.colour[0] += float64(bgr[3*j])
			b.colour[1] += float64(bgr[3*j+1])
			b.colour[2] += float64(bgr[3*j+2])
			if int(dist[j]) <= t {
				b.bodyLike++
			}
			b.pts = append(b.pts, point{float64(jx), float64(jy)})
			b.minX, b.maxX = min(b.minX, jx), max(b.maxX, jx)
			b.minY, b.maxY = min(b.minY, jy), max(b.maxY, jy)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					kx, ky := jx+dx, jy+dy
					if kx < 0 || ky < 0 || kx >= w || ky >= h {
						b.touchesBorder = true
						continue
					}
					k := ky*w + kx
					if !face[k] {
						b.touchesBorder = true
					}
					if mask[k] && labels[k] == 0 {
						labels[k] = id
						stack = append(stack, k)
					}
				}
			}
		}
		b.cx, b.cy = sx/float64(b.area), sy/float64(b.area)
		for c := range b.colour {
			b.colour[c] /= float64(b.area)
		}
		b.colourSpread = math.Sqrt(math.Max(0, sq2/float64(b.area)-sq(b.colour[0])-sq(b.colour[1])-sq(b.colour[2])))
		b.meanDist = sd / float64(b.area)
		b.holeArea = holeArea(labels, id, b, w)
		b.hullArea = pixelHullArea(b.pts)
		blobs = append(blobs, b)
	}
	return blobs
}

// pixelHullArea is the area of the convex hull of the pixels' squares.
func pixelHullArea(pts []point) float64 {
	ext := rowExtremes(pts)
	corners := make([]point, 0, 2*len(ext))
	for _, p := range ext {
		corners = append(corners,
			point{p.x - 0.5, p.y - 0.5}, point{p.x + 0.5, p.y - 0.5},
			point{p.x - 0.5, p.y + 0.5}, point{p.x + 0.5, p.y + 0.5})
	}
	hull := convexHull(corners)
	area := 0.0
	for i := range hull {
		a, b := hull[i], hull[(i+1)%len(hull)]
		area += a.x*b.y - b.x*a.y
	}
	return math.Abs(area) / 2
}

// holeArea counts the pixels inside blob id's bounding box that are not
// part of it and cannot reach the box's edge without crossing it.
func holeArea(labels []int32, id int32, b blob, stride int) int {
	w, h := b.w()+2, b.h()+2
	seen := make([]bool, w*h)
	// The box is padded by one pixel so the outside is one connected region.
	inside := func(x, y int) bool {
		ix, iy := x+b.minX-1, y+b.minY-1
		if ix < b.minX || iy < b.minY || ix > b.maxX || iy > b.maxY {
			return false
		}
		return labels[iy*stride+ix] == id
	}
	stack := []int{0}
	seen[0] = true
	outside := 0
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		outside++
		x, y := j%w, j/w
		for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			kx, ky := x+d[0], y+d[1]
			if kx < 0 || ky < 0 || kx >= w || ky >= h {
				continue
			}
			k := ky*w + kx
			if !seen[k] && !inside(kx, ky) {
				seen[k] = true
				stack = append(stack, k)
			}
		}
	}
	return w*h - outside - b.area
}

// otsu returns the threshold that best splits the histogram in two.
func otsu(hist []int, total int) int {
	if total == 0 {
		return 0
	}
	var sum float64
	for v, c := range hist {
		sum += float64(v * c)
	}
	var sumB, wB float64
	best, bestT := -1.0, 0
	for v, c := range hist {
		wB += float64(c)
		if wB == 0 {
			continue
		}
		wF := float64(total) - wB
		if wF == 0 {
			break
		}
		sumB += float64(v * c)
		mB := sumB / wB
		mF := (sum - sumB) / wF
		between := wB * wF * (mB - mF) * (mB - mF)
		if between > best {
			best, bestT = between, v
		}
	}
	return bestT
}

func sq(x float64) float64 { return x * x }

func clamp01(x float64) float64 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}
