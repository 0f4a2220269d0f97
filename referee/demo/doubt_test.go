package demo_test

import (
	"testing"

	"github.com/liarsd/liarsd/referee/demo"
	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/visiontest"
)

// TestCameraDoubtHidesADie: with Doubt 1 the demo's camera misses one die
// of the table, the same one at every capture of the same lie of the
// dice; with Doubt 0 it sees them all.
func TestCameraDoubtHidesADie(t *testing.T) {
	layout := demo.Layout{Width: 1280, Height: 800, DieSize: 44, Seats: []string{"ann", "bob"}}
	reader := visiontest.NewReader(t, vision.Options{DieSize: 1.27 * 44, PlainDice: true})
	for _, tc := range []struct {
		doubt float64
		want  int
	}{
		{0, 6},
		{1, 5},
	} {
		table := demo.NewTable(3)
		table.Roll(map[string]int{"ann": 3, "bob": 3}, 6)
		cam := demo.NewCamera(table, layout, false, 3)
		cam.Doubt = tc.doubt
		for capture := 1; capture <= 2; capture++ {
			img, err := cam.Capture()
			if err != nil {
				t.Fatal(err)
			}
			dice, err := reader.Read(img)
			img.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(dice) != tc.want {
				t.Errorf("doubt %v, capture %d: got %d dice read; want %d", tc.doubt, capture, len(dice), tc.want)
			}
		}
		cam.Close()
	}
}
