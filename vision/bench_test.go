package vision_test

import (
	"testing"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

// BenchmarkRead1280x720 reads a 1280x720 table of 30 dice. Run it on one
// core for the figure docs/vision.md quotes:
//
//	GOMAXPROCS=1 go test -run '^$' -bench Read ./vision/
func BenchmarkRead1280x720(b *testing.B) {
	img, truth, err := synth.Render(synth.Random(7, synth.RandomOptions{Width: 1280, Height: 720, Dice: 30}))
	if err != nil {
		b.Fatal(err)
	}
	defer img.Close()
	r := vision.NewReader(vision.Options{})
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
