package vision_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
	"github.com/liarsd/liarsd/vision/visiontest"
)

// TestMissingCamera gets a clear error, not a panic, from cameras that are
// not there.
func TestMissingCamera(t *testing.T) {
	if _, err := vision.OpenV4L2("/dev/video-not-there", 1280, 720); !errors.Is(err, vision.ErrNoCamera) {
		t.Errorf("OpenV4L2(missing): got %v; want ErrNoCamera", err)
	}
	if _, err := vision.Open("v4l2:/dev/video-not-there"); !errors.Is(err, vision.ErrNoCamera) {
		t.Errorf("Open(v4l2:missing): got %v; want ErrNoCamera", err)
	}
	if _, err := vision.OpenGStreamer("videotestsrc ! fakesink"); err == nil {
		t.Error("OpenGStreamer without appsink: got no error")
	}
	if _, err := vision.Open("/no/such/image.png"); err == nil {
		t.Error("Open(missing file): got no error")
	}
}

// TestFileSources captures from a still image and from a folder.
func TestFileSources(t *testing.T) {
	dir := t.TempDir()
	for i, seed := range []uint64{1, 2} {
		img, _, err := synth.Render(synth.Random(seed, synth.RandomOptions{Width: 320, Height: 240, Dice: 4, DieSize: 40}))
		if err != nil {
			t.Fatal(err)
		}
		if !gocv.IMWrite(filepath.Join(dir, []string{"a.png", "b.jpg"}[i]), img) {
			t.Fatal("IMWrite failed")
		}
		img.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder, err := vision.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // a, b, then a again
		m, err := folder.Capture()
		if err != nil {
			t.Fatalf("capture %d: %v", i, err)
		}
		if m.Cols() != 320 || m.Rows() != 240 {
			t.Errorf("capture %d: got %dx%d; want 320x240", i, m.Cols(), m.Rows())
		}
		m.Close()
	}
	if err := folder.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := folder.Capture(); !errors.Is(err, vision.ErrClosed) {
		t.Errorf("capture after close: got %v; want ErrClosed", err)
	}
	still, err := vision.Open("file:" + filepath.Join(dir, "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer still.Close()
	m, err := still.Capture()
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := vision.OpenFolder(t.TempDir()); err == nil {
		t.Error("empty folder: got no error")
	}
}

// TestSyntheticSource reads its frames through the real reader.
func TestSyntheticSource(t *testing.T) {
	src := synth.NewRandomSource(11, synth.RandomOptions{Width: 640, Height: 360, Dice: 8, DieSize: 44})
	var s vision.Source = src
	defer s.Close()
	r := visiontest.NewReader(t, vision.Options{})
	for i := 0; i < 2; i++ {
		img, err := s.Capture()
		if err != nil {
			t.Fatal(err)
		}
		dice, err := r.Read(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		score, errs := vision.Compare(dice, labels(src.Truth()))
		if score.Wrong+score.Extra > 0 || score.Right < len(src.Truth())-2 {
			t.Errorf("frame %d: %v %v; want none wrong and all but two right", i, score, errs)
		}
	}
}

// TestSourceBadFiles: a still image that cannot be read is an error when
// it is opened, not at every capture; a folder's unreadable image is an
// error for its own capture only, and the folder goes on to the next.
func TestSourceBadFiles(t *testing.T) {
	dir := t.TempDir()
	jpg := encodedTable(t, gocv.JPEGFileExt)
	for name, data := range map[string][]byte{
		"a.jpg":     jpg,
		"b.jpg":     []byte("not an image"),
		"c.jpg":     jpg[:len(jpg)/2],
		"d.png":     nil,
		"notes.txt": []byte("not an image, and not named like one"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "e.png"), 0o755); err != nil { // a folder named like an image
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec, want string
	}{
		{"file:" + filepath.Join(dir, "b.jpg"), "not a readable image"},
		{"file:" + filepath.Join(dir, "c.jpg"), "truncated JPEG"},
		{"file:" + filepath.Join(dir, "d.png"), "empty file"},
		{"file:" + filepath.Join(dir, "notes.txt"), "not a readable image"},
		{"file:" + dir, "not an image file"},
		{"file:" + filepath.Join(dir, "missing.png"), "no such file"},
		{"dir:" + filepath.Join(dir, "missing"), "no such file"},
		{"dir:" + t.TempDir(), "no images in"},
		{"", "no such file"},
	} {
		src, err := vision.Open(tc.spec)
		if err == nil {
			src.Close()
			t.Errorf("Open(%q): got a source; want an error with %q", tc.spec, tc.want)
		} else if !strings.HasPrefix(err.Error(), "vision: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q): got %q; want a vision error with %q", tc.spec, err, tc.want)
		}
	}
	folder, err := vision.OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer folder.Close()
	// a.jpg, b.jpg, c.jpg, d.png, then a.jpg again; notes.txt and the
	// folder e.png are no images.
	for i, want := range []string{"", "not a readable image", "truncated JPEG", "empty file", ""} {
		m, err := folder.Capture()
		switch {
		case want == "" && err != nil:
			t.Errorf("capture %d: got %v; want a frame", i, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("capture %d: got %v; want an error with %q", i, err, want)
		}
		m.Close()
	}
}
