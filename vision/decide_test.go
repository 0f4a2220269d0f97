package vision

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// testBars are bars for the decision's tests, as reader.json holds them.
var testBars = Bars{Found: 0.5, Candidate: 0.3, Agreed: 0.6, Alone: 0.9, None: 0.5}

// probsFor returns class probabilities with p on class k and the rest
// spread evenly.
func probsFor(k int, p float64) [faceClasses]float64 {
	var out [faceClasses]float64
	for i := range out {
		out[i] = (1 - p) / (faceClasses - 1)
	}
	out[k] = p
	return out
}

// TestDecide checks the decision table: which reads are confident, which
// uncertain and why, and which places are dropped.
func TestDecide(t *testing.T) {
	sure := candidate{x: 100, y: 100, extent: 40, p: 0.9}
	doubted := candidate{x: 100, y: 100, extent: 40, p: 0.4}
	tiny := candidate{x: 100, y: 100, extent: 12, p: 0.9}
	for _, tc := range []struct {
		name       string
		opts       Options
		c          candidate
		probs      [faceClasses]float64
		pips       pipRead
		keep       bool
		face       int
		star       bool
		uncertain  bool
		wantReason string
	}{
		{"witnesses agree", Options{}, sure, probsFor(4, 0.7), pipRead{face: 5}, true, 5, false, false, ""},
		{"counter silent, network sure", Options{}, sure, probsFor(4, 0.95), pipRead{}, true, 5, false, false, ""},
		{"counter silent, network not sure enough alone", Options{}, sure, probsFor(4, 0.7), pipRead{}, true, 5, false, true, "the network is unsure"},
		{"counter disagrees", Options{}, sure, probsFor(4, 0.999), pipRead{face: 4}, true, 5, false, true, "the pip counter disagrees"},
		{"no die, finder sure", Options{}, sure, probsFor(classNone, 0.8), pipRead{}, false, 0, false, false, ""},
		{"likelier no die than a face, finder sure", Options{}, sure, func() [faceClasses]float64 {
			p := probsFor(3, 0.3)
			p[classNone] = 0.45
			return p
		}(), pipRead{}, true, 4, false, true, "no die, or not wholly seen"},
		{"no die, finder unsure", Options{}, doubted, probsFor(classNone, 0.8), pipRead{}, false, 0, false, false, ""},
		{"doubted place read confidently", Options{}, doubted, probsFor(2, 0.95), pipRead{face: 3}, true, 3, false, false, ""},
		{"doubted place not read confidently", Options{}, doubted, probsFor(2, 0.7), pipRead{}, false, 0, false, false, ""},
		{"cocked", Options{}, sure, probsFor(classUnreadable, 0.8), pipRead{}, true, 1, false, true, "cocked or half hidden"},
		{"too small", Options{}, tiny, probsFor(5, 0.99), pipRead{face: 6}, true, 6, false, true, "too small to read"},
		{"star, no hint", Options{}, sure, probsFor(classStar, 0.99), pipRead{}, true, 1, true, false, ""},
		{"star on plain dice", Options{PlainDice: true}, sure, probsFor(classStar, 0.99), pipRead{}, true, 1, false, true, "a star on plain dice"},
		{"plain dice: 1 and star add up", Options{PlainDice: true}, sure, func() [faceClasses]float64 {
			p := probsFor(0, 0.5)
			p[classStar] = 0.45
			return p
		}(), pipRead{}, true, 1, false, false, ""},
		{"star dice: 1 and star add up", Options{StarDice: true}, sure, func() [faceClasses]float64 {
			p := probsFor(0, 0.5)
			p[classStar] = 0.45
			return p
		}(), pipRead{face: 1}, true, 1, true, false, ""},
		{"plain 1 the counter confirms: the alone bar still applies", Options{}, sure, probsFor(0, 0.8), pipRead{face: 1}, true, 1, false, true, "the network is unsure"},
		{"plain 1 the counter confirms, network sure", Options{}, sure, probsFor(0, 0.95), pipRead{face: 1}, true, 1, false, false, ""},
		{"star the counter reads as a plain pip, no hint", Options{}, sure, probsFor(classStar, 0.8), pipRead{face: 1}, true, 1, true, true, "the pip counter disagrees"},
		{"star dice: a five-pointed mark agrees with the star", Options{StarDice: true}, sure, probsFor(classStar, 0.7), pipRead{face: 1, star: true}, true, 1, true, false, ""},
		{"star dice: a round mark leaves the star to the alone bar", Options{StarDice: true}, sure, probsFor(classStar, 0.7), pipRead{face: 1}, true, 1, true, true, "the network is unsure"},
		{"no hint: a five-pointed mark agrees, the alone bar applies", Options{}, sure, probsFor(classStar, 0.7), pipRead{face: 1, star: true}, true, 1, true, true, "the network is unsure"},
		{"no hint: a five-pointed mark against a plain 1", Options{}, sure, probsFor(0, 0.95), pipRead{face: 1, star: true}, true, 1, false, true, "the pip counter disagrees"},
		{"bottom view", Options{View: ViewBottom}, sure, probsFor(1, 0.99), pipRead{face: 2}, true, 5, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Reader{opts: tc.opts, bars: testBars}
			if r.opts.MinConfidence == 0 {
				r.opts.MinConfidence = DefaultMinConfidence
			}
			d, keep := r.decide(tc.c, tc.probs, tc.pips, false)
			if keep != tc.keep {
				t.Fatalf("kept %v; want %v (%v)", keep, tc.keep, d)
			}
			if !keep {
				return
			}
			if d.Face != tc.face || d.Star != tc.star || d.Uncertain != tc.uncertain || d.Reason != tc.wantReason {
				t.Errorf("got %v reason %q; want face %d star %v uncertain %v reason %q", d, d.Reason, tc.face, tc.star, tc.uncertain, tc.wantReason)
			}
			if !d.Uncertain && d.Confidence < DefaultMinConfidence {
				t.Errorf("confident die with confidence %v below %v", d.Confidence, DefaultMinConfidence)
			}
			if d.Net == nil {
				t.Error("no network opinion")
			}
		})
	}
}

