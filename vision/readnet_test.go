package vision

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gocv.io/x/gocv"
)

// TestEmbeddedLearnedModels checks the committed finder and face network
// load and fit their inputs.
func TestEmbeddedLearnedModels(t *testing.T) {
	if defaultLearned == nil {
		_, err := parseLearned(finderJSON, faceNetJSON)
		t.Fatalf("vision/model/finder.json or facenet.json did not load (%v); run liarsd readtrain", err)
	}
	if n := len(defaultLearned.faces.Nets); n < 1 {
		t.Errorf("%d face networks; want at least 1", n)
	}
}

// TestTrainLearned trains a tiny finder and face network on two rendered
// tables: training must run, be reproducible, and write weights that
// LoadModels accepts.
func TestTrainLearned(t *testing.T) {
	train := func() ([]byte, []byte) {
		var f, n bytes.Buffer
		o := TrainOptions{Synthetic: 2, SyntheticSeed: 5, Render: renderForTest, FinderEpochs: 1, FaceNetEpochs: 1, FaceNets: 2, Seed: 3}
		if err := TrainLearned(context.Background(), o, &f, &n); err != nil {
			t.Fatal(err)
		}
		return f.Bytes(), n.Bytes()
	}
	f1, n1 := train()
	f2, n2 := train()
	if !bytes.Equal(f1, f2) || !bytes.Equal(n1, n2) {
		t.Error("two trainings with the same seeds gave different weights")
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"finder.json": f1, "facenet.json": n1, "face.json": faceModelJSON} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := LoadModels(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.learned.faces.Nets); got != 2 {
		t.Errorf("%d face networks; want 2", got)
	}
	img, _, _ := renderForTest(9)
	defer img.Close()
	if _, err := NewReader(Options{Models: m}).Read(img); err != nil {
		t.Errorf("reading with retrained models: %v", err)
	}
	if err := TrainLearned(context.Background(), TrainOptions{}, &bytes.Buffer{}, nil); err == nil {
		t.Error("training on nothing: got no error")
	}
	if _, err := LoadModels(t.TempDir()); err == nil {
		t.Error("LoadModels of an empty folder: got no error")
	}
}

// TestFinderExampleGeometry checks that a training crop's targets sit on
// its dice however the crop was mirrored and turned: each target cell is
// on a bright die in the crop's input.
func TestFinderExampleGeometry(t *testing.T) {
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(40, 40, 40, 0), 300, 400, gocv.MatTypeCV8UC3)
	defer img.Close()
	labels := []Label{}
	for _, c := range [][2]int{{100, 80}, {260, 200}, {150, 220}} {
		gocv.Rectangle(&img, image.Rect(c[0]-20, c[1]-20, c[0]+20, c[1]+20), color.RGBA{250, 250, 250, 255}, -1)
		labels = append(labels, Label{Face: 1, Box: Box{float64(c[0] - 20), float64(c[1] - 20), float64(c[0] + 20), float64(c[1] + 20)}})
	}
	table, err := newTrainTable(img, labels, true)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 3*finderCrop*finderCrop)
	g := finderCrop / finderStride
	peaks := 0
	for k := 0; k < 40; k++ {
		tgt, err := finderExample(&table, rng, x)
		if err != nil {
			t.Fatal(err)
		}
		for cell, on := range tgt.peak {
			if !on {
				continue
			}
			peaks++
			u := (float64(cell%g)+float64(tgt.offX[cell]))*finderStride + 1.5
			v := (float64(cell/g)+float64(tgt.offY[cell]))*finderStride + 1.5
			px := int(math.Round(u))*1 + int(math.Round(v))*finderCrop
			if x[px] < 0.5 {
				t.Fatalf("crop %d: target at (%.1f, %.1f) is on the table (input %.2f), not on a die", k, u, v, x[px])
			}
			if s := finderDie * math.Exp(float64(tgt.logSize[cell])); s < 6 || s > 16 {
				t.Errorf("crop %d: die side %.1f px in the finder's input; want about %v", k, s, finderDie)
			}
		}
	}
	if peaks < 20 {
		t.Errorf("%d targets in 40 crops; want most crops to hold a die", peaks)
	}
}

