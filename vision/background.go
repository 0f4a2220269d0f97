package vision

import (
	"fmt"
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"
)

// Background is the empty table under its light, as the calibration's
// background step keeps it. With one, a place the dice finder marks where
// the frame is still the empty board (a board's printing, a seam, a spot
// of light) is not taken for a die. It is plain data, safe to share
// between readers.
type Background struct {
	w, h int
	bgr  []byte // the table, BGR, at the reader's working size
}

// NewBackground keeps img, a frame of the empty table from the camera that
// will read it, as the table's background.
func NewBackground(img gocv.Mat) (*Background, error) {
	if err := checkImage(img); err != nil {
		return nil, err
	}
	bgr, _ := workImage(img)
	defer bgr.Close()
	b, err := bgr.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	return &Background{w: bgr.Cols(), h: bgr.Rows(), bgr: append([]byte(nil), b...)}, nil
}

// fits reports whether the background was taken at the size of a frame the
// reader works on at w x h (the same camera and mode, scaled alike).
func (b *Background) fits(w, h int) bool {
	if b == nil || b.h == 0 || h == 0 {
		return false
	}
	return math.Abs(float64(b.w)/float64(b.h)-float64(w)/float64(h)) < 0.01
}

// at returns the background at w x h (continuous BGR). The caller closes
// the result.
func (b *Background) at(w, h int) (gocv.Mat, error) {
	full, err := gocv.NewMatFromBytes(b.h, b.w, gocv.MatTypeCV8UC3, b.bgr)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	defer full.Close()
	// full shares b.bgr (gocv does not copy): the result is always a copy,
	// so readers sharing b never touch it.
	out := gocv.NewMat()
	if b.w != w || b.h != h {
		gocv.Resize(full, &out, image.Point{X: w, Y: h}, 0, 0, gocv.InterpolationArea)
	} else {
		full.CopyTo(&out)
	}
	return out, nil
}

// boardChange is the mean colour distance (8-bit BGR) between the middle
// of a place and the empty board there, once the board is brought to the
// frame's light, below which nothing lies there: a die differs from the
// board by far more, noise and a shift of light by less.
const boardChange = 16

// changed reports whether the frame differs from the empty board over the
// middle of candidate c. Both are continuous BGR of the same size. The
// evening's light differs from the calibration's and falls off across the
// table, so the board is first scaled, channel by channel, by the median
// ratio of frame to board around the place (a square twice the die's
// extent, mostly board): light multiplies, and a local gain follows its
// fall-off where one gain for the frame would not.
func changed(frame, empty []byte, w, h int, c candidate) bool {
	around := image.Rect(int(c.x-c.extent), int(c.y-c.extent), int(c.x+c.extent), int(c.y+c.extent)).Intersect(image.Rect(0, 0, w, h))
	half := math.Max(2, c.extent*0.35)
	middle := image.Rect(int(c.x-half), int(c.y-half), int(c.x+half), int(c.y+half)).Intersect(image.Rect(0, 0, w, h))
	if middle.Empty() {
		return true
	}
	var gain [3]float64
	ratios := make([]float64, 0, around.Dx()*around.Dy())
	for ch := 0; ch < 3; ch++ {
		ratios = ratios[:0]
		for y := around.Min.Y; y < around.Max.Y; y++ {
			for x := around.Min.X; x < around.Max.X; x++ {
				i := 3*(y*w+x) + ch
				ratios = append(ratios, (float64(frame[i])+1)/(float64(empty[i])+1))
			}
		}
		slices.Sort(ratios)
		gain[ch] = ratios[len(ratios)/2]
	}
	var diff [3]float64
	for y := middle.Min.Y; y < middle.Max.Y; y++ {
		for x := middle.Min.X; x < middle.Max.X; x++ {
			for ch := 0; ch < 3; ch++ {
				i := 3*(y*w+x) + ch
				diff[ch] += math.Abs(float64(frame[i]) + 1 - gain[ch]*(float64(empty[i])+1))
			}
		}
	}
	n := float64(middle.Dx() * middle.Dy())
	return math.Sqrt(diff[0]*diff[0]+diff[1]*diff[1]+diff[2]*diff[2])/n >= boardChange
}