// TestDecideMuchSmaller: a die far smaller than the frame's others (a
// big die's pip the finder took for a die) is in doubt however sure the
// classifier is, with the faces it may show; a place the finder doubts
// is then dropped, as any read in doubt there.
func TestDecideMuchSmaller(t *testing.T) {
	r := &Reader{opts: Options{MinConfidence: DefaultMinConfidence}, bars: testBars}
	pip := candidate{x: 100, y: 100, extent: 30, p: 0.9}
	d, keep := r.decide(pip, probsFor(0, 0.99), pipRead{face: 1}, true)
	// Its window shows a pip at most: it may be any face (the 1, the star
	// and five more), the likeliest first.
	if !keep || !d.Uncertain || d.Reason != ReasonMuchSmaller || d.Face != 1 || d.Confidence > 0.5 || len(d.Likely) != 7 || d.Likely[0].Face != 1 {
		t.Errorf("got %v reason %q likely %v; want a 1 in doubt, %q, every face listed", d, d.Reason, d.Likely, ReasonMuchSmaller)
	}
	pip.p = 0.4
	if d, keep := r.decide(pip, probsFor(0, 0.99), pipRead{face: 1}, true); keep {
		t.Errorf("got %v kept; want a doubted place in doubt dropped", d)
	}
}

