//go:build matprofile

package vision_test

import (
	"bytes"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

// TestNoMatLeak reads 1,000 images and checks that no OpenCV Mat is left
// alive. Run it with the matprofile tag (make test does):
//
//	go test -tags matprofile -run Leak ./vision/...
func TestNoMatLeak(t *testing.T) {
	before := gocv.MatProfile.Count()
	src := synth.NewRandomSource(1, synth.RandomOptions{Width: 320, Height: 240, Dice: 6, DieSize: 40})
	frames := make([]gocv.Mat, 0, 10)
	for i := 0; i < 10; i++ {
		m, err := src.Capture()
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, m)
	}
	// A frame larger than the reader works on exercises its scaling.
	big, _, err := synth.Render(synth.Random(3, synth.RandomOptions{Width: 1800, Height: 1000, Dice: 8, DieSize: 90, Clean: true}))
	if err != nil {
		t.Fatal(err)
	}
	frames = append(frames, big)
	r := vision.NewReader(vision.Options{View: vision.ViewBottom})
	// The calibration's empty board, at the small frames' shape (the large
	// frame's differs, and reads without it).
	bg, err := vision.NewBackground(frames[0])
	if err != nil {
		t.Fatal(err)
	}
	withBackground := vision.NewReader(vision.Options{Background: bg})
	for i := 0; i < 1000; i++ {
		reader := r
		if i%2 == 1 {
			reader = withBackground
		}
		if _, err := reader.Read(frames[i%len(frames)]); err != nil {
			t.Fatal(err)
		}
	}
	// The ceiling measure's reads at labelled boxes and at the finder's,
	// the large frame too.
	box := []vision.Label{{Face: 3, Box: vision.Box{MinX: 100, MinY: 100, MaxX: 190, MaxY: 190}}}
	for _, m := range frames[len(frames)-2:] {
		if _, err := r.NetworkReads(m, box); err != nil {
			t.Fatal(err)
		}
		if _, err := r.FinderReads(m, box); err != nil {
			t.Fatal(err)
		}
	}
	// Error paths must release what they made too.
	empty := gocv.NewMat()
	if _, err := r.Read(empty); err == nil {
		t.Error("empty Mat: got no error")
	}
	if _, err := r.NetworkReads(empty, box); err == nil {
		t.Error("empty Mat, network reads: got no error")
	}
	if _, err := r.FinderReads(empty, box); err == nil {
		t.Error("empty Mat, finder reads: got no error")
	}
	empty.Close()
	if _, err := vision.DecodeImage([]byte("garbage"), "garbage"); err == nil {
		t.Error("garbage: got no error")
	}
	for _, m := range frames {
		m.Close()
	}
	if after := gocv.MatProfile.Count(); after != before {
		var b bytes.Buffer
		gocv.MatProfile.WriteTo(&b, 1)
		t.Errorf("%d Mats alive after 1,000 reads; want %d\n%s", after, before, b.String())
	}
}
