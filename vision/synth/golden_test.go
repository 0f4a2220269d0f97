package synth_test

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/liarsd/liarsd/vision/synth"
)

// goldenScenes are scenes whose renders must not change: the tests and
// benchmarks that use fixed seeds count on them.
func goldenScenes() []synth.Scene {
	hidden := synth.Random(5, synth.RandomOptions{Width: 480, Height: 360, Dice: 8, DieSize: 40})
	hidden.Dice[0].Hidden = 0.4
	hidden.Dice[1].Hidden = 0.1
	return []synth.Scene{
		synth.Random(1, synth.RandomOptions{}),
		synth.Random(2, synth.RandomOptions{Width: 640, Height: 480, Dice: 20, Cocked: 0.2, Marbled: 0.3, Glossy: 0.3, JPEG: 1, StarShare: 0.3}),
		synth.Random(3, synth.RandomOptions{Width: 320, Height: 240, Dice: 6, Clean: true}),
		hidden,
	}
}

// renderHash is a hash of a scene's image and truth.
func renderHash(t *testing.T, s synth.Scene) string {
	t.Helper()
	img, truth, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	h := sha256.New()
	h.Write(img.ToBytes())
	fmt.Fprint(h, truth)
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// TestFlatUnchanged checks that scenes seen straight down on felt with no
// clutter render the same bytes and truth as before the tilted camera,
// the surfaces and the clutter came: hashes taken before that change.
func TestFlatUnchanged(t *testing.T) {
	want := []string{"90601a56a035da87", "b47580fd584a0c96", "fed3feb10893c60d", "268bb513ed0e52ad"}
	for i, s := range goldenScenes() {
		if got := renderHash(t, s); got != want[i] {
			t.Errorf("scene %d: hash %s; want %s", i, got, want[i])
		}
	}
}
