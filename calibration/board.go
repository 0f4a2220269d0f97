package calibration

import (
	"errors"
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

// Board is the board's geometry: how image pixels map to millimetres on the
// board. It is measured from a chessboard card laid on the board (see
// docs/calibration.md), so seat zones, kept in board millimetres, stay right
// when the camera is nudged and the board step is run again.
type Board struct {
	// Homography maps image pixels (after lens correction) to board
	// millimetres, row-major 3x3.
	Homography [9]float64 `json:"homography"`
	// Cols and Rows count the card's inner corners; SquareMM is its square.
	Cols     int     `json:"cols"`
	Rows     int     `json:"rows"`
	SquareMM float64 `json:"square_mm"`
	// ErrorMM is the RMS distance between the card's corners as measured
	// and where the homography puts them.
	ErrorMM float64 `json:"error_mm"`
	// Lens corrects the camera's distortion, when it was measured.
	Lens *Lens `json:"lens,omitempty"`
	// Stale is set when the lens was measured after the homography (or
	// with none): the homography does not hold for corrected points, and
	// the board places nothing until the board step is run again.
	Stale bool `json:"stale,omitempty"`
}

// Lens is the camera's intrinsic matrix and distortion coefficients
// (OpenCV's model), measured from several views of the card.
type Lens struct {
	Matrix     [9]float64 `json:"matrix"`
	Distortion []float64  `json:"distortion"`
	// ErrorPx is the RMS reprojection error of the measurement.
	ErrorPx float64 `json:"error_px"`
}

func (b *Board) check() error {
	if err := (Card{Cols: b.Cols, Rows: b.Rows, SquareMM: b.SquareMM}).check(); err != nil {
		return err
	}
	if _, ok := invert3(b.Homography); !ok {
		return errors.New("calibration: the board's homography is singular; calibrate the board again")
	}
	return nil
}

// ToBoard maps an image point (pixels) to the board (millimetres). Lens
// correction, when there is one, is applied first.
func (b *Board) ToBoard(x, y float64) (float64, float64) {
	if b.Lens != nil {
		x, y = b.Lens.undistort(x, y)
	}
	return apply3(b.Homography, x, y)
}

// ToImage maps a board point (millimetres) to the lens-corrected image.
func (b *Board) ToImage(mx, my float64) (float64, float64) {
	inv, _ := invert3(b.Homography)
	return apply3(inv, mx, my)
}

// MeasureBoard finds the chessboard card (cols x rows inner corners,
// squareMM squares) in an image of the board and measures the board's
// homography. The card's first corner (nearest the image's top-left) is the
// board's origin, its rows run along x.
func MeasureBoard(img gocv.Mat, cols, rows int, squareMM float64, lens *Lens) (*Board, error) {
	pts, err := findCorners(img, cols, rows)
	if err != nil {
		return nil, err
	}
	if lens != nil {
		for i := range pts {
			pts[i].X, pts[i].Y = lensUndistort32(lens, pts[i])
		}
	}
	src := pointsMat(pts)
	defer src.Close()
	dst := pointsMat(cardPoints(cols, rows, squareMM))
	defer dst.Close()
	mask := gocv.NewMat()
	defer mask.Close()
	h := gocv.FindHomography(src, &dst, gocv.HomograpyMethodAllPoints, 3, &mask, 2000, 0.995)
	defer h.Close()
	if h.Empty() {
		return nil, errors.New("calibration: no homography fits the card's corners")
	}
	b := &Board{Cols: cols, Rows: rows, SquareMM: squareMM, Lens: lens}
	for i := 0; i < 9; i++ {
		b.Homography[i] = h.GetDoubleAt(i/3, i%3)
	}
	// How well it fits: where the homography puts each measured corner.
	var sum float64
	want := cardPoints(cols, rows, squareMM)
	for i, p := range pts {
		x, y := apply3(b.Homography, float64(p.X), float64(p.Y))
		sum += sq(x-float64(want[i].X)) + sq(y-float64(want[i].Y))
	}
	b.ErrorMM = math.Sqrt(sum / float64(len(pts)))
	return b, b.check()
}

// MeasureLens measures the lens from several images of the card shown at
// different angles (at least three).
func MeasureLens(imgs []gocv.Mat, cols, rows int, squareMM float64) (*Lens, error) {
	if len(imgs) < 3 {
		return nil, fmt.Errorf("calibration: the lens needs 3 or more views of the card, not %d", len(imgs))
	}
	objects := gocv.NewPoints3fVector()
	defer objects.Close()
	images := gocv.NewPoints2fVector()
	defer images.Close()
	card := cardPoints(cols, rows, squareMM)
	obj := make([]gocv.Point3f, len(card))
	for i, p := range card {
		obj[i] = gocv.Point3f{X: p.X, Y: p.Y}
	}
	size := image.Point{}
	for i, img := range imgs {
		pts, err := findCorners(img, cols, rows)
		if err != nil {
			return nil, fmt.Errorf("calibration: view %d: %w", i+1, err)
		}
		o := gocv.NewPoint3fVectorFromPoints(obj)
		objects.Append(o)
		o.Close()
		v := gocv.NewPoint2fVectorFromPoints(pts)
		images.Append(v)
		v.Close()
		size = image.Pt(img.Cols(), img.Rows())
	}
	k, d := gocv.NewMat(), gocv.NewMat()
	defer k.Close()
	defer d.Close()
	rvecs, tvecs := gocv.NewMat(), gocv.NewMat()
	defer rvecs.Close()
	defer tvecs.Close()
	// k3 is fixed: with the views a table gives it only overfits.
	rms := gocv.CalibrateCamera(objects, images, size, &k, &d, &rvecs, &tvecs, gocv.CalibFixK3)
	l := &Lens{ErrorPx: rms}
	for i := 0; i < 9; i++ {
		l.Matrix[i] = k.GetDoubleAt(i/3, i%3)
	}
	for i := 0; i < d.Total(); i++ {
		l.Distortion = append(l.Distortion, d.GetDoubleAt(0, i))
	}
	return l, nil
}

// findCorners finds the card's inner corners to sub-pixel precision, in a
// stable order: the first corner is the one nearer the image's top-left.
func findCorners(img gocv.Mat, cols, rows int) ([]gocv.Point2f, error) {
	if img.Empty() {
		return nil, errors.New("calibration: empty image")
	}
	if err := (Card{Cols: cols, Rows: rows, SquareMM: 1}).check(); err != nil {
		return nil, err // OpenCV aborts the process on such a pattern
	}
	gray := gocv.NewMat()
	defer gray.Close()
	vision.Gray(img, &gray)
	corners := gocv.NewMat()
	defer corners.Close()
	flags := gocv.CalibCBAdaptiveThresh | gocv.CalibCBNormalizeImage
	if !gocv.FindChessboardCorners(gray, image.Pt(cols, rows), &corners, flags) {
		return nil, fmt.Errorf("calibration: no chessboard card of %dx%d inner corners in the image (is it flat, lit and wholly in view?)", cols, rows)
	}
	gocv.CornerSubPix(gray, &corners, image.Pt(5, 5), image.Pt(-1, -1),
		gocv.NewTermCriteria(gocv.Count|gocv.EPS, 40, 0.001))
	pts := make([]gocv.Point2f, corners.Rows())
	for i := range pts {
		v := corners.GetVecfAt(i, 0)
		pts[i] = gocv.Point2f{X: v[0], Y: v[1]}
	}
	first, last := pts[0], pts[len(pts)-1]
	if first.X+first.Y > last.X+last.Y { // OpenCV may start from either end
		for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
			pts[i], pts[j] = pts[j], pts[i]
		}
	}
	return pts, nil
}

