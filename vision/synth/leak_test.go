//go:build matprofile

package synth_test

import (
	"bytes"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision/synth"
)

// TestNoMatLeakSynth renders flat and tilted tables of every surface with
// every kind of thing, and checks that no OpenCV Mat is left alive. Run it
// with the matprofile tag:
//
//	go test -tags matprofile -run Leak ./vision/...
func TestNoMatLeakSynth(t *testing.T) {
	before := gocv.MatProfile.Count()
	var things []synth.Thing
	for i, k := range synth.Kinds {
		things = append(things, synth.Thing{Kind: k, X: float64(40 * i), Y: 150, Seed: uint64(i)})
	}
	for i, sf := range synth.Surfaces {
		for _, tilt := range []float64{0, 40} {
			s := synth.Random(uint64(i+1), synth.RandomOptions{Width: 320, Height: 240, Dice: 6, DieSize: 30, MaxCameraTilt: tilt,
				Marbled: 0.5, Glossy: 0.5, Styles: 0.5, AnyColour: 0.5, Cocked: 0.3, JPEG: 1})
			s.Surface, s.Clutter = sf, things
			s.Light.Glare = 1
			s.Dice[0].Hidden = 0.4
			img, _, err := synth.RenderLabelled(s)
			if err != nil {
				t.Fatal(err)
			}
			img.Close()
		}
	}
	if after := gocv.MatProfile.Count(); after != before {
		var b bytes.Buffer
		gocv.MatProfile.WriteTo(&b, 1)
		t.Errorf("%d Mats leaked:\n%s", after-before, b.String())
	}
}
