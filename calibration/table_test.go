package calibration

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

// syntheticTable renders three seats' dice around a chessboard card on a
// table seen by a tilted camera. It returns the image, where each die truly
// is on the board (mm, the card's first inner corner as origin), whose it
// is and the face it shows.
func syntheticTable(t *testing.T, seed uint64) (gocv.Mat, []Point, []string, []int) {
	t.Helper()
	const ppm = 3.0             // pixels per millimetre before the tilt
	const sq = 8.0              // the card's squares, mm
	cardX, cardY := 170.0, 90.0 // the card's top-left, mm
	origin := Point{cardX + sq, cardY + sq}
	regions := map[string]synth.Rect{
		"ann": {X: 20, Y: 20, W: 120, H: 70},
		"bob": {X: 290, Y: 20, W: 110, H: 90},
		"cy":  {X: 150, Y: 165, W: 130, H: 60},
	}
	s := synth.Scene{Width: 1280, Height: 720, Units: synth.Millimetres, PxPerMM: ppm, DieSize: 14,
		Table: color.RGBA{40, 95, 60, 255}, Seed: seed}
	var truth []Point
	var owner []string
	var faces []int
	for i, name := range []string{"ann", "bob", "cy"} {
		dice := make([]synth.Die, 4)
		for k := range dice {
			p := synth.Palettes[(i+k)%len(synth.Palettes)]
			dice[k] = synth.Die{Face: 1 + (k+i)%6, Colour: p.Body, PipColour: p.Pips}
		}
		if err := synth.Place(dice, regions[name], 14, 4, seed+uint64(i)); err != nil {
			t.Fatal(err)
		}
		for _, d := range dice {
			truth = append(truth, Point{d.X - origin.X, d.Y - origin.Y})
			owner = append(owner, name)
			faces = append(faces, d.Face)
		}
		s.Dice = append(s.Dice, dice...)
	}
	img, _, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	// The card: 10x7 squares, on a white margin.
	x0, y0 := int(cardX*ppm), int(cardY*ppm)
	gocv.Rectangle(&img, image.Rect(x0-12, y0-12, x0+int(10*sq*ppm)+12, y0+int(7*sq*ppm)+12), color.RGBA{240, 240, 240, 0}, -1)
	for r := range 7 {
		for c := range 10 {
			if (r+c)%2 == 0 {
				x, y := x0+int(float64(c)*sq*ppm), y0+int(float64(r)*sq*ppm)
				gocv.Rectangle(&img, image.Rect(x, y, x+int(sq*ppm), y+int(sq*ppm)), color.RGBA{25, 25, 25, 0}, -1)
			}
		}
	}
	// The camera is tilted: a perspective the reader knows nothing of.
	src := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 0, Y: 0}, {X: 1280, Y: 0}, {X: 1280, Y: 720}, {X: 0, Y: 720}})
	defer src.Close()
	dst := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 60, Y: 30}, {X: 1230, Y: 0}, {X: 1280, Y: 720}, {X: 0, Y: 690}})
	defer dst.Close()
	m := gocv.GetPerspectiveTransform2f(src, dst)
	defer m.Close()
	out := gocv.NewMat()
	gocv.WarpPerspectiveWithParams(img, &out, m, image.Pt(1280, 720), gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	return out, truth, owner, faces
}

// TestCalibratedTable: on a synthetic table with known geometry seen by a
// tilted camera, every die reads right, the board step places every die
// within a few millimetres, and taught seat zones assign every die to its
// seat.
func TestCalibratedTable(t *testing.T) {
	img, truth, owner, faces := syntheticTable(t, 4)
	defer img.Close()
	f := &File{Version: Version}
	b, err := MeasureBoard(img, 9, 6, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Board = b
	dice, err := vision.NewReader(vision.Options{}).Read(img)
	if err != nil {
		t.Fatal(err)
	}
	if len(dice) != len(truth) {
		t.Fatalf("read %d dice; want %d", len(dice), len(truth))
	}
	samples := map[string][]Point{}
	worst := 0.0
	for _, d := range dice {
		x, y := b.ToBoard(d.X, d.Y)
		best, bestD := -1, math.Inf(1)
		for i, p := range truth {
			if dd := math.Hypot(p.X-x, p.Y-y); dd < bestD {
				best, bestD = i, dd
			}
		}
		worst = math.Max(worst, bestD)
		samples[owner[best]] = append(samples[owner[best]], Point{x, y})
		if d.Uncertain || d.Face != faces[best] {
			t.Errorf("die at (%.0f, %.0f) mm reads %v; it shows %d", x, y, d, faces[best])
		}
	}
	if worst > 3 {
		t.Errorf("a die is placed %.1f mm from where it is; want within 3 mm", worst)
	}
	t.Logf("worst die placement: %.2f mm (card fit %.2f mm)", worst, b.ErrorMM)
	zones, err := Taught([]string{"ann", "bob", "cy"}, samples)
	if err != nil {
		t.Fatal(err)
	}
	f.Seats = zones
	// A second roll on the same table: every die goes to its seat.
	img2, truth2, owner2, _ := syntheticTable(t, 9)
	defer img2.Close()
	dice2, err := vision.NewReader(vision.Options{}).Read(img2)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dice2 {
		seat, _, ok := f.SeatOf(d.X, d.Y)
		x, y := b.ToBoard(d.X, d.Y)
		best, bestD := -1, math.Inf(1)
		for i, p := range truth2 {
			if dd := math.Hypot(p.X-x, p.Y-y); dd < bestD {
				best, bestD = i, dd
			}
		}
		if !ok || seat != owner2[best] {
			t.Errorf("die at (%.0f, %.0f) mm assigned to %q; it is %s's", x, y, seat, owner2[best])
		}
	}
	if got := fmt.Sprint(len(dice2)); got != fmt.Sprint(len(truth2)) {
		t.Errorf("second roll: read %s dice; want %d", got, len(truth2))
	}
}
