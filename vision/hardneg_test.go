package vision

import (
	"math"
	"testing"
)

// TestMineHardNegatives checks that the places the finder takes for dice
// where no die is labelled become hard negatives, on photographs only:
// a table whose sixth die has no label gives a hard negative on it.
func TestMineHardNegatives(t *testing.T) {
	if defaultLearned == nil {
		t.Skip("no embedded models")
	}
	img, truth, err := renderForTest(1)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	var labels []Label
	for _, d := range truth[:5] {
		labels = append(labels, Label{Face: d.Face, Box: Box{d.X - d.Size/2, d.Y - d.Size/2, d.X + d.Size/2, d.Y + d.Size/2}})
	}
	photo, err := newTrainTable(img, labels, true)
	if err != nil {
		t.Fatal(err)
	}
	synthetic, err := newTrainTable(img, labels, false)
	if err != nil {
		t.Fatal(err)
	}
	tables := []trainTable{photo, synthetic}
	n, err := mineHardNegatives(tables, defaultLearned.finder, defaultModel)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tables[1].hard); got != 0 {
		t.Errorf("synthetic table: %d hard negatives; want none", got)
	}
	if n != len(tables[0].hard) {
		t.Errorf("mineHardNegatives returned %d; the tables hold %d", n, len(tables[0].hard))
	}
	unlabelled := truth[5]
	onIt := false
	for _, h := range tables[0].hard {
		if h.class != classNotADie {
			t.Errorf("hard negative of class %d; want %d", h.class, classNotADie)
		}
		if nearDieCentre(&tables[0], h.x, h.y, hardNegativeMiss) {
			t.Errorf("hard negative at (%.0f,%.0f) is on a labelled die", h.x, h.y)
		}
		if math.Hypot(h.x-unlabelled.X, h.y-unlabelled.Y) < 0.3*unlabelled.Size {
			onIt = true
		}
	}
	if !onIt {
		t.Errorf("hard negatives %+v; want one on the unlabelled die at (%.0f,%.0f)", tables[0].hard, unlabelled.X, unlabelled.Y)
	}
}
