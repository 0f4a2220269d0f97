package calibration

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"
)

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "table.json")
	exp := 120.0
	f := &File{Table: "t1", Camera: &Camera{Width: 1280, Height: 720, Exposure: &exp, View: "top"},
		Dice: &Dice{SizePx: 40, MinConfidence: 0.7}}
	f.Seats, _ = RoundTable([]string{"ann", "bob", "cy"}, Point{300, 300}, 250)
	if err := Save(path, f); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != Version || got.Table != "t1" || *got.Camera.Exposure != 120 || len(got.Seats) != 3 || got.Dice.SizePx != 40 {
		t.Fatalf("Load after Save: got %+v", got)
	}
}

func TestLoadRefuses(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"newer version", `{"version":2}`, "version 2"},
		{"no version", `{"table":"x"}`, "no version"},
		{"not JSON", `version: 1`, "not a calibration file"},
		{"truncated", `{"version":1,"seats":[{"name":"a","zone":[{"x":1`, "not a calibration file"},
		{"bad zone", `{"version":1,"seats":[{"name":"a","zone":[{"x":1,"y":1}]}]}`, "3 or more"},
		{"singular board", `{"version":1,"board":{"cols":9,"rows":6,"square_mm":20,"homography":[0,0,0,0,0,0,0,0,0]}}`, "singular"},
		{"empty", ``, "not a calibration file"},
		{"a list", `[1]`, "not a calibration file"},
		{"version as text", `{"version":"1"}`, "not a calibration file"},
		{"trailing garbage", `{"version":1} {"version":1}`, "not a calibration file"},
		{"unknown view", `{"version":1,"camera":{"view":"sideways"}}`, "unknown view"},
		{"LED named twice", `{"version":1,"wiring":{"led_order":[0,0,2]}}`, "LED order"},
		{"LED off the chain", `{"version":1,"wiring":{"led_order":[0,3,1]}}`, "LED order"},
		{"cut template", `{"version":1,"dice":{"size_px":40,"templates":[{"face":1,"side":32,"cells":"AAAA"}]}}`, "face templates"},
		{"seat twice", `{"version":1,"seats":[{"name":"a","zone":[{"x":0,"y":0},{"x":1,"y":0},{"x":0,"y":1}]},{"name":"a","zone":[{"x":0,"y":0},{"x":1,"y":0},{"x":0,"y":1}]}]}`, "named twice"},
		{"negative die size", `{"version":1,"dice":{"size_px":-4}}`, "dice size"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.body))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v; want an error about %q", tt.name, err, tt.want)
		}
	}
}

// TestSaveKeepsGoodFile checks that a file that fails its checks never
// replaces a good one, and that no temporary file is left behind.
func TestSaveKeepsGoodFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "table.json")
	if err := Save(path, &File{Table: "good"}); err != nil {
		t.Fatal(err)
	}
	bad := &File{Table: "bad", Seats: []Seat{{Name: "a", Zone: []Point{{1, 1}}}}}
	if err := Save(path, bad); err == nil {
		t.Fatal("Save of a bad file succeeded")
	}
	got, err := Load(path)
	if err != nil || got.Table != "good" {
		t.Fatalf("after a failed Save: %+v, %v; want the good file", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files left: %v; want only table.json", entries)
	}
}