// TestFinderPeaks checks how the finder's output becomes candidates: local
// maxima above finderPeak, moved by their offsets, with their sizes.
func TestFinderPeaks(t *testing.T) {
	const gw, gh = 6, 5
	plane := gw * gh
	out := make([]float32, 4*plane)
	for i := 0; i < plane; i++ {
		out[i] = -5
	}
	set := func(x, y int, heat, logSize, dx, dy float32) {
		k := y*gw + x
		out[k], out[plane+k], out[2*plane+k], out[3*plane+k] = heat, logSize, dx, dy
	}
	set(1, 1, 3, 0, 0.25, -0.25)
	set(2, 1, 1, 0, 0, 0) // beside a stronger peak: not one
	set(4, 3, 0.5, float32(math.Log(1.5)), 0, 0)
	set(0, 4, -2, 0, 0, 0) // below finderPeak
	got := finderPeaks(out, gh, gw)
	if len(got) != 2 {
		t.Fatalf("got %d peaks %v; want 2", len(got), got)
	}
	if got[0].x != 1.25 || got[0].y != 0.75 || got[0].size != finderDie {
		t.Errorf("first peak %+v; want (1.25, 0.75) of side %v", got[0], finderDie)
	}
	if math.Abs(got[1].size-1.5*finderDie) > 1e-5 || got[1].score < 0.6 {
		t.Errorf("second peak %+v; want side %v, score sigmoid(0.5)", got[1], 1.5*finderDie)
	}
}

// TestDieAngle checks the die's turn is found from its outline, modulo a
// quarter turn, whatever the pips.
func TestDieAngle(t *testing.T) {
	for _, deg := range []float64{0, 12, 30, 44, -20} {
		img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(200, 200, 200, 0), 120, 120, gocv.MatTypeCV8UC3)
		var corners []image.Point
		for k := 0; k < 4; k++ {
			a := deg*math.Pi/180 + math.Pi/4 + float64(k)*math.Pi/2
			corners = append(corners, image.Pt(60+int(math.Round(35.36*math.Cos(a))), 60+int(math.Round(35.36*math.Sin(a)))))
		}
		pts := gocv.NewPointsVectorFromPoints([][]image.Point{corners})
		gocv.FillPoly(&img, pts, color.RGBA{30, 30, 120, 255})
		pts.Close()
		gocv.Circle(&img, image.Pt(60, 60), 5, color.RGBA{250, 250, 250, 255}, -1)
		pix, _ := img.DataPtrUint8()
		got := dieAngle(pix, 120, 120, 60, 60, 50) * 180 / math.Pi
		diff := math.Mod(math.Abs(got-deg)+45, 90) - 45
		if math.Abs(diff) > 4 {
			t.Errorf("die turned %v°: got %.1f° (off by %.1f° modulo 90°)", deg, got, diff)
		}
		img.Close()
	}
}

// TestTurnWindow checks that four quarter turns give the window back, that
// one moves a corner where it should, and that the mirrored views do too.
func TestTurnWindow(t *testing.T) {
	const g = faceNetGrid
	src := make([]float32, 3*g*g)
	for i := range src {
		src[i] = float32(i)
	}
	a, b := make([]float32, len(src)), make([]float32, len(src))
	turnWindow(src, a, 1)
	turnWindow(a, b, 3)
	for i := range src {
		if b[i] != src[i] {
			t.Fatalf("one turn then three: cell %d is %v; want %v", i, b[i], src[i])
		}
	}
	// (x, y) of the result reads (y, g-1-x) of the source.
	if got, want := a[0], src[(g-1)*g]; got != want {
		t.Errorf("top left after a turn: got %v; want %v (the source's bottom left)", got, want)
	}
	// Mirrored: (x, y) reads (g-1-x, y); mirrored twice is the source.
	turnWindow(src, a, 4)
	if got, want := a[0], src[g-1]; got != want {
		t.Errorf("top left mirrored: got %v; want %v (the source's top right)", got, want)
	}
	turnWindow(a, b, 4)
	if !slices.Equal(b, src) {
		t.Error("mirrored twice is not the source")
	}
	// Every view differs from the others on an asymmetric window.
	seen := map[[2]float32]int{}
	for k := 0; k < 8; k++ {
		turnWindow(src, a, k)
		first := [2]float32{a[0], a[1]}
		if j, dup := seen[first]; dup {
			t.Errorf("views %d and %d start with the same cells", j, k)
		}
		seen[first] = k
	}
}

