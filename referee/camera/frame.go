package camera

import (
	"slices"
	"sync"

	"gocv.io/x/gocv"
)

// Frame is a captured frame kept for the operator page (an
// operator.Frame) and the examples. It is encoded as JPEG only when the
// page asks for it, once, away from the reveal's path. Its methods are
// safe from any goroutine, and on a nil Frame; once closed it still gives
// a JPEG made before.
type Frame struct {
	mu   sync.Mutex
	img  gocv.Mat
	open bool
	jpeg []byte
	w, h int
}

func newFrame(img gocv.Mat) *Frame {
	return &Frame{img: img, open: true, w: img.Cols(), h: img.Rows()}
}

// Size returns the frame's width and height in pixels (0, 0 for none).
func (f *Frame) Size() (w, h int) {
	if f == nil {
		return 0, 0
	}
	return f.w, f.h
}

// JPEG returns the frame as JPEG, or nil.
func (f *Frame) JPEG() []byte {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.jpeg == nil && f.open {
		f.jpeg = frameJPEG(f.img)
	}
	return f.jpeg
}

// clone returns a copy of the image, which the caller closes.
func (f *Frame) clone() (gocv.Mat, bool) {
	if f == nil {
		return gocv.Mat{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open {
		return gocv.Mat{}, false
	}
	return f.img.Clone(), true
}

// close frees the image.
func (f *Frame) close() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open {
		f.img.Close()
		f.open = false
	}
}

// frameJPEG encodes a captured frame for the operator page, or nil.
func frameJPEG(img gocv.Mat) []byte {
	buf, err := gocv.IMEncodeWithParams(gocv.JPEGFileExt, img, []int{gocv.IMWriteJpegQuality, 80})
	if err != nil {
		return nil
	}
	defer buf.Close()
	return slices.Clone(buf.GetBytes())
}
