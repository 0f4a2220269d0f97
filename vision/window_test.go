package vision

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestWindowsMatchTheRecipe cuts the windows vision/recipe/golden.py cut
// with the recipe's code (testdata/vision/windows.json) and compares: the
// face classifier must see at reading time exactly what it learned from.
func TestWindowsMatchTheRecipe(t *testing.T) {
	img, err := LoadImage("../testdata/vision/window.png")
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	data, err := os.ReadFile("../testdata/vision/windows.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		X, Y, Side float64
		Planes     []float32
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	for _, g := range golden {
		win, err := cutWindow(img, g.X, g.Y, g.Side, faceInput)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, 3*faceInput*faceInput)
		standardiseWindow(win.ToBytes(), got)
		win.Close()
		if len(got) != len(g.Planes) {
			t.Fatalf("window at (%v,%v): got %d values; want %d", g.X, g.Y, len(got), len(g.Planes))
		}
		worst := 0.0
		for i := range got {
			worst = math.Max(worst, math.Abs(float64(got[i]-g.Planes[i])))
		}
		if worst > 2e-3 {
			t.Errorf("window at (%v,%v) side %v: differs from the recipe's by %.4f; want within 0.002", g.X, g.Y, g.Side, worst)
		}
	}
}
