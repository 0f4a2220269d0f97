package vision_test

import (
	"image"
	"math"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

func TestRankCeiling(t *testing.T) {
	right := func(p float64) vision.NetworkRead { return vision.NetworkRead{Face: 3, Read: 3, P: p} }
	wrong := func(p float64) vision.NetworkRead { return vision.NetworkRead{Face: 3, Read: 5, P: p} }
	cases := []struct {
		name     string
		reads    []vision.NetworkRead
		maxWrong float64
		want     vision.Ceiling
	}{
		{"none", nil, 0.1, vision.Ceiling{Threshold: 1}},
		{"all right", []vision.NetworkRead{right(0.9), right(0.4), right(0.7), right(0.2)}, 0,
			vision.Ceiling{Dice: 4, FirstRight: 1, Confident: 1, Threshold: 0.2}},
		{"stops before the first wrong", []vision.NetworkRead{right(0.9), wrong(0.6), right(0.7), right(0.3)}, 0,
			vision.Ceiling{Dice: 4, FirstRight: 0.75, Confident: 0.5, Threshold: 0.7}},
		{"goes past a wrong read the budget allows", []vision.NetworkRead{right(0.9), wrong(0.6), right(0.7), right(0.3)}, 0.25,
			vision.Ceiling{Dice: 4, FirstRight: 0.75, Confident: 0.75, Wrong: 0.25, Threshold: 0.3}},
		{"ties stand or fall together", []vision.NetworkRead{right(0.9), right(0.5), wrong(0.5), right(0.2)}, 0,
			vision.Ceiling{Dice: 4, FirstRight: 0.75, Confident: 0.25, Threshold: 0.9}},
		{"no face is flagged, not wrong", []vision.NetworkRead{right(0.9), {Face: 2, Read: 0, P: 0.8}, wrong(0.7)}, 0,
			vision.Ceiling{Dice: 3, FirstRight: 1.0 / 3, Confident: 1.0 / 3, Threshold: 0.8}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := vision.RankCeiling(tc.reads, tc.maxWrong); got != tc.want {
				t.Errorf("RankCeiling = %+v; want %+v", got, tc.want)
			}
		})
	}
}

// sixFaces renders a clean table of the six faces with plain pips.
func sixFaces(t *testing.T) (gocv.Mat, []vision.Die) {
	t.Helper()
	scene, _ := faceScene(3, synth.Tables[0], synth.Palettes[0])
	scene.Dice = scene.Dice[:6]
	img, truth, err := synth.Render(scene)
	if err != nil {
		t.Fatal(err)
	}
	return img, truth
}

func TestNetworkReads(t *testing.T) {
	img, truth := sixFaces(t)
	defer img.Close()
	lbl := labels(truth)
	lbl = append(lbl, vision.Label{Face: 0, Box: lbl[0].Box}) // a die with no face is skipped
	r := vision.NewReader(vision.Options{})
	reads, err := r.NetworkReads(img, lbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(reads) != len(truth) {
		t.Fatalf("got %d reads; want %d", len(reads), len(truth))
	}
	for i, nr := range reads {
		if nr.Face != truth[i].Face || nr.Read != nr.Face || nr.P < 0.5 || nr.P > 1 || math.IsNaN(nr.P) {
			t.Errorf("die %d: got %+v; want face %d read with a probability over 0.5", i, nr, truth[i].Face)
		}
	}
	c := vision.RankCeiling(reads, 0)
	if c.FirstRight != 1 || c.Confident != 1 {
		t.Errorf("ceiling of clean dice = %+v; want every die right and confident", c)
	}

	// A large photograph is read at the reader's working size: the boxes
	// are scaled with it.
	big := gocv.NewMat()
	defer big.Close()
	gocv.Resize(img, &big, image.Point{}, 3, 3, gocv.InterpolationLinear)
	var bigLabels []vision.Label
	for _, l := range lbl[:len(truth)] {
		l.Box = vision.Box{MinX: 3 * l.Box.MinX, MinY: 3 * l.Box.MinY, MaxX: 3 * l.Box.MaxX, MaxY: 3 * l.Box.MaxY}
		bigLabels = append(bigLabels, l)
	}
	if reads, err = r.NetworkReads(big, bigLabels); err != nil {
		t.Fatal(err)
	}
	if c := vision.RankCeiling(reads, 0); c.Dice != len(truth) || c.FirstRight != 1 {
		t.Errorf("ceiling of clean dice three times as large = %+v; want every die right", c)
	}

	empty := gocv.NewMat()
	defer empty.Close()
	if _, err := r.NetworkReads(empty, lbl); err == nil {
		t.Error("NetworkReads of an empty image: got no error; want one")
	}
}

func TestFinderReads(t *testing.T) {
	img, truth := sixFaces(t)
	defer img.Close()
	lbl := labels(truth)
	// A label where there is no die: the finder has no box for it.
	lbl = append(lbl, vision.Label{Face: 4, Box: vision.Box{MinX: 2, MinY: 2, MaxX: 2 + lbl[0].Box.MaxX - lbl[0].Box.MinX, MaxY: 2 + lbl[0].Box.MaxY - lbl[0].Box.MinY}})
	r := vision.NewReader(vision.Options{})
	reads, err := r.FinderReads(img, lbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(reads) != len(lbl) {
		t.Fatalf("got %d reads; want %d", len(reads), len(lbl))
	}
	for i, nr := range reads[:len(truth)] {
		if nr.Face != truth[i].Face || nr.Read != nr.Face || nr.P < 0.5 || nr.P > 1 {
			t.Errorf("die %d: got %+v; want face %d read with a probability over 0.5", i, nr, truth[i].Face)
		}
	}
	if got, want := reads[len(truth)], (vision.NetworkRead{Face: 4}); got != want {
		t.Errorf("no die under the label: got %+v; want %+v (no face read)", got, want)
	}
	c := vision.RankCeiling(reads, 0)
	if got, want := c.Confident, float64(len(truth))/float64(len(lbl)); got != want {
		t.Errorf("ceiling at the finder's boxes: got %.3f right and confident; want %.3f (every die but the one not there)", got, want)
	}

	empty := gocv.NewMat()
	defer empty.Close()
	if _, err := r.FinderReads(empty, lbl); err == nil {
		t.Error("FinderReads of an empty image: got no error; want one")
	}
}
