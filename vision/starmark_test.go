package vision_test

import (
	"testing"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
)

// The pip counter tells the filled star from every other face: on
// synthetic tables of dice of any colour and size, it finds nearly every
// star's five points and never sees them on another face.
func TestPipCounterSeesTheStar(t *testing.T) {
	sizes := []float64{24, 32, 40, 56}
	var stars, seen, others, wrong int
	for s := uint64(1); s <= 24; s++ {
		sc := synth.Random(s, synth.RandomOptions{Dice: 30, DieSize: sizes[s%4], StarShare: 0.3, Stars: []synth.Artwork{synth.FilledStar}, AnyColour: 0.5})
		img, truth, err := synth.Render(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range truth {
			if d.Uncertain {
				continue
			}
			// The reader passes the finder's extent: about 1.27 sides for
			// a die at any turn.
			_, star := vision.CountPipsForTest(img, d.X, d.Y, 1.27*d.Size)
			switch {
			case d.Star:
				stars++
				if star {
					seen++
				}
			default:
				others++
				if star {
					wrong++
				}
			}
		}
		img.Close()
	}
	if wrong > 0 {
		t.Errorf("a star's five points seen on %d of %d other faces; want none", wrong, others)
	}
	if float64(seen) < 0.9*float64(stars) {
		t.Errorf("the star's five points seen on %d of %d stars; want 90%% or more", seen, stars)
	}
	t.Logf("stars: %d of %d seen; other faces: %d of %d", seen, stars, wrong, others)
}
