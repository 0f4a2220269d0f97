package synth

import (
	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

// Source is a vision.Source that renders scenes as camera frames: the
// demo's camera, and the tests'.
type Source struct {
	scene  func(frame int) Scene
	frame  int
	truth  []vision.Die
	closed bool
}

var _ vision.Source = (*Source)(nil)

// NewSource returns a Source whose frame i (from 0) renders scene(i).
func NewSource(scene func(frame int) Scene) *Source {
	return &Source{scene: scene}
}

// NewRandomSource returns a Source of random tables, seed, seed+1, ...
func NewRandomSource(seed uint64, o RandomOptions) *Source {
	return NewSource(func(i int) Scene { return Random(seed+uint64(i), o) })
}

// Capture renders the next frame.
func (s *Source) Capture() (gocv.Mat, error) {
	if s.closed {
		return gocv.Mat{}, vision.ErrClosed
	}
	img, truth, err := Render(s.scene(s.frame))
	if err != nil {
		return gocv.Mat{}, err
	}
	s.frame++
	s.truth = truth
	return img, nil
}

// Truth returns what a perfect reader reports for the last frame.
func (s *Source) Truth() []vision.Die { return s.truth }

// Close ends the source.
func (s *Source) Close() error {
	s.closed = true
	return nil
}
