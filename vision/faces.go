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

// classify reads the window around each candidate in one batch and
// returns each one's class probabilities.
func (n *faceNet) classify(bgr gocv.Mat, cs []candidate) ([][faceClasses]float64, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	const plane = faceInput * faceInput
	blob := gocv.NewMatWithSizes([]int{len(cs), 3, faceInput, faceInput}, gocv.MatTypeCV32F)
	defer blob.Close()
	in, err := blob.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("vision: face classifier input: %w", err)
	}
	for i, c := range cs {
		win, err := cutWindow(bgr, c.x, c.y, faceWindow*c.extent, faceInput)
		if err != nil {
			return nil, err
		}
		pix := win.ToBytes()
		win.Close()
		standardiseWindow(pix, in[i*3*plane:(i+1)*3*plane])
	}
	n.net.SetInput(blob, "windows")
	out := n.net.Forward("classes")
	defer out.Close()
	probs, err := out.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("vision: face classifier output: %w", err)
	}
	if len(probs) != len(cs)*faceClasses {
		return nil, fmt.Errorf("vision: face classifier gave %d values for %d windows", len(probs), len(cs))
	}
	res := make([][faceClasses]float64, len(cs))
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
