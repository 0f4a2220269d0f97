package vision_test

import (
	"path/filepath"
	"testing"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
	"github.com/liarsd/liarsd/vision/visiontest"
)

// BenchmarkRead1280x720 reads a 1280x720 table of 30 dice. Run it on one
// core for the figure docs/vision.md quotes:
//
//	GOMAXPROCS=1 taskset -c 0 go test -run '^$' -bench Read ./vision/
func BenchmarkRead1280x720(b *testing.B) {
	img, truth, err := synth.Render(synth.Random(7, synth.RandomOptions{Width: 1280, Height: 720, Dice: 30}))
	if err != nil {
		b.Fatal(err)
	}
	defer img.Close()
	r := visiontest.NewReader(b, vision.Options{})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dice, err := r.Read(img)
		if err != nil {
			b.Fatal(err)
		}
		if len(dice) < len(truth)-3 {
			b.Fatalf("read %d dice; want about %d", len(dice), len(truth))
		}
	}
}

// BenchmarkReadPhoto reads one of the labelled photographs (640x640), with
// the die size unknown and known (calibrated).
func BenchmarkReadPhoto(b *testing.B) {
	img, err := vision.LoadImage(filepath.Join(vision.SharedPhotos(b), "test", "IMG_20191209_095555.jpg"))
	if err != nil {
		b.Fatal(err)
	}
	defer img.Close()
	for _, o := range []struct {
		name string
		opts vision.Options
	}{{"size unknown", vision.Options{}}, {"size known", vision.Options{DieSize: 40}}} {
		b.Run(o.name, func(b *testing.B) {
			r := visiontest.NewReader(b, o.opts)
			for i := 0; i < b.N; i++ {
				if _, err := r.Read(img); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
