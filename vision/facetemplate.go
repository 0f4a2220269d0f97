package vision

import (
	"errors"
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"
)

// FaceTemplate is one face of a table's dice as its calibration roll
// shows it: the grey top face. A table whose star is drawn in a way the
// reader does not know (an anchor, a sun, a house emblem) reads it once
// calibration has learned the templates of its faces.
type FaceTemplate struct {
	// Face is the face shown, 1 (the star on star dice) to 6.
	Face int `json:"face"`
	// Side is the template's side in cells; Cells are its grey levels, row
	// by row.
	Side  int     `json:"side"`
	Cells []uint8 `json:"cells"`
}

const (
	templateSide = 32
	// templateRadius is the share of the side compared: the circle inside
	// the die's face, whatever the die's turn.
	templateRadius = 0.42
	templateTurns  = 36
	// DefaultStarMatch is how alike (correlation) a face and the star's
	// template must be for the face to be read as the star.
	DefaultStarMatch = 0.72
	// starMargin is how much better the star's template must fit than any
	// other face's.
	starMargin = 0.08
)

// LearnFaceTemplate takes the template of face from die d of img, a die
// showing that face.
func LearnFaceTemplate(img gocv.Mat, d Die, face int) (FaceTemplate, error) {
	if face < 1 || face > 6 {
		return FaceTemplate{}, fmt.Errorf("vision: no face %d", face)
	}
	cells, err := facePatch(img, d)
	if err != nil {
		return FaceTemplate{}, err
	}
	return FaceTemplate{Face: face, Side: templateSide, Cells: cells}, nil
}

// facePatch samples the grey face of die d, templateSide cells square.
func facePatch(img gocv.Mat, d Die) ([]uint8, error) {
	if img.Empty() {
		return nil, errors.New("vision: empty image")
	}
	half := d.Size / 2
	r := image.Rect(int(d.X-half), int(d.Y-half), int(math.Ceil(d.X+half)), int(math.Ceil(d.Y+half)))
	if d.Size < 8 || !r.In(image.Rect(0, 0, img.Cols(), img.Rows())) {
		return nil, fmt.Errorf("vision: die %v is too small or not wholly in the image", d)
	}
	crop := img.Region(r)
	defer crop.Close()
	gray := gocv.NewMat()
	defer gray.Close()
	Gray(crop, &gray)
	small := gocv.NewMat()
	defer small.Close()
	gocv.Resize(gray, &small, image.Pt(templateSide, templateSide), 0, 0, gocv.InterpolationArea)
	return append([]uint8(nil), small.ToBytes()...), nil
}

// FaceMatcher compares dice faces with a table's face templates.
type FaceMatcher struct {
	faces  []int
	turned [][][]float64 // per template, per turn: the masked cells, standardised
	mask   []int
}

// NewFaceMatcher prepares templates for matching: each is turned through a
// full circle in advance, so matching a face costs a few thousand
// multiplications a template. It needs a template of the star (face 1).
func NewFaceMatcher(templates []FaceTemplate) (*FaceMatcher, error) {
	m := &FaceMatcher{}
	c := float64(templateSide-1) / 2
	for y := 0; y < templateSide; y++ {
		for x := 0; x < templateSide; x++ {
			if math.Hypot(float64(x)-c, float64(y)-c) <= templateRadius*templateSide {
				m.mask = append(m.mask, y*templateSide+x)
			}
		}
	}
	star := false
	for i, t := range templates {
		if t.Side != templateSide || len(t.Cells) != templateSide*templateSide || t.Face < 1 || t.Face > 6 {
			return nil, fmt.Errorf("vision: face template %d (face %d) is %d cells of side %d; want side %d", i+1, t.Face, len(t.Cells), t.Side, templateSide)
		}
		star = star || t.Face == 1
		var turns [][]float64
		for k := range templateTurns {
			a := 2 * math.Pi * float64(k) / templateTurns
			ca, sa := math.Cos(a), math.Sin(a)
			v := make([]float64, len(m.mask))
			for j, idx := range m.mask {
				x, y := float64(idx%templateSide)-c, float64(idx/templateSide)-c
				v[j] = bilinear(t.Cells, templateSide, templateSide, c+x*ca-y*sa, c+x*sa+y*ca)
			}
			if !standardise(v) {
				return nil, fmt.Errorf("vision: face template %d is blank", i+1)
			}
			turns = append(turns, v)
		}
		m.turned = append(m.turned, turns)
		m.faces = append(m.faces, t.Face)
	}
	if !star {
		return nil, errors.New("vision: the face templates have no star (face 1)")
	}
	return m, nil
}

