package vision

import (
	"math"
	"sort"
)

// The scan finds dice the segmentation missed (a die in a cluster of
// touching dice the split cut badly, a white die on a white tray): it
// slides a die-sized window over the parts of the image no die covers
// yet, at the size of the dice already found, and keeps the windows the
// verifier reads as one face, very sure, at every turn.

// Scan thresholds, tuned on held-out images of the train/ split.
var (
	scanStep      = 0.25 // window step over the die's side
	scanCover     = 0.8  // a window within this many sides of a die is covered
	scanMinStd    = 18.0 // gray standard deviation a window's centre must have
	scanFirst     = 0.7  // one network's probability of a face, in one view, to look closer
	scanAlone     = 0.98 // probability (all views) for a scanned die to stand
	scanWorst     = 0.9  // ... in each view
	scanViews     = 8    // views of the closer look
	scanMinDice   = 3    // dice that must be found to know their size
	scanRulesBox  = 1.0  // side of the box the rules read, over the die's side
	scanMaxWindow = 4000 // windows read at most, so a busy image stays fast
)

// scanMissing returns the dice the verifier finds, very sure, where the
// segmentation found none. pix is the BGR image (w x h) the dice were
// read on, at scale times the original; dice and the returned dice are in
// the original's pixels. cands and segScale give the dice's outline size.
func (r *Reader) scanMissing(pix []byte, w, h int, scale float64, dice []Die, cands []candidate, segScale float64) []Die {
	if r.crop == nil {
		return nil
	}
	var sides []float64
	for _, c := range cands {
		if c.dieLike {
			sides = append(sides, c.side/segScale)
		}
	}
	if len(sides) < scanMinDice {
		return nil
	}
	sort.Float64s(sides)
	side := sides[len(sides)/2]
	if side < 12 {
		return nil
	}
	found := make([]point, len(dice))
	for i, d := range dice {
		found[i] = point{d.X * scale, d.Y * scale}
	}
	// The windows' contrast comes from a gray copy at about 12 pixels a
	// die: enough to tell bare table from anything on it, and cheap.
	f := max(1, int(side/12))
	gw, gh := w/f, h/f
	sum, sq := grayIntegrals(pix, w, f, gw, gh)
	stdAt := func(cx, cy, half float64) float64 {
		x0, y0 := max(int((cx-half)/float64(f)), 0), max(int((cy-half)/float64(f)), 0)
		x1, y1 := min(int((cx+half)/float64(f)), gw), min(int((cy+half)/float64(f)), gh)
		n := float64((x1 - x0) * (y1 - y0))
		if n <= 0 {
			return 0
		}
		at := func(t []float64) float64 {
			return t[y1*(gw+1)+x1] - t[y0*(gw+1)+x1] - t[y1*(gw+1)+x0] + t[y0*(gw+1)+x0]
		}
		m := at(sum) / n
		return math.Sqrt(math.Max(at(sq)/n-m*m, 0))
	}
	type hit struct {
		x, y, p float64
	}
	var hits []hit
	// The first look takes one network of the verifier: most windows are
	// table, and one network tells table from a die well enough.
	first := &verifier{Nets: r.crop.Nets[:1]}
	step := math.Max(side*scanStep, 2)
	margin := side * 0.5
	read := 0
scan:
	for cy := margin; cy <= float64(h)-margin; cy += step {
		for cx := margin; cx <= float64(w)-margin; cx += step {
			covered := false
			for _, f := range found {
				if math.Abs(f.x-cx) < scanCover*side && math.Abs(f.y-cy) < scanCover*side {
					covered = true
					break
				}
			}
			if covered || stdAt(cx, cy, side*0.35) < scanMinStd {
				continue
			}
			if read++; read > scanMaxWindow {
				break scan
			}
			cp := newCropPatch(pix, w, h, cx, cy, side)
			v := first.verify(cp, cx, cy, side, 0, 1)
			if v.class < 6 && v.p >= scanFirst {
				hits = append(hits, hit{cx, cy, v.p})
			}
		}
	}
	// A closer look at every hit, then non-maximum suppression: the
	// surest window of each die.
	type read3 struct {
		hit
		v cropVerdict
	}
	var sure []read3
	for _, c := range hits {
		cp := newCropPatch(pix, w, h, c.x, c.y, side)
		v := r.crop.verify(cp, c.x, c.y, side, 0, scanViews)
		if v.class < 6 && v.p >= scanAlone && v.worst >= scanWorst && rulesAgree(pix, w, h, c.x, c.y, side, v.class+1) {
			sure = append(sure, read3{c, v})
		}
	}
	sort.Slice(sure, func(i, j int) bool { return sure[i].v.p > sure[j].v.p })
	var out []Die
	for _, k := range sure {
		dup := false
		for _, d := range out {
			if math.Hypot(k.x-d.X*scale, k.y-d.Y*scale) < 0.7*side {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		d := Die{Face: k.v.class + 1, X: k.x / scale, Y: k.y / scale, Size: side / scale}
		d.Confidence = math.Round(k.v.p*0.9*1000) / 1000
		d.Uncertain = d.Confidence < r.opts.MinConfidence
		if d.Face == 1 && r.opts.StarDice {
			d.Star = true
		}
		r.applyView(&d)
		out = append(out, d)
	}
	return out
}

// rulesAgree reports that the rules count the marks the verifier read in
// the window of the given side around (cx, cy): a window straddling two
// dice shows the verifier marks of both, and the rules, which first find
// the face's body, do not count them.
func rulesAgree(pix []byte, w, h int, cx, cy, side float64, face int) bool {
	half := side * scanRulesBox / 2
	x0, y0 := max(int(cx-half), 0), max(int(cy-half), 0)
	x1, y1 := min(int(cx+half), w-1), min(int(cy+half), h-1)
	pw, ph := x1-x0+1, y1-y0+1
	if pw < 8 || ph < 8 {
		return false
	}
	p := patch{x0: x0, y0: y0, w: pw, h: ph, bgr: make([]byte, pw*ph*3), die: make([]bool, pw*ph)}
	for y := 0; y < ph; y++ {
		copy(p.bgr[y*pw*3:(y+1)*pw*3], pix[((y0+y)*w+x0)*3:((y0+y)*w+x1+1)*3])
	}
	for i := range p.die {
		p.die[i] = true
	}
	fr := readFace(p)
	return fr.face == face && !fr.star
}

// grayIntegrals returns the integral images ((gw+1) x (gh+1)) of the gray
// level, and of its square, of a BGR image w pixels wide sampled every f
// pixels.
func grayIntegrals(pix []byte, w, f, gw, gh int) (sum, sq []float64) {
	sum = make([]float64, (gw+1)*(gh+1))
	sq = make([]float64, (gw+1)*(gh+1))
	for y := 0; y < gh; y++ {
		var rs, rq float64
		for x := 0; x < gw; x++ {
			i := (y*f*w + x*f) * 3
			g := (float64(pix[i]) + float64(pix[i+1]) + float64(pix[i+2])) / 3
			rs += g
			rq += g * g
			sum[(y+1)*(gw+1)+x+1] = sum[y*(gw+1)+x+1] + rs
			sq[(y+1)*(gw+1)+x+1] = sq[y*(gw+1)+x+1] + rq
		}
	}
	return sum, sq
}

// scanEnabled switches the scan on.
var scanEnabled = true
