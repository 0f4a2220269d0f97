package calibration

import (
	"image"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
	"github.com/liarsd/liarsd/vision/visiontest"
)

// syntheticTable renders three seats' dice around a chessboard card on a
// table seen by a tilted camera. It returns the image, where each die truly
// is on the board (mm, the card's first inner corner as origin), whose it
// is and the face it shows.
func syntheticTable(t *testing.T, seed uint64) (gocv.Mat, []Point, []string, []int) {
	t.Helper()
	return syntheticTableOf(t, seed, []string{"ann", "bob", "cy"}, tilted)
}

// tilted is the camera of syntheticTable: where the corners of the
// untilted view land. nudged is the same camera knocked a little.
var (
	tilted = [4]gocv.Point2f{{X: 60, Y: 30}, {X: 1230, Y: 0}, {X: 1280, Y: 720}, {X: 0, Y: 690}}
	nudged = [4]gocv.Point2f{{X: 95, Y: 55}, {X: 1250, Y: 10}, {X: 1240, Y: 715}, {X: 20, Y: 700}}
)

// syntheticTableOf renders the dice of the seats named only, seen by a
// camera that maps the untilted view's corners to view.
func syntheticTableOf(t *testing.T, seed uint64, seats []string, view [4]gocv.Point2f) (gocv.Mat, []Point, []string, []int) {
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
		if !slices.Contains(seats, name) {
			continue
		}
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
	dst := gocv.NewPoint2fVectorFromPoints(view[:])
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
	dice, err := visiontest.NewReader(t, vision.Options{}).Read(img)
	if err != nil {
		t.Fatal(err)
	}
	// The reader may leave a die it doubts out (a place its finder doubts
	// must be read confidently): the geometry needs all but one.
	if len(dice) < len(truth)-1 {
		t.Fatalf("read %d dice; want %d (or one fewer)", len(dice), len(truth))
	}
	samples := map[string][]Point{}
	worst := 0.0
	offDice := 0
	for _, d := range dice {
		x, y := b.ToBoard(d.X, d.Y)
		best, bestD := -1, math.Inf(1)
		for i, p := range truth {
			if dd := math.Hypot(p.X-x, p.Y-y); dd < bestD {
				best, bestD = i, dd
			}
		}
		if bestD > 20 {
			// A read on the calibration card's printing, not a die.
			offDice++
			t.Logf("a read %.0f mm from any die: %v", bestD, d)
			continue
		}
		worst = math.Max(worst, bestD)
		samples[owner[best]] = append(samples[owner[best]], Point{x, y})
		if !d.Uncertain && d.Face != faces[best] {
			t.Errorf("die at (%.0f, %.0f) mm reads %v; it shows %d", x, y, d, faces[best])
		}
	}
	if offDice > 1 {
		t.Errorf("%d reads off the dice; want at most one (on the card)", offDice)
	}
	if worst > 4 {
		t.Errorf("a die is placed %.1f mm from where it is; want within 4 mm (the finder marks the middle of a die as seen, a little off its top face on a tilted camera)", worst)
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
	dice2, err := visiontest.NewReader(t, vision.Options{}).Read(img2)
	if err != nil {
		t.Fatal(err)
	}
	offDice2 := 0
	for _, d := range dice2 {
		seat, _, ok := f.SeatOf(d.X, d.Y)
		x, y := b.ToBoard(d.X, d.Y)
		best, bestD := -1, math.Inf(1)
		for i, p := range truth2 {
			if dd := math.Hypot(p.X-x, p.Y-y); dd < bestD {
				best, bestD = i, dd
			}
		}
		if bestD > 20 {
			offDice2++ // on the calibration card's printing
			continue
		}
		if !ok || seat != owner2[best] {
			t.Errorf("die at (%.0f, %.0f) mm assigned to %q; it is %s's", x, y, seat, owner2[best])
		}
	}
	if got := len(dice2) - offDice2; got < len(truth2)-1 || offDice2 > 1 {
		t.Errorf("second roll: read %d dice and %d reads off them; want %d (or one fewer), and at most one off them", got, offDice2, len(truth2))
	}
}

// TestTaughtSeatsFromImages runs the board and seats steps as the command
// does from saved images: the board, then dice laid in front of each seat
// in turn. Then the camera is knocked; the board step is run again on the
// card, and the zones taught before still give every die of a roll, seen
// through the knocked camera, to its seat.
func TestTaughtSeatsFromImages(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, img gocv.Mat) string {
		defer img.Close()
		path := filepath.Join(dir, name)
		if !gocv.IMWrite(path, img) {
			t.Fatalf("cannot write %s", path)
		}
		return path
	}
	var images []string
	board, _, _, _ := syntheticTableOf(t, 1, nil, tilted)
	images = append(images, save("board.png", board))
	for i, seat := range []string{"ann", "bob", "cy"} {
		img, _, _, _ := syntheticTableOf(t, uint64(10+i), []string{seat}, tilted)
		images = append(images, save(seat+".png", img))
	}
	knocked, _, _, _ := syntheticTableOf(t, 1, nil, nudged)
	images = append(images, save("knocked.png", knocked))

	f := &File{Version: Version}
	card := Card{Cols: 9, Rows: 6, SquareMM: 8}
	s := &Session{File: f, Dir: dir, Images: images, Out: io.Discard}
	if err := s.Board(card); err != nil {
		t.Fatal(err)
	}
	if err := s.Seats([]string{"ann", "bob", "cy"}, Layout{Kind: "taught"}); err != nil {
		t.Fatal(err)
	}
	if len(f.Seats) != 3 {
		t.Fatalf("taught %d seat zones; want 3", len(f.Seats))
	}
	// Every die of a roll goes to its seat: each die laid is found (within
	// 5 mm of where it lies) and assigned to the seat it was laid at.
	assigned := func(view [4]gocv.Point2f) {
		t.Helper()
		img, truth, owner, _ := syntheticTableOf(t, 21, []string{"ann", "bob", "cy"}, view)
		defer img.Close()
		r, err := f.NewReader()
		if err != nil {
			t.Fatal(err)
		}
		dice, err := r.Read(img)
		if err != nil {
			t.Fatal(err)
		}
		missing := 0
		for i, p := range truth {
			found := false
			for _, d := range dice {
				if x, y := f.Board.ToBoard(d.X, d.Y); math.Hypot(x-p.X, y-p.Y) < 5 {
					found = true
					if seat, _, ok := f.SeatOf(d.X, d.Y); !ok || seat != owner[i] {
						t.Errorf("die at (%.0f, %.0f) mm assigned to %q; it is %s's", p.X, p.Y, seat, owner[i])
					}
				}
			}
			if !found {
				missing++
				t.Logf("die at (%.0f, %.0f) mm (%s's) not found (a reading matter for vision, not the zones)", p.X, p.Y, owner[i])
			}
		}
		if missing > 1 {
			t.Errorf("%d of %d dice laid not found; want all but one found and assigned", missing, len(truth))
		}
		if len(dice) != len(truth) {
			t.Logf("read %d dice of %d laid (a reading matter for vision, not the zones)", len(dice), len(truth))
		}
	}
	assigned(tilted)
	// The camera is knocked: the board step again, the zones unchanged.
	zones := slices.Clone(f.Seats)
	if err := s.Board(card); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(zones, f.Seats, func(a, b Seat) bool { return a.Name == b.Name && slices.Equal(a.Zone, b.Zone) }) {
		t.Fatal("the board step changed the seat zones")
	}
	assigned(nudged)
}
