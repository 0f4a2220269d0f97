package vision

import (
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// A V4L2 camera takes controls: the daemon re-applies the calibration's
// locked settings through this method set (calibration.Controller).
var _ interface {
	Set(prop gocv.VideoCaptureProperties, value float64)
	Get(prop gocv.VideoCaptureProperties) float64
} = (*v4l2Camera)(nil)

// SharedPhotos finds ../shared/data/dice-photos beside the repository's
// root, or skips the test. It is exported for package vision_test.
func SharedPhotos(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test's directory")
		}
		dir = parent
	}
	photos := filepath.Join(dir, "..", "shared", "data", "dice-photos")
	if _, err := os.Stat(filepath.Join(photos, "labels.csv")); err != nil {
		t.Skipf("labelled photographs not found at %s (../shared beside the repository): skipping", photos)
	}
	return photos
}

// CountPipsForTest is the pip counter's read of the die of extent ext
// centred on (x, y), exported for package vision_test.
func CountPipsForTest(img gocv.Mat, x, y, ext float64) (face int, star bool) {
	p := countPips(img, x, y, ext)
	return p.face, p.star
}

// A window turned four quarter turns is the window; one quarter turn
// takes its top-left corner to the top-right, clockwise.
func TestQuarterTurns(t *testing.T) {
	const size = 3 * faceInput * faceInput
	src := make([]float32, size)
	for i := range src {
		src[i] = float32(i)
	}
	one, four := make([]float32, size), make([]float32, size)
	quarterTurns(src, one, 1)
	quarterTurns(src, four, 4)
	for i := range src {
		if four[i] != src[i] {
			t.Fatalf("four quarter turns: value %d is %v; want %v", i, four[i], src[i])
		}
	}
	for c := 0; c < 3; c++ {
		plane := c * faceInput * faceInput
		if got, want := one[plane+faceInput-1], src[plane]; got != want {
			t.Errorf("plane %d: top-right after a quarter turn is %v; want the top-left's %v", c, got, want)
		}
		if got, want := one[plane+(faceInput-1)*faceInput+faceInput-1], src[plane+faceInput-1]; got != want {
			t.Errorf("plane %d: bottom-right after a quarter turn is %v; want the top-right's %v", c, got, want)
		}
	}
}
