package vision

import (
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"
)

// Background is the empty table under its light, as the calibration's
// background step keeps it. With one, the segmentation compares each frame
// with the table itself instead of estimating the table from the frame (a
// wide median, which takes a patterned cloth, a board's printing or a
// sharp edge of light for things on the table, and misses a die the colour
// of its surroundings). It is plain data, safe to share between readers.
type Background struct {
	w, h int
	lab  []byte // the table in OpenCV's 8-bit Lab, at the reader's working size
}

// NewBackground keeps img, a frame of the empty table from the camera that
// will read it, as the table's background.
func NewBackground(img gocv.Mat) (*Background, error) {
	if err := checkImage(img); err != nil {
		return nil, err
	}
	bgr, _ := workImage(img)
	defer bgr.Close()
	lab := tableLab(bgr)
	defer lab.Close()
	b, err := lab.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	return &Background{w: lab.Cols(), h: lab.Rows(), lab: append([]byte(nil), b...)}, nil
}

// tableLab is the slightly softened Lab image the segmentation compares.
func tableLab(bgr gocv.Mat) gocv.Mat {
	blurred := gocv.NewMat()
	defer blurred.Close()
	gocv.GaussianBlur(bgr, &blurred, image.Point{X: 3, Y: 3}, 0, 0, gocv.BorderReplicate)
	lab := gocv.NewMat()
	gocv.CvtColor(blurred, &lab, gocv.ColorBGRToLab)
	return lab
}

// fits reports whether the background was taken at the size of a frame the
// reader works on at w x h (the same camera and mode, scaled alike).
func (b *Background) fits(w, h int) bool {
	if b == nil || b.h == 0 || h == 0 {
		return false
	}
	return math.Abs(float64(b.w)/float64(b.h)-float64(w)/float64(h)) < 0.01
}

// at returns the background at w x h, with each channel shifted by the
// median difference between lab (the frame) and the background, so that
// the evening's light, a little brighter or warmer than at calibration,
// is not taken for dice: most of a frame is the table. The caller closes
// the result.
func (b *Background) at(lab gocv.Mat) (gocv.Mat, error) {
	w, h := lab.Cols(), lab.Rows()
	full, err := gocv.NewMatFromBytes(b.h, b.w, gocv.MatTypeCV8UC3, b.lab)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	// full shares b.lab (gocv does not copy): the shift below works on a
	// copy, so that readers sharing b never see each other's light.
	out := gocv.NewMat()
	if b.w != w || b.h != h {
		gocv.Resize(full, &out, image.Point{X: w, Y: h}, 0, 0, gocv.InterpolationArea)
	} else {
		full.CopyTo(&out)
	}
	full.Close()
	frame, err := lab.DataPtrUint8()
	if err != nil {
		out.Close()
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	bg, err := out.DataPtrUint8()
	if err != nil {
		out.Close()
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	var hist [3][511]int
	for i := 0; i+2 < len(frame); i += 3 {
		for c := 0; c < 3; c++ {
			hist[c][int(frame[i+c])-int(bg[i+c])+255]++
		}
	}
	var shift [3]int
	for c := range shift {
		seen, half := 0, w*h/2
		for d, n := range hist[c] {
			if seen += n; seen > half {
				shift[c] = d - 255
				break
			}
		}
	}
	if shift != [3]int{} {
		for i := 0; i+2 < len(bg); i += 3 {
			for c := 0; c < 3; c++ {
				bg[i+c] = uint8(min(255, max(0, int(bg[i+c])+shift[c])))
			}
		}
	}
	return out, nil
}