// renderCard draws a chessboard card (cols x rows inner corners, square
// px-per-mm) on a grey board and warps it with a perspective that maps
// board millimetres to image pixels; it returns the image and that mapping.
func renderCard(t *testing.T, cols, rows int, squareMM float64, corners [4]gocv.Point2f) (gocv.Mat, [9]float64) {
	t.Helper()
	const pxPerMM = 4.0
	margin := 2 * squareMM
	w := int((float64(cols+1)*squareMM + 2*margin) * pxPerMM)
	h := int((float64(rows+1)*squareMM + 2*margin) * pxPerMM)
	flat := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 255, 255, 0), h, w, gocv.MatTypeCV8UC3)
	defer flat.Close()
	for r := 0; r < rows+1; r++ {
		for c := 0; c < cols+1; c++ {
			if (r+c)%2 == 1 {
				continue
			}
			x0 := int((margin + float64(c)*squareMM) * pxPerMM)
			y0 := int((margin + float64(r)*squareMM) * pxPerMM)
			gocv.Rectangle(&flat, image.Rect(x0, y0, x0+int(squareMM*pxPerMM), y0+int(squareMM*pxPerMM)), color.RGBA{20, 20, 20, 0}, -1)
		}
	}
	// The card's first inner corner sits at (margin+square, margin+square)
	// mm on the flat image; board coordinates start there.
	o := margin + squareMM
	src := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{
		{X: float32(0), Y: 0}, {X: float32(w), Y: 0}, {X: float32(w), Y: float32(h)}, {X: 0, Y: float32(h)}})
	defer src.Close()
	dst := gocv.NewPoint2fVectorFromPoints(corners[:])
	defer dst.Close()
	m := gocv.GetPerspectiveTransform2f(src, dst)
	defer m.Close()
	out := gocv.NewMat()
	gocv.WarpPerspectiveWithParams(flat, &out, m, image.Pt(1280, 720), gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{110, 120, 100, 0})
	// board mm -> flat px -> image px
	var hm [9]float64
	for i := range 9 {
		hm[i] = m.GetDoubleAt(i/3, i%3)
	}
	toFlat := [9]float64{pxPerMM, 0, o * pxPerMM, 0, pxPerMM, o * pxPerMM, 0, 0, 1}
	return out, mul3(hm, toFlat)
}

func mul3(a, b [9]float64) [9]float64 {
	var c [9]float64
	for r := range 3 {
		for k := range 3 {
			for j := range 3 {
				c[r*3+k] += a[r*3+j] * b[j*3+k]
			}
		}
	}
	return c
}

func TestMeasureBoard(t *testing.T) {
	views := map[string][4]gocv.Point2f{
		"straight down": {{X: 340, Y: 120}, {X: 940, Y: 120}, {X: 940, Y: 560}, {X: 340, Y: 560}},
		"tilted camera": {{X: 400, Y: 140}, {X: 880, Y: 100}, {X: 1010, Y: 640}, {X: 250, Y: 600}},
	}
	for name, corners := range views {
		t.Run(name, func(t *testing.T) {
			img, truth := renderCard(t, 9, 6, 20, corners)
			defer img.Close()
			b, err := MeasureBoard(img, 9, 6, 20, nil)
			if err != nil {
				t.Fatal(err)
			}
			if b.ErrorMM > 0.5 {
				t.Errorf("fit error %.2f mm; want under 0.5", b.ErrorMM)
			}
			// Board points well beyond the card land within a millimetre.
			for _, p := range []Point{{0, 0}, {160, 100}, {-30, 120}, {200, -20}, {80, 50}} {
				x, y := apply3(truth, p.X, p.Y)
				gx, gy := b.ToBoard(x, y)
				if d := math.Hypot(gx-p.X, gy-p.Y); d > 1 {
					t.Errorf("board point %v: measured at (%.1f, %.1f), %.2f mm off; want within 1 mm", p, gx, gy, d)
				}
				ix, iy := b.ToImage(p.X, p.Y)
				if d := math.Hypot(ix-x, iy-y); d > 2 {
					t.Errorf("ToImage(%v) = (%.1f, %.1f); want (%.1f, %.1f)", p, ix, iy, x, y)
				}
			}
		})
	}
}

func TestMeasureBoardNoCard(t *testing.T) {
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(90, 90, 90, 0), 480, 640, gocv.MatTypeCV8UC3)
	defer img.Close()
	if _, err := MeasureBoard(img, 9, 6, 20, nil); err == nil || !strings.Contains(err.Error(), "no chessboard card") {
		t.Fatalf("got %v; want a clear error", err)
	}
	empty := gocv.NewMat()
	defer empty.Close()
	if _, err := MeasureBoard(empty, 9, 6, 20, nil); err == nil {
		t.Fatal("an empty image gave no error")
	}
}

