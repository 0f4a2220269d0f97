//go:build matprofile

package vision_test

import (
	"bytes"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
	"github.com/liarsd/liarsd/vision/visiontest"
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
	r := visiontest.NewReader(t, vision.Options{View: vision.ViewBottom})
	// The calibration's empty board, at the small frames' shape (the large
	// frame's differs, and reads without it).
	bg, err := vision.NewBackground(frames[0])
	if err != nil {
		t.Fatal(err)
	}
	withBackground := visiontest.NewReader(t, vision.Options{Background: bg})
	for i := 0; i < 1000; i++ {
		reader := r
		if i%2 == 1 {
			reader = withBackground
		}
		if _, err := reader.Read(frames[i%len(frames)]); err != nil {
			t.Fatal(err)
		}
	}
	// Error paths must release what they made too.
	empty := gocv.NewMat()
	if _, err := r.Read(empty); err == nil {
		t.Error("empty Mat: got no error")
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

// TestNoMatLeakEveryPath goes through every other way into the reader and
// out of it, with the bad input of each, and checks that no Mat is left
// alive: files decoded and refused (truncated, garbage, too large, a
// folder), Mats of every kind read and refused, Go images, every source
// that needs no hardware, every option, the table's face templates, and
// the annotation.
func TestNoMatLeakEveryPath(t *testing.T) {
	dir := t.TempDir()
	frame, truth, err := synth.Render(synth.Random(2, synth.RandomOptions{Width: 320, Height: 240, Dice: 6, DieSize: 40, StarShare: 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	defer frame.Close()
	jpgBuf, err := gocv.IMEncode(gocv.JPEGFileExt, frame)
	if err != nil {
		t.Fatal(err)
	}
	jpg := append([]byte(nil), jpgBuf.GetBytes()...)
	jpgBuf.Close()
	files := map[string][]byte{
		"a.jpg": jpg, "b.jpg": jpg[:len(jpg)/2], "c.png": []byte("garbage"), "d.png": nil,
		"e.png": pngHeader(100000, 100000), "notes.txt": []byte("no image"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gray, bgra := gocv.NewMat(), gocv.NewMat()
	gocv.CvtColor(frame, &gray, gocv.ColorBGRToGray)
	gocv.CvtColor(frame, &bgra, gocv.ColorBGRToBGRA)
	roi := frame.Region(image.Rect(20, 10, 300, 230))
	goImg, err := frame.ToImage()
	if err != nil {
		t.Fatal(err)
	}
	bad := []gocv.Mat{gocv.NewMat(), gocv.NewMatWithSize(8, 8, gocv.MatTypeCV8UC3), gocv.NewMatWithSize(64, 64, gocv.MatTypeCV16UC3), gocv.NewMatWithSize(64, 64, gocv.MatTypeCV8SC3)}

	before := gocv.MatProfile.Count()
	for range 3 {
		for _, o := range []vision.Options{{}, {StarDice: true}, {PlainDice: true}, {DieSize: 40}, {MinConfidence: 0.9}, {View: vision.ViewBottom, StarDice: true}} {
			r, err := vision.NewReader(o)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []gocv.Mat{frame, gray, bgra, roi} {
				if _, err := r.Read(m); err != nil {
					t.Fatal(err)
				}
			}
			for _, m := range bad {
				if _, err := r.Read(m); err == nil {
					t.Error("bad Mat: got no error")
				}
			}
			r.Close()
		}
		r, err := vision.NewReader(vision.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for name := range files {
			_, err := r.ReadFile(filepath.Join(dir, name))
			if (err == nil) != (name == "a.jpg") {
				t.Errorf("ReadFile(%s): got %v", name, err)
			}
		}
		if _, err := r.ReadFile(dir); err == nil {
			t.Error("ReadFile(folder): got no error")
		}
		for _, img := range []image.Image{goImg, image.NewRGBA64(image.Rect(0, 0, 64, 64)), nil, image.NewUniform(color.White), image.NewRGBA(image.Rectangle{})} {
			r.ReadImage(img)
		}
		// Sources: a still image, a folder with bad files among good ones,
		// specs that cannot open, a missing camera, the synthetic table.
		for _, spec := range []string{"file:" + filepath.Join(dir, "a.jpg"), "dir:" + dir, "file:" + filepath.Join(dir, "b.jpg"), "file:" + filepath.Join(dir, "e.png"), "file:" + dir, "v4l2:/dev/video-not-there"} {
			src, err := vision.Open(spec)
			if err != nil {
				continue
			}
			for range len(files) + 1 {
				if m, err := src.Capture(); err == nil {
					m.Close()
				}
			}
			src.Close()
		}
		var s vision.Source = synth.NewRandomSource(4, synth.RandomOptions{Width: 320, Height: 240, Dice: 4, DieSize: 40})
		if m, err := s.Capture(); err == nil {
			m.Close()
		}
		s.Close()
		// The table's face templates, learned from the truth's dice; one
		// die outside the image is an error.
		var templates []vision.FaceTemplate
		for _, d := range truth {
			if tpl, err := vision.LearnFaceTemplate(frame, d, d.Face); err == nil {
				templates = append(templates, tpl)
			}
		}
		if _, err := vision.LearnFaceTemplate(frame, vision.Die{X: -50, Y: -50, Size: 40}, 2); err == nil {
			t.Error("die outside the image: got no error")
		}
		if m, err := vision.NewFaceMatcher(templates); err == nil {
			m.Recheck(frame, truth, vision.DefaultStarMatch)
			m.Match(frame, vision.Die{X: -50, Y: -50, Size: 40})
		}
		// The empty board, refused when empty; the annotation; Gray.
		if _, err := vision.NewBackground(bad[0]); err == nil {
			t.Error("empty background: got no error")
		}
		annotated := frame.Clone()
		vision.Annotate(&annotated, truth)
		g := gocv.NewMat()
		vision.Gray(bgra, &g)
		g.Close()
		annotated.Close()
	}
	if after := gocv.MatProfile.Count(); after != before {
		var b bytes.Buffer
		gocv.MatProfile.WriteTo(&b, 1)
		t.Errorf("%d Mats alive after every path; want %d\n%s", after, before, b.String())
	}
	for _, m := range append(bad, gray, bgra, roi) {
		m.Close()
	}
}