// cardPoints are the card's inner corners in millimetres, row by row.
func cardPoints(cols, rows int, squareMM float64) []gocv.Point2f {
	pts := make([]gocv.Point2f, 0, cols*rows)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			pts = append(pts, gocv.Point2f{X: float32(float64(c) * squareMM), Y: float32(float64(r) * squareMM)})
		}
	}
	return pts
}

func pointsMat(pts []gocv.Point2f) gocv.Mat {
	m := gocv.NewMatWithSize(len(pts), 1, gocv.MatTypeCV32FC2)
	for i, p := range pts {
		m.SetFloatAt(i, 0, p.X)
		m.SetFloatAt(i, 1, p.Y)
	}
	return m
}

func lensUndistort32(l *Lens, p gocv.Point2f) (float32, float32) {
	x, y := l.undistort(float64(p.X), float64(p.Y))
	return float32(x), float32(y)
}

// undistort maps a distorted pixel to where an ideal lens would have put
// it, inverting OpenCV's radial and tangential model by fixed-point
// iteration (as cv::undistortPoints does).
func (l *Lens) undistort(u, v float64) (float64, float64) {
	fx, fy, cx, cy := l.Matrix[0], l.Matrix[4], l.Matrix[2], l.Matrix[5]
	if fx == 0 || fy == 0 {
		return u, v
	}
	k := make([]float64, 8)
	copy(k, l.Distortion)
	k1, k2, p1, p2, k3 := k[0], k[1], k[2], k[3], k[4]
	xd, yd := (u-cx)/fx, (v-cy)/fy
	x, y := xd, yd
	for range 20 {
		r2 := x*x + y*y
		radial := 1 + k1*r2 + k2*r2*r2 + k3*r2*r2*r2
		dx := 2*p1*x*y + p2*(r2+2*x*x)
		dy := p1*(r2+2*y*y) + 2*p2*x*y
		x, y = (xd-dx)/radial, (yd-dy)/radial
	}
	return x*fx + cx, y*fy + cy
}

func apply3(h [9]float64, x, y float64) (float64, float64) {
	w := h[6]*x + h[7]*y + h[8]
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w
}

// invert3 inverts a 3x3 matrix; ok is false when it is singular.
func invert3(m [9]float64) (inv [9]float64, ok bool) {
	a, b, c, d, e, f, g, h, i := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
	det := a*(e*i-f*h) - b*(d*i-f*g) + c*(d*h-e*g)
	if math.Abs(det) < 1e-12 || math.IsNaN(det) {
		return inv, false
	}
	inv = [9]float64{
		(e*i - f*h) / det, (c*h - b*i) / det, (b*f - c*e) / det,
		(f*g - d*i) / det, (a*i - c*g) / det, (c*d - a*f) / det,
		(d*h - e*g) / det, (b*g - a*h) / det, (a*e - b*d) / det,
	}
	return inv, true
}

func sq(x float64) float64 { return x * x }