// Match returns, for each face 1 to 6, how alike die d's face in img is to
// that face's templates (index 0 unused; -1 to 1, the absolute correlation
// at the best turn, so light artwork on a dark die matches dark on light).
func (m *FaceMatcher) Match(img gocv.Mat, d Die) ([7]float64, error) {
	var best [7]float64
	cells, err := facePatch(img, d)
	if err != nil {
		return best, err
	}
	v := make([]float64, len(m.mask))
	for j, idx := range m.mask {
		v[j] = float64(cells[idx])
	}
	if !standardise(v) {
		return best, nil // a blank face is like none
	}
	for k, turns := range m.turned {
		f := m.faces[k]
		for _, t := range turns {
			var dot float64
			for j := range v {
				dot += v[j] * t[j]
			}
			best[f] = math.Max(best[f], math.Abs(dot)/float64(len(v)))
		}
	}
	return best, nil
}

// Recheck reads every die of img again against the templates. A face that
// fits the star's template (at least threshold, and clearly better than
// any other face's) is the star when the reader saw the star, a 1 or could
// not tell; when the reader read another face confidently the two
// disagree, and the die is flagged uncertain. A die the reader took for
// the star that clearly fits another face's template is flagged too.
func (m *FaceMatcher) Recheck(img gocv.Mat, dice []Die, threshold float64) []Die {
	out := make([]Die, len(dice))
	for i, d := range dice {
		out[i] = d
		sc, err := m.Match(img, d)
		if err != nil {
			continue
		}
		other := max(sc[2], sc[3], sc[4], sc[5], sc[6])
		switch {
		case sc[1] >= threshold && sc[1] >= other+starMargin:
			if d.Star || d.Uncertain || d.Face == 1 {
				out[i].Face, out[i].Star, out[i].Uncertain = 1, true, false
				out[i].Confidence = math.Max(d.Confidence, sc[1])
			} else {
				out[i].Uncertain = true
				out[i].Confidence = math.Min(d.Confidence, 1-sc[1])
			}
		case d.Star && !d.Uncertain && other >= threshold && other >= sc[1]+starMargin:
			out[i].Uncertain = true
			out[i].Confidence = math.Min(d.Confidence, 1-other)
		}
	}
	return out
}

// standardise makes v zero-mean and unit-variance; it reports false when v
// is flat.
func standardise(v []float64) bool {
	var mean, sq float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for i := range v {
		v[i] -= mean
		sq += v[i] * v[i]
	}
	sd := math.Sqrt(sq / float64(len(v)))
	if sd < 1e-6 {
		return false
	}
	for i := range v {
		v[i] /= sd
	}
	return true
}

// Gray writes img (gray, BGR or BGRA, as gocv reads images) to dst as one
// grey channel.
func Gray(img gocv.Mat, dst *gocv.Mat) {
	switch img.Channels() {
	case 1:
		img.CopyTo(dst)
	case 4:
		gocv.CvtColor(img, dst, gocv.ColorBGRAToGray)
	default:
		gocv.CvtColor(img, dst, gocv.ColorBGRToGray)
	}
}

// bilinear samples m (w x h, one byte a cell) at (x, y) between cells; 0
// off the grid.
func bilinear(m []uint8, w, h int, x, y float64) float64 {
	if x < 0 || y < 0 || x > float64(w-1) || y > float64(h-1) {
		return 0
	}
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := x-float64(x0), y-float64(y0)
	a := float64(m[y0*w+x0])*(1-fx) + float64(m[y0*w+x1])*fx
	b := float64(m[y1*w+x0])*(1-fx) + float64(m[y1*w+x1])*fx
	return a*(1-fy) + b*fy
}