// renderPose draws the card as a pinhole camera (focal 900 px, centre
// (640,360), no distortion) sees it when the card is turned by rx, ry
// (radians) and lies tz millimetres away.
func renderPose(t *testing.T, rx, ry, tx, ty, tz float64) gocv.Mat {
	t.Helper()
	const pxPerMM, square = 4.0, 20.0
	flatCard, _ := renderCard(t, 9, 6, square, [4]gocv.Point2f{{X: 0, Y: 0}, {X: 1280, Y: 0}, {X: 1280, Y: 720}, {X: 0, Y: 720}})
	flatCard.Close()
	// Rotation about x then y; the card's plane is z = 0.
	cx, sx, cy, sy := math.Cos(rx), math.Sin(rx), math.Cos(ry), math.Sin(ry)
	r := [9]float64{cy, sx * sy, cx * sy, 0, cx, -sx, -sy, sx * cy, cx * cy}
	k := [9]float64{900, 0, 640, 0, 900, 360, 0, 0, 1}
	rt := [9]float64{r[0], r[1], tx, r[3], r[4], ty, r[6], r[7], tz}
	const margin = 2 * square
	o := margin + square
	w := int((10*square + 2*margin) * pxPerMM)
	h := int((7*square + 2*margin) * pxPerMM)
	flat := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 255, 255, 0), h, w, gocv.MatTypeCV8UC3)
	defer flat.Close()
	for row := 0; row < 7; row++ {
		for c := 0; c < 10; c++ {
			if (row+c)%2 == 0 {
				x0 := int((margin + float64(c)*square) * pxPerMM)
				y0 := int((margin + float64(row)*square) * pxPerMM)
				gocv.Rectangle(&flat, image.Rect(x0, y0, x0+int(square*pxPerMM), y0+int(square*pxPerMM)), color.RGBA{20, 20, 20, 0}, -1)
			}
		}
	}
	fromFlat := [9]float64{1 / pxPerMM, 0, -o - 90, 0, 1 / pxPerMM, -o - 60, 0, 0, 1} // centre the card on the axis
	warp := mul3(k, mul3(rt, fromFlat))
	m := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	defer m.Close()
	for i, v := range warp {
		m.SetDoubleAt(i/3, i%3, v)
	}
	out := gocv.NewMat()
	gocv.WarpPerspectiveWithParams(flat, &out, m, image.Pt(1280, 720), gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{110, 120, 100, 0})
	return out
}

func TestMeasureLens(t *testing.T) {
	var imgs []gocv.Mat
	for _, pose := range [][5]float64{
		{0, 0, 0, 0, 420}, {0.35, 0, 20, 0, 450}, {0, -0.35, 0, 30, 430}, {-0.3, 0.25, -20, 0, 480}, {0.2, 0.3, 10, -20, 400},
	} {
		imgs = append(imgs, renderPose(t, pose[0], pose[1], pose[2], pose[3], pose[4]))
	}
	defer func() {
		for _, m := range imgs {
			m.Close()
		}
	}()
	l, err := MeasureLens(imgs, 9, 6, 20)
	if err != nil {
		t.Fatal(err)
	}
	if l.ErrorPx > 1 {
		t.Errorf("reprojection error %.2f px; want under 1", l.ErrorPx)
	}
	if f := l.Matrix[0]; math.Abs(f-900) > 45 {
		t.Errorf("focal length %.0f px; want 900 within 5%%", f)
	}
	// The views were seen through an ideal lens: correcting a point moves
	// it very little.
	x, y := l.undistort(900, 600)
	if d := math.Hypot(x-900, y-600); d > 3 {
		t.Errorf("undistort(900,600) moved the point %.1f px; want under 3 for an ideal lens", d)
	}
	// The inverse of the distortion model agrees with OpenCV's own.
	kk := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	defer kk.Close()
	for i, v := range l.Matrix {
		kk.SetDoubleAt(i/3, i%3, v)
	}
	dd := gocv.NewMatWithSize(1, 4, gocv.MatTypeCV64F)
	defer dd.Close()
	for i, v := range []float64{-0.2, 0.05, 0.001, -0.002} {
		dd.SetDoubleAt(0, i, v)
	}
	src := pointsMat([]gocv.Point2f{{X: 1100, Y: 650}})
	defer src.Close()
	dst, none := gocv.NewMat(), gocv.NewMat()
	defer dst.Close()
	defer none.Close()
	gocv.UndistortPoints(src, &dst, kk, dd, none, kk)
	want := dst.GetVecfAt(0, 0)
	strong := &Lens{Matrix: l.Matrix, Distortion: []float64{-0.2, 0.05, 0.001, -0.002}}
	if x, y := strong.undistort(1100, 650); math.Hypot(x-float64(want[0]), y-float64(want[1])) > 0.5 {
		t.Errorf("undistort(1100,650) = (%.1f, %.1f); OpenCV says (%.1f, %.1f)", x, y, want[0], want[1])
	}
	if _, err := MeasureLens(imgs[:2], 9, 6, 20); err == nil {
		t.Error("two views gave no error")
	}
}