// TestDecide checks how the learned read's opinions become a die.
func TestDecide(t *testing.T) {
	verdict := func(class int, p, worst float64) faceVerdict {
		v := faceVerdict{class: class, p: p, worst: worst}
		v.probs[class] = p
		rest := (1 - p) / (faceNetClasses - 1)
		for c := range v.probs {
			if c != class {
				v.probs[c] = rest
			}
		}
		return v
	}
	agreed := func(class int, p, worst, agree float64) faceVerdict {
		v := verdict(class, p, worst)
		v.agree = agree
		return v
	}
	// clean is a read agreed by frac of the views whose probability of
	// "unreadable" is tiny: no sign of a cocked or hidden die.
	clean := func(class int, p, worst, frac float64) faceVerdict {
		v := agreed(class, p, worst, frac)
		v.probs[classNotADie] += v.probs[classUnreadable] - 0.002
		v.probs[classUnreadable] = 0.002
		return v
	}
	rules := func(face int, star, uncertain bool) *rulesRead {
		return &rulesRead{Die: Die{Face: face, Star: star, Uncertain: uncertain, Confidence: 0.9}, shape: 1}
	}
	tests := []struct {
		name      string
		opts      Options
		o         netOpinion
		ok        bool
		face      int
		star      bool
		uncertain bool
	}{
		{"sure five", Options{}, netOpinion{net: verdict(4, 0.99, 0.95), finder: true}, true, 5, false, false},
		{"sure five, too small to read", Options{}, netOpinion{net: verdict(4, 0.99, 0.95), finder: true, size: 15}, true, 5, false, true},
		{"sure five, its face too small to read", Options{}, netOpinion{net: verdict(4, 0.99, 0.95), finder: true, size: 20, rules: &rulesRead{Die: Die{Face: 5, X: 0, Y: 0, Size: 15, Confidence: 0.9}, shape: 1}}, true, 5, false, true},
		{"sure five, rules agree", Options{}, netOpinion{net: verdict(4, 0.99, 0.95), rules: rules(5, false, false), finder: true}, true, 5, false, false},
		{"sure five, rules sure of a six", Options{}, netOpinion{net: verdict(4, 0.99, 0.95), rules: rules(6, false, false), finder: true}, true, 5, false, true},
		{"five in every view, rules sure of a six", Options{}, netOpinion{net: verdict(4, 0.99, 0.98), rules: rules(6, false, false), finder: true}, true, 5, false, false},
		{"sure five, rules unsure of a six", Options{}, netOpinion{net: verdict(4, 0.99, 0.95), rules: rules(6, false, true), finder: true}, true, 5, false, false},
		{"unsure", Options{}, netOpinion{net: verdict(2, 0.7, 0.5), finder: true}, true, 3, false, true},
		{"fair five, the rules sure of it", Options{}, netOpinion{net: verdict(4, 0.7, 0.3), rules: rules(5, false, false), finder: true}, true, 5, false, false},
		{"fair five, the rules' unsure guess too", Options{}, netOpinion{net: verdict(4, 0.7, 0.3), rules: rules(5, false, true), finder: true}, true, 5, false, false},
		{"weak five, the rules' unsure guess too", Options{}, netOpinion{net: verdict(4, 0.45, 0.3), rules: rules(5, false, true), finder: true}, true, 5, false, true},
		{"weak five, the rules sure of it", Options{}, netOpinion{net: verdict(4, 0.35, 0.2), rules: rules(5, false, false), finder: true}, true, 5, false, true},
		{"fair five, the rules sure of it, a strict threshold", Options{MinConfidence: 0.95}, netOpinion{net: verdict(4, 0.7, 0.3), rules: rules(5, false, false), finder: true}, true, 5, false, true},
		{"a fair three most views put first, the rules unsure of a lone mark", Options{}, netOpinion{net: agreed(2, 0.78, 0.05, 0.75), rules: rules(1, false, true), finder: true}, true, 3, false, false},
		{"a fair three half the views put first, the rules unsure of a lone mark", Options{}, netOpinion{net: agreed(2, 0.78, 0.05, 0.5), rules: rules(1, false, true), finder: true}, true, 3, false, true},
		{"a weak three most views put first, the rules unsure of a lone mark", Options{}, netOpinion{net: agreed(2, 0.72, 0.05, 0.75), rules: rules(1, false, true), finder: true}, true, 3, false, true},
		{"a fair three most views put first, the rules unsure of a 2", Options{}, netOpinion{net: agreed(2, 0.78, 0.05, 0.75), rules: rules(2, false, true), finder: true}, true, 3, false, true},
		{"a fair three most views put first, the rules sure of a 1", Options{}, netOpinion{net: agreed(2, 0.78, 0.05, 0.75), rules: rules(1, false, false), finder: true}, true, 3, false, true},
		{"a fair three most views put first, no rules", Options{}, netOpinion{net: agreed(2, 0.78, 0.05, 0.75), finder: true}, true, 3, false, true},
		{"a fair three most views put first, no sign of a cocked die", Options{}, netOpinion{net: clean(2, 0.78, 0.05, 0.75), finder: true}, true, 3, false, false},
		{"a fair three most views put first, no sign of a cocked die, the rules unsure of a 2", Options{}, netOpinion{net: clean(2, 0.78, 0.05, 0.75), rules: rules(2, false, true), finder: true}, true, 3, false, false},
		{"a fair three half the views put first, no sign of a cocked die", Options{}, netOpinion{net: clean(2, 0.78, 0.05, 0.5), finder: true}, true, 3, false, true},
		{"a weak three most views put first, no sign of a cocked die", Options{}, netOpinion{net: clean(2, 0.72, 0.05, 0.75), finder: true}, true, 3, false, true},
		{"a fair three most views put first, no sign of a cocked die, the rules sure of a 2", Options{}, netOpinion{net: clean(2, 0.78, 0.05, 0.75), rules: rules(2, false, false), finder: true}, true, 3, false, true},
		{"a fair three most views put first, no sign of a cocked die, the rules see it cocked", Options{}, netOpinion{net: clean(2, 0.78, 0.05, 0.75), rules: &rulesRead{Die: Die{Face: 3, Uncertain: true}, shape: 0.2}, finder: true}, true, 3, false, true},
		{"sure on average, not in one view", Options{}, netOpinion{net: verdict(2, 0.95, 0.1), finder: true}, true, 3, false, true},
		{"not a die", Options{}, netOpinion{net: verdict(classNotADie, 0.95, 0.9), finder: true, score: 0.65}, false, 0, false, false},
		{"not a die, the finder certain of one", Options{}, netOpinion{net: verdict(classNotADie, 0.95, 0.9), finder: true, score: 0.9}, true, 0, false, true},
		{"likely not a die, the finder unsure", Options{}, netOpinion{net: verdict(classNotADie, 0.5, 0.3), finder: true, score: 0.3}, false, 0, false, false},
		{"an unsure read the finder is unsure of", Options{}, netOpinion{net: verdict(2, 0.7, 0.5), finder: true, score: 0.3}, false, 0, false, false},
		{"a sure read the finder is unsure of", Options{}, netOpinion{net: verdict(2, 0.99, 0.95), finder: true, score: 0.3}, true, 3, false, false},
		{"likely not a die, the finder sure", Options{}, netOpinion{net: verdict(classNotADie, 0.5, 0.3), finder: true, score: 0.9}, true, 0, false, true},
		{"cocked", Options{}, netOpinion{net: verdict(classUnreadable, 0.9, 0.9), finder: true}, true, 0, false, true},
		{"star alone", Options{}, netOpinion{net: verdict(classStar, 0.99, 0.99), finder: true}, true, 1, true, true},
		{"star, the rules' unsure guess too", Options{}, netOpinion{net: verdict(classStar, 0.99, 0.99), rules: rules(1, true, true), finder: true}, true, 1, true, true},
		{"star, rules agree", Options{}, netOpinion{net: verdict(classStar, 0.99, 0.99), rules: rules(1, true, false), finder: true}, true, 1, true, false},
		{"a sure five on a die the rules see cocked", Options{}, netOpinion{net: verdict(4, 0.85, 0.3), rules: &rulesRead{Die: Die{Face: 5, Uncertain: true}, shape: 0.2}, finder: true}, true, 5, false, true},
		{"a sure five where the rules find no face", Options{}, netOpinion{net: verdict(4, 0.85, 0.3), rules: &rulesRead{Die: Die{Uncertain: true}, shape: 0.9}, finder: true}, true, 5, false, true},
		{"a certain five on a die the rules see cocked", Options{}, netOpinion{net: verdict(4, 0.9, 0.5), rules: &rulesRead{Die: Die{Face: 5, Uncertain: true}, shape: 0.2}, finder: true}, true, 5, false, false},
		{"a certain five where the rules find no face", Options{}, netOpinion{net: verdict(4, 0.99, 0.95), rules: &rulesRead{Die: Die{Uncertain: true}, shape: 0.9}, finder: true}, true, 5, false, false},
		{"a certain five on a die the rules see cocked and read as a six", Options{}, netOpinion{net: verdict(4, 0.99, 0.95), rules: &rulesRead{Die: Die{Face: 6}, shape: 0.2}, finder: true}, true, 5, false, true},
		{"five in every view on a die the rules see cocked and read as a six", Options{}, netOpinion{net: verdict(4, 0.99, 0.98), rules: &rulesRead{Die: Die{Face: 6}, shape: 0.2}, finder: true}, true, 5, false, false},
		{"a sure 1, no rules", Options{}, netOpinion{net: verdict(0, 0.85, 0.3), finder: true}, true, 1, false, true},
		{"a certain 1, no rules", Options{}, netOpinion{net: verdict(0, 0.9, 0.5), finder: true}, true, 1, false, false},
		{"a certain 1, the rules unsure of a 2", Options{}, netOpinion{net: verdict(0, 0.99, 0.95), rules: rules(2, false, true), finder: true}, true, 1, false, false},
		{"a certain 1, the rules see a star", Options{}, netOpinion{net: verdict(0, 0.99, 0.95), rules: rules(1, true, true), finder: true}, true, 1, false, true},
		{"a sure 1, the rules agree", Options{}, netOpinion{net: verdict(0, 0.99, 0.95), rules: rules(1, false, false), finder: true}, true, 1, false, false},
		{"a sure 1, plain dice", Options{PlainDice: true}, netOpinion{net: verdict(0, 0.99, 0.95), finder: true}, true, 1, false, false},
		{"star dice: the 1 is the star", Options{StarDice: true}, netOpinion{net: verdict(0, 0.99, 0.99), finder: true}, true, 1, true, false},
		{"plain dice: a star is a doubt", Options{PlainDice: true}, netOpinion{net: verdict(classStar, 0.99, 0.99), rules: rules(1, true, false), finder: true}, true, 1, false, true},
		{"region only, sure", Options{}, netOpinion{net: verdict(1, 0.99, 0.99)}, true, 2, false, false},
		{"region only, fair, the rules agree", Options{}, netOpinion{net: verdict(1, 0.8, 0.5), rules: rules(2, false, true)}, true, 2, false, false},
		{"region only, not sure enough", Options{}, netOpinion{net: verdict(1, 0.7, 0.5), rules: rules(2, false, true)}, false, 0, false, false},
		{"bottom view", Options{View: ViewBottom}, netOpinion{net: verdict(1, 0.99, 0.99), finder: true}, true, 5, false, false},
	}
	for _, tt := range tests {
		r := NewReader(tt.opts)
		if tt.o.finder && tt.o.score == 0 {
			tt.o.score = 0.9 // the finder sure of a die, unless the case says
		}
		if tt.o.size == 0 {
			tt.o.size = 40 // a die of a readable size, unless the case says
		}
		d, ok := r.decide(tt.o)
		if ok != tt.ok {
			t.Errorf("%s: ok = %v; want %v", tt.name, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if tt.face != 0 && (d.Face != tt.face || d.Star != tt.star) {
			t.Errorf("%s: got face %d star %v; want %d star %v", tt.name, d.Face, d.Star, tt.face, tt.star)
		}
		if d.Uncertain != tt.uncertain {
			t.Errorf("%s: uncertain = %v; want %v", tt.name, d.Uncertain, tt.uncertain)
		}
		if d.Uncertain != (d.Confidence < r.opts.MinConfidence) {
			t.Errorf("%s: confidence %.3f disagrees with uncertain = %v (threshold %v)", tt.name, d.Confidence, d.Uncertain, r.opts.MinConfidence)
		}
	}
}

// TestDecidePlace checks where a die is reported: at the rules' top face
// when it is the finder's die, at the finder's centre when the rules' face
// lies between two dice the segmentation ran together or is not the die's
// size.
func TestDecidePlace(t *testing.T) {
	var sure faceVerdict
	sure.class, sure.p, sure.worst, sure.agree = 2, 1, 1, 1
	sure.probs[2] = 1
	rulesAt := func(x, y, size float64) *rulesRead {
		return &rulesRead{Die: Die{Face: 3, X: x, Y: y, Size: size, Confidence: 0.9}, shape: 1}
	}
	for _, tc := range []struct {
		name       string
		rules      *rulesRead
		x, y, size float64
	}{
		{"the top face, near the finder's centre", rulesAt(104, 97, 34), 104, 97, 34},
		{"a face between two dice", rulesAt(102, 117, 42), 100, 100, 40},
		{"a region far smaller than the die", rulesAt(101, 101, 20), 100, 100, 40},
		{"no region", nil, 100, 100, 40},
	} {
		o := netOpinion{x: 100, y: 100, size: 40, finder: true, score: 0.9, net: sure, rules: tc.rules}
		d, ok := NewReader(Options{}).decide(o)
		if !ok {
			t.Errorf("%s: not reported", tc.name)
			continue
		}
		if d.X != tc.x || d.Y != tc.y || d.Size != tc.size {
			t.Errorf("%s: got (%v, %v) size %v; want (%v, %v) size %v", tc.name, d.X, d.Y, d.Size, tc.x, tc.y, tc.size)
		}
	}
}

// TestConsistentSizes checks that a die far from the others' size is
// dropped when the finder was unsure of it and flagged otherwise, and that
// the sizes compared are the finder's, not the reported face's.
func TestConsistentSizes(t *testing.T) {
	r := NewReader(Options{})
	sure := func(face int, size, score, seen float64) foundDie {
		return foundDie{Die{Face: face, Size: size, Confidence: 0.9}, score, seen}
	}
	found := []foundDie{
		sure(2, 40, 0.9, 40), sure(3, 42, 0.9, 42), sure(4, 38, 0.9, 38),
		sure(1, 18, 0.3, 18), // a speck, the finder unsure
		sure(5, 80, 0.9, 80), // twice the size, the finder sure
		sure(6, 24, 0.9, 41), // the rules' top face: smaller than the finder's box
	}
	got := r.consistentSizes(found)
	if len(got) != 5 {
		t.Fatalf("got %d dice %v; want 5 (the speck dropped)", len(got), got)
	}
	if !got[3].Uncertain || got[3].Face != 5 {
		t.Errorf("the outsized die: got %v; want it flagged uncertain", got[3])
	}
	for _, i := range []int{0, 1, 2, 4} {
		if got[i].Uncertain {
			t.Errorf("die %v of the common size flagged uncertain", got[i])
		}
	}
	if got[4].Size != 24 {
		t.Errorf("the die with its top face isolated: got size %v; want 24 (reported as read)", got[4].Size)
	}
}

// TestFinderScales checks the finder finds the dice at their size whether
// it is known, guessed, or hinted wrong (a hint from specks).
func TestFinderScales(t *testing.T) {
	if defaultLearned == nil {
		t.Skip("no embedded finder")
	}
	img, truth, err := renderForTest(4)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	f := newFinder(defaultLearned.finder)
	for _, tc := range []struct {
		name          string
		dieSize, hint float64
	}{{"known size", 48, 0}, {"unknown size", 0, 0}, {"a hint from specks", 0, 0.5}, {"a hint far too large", 0, 300}} {
		c, err := f.find(img, tc.dieSize, tc.hint)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		found := 0
		for _, d := range truth {
			for _, k := range c {
				if k.score >= 0.5 && math.Hypot(k.x-d.X, k.y-d.Y) < d.Size/3 && math.Abs(k.size/d.Size-1) < 0.3 {
					found++
					break
				}
			}
		}
		if found != len(truth) {
			t.Errorf("%s: found %d of %d dice at their place and size: %+v", tc.name, found, len(truth), c)
		} else {
			t.Logf("%s: %+v", tc.name, c)
		}
		// The second look for smaller dice must not find a die twice.
		for i, a := range c {
			for _, b := range c[i+1:] {
				if sameDie(a, b) {
					t.Errorf("%s: candidates %+v and %+v are one die found twice", tc.name, a, b)
				}
			}
		}
	}
}

// TestMergeLooks checks which of the second look's candidates are kept:
// only those no first-look candidate stands for.
func TestMergeLooks(t *testing.T) {
	first := []finderCandidate{{x: 100, y: 100, size: 40, score: 0.9}, {x: 200, y: 100, size: 40, score: 0.8}}
	for _, tc := range []struct {
		name   string
		second []finderCandidate
		want   int // candidates after the merge
	}{
		{"nothing more", nil, 2},
		{"the same dice seen again", []finderCandidate{{x: 104, y: 97, size: 32, score: 0.9}, {x: 190, y: 110, size: 30, score: 0.7}}, 2},
		{"a small die between them", []finderCandidate{{x: 150, y: 100, size: 30, score: 0.6}}, 3},
		// 18 px from the centre of a die of 40 px: inside its square,
		// though farther than most of its own 24 px (a pip of that die).
		{"a pip of a found die", []finderCandidate{{x: 118, y: 100, size: 24, score: 0.5}}, 2},
		{"beside a found die", []finderCandidate{{x: 122, y: 100, size: 24, score: 0.5}}, 3},
	} {
		got := mergeLooks(slices.Clone(first), tc.second)
		if len(got) != tc.want {
			t.Errorf("%s: got %d candidates %+v; want %d", tc.name, len(got), got, tc.want)
			continue
		}
		if !slices.Equal(got[:2], first) {
			t.Errorf("%s: got first look %+v; want it unchanged %+v", tc.name, got[:2], first)
		}
	}
}

// TestFinderSecondLook checks the second look on photographs of train/
// whose dice the finder misses at the size it settled on (a die smaller
// than the rest): the second look finds them, and adds to the first
// look's candidates without changing them.
func TestFinderSecondLook(t *testing.T) {
	if defaultLearned == nil {
		t.Skip("no embedded finder")
	}
	dir := SharedPhotos(t)
	for _, tc := range []struct {
		image string
		x, y  float64 // the labelled die's centre
	}{
		{"IMG_20191208_111642.jpg", 244, 428},
		{"IMG_20191208_111650.jpg", 282, 351},
	} {
		img := gocv.IMRead(filepath.Join(dir, "train", tc.image), gocv.IMReadColor)
		if img.Empty() {
			t.Fatalf("%s: cannot be read", tc.image)
		}
		one := newFinder(defaultLearned.finder)
		one.smaller = 0
		first, err := one.find(img, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		both, err := newFinder(defaultLearned.finder).find(img, 0, 0)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		at := func(c []finderCandidate) bool {
			for _, k := range c {
				if math.Hypot(k.x-tc.x, k.y-tc.y) < k.size/3 {
					return true
				}
			}
			return false
		}
		if at(first) {
			t.Errorf("%s: the first look found the die at (%v, %v): the case no longer shows the second look", tc.image, tc.x, tc.y)
		}
		if !at(both) {
			t.Errorf("%s: the second look did not find the die at (%v, %v)", tc.image, tc.x, tc.y)
		}
		if len(both) <= len(first) || !slices.Equal(both[:len(first)], first) {
			t.Errorf("%s: got %d candidates with the second look; want the first look's %d first, then more", tc.image, len(both), len(first))
		}
	}
}

func TestFaceVerdictSum(t *testing.T) {
	view := func(probs map[int]float64) [faceNetClasses]float64 {
		var one [faceNetClasses]float64
		for c, p := range probs {
			one[c] = p
		}
		return one
	}
	v := faceVerdict{per: [][faceNetClasses]float64{
		view(map[int]float64{2: 0.9, 4: 0.1}),
		view(map[int]float64{2: 0.8, 4: 0.2}),
		view(map[int]float64{2: 0.7, 4: 0.3}),
		view(map[int]float64{2: 0.2, 4: 0.8}), // the odd one out
	}}
	v.sum()
	if got, want := v.class, 2; got != want {
		t.Errorf("class = %d; want %d", got, want)
	}
	if got, want := v.p, 0.65; math.Abs(got-want) > 1e-9 {
		t.Errorf("p = %v; want %v", got, want)
	}
	if got, want := v.worst, 0.2; math.Abs(got-want) > 1e-9 {
		t.Errorf("worst = %v; want %v", got, want)
	}
	if got, want := v.agree, 0.75; got != want {
		t.Errorf("agree = %v; want %v", got, want)
	}
}

// TestTrainingStops checks that training ends, with the context's error
// and nothing written, when its context does (Ctrl-C on readtrain).
func TestTrainingStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := TrainOptions{Synthetic: 2, SyntheticSeed: 5, Render: renderForTest, FinderEpochs: 1, FaceNetEpochs: 1, FaceNets: 2, Epochs: 1, Hidden: 8, Seed: 3}
	var f, n, m bytes.Buffer
	if err := TrainLearned(ctx, o, &f, &n); !errors.Is(err, context.Canceled) {
		t.Errorf("TrainLearned: got %v; want context.Canceled", err)
	}
	if err := TrainLearned(ctx, o, nil, &n); !errors.Is(err, context.Canceled) {
		t.Errorf("TrainLearned, face networks only: got %v; want context.Canceled", err)
	}
	if err := TrainFaceModel(ctx, o, &m); !errors.Is(err, context.Canceled) {
		t.Errorf("TrainFaceModel: got %v; want context.Canceled", err)
	}
	if f.Len()+n.Len()+m.Len() != 0 {
		t.Errorf("stopped training wrote %d, %d and %d bytes; want none", f.Len(), n.Len(), m.Len())
	}
}

// TestRulesAtBox: the rules read a square the finder marked as they read a
// region the segmentation found, and find nothing on the bare table.
func TestRulesAtBox(t *testing.T) {
	img, truth, err := renderForTest(0)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	r := NewReader(Options{})
	sc, err := r.prepare(img)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.bgr.Close()
	for _, d := range truth {
		rd, ok := r.rulesAtBox(sc, d.X*sc.scale, d.Y*sc.scale, d.Size*sc.scale)
		if !ok || rd.Face != d.Face || rd.Uncertain || math.Hypot(rd.X-d.X*sc.scale, rd.Y-d.Y*sc.scale) > 0.2*d.Size*sc.scale {
			t.Errorf("die %d at %.0f,%.0f: got %+v, %v; want its face, sure, at its centre", d.Face, d.X, d.Y, rd, ok)
		}
	}
	if rd, ok := r.rulesAtBox(sc, 240*sc.scale, 20*sc.scale, 30*sc.scale); ok {
		t.Errorf("the bare table: got %+v; want nothing", rd)
	}
}
