package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

// The face classifier's input and classes, as vision/recipe/nets.py
// trains it: a faceInput px square window of faceWindow times the die's
// extent, standardised (standardiseWindow); classes 0-5 are the faces 1
// to 6, then the star, no die, and a die whose face cannot be read.
const (
	faceInput  = 32
	faceWindow = 1.3

	classStar       = 6
	classNone       = 7
	classUnreadable = 8
	faceClasses     = 9
)

// faceNet runs the face classifier (model/faces.onnx).
type faceNet struct {
	net gocv.Net
}

func newFaceNet(model []byte) (*faceNet, error) {
	net, err := gocv.ReadNetFromONNXBytes(model)
	if err != nil {
		return nil, fmt.Errorf("vision: face classifier: %w", err)
	}
	if net.Empty() {
		return nil, fmt.Errorf("vision: face classifier: OpenCV read no network")
	}
	return &faceNet{net: net}, nil
}

func (n *faceNet) close() { n.net.Close() }

// secondLookBelow is the probability under which the classifier's
// likeliest face earns a die a second look (Bars.Turns): its window read
// again turned by quarter turns, the reads averaged.
const secondLookBelow = 0.995

// classify reads the window around each candidate in one batch and
// returns each one's class probabilities. With turns above 1, a window
// whose likeliest face is under secondLookBelow is read again turned by
// a quarter turn, turns-1 times, and its probabilities are the mean of
// its reads: a die's face is the same face turned, and the reads' errors
// are not.
func (n *faceNet) classify(bgr gocv.Mat, cs []candidate, turns int) ([][faceClasses]float64, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	const size = 3 * faceInput * faceInput
	windows := make([]float32, len(cs)*size)
	for i, c := range cs {
		win, err := cutWindow(bgr, c.x, c.y, faceWindow*c.extent, faceInput)
		if err != nil {
			return nil, err
		}
		pix := win.ToBytes()
		win.Close()
		standardiseWindow(pix, windows[i*size:(i+1)*size])
	}
	res, err := n.run(windows, len(cs))
	if err != nil || turns <= 1 {
		return res, err
	}
	var again []int
	for i, p := range res {
		best := 0.0
		for k := 0; k <= classStar; k++ {
			best = math.Max(best, p[k])
		}
		if best < secondLookBelow {
			again = append(again, i)
		}
	}
	if len(again) == 0 {
		return res, nil
	}
	turned := make([]float32, len(again)*(turns-1)*size)
	for j, i := range again {
		for t := 1; t < turns; t++ {
			quarterTurns(windows[i*size:(i+1)*size], turned[(j*(turns-1)+t-1)*size:], t)
		}
	}
	more, err := n.run(turned, len(again)*(turns-1))
	if err != nil {
		return nil, err
	}
	for j, i := range again {
		for t := 0; t < turns-1; t++ {
			for k := range res[i] {
				res[i][k] += more[j*(turns-1)+t][k]
			}
		}
		for k := range res[i] {
			res[i][k] /= float64(turns)
		}
	}
	return res, nil
}

// quarterTurns writes into dst the standardised window src (three planes
// of faceInput x faceInput) turned clockwise by t quarter turns.
func quarterTurns(src, dst []float32, t int) {
	const n = faceInput
	for c := 0; c < 3; c++ {
		in, out := src[c*n*n:(c+1)*n*n], dst[c*n*n:(c+1)*n*n]
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				tx, ty := x, y
				for k := 0; k < t%4; k++ {
					tx, ty = n-1-ty, tx
				}
				out[ty*n+tx] = in[y*n+x]
			}
		}
	}
}

// run classifies count standardised windows (three planes each) in one
// batch.
func (n *faceNet) run(windows []float32, count int) ([][faceClasses]float64, error) {
	in := gocv.NewMatWithSizes([]int{count, 3, faceInput, faceInput}, gocv.MatTypeCV32F)
	defer in.Close()
	dst, err := in.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("vision: face classifier input: %w", err)
	}
	copy(dst, windows)
	n.net.SetInput(in, "windows")
	out := n.net.Forward("classes")
	defer out.Close()
	probs, err := out.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("vision: face classifier output: %w", err)
	}
	if len(probs) != count*faceClasses {
		return nil, fmt.Errorf("vision: face classifier gave %d values for %d windows", len(probs), count)
	}
	res := make([][faceClasses]float64, count)
	for i := range res {
		for k := range res[i] {
			res[i][k] = float64(probs[i*faceClasses+k])
		}
	}
	return res, nil
}

// cutWindow cuts the axis-aligned square of the given side around (x, y)
// from bgr, the border replicated where it runs off the image, and scales
// it to out x out px (area interpolation when shrinking). The recipe's
// cut_window does exactly this. The caller closes the result.
func cutWindow(bgr gocv.Mat, x, y, side float64, out int) (gocv.Mat, error) {
	w, h := bgr.Cols(), bgr.Rows()
	n := max(2, int(math.Floor(side+0.5)))
	x0 := int(math.Floor(x - side/2 + 0.5))
	y0 := int(math.Floor(y - side/2 + 0.5))
	want := image.Rect(x0, y0, x0+n, y0+n)
	have := want.Intersect(image.Rect(0, 0, w, h))
	if have.Empty() {
		return gocv.Mat{}, fmt.Errorf("vision: window at (%.0f,%.0f) is off the image", x, y)
	}
	crop := bgr.Region(have)
	defer crop.Close()
	src := crop
	if have != want {
		padded := gocv.NewMat()
		defer padded.Close()
		gocv.CopyMakeBorder(crop, &padded, have.Min.Y-want.Min.Y, want.Max.Y-have.Max.Y,
			have.Min.X-want.Min.X, want.Max.X-have.Max.X, gocv.BorderReplicate, color.RGBA{})
		src = padded
	}
	interp := gocv.InterpolationLinear
	if n > out {
		interp = gocv.InterpolationArea
	}
	dst := gocv.NewMat()
	gocv.Resize(src, &dst, image.Pt(out, out), 0, 0, interp)
	return dst, nil
}

// standardiseWindow writes pix (a BGR window, interleaved) into dst as
// three planes with each channel's mean subtracted and divided by the
// pooled standard deviation plus 4, as the recipe's standardise does: the
// classifier sees the face's pattern, not the light or the camera's gain.
func standardiseWindow(pix []byte, dst []float32) {
	n := len(pix) / 3
	var sum, sq [3]float64
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			v := float64(pix[3*i+c])
			sum[c] += v
			sq[c] += v * v
		}
	}
	var mean [3]float64
	variance := 0.0
	for c := range mean {
		mean[c] = sum[c] / float64(n)
		variance += math.Max(0, sq[c]/float64(n)-mean[c]*mean[c])
	}
	k := 1 / (math.Sqrt(variance/3) + 4)
	for c := 0; c < 3; c++ {
		plane := dst[c*n : (c+1)*n]
		for i := range plane {
			plane[i] = float32((float64(pix[3*i+c]) - mean[c]) * k)
		}
	}
}