func TestZones(t *testing.T) {
	round, err := RoundTable([]string{"north", "east", "south", "west"}, Point{500, 500}, 400)
	if err != nil {
		t.Fatal(err)
	}
	rect, err := RectTable([]string{"a", "b", "c", "d", "e", "f"}, Point{600, 400}, 1200, 800)
	if err != nil {
		t.Fatal(err)
	}
	// The card lies in the middle of the board, so the board's origin is
	// near the table's centre: a table centred there.
	middle, err := RectTable([]string{"a", "b", "c", "d"}, Point{0, 0}, 1200, 800)
	if err != nil {
		t.Fatal(err)
	}
	taught, err := Taught([]string{"p1", "p2", "p3"}, map[string][]Point{
		"p1": {{100, 100}, {120, 110}}, "p2": {{500, 120}, {520, 100}}, "p3": {{300, 500}, {320, 520}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		zones  Zones
		p      Point
		seat   string
		inZone bool
	}{
		{round, Point{500, 150}, "north", true},
		{round, Point{850, 520}, "east", true},
		{round, Point{480, 880}, "south", true},
		{round, Point{120, 500}, "west", true},
		{round, Point{500, 2000}, "south", false}, // off the table: nearest seat
		{rect, Point{600, 50}, "a", true},
		{rect, Point{1150, 700}, "c", true},
		{rect, Point{600, 780}, "d", true},
		{rect, Point{30, 100}, "f", true},
		{middle, Point{0, -370}, "a", true},
		{middle, Point{570, 0}, "b", true},
		{middle, Point{-20, 380}, "c", true},
		{middle, Point{-580, 30}, "d", true},
		{taught, Point{110, 90}, "p1", true},
		{taught, Point{515, 130}, "p2", true},
		{taught, Point{310, 470}, "p3", true},
	}
	for _, tt := range tests {
		seat, in, ok := tt.zones.Assign(tt.p)
		if !ok || seat != tt.seat || in != tt.inZone {
			t.Errorf("Assign(%v) = %s, in zone %v; want %s, %v", tt.p, seat, in, tt.seat, tt.inZone)
		}
	}
	if _, err := Taught([]string{"p1", "p3", "p2"}, map[string][]Point{
		"p1": {{100, 100}}, "p2": {{500, 120}}, "p3": {{300, 500}}}); err == nil {
		t.Error("seats taught counter-clockwise gave no error")
	}
	if _, err := Taught([]string{"p1", "p2"}, map[string][]Point{"p1": {{1, 1}}}); err == nil {
		t.Error("a seat without dice gave no error")
	}
}

func TestParseCard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Card
		bad  string
	}{
		{in: "9x6@20", want: Card{Cols: 9, Rows: 6, SquareMM: 20}},
		{in: "7x5@25.5", want: Card{Cols: 7, Rows: 5, SquareMM: 25.5}},
		{in: "2x2@20", bad: "3 to 100"},
		{in: "0x0@20", bad: "3 to 100"},
		{in: "9x6@0", bad: "above 0"},
		{in: "9x6@-4", bad: "above 0"},
		{in: "9x6", bad: "COLSxROWS@MM"},
		{in: "9x6@20mm", bad: "COLSxROWS@MM"},
		{in: "nine", bad: "COLSxROWS@MM"},
	} {
		got, err := ParseCard(c.in)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("ParseCard(%q) = %v, %v; want an error saying %q", c.in, got, err, c.bad)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseCard(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	// OpenCV aborts the whole process on a pattern of two corners: the
	// measurement refuses it first.
	img, _ := renderCard(t, 9, 6, 20, [4]gocv.Point2f{{X: 340, Y: 120}, {X: 940, Y: 120}, {X: 940, Y: 560}, {X: 340, Y: 560}})
	defer img.Close()
	if _, err := MeasureBoard(img, 2, 2, 20, nil); err == nil {
		t.Error("MeasureBoard with a 2x2 card gave no error")
	}
	if _, err := MeasureLens([]gocv.Mat{img, img, img}, 1, 1, 20); err == nil {
		t.Error("MeasureLens with a 1x1 card gave no error")
	}
}

// TestLensAfterBoard checks that a lens measured after the board leaves no
// homography fitted to uncorrected points in use: seats wait for the
// board step, which then fits it again with the lens.
func TestLensAfterBoard(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, img gocv.Mat) string {
		defer img.Close()
		path := filepath.Join(dir, name)
		if !gocv.IMWrite(path, img) {
			t.Fatalf("cannot write %s", path)
		}
		return path
	}
	board, _ := renderCard(t, 9, 6, 20, [4]gocv.Point2f{{X: 400, Y: 140}, {X: 880, Y: 100}, {X: 1010, Y: 640}, {X: 250, Y: 600}})
	boardPath := write("board.png", board)
	var lensPaths []string
	for i, pose := range [][5]float64{{0, 0, 0, 0, 420}, {0.35, 0, 20, 0, 450}, {0, -0.35, 0, 30, 430}} {
		lensPaths = append(lensPaths, write(fmt.Sprintf("lens%d.png", i), renderPose(t, pose[0], pose[1], pose[2], pose[3], pose[4])))
	}
	f := &File{Version: Version}
	s := &Session{File: f, Images: append(append([]string{boardPath}, lensPaths...), boardPath), Out: io.Discard}
	if err := s.Board(DefaultCard); err != nil {
		t.Fatal(err)
	}
	if err := s.Seats([]string{"ann", "bob", "cat"}, Layout{Kind: "round", Radius: 400}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := f.SeatOf(640, 360); !ok {
		t.Fatal("no seat from a measured board")
	}
	if err := s.Lens(DefaultCard, 3); err != nil {
		t.Fatal(err)
	}
	if !f.Board.Stale {
		t.Fatal("the board is not marked for measuring again after the lens step")
	}
	if seat, _, ok := f.SeatOf(640, 360); ok {
		t.Fatalf("a stale board placed a die at seat %q; want none until the board step runs again", seat)
	}
	if _, err := s.teachSeats([]string{"ann"}); err == nil || !strings.Contains(err.Error(), "board step") {
		t.Fatalf("teaching seats on a stale board: %v; want an error asking for the board step", err)
	}
	lens := f.Board.Lens
	if err := s.Board(DefaultCard); err != nil {
		t.Fatal(err)
	}
	if f.Board.Stale || f.Board.Lens != lens {
		t.Fatalf("after the board step: stale %v, lens kept %v; want a fresh board with the lens", f.Board.Stale, f.Board.Lens == lens)
	}
	if _, _, ok := f.SeatOf(640, 360); !ok {
		t.Fatal("no seat after the board was measured again")
	}
}