// TestFrameDieSize: the median of the confident dice, from three of them.
func TestFrameDieSize(t *testing.T) {
	sure := func(size float64) Die { return Die{Size: size} }
	unsure := func(size float64) Die { return Die{Size: size, Uncertain: true} }
	for _, tc := range []struct {
		name string
		dice []Die
		want float64
		ok   bool
	}{
		{"none", nil, 0, false},
		{"two confident", []Die{sure(150), sure(160), unsure(30)}, 0, false},
		{"three confident", []Die{sure(150), sure(30), sure(160)}, 150, true},
		{"the doubts left out", []Die{sure(150), sure(160), sure(170), unsure(30), unsure(30), unsure(30)}, 160, true},
	} {
		got, ok := frameDieSize(tc.dice)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestConfidence maps each bar to DefaultMinConfidence and certainty to 1.
func TestConfidence(t *testing.T) {
	for _, tc := range []struct{ p, bar, want float64 }{
		{0.9, 0.9, DefaultMinConfidence}, {1, 0.9, 1}, {0.45, 0.9, 0.3}, {0.6, 0.6, DefaultMinConfidence},
	} {
		if got := confidence(tc.p, tc.bar); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("confidence(%v, %v) = %v; want %v", tc.p, tc.bar, got, tc.want)
		}
	}
}

// drawFace draws a die of the given face (plain pips) centred on (cx,
// cy), turned by angle degrees, side px square.
func drawFace(img *gocv.Mat, face int, cx, cy, side, angle float64, body, pip color.RGBA) {
	offsets := map[int][][2]float64{
		1: {{0, 0}}, 2: {{-1, -1}, {1, 1}}, 3: {{-1, -1}, {0, 0}, {1, 1}},
		4: {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}}, 5: {{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}},
		6: {{-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {1, 1}},
	}
	ca, sa := math.Cos(angle*math.Pi/180), math.Sin(angle*math.Pi/180)
	var corners []image.Point
	for _, c := range [][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		x, y := c[0]*side/2, c[1]*side/2
		corners = append(corners, image.Pt(int(cx+x*ca-y*sa), int(cy+x*sa+y*ca)))
	}
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{corners})
	gocv.FillPoly(img, pv, body)
	pv.Close()
	r := side * 0.09
	if face == 1 {
		r = side * 0.13
	}
	for _, o := range offsets[face] {
		x, y := o[0]*side*0.27, o[1]*side*0.27
		gocv.Circle(img, image.Pt(int(cx+x*ca-y*sa), int(cy+x*sa+y*ca)), int(r), pip, -1)
	}
}

// TestCountPips reads plain faces at several turns, sizes and colours,
// a blank square (nothing) and a foreshortened face.
func TestCountPips(t *testing.T) {
	type colours struct{ table, body, pip color.RGBA }
	sets := []colours{
		{color.RGBA{40, 110, 50, 255}, color.RGBA{240, 240, 235, 255}, color.RGBA{20, 20, 20, 255}},
		{color.RGBA{200, 200, 195, 255}, color.RGBA{180, 25, 30, 255}, color.RGBA{250, 250, 250, 255}},
		{color.RGBA{120, 80, 50, 255}, color.RGBA{20, 20, 25, 255}, color.RGBA{240, 200, 60, 255}},
	}
	for _, cs := range sets {
		for face := 0; face <= 6; face++ {
			for _, side := range []float64{24, 40} {
				for _, angle := range []float64{0, 20, 45} {
					img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(float64(cs.table.B), float64(cs.table.G), float64(cs.table.R), 0), 120, 120, gocv.MatTypeCV8UC3)
					if face == 0 {
						drawFace(&img, 4, 60, 60, side, angle, cs.body, cs.body) // a blank face
					} else {
						drawFace(&img, face, 60, 60, side, angle, cs.body, cs.pip)
					}
					gocv.GaussianBlur(img, &img, image.Pt(3, 3), 0.7, 0.7, gocv.BorderReplicate)
					extent := side * (math.Abs(math.Cos(angle*math.Pi/180)) + math.Abs(math.Sin(angle*math.Pi/180)))
					got := countPips(img, 60, 60, extent)
					img.Close()
					if got.face != face {
						t.Errorf("face %d, side %v, turned %v, %v pips on %v: counted %d; want %d", face, side, angle, cs.pip, cs.body, got.face, face)
					}
				}
			}
		}
	}
}
