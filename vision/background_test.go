package vision

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// printedBoard draws a board with its bidding track printed on it (pale
// squares of a die's size, as the star-board game's board has), under
// light that falls off to one side, and the dice given as (x, y, face).
func printedBoard(t testing.TB, dice [][3]int, light float64) gocv.Mat {
	t.Helper()
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(40, 95, 35, 0), 360, 640, gocv.MatTypeCV8UC3)
	for i := 0; i < 10; i++ {
		x := 40 + i*58
		gocv.Rectangle(&img, image.Rect(x, 20, x+44, 64), color.RGBA{190, 200, 170, 255}, -1)
		gocv.Rectangle(&img, image.Rect(x+4, 24, x+40, 60), color.RGBA{60, 120, 50, 255}, 2)
	}
	pips := map[int][][2]int{
		2: {{-1, -1}, {1, 1}}, 3: {{-1, -1}, {0, 0}, {1, 1}}, 4: {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}},
		5: {{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}}, 6: {{-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {1, 1}},
	}
	for _, d := range dice {
		gocv.Rectangle(&img, image.Rect(d[0]-22, d[1]-22, d[0]+22, d[1]+22), color.RGBA{235, 235, 230, 255}, -1)
		for _, o := range pips[d[2]] {
			gocv.Circle(&img, image.Pt(d[0]+o[0]*12, d[1]+o[1]*12), 5, color.RGBA{25, 25, 25, 255}, -1)
		}
	}
	// The evening's light: dimmer than at calibration, and falling off.
	px, err := img.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 360; y++ {
		for x := 0; x < 640; x++ {
			k := light * (1 - 0.25*float64(x)/640)
			for c := 0; c < 3; c++ {
				i := 3*(y*640+x) + c
				px[i] = uint8(math.Min(255, float64(px[i])*k))
			}
		}
	}
	return img
}

// TestBackgroundKeepsThePrintingOut checks that with the empty board as
// background, the segmentation finds the dice and not the board's printed

// TestBackgroundKeepsThePrintingOut checks that with the empty board as
// background, places on the board's printed track (which a finder may
// take for dice: pale squares of a die's size) are dropped and the dice
// are kept, under dimmer, uneven light than at calibration; and that a
// background of another shape is not used.
func TestBackgroundKeepsThePrintingOut(t *testing.T) {
	empty := printedBoard(t, nil, 1)
	defer empty.Close()
	bg, err := NewBackground(empty)
	if err != nil {
		t.Fatal(err)
	}
	dice := [][3]int{{150, 220, 5}, {330, 250, 3}, {500, 200, 6}}
	frame := printedBoard(t, dice, 0.85)
	defer frame.Close()
	r := &Reader{opts: Options{Background: bg}}
	var cs []candidate
	for _, d := range dice {
		cs = append(cs, candidate{x: float64(d[0]), y: float64(d[1]), extent: 44, p: 0.9})
	}
	for i := 0; i < 10; i++ {
		// The printed squares of the track.
		cs = append(cs, candidate{x: float64(62 + i*58), y: 42, extent: 44, p: 0.5})
	}
	kept, err := r.onTheBoard(frame, append([]candidate(nil), cs...))
	if err != nil {
		t.Fatal(err)
	}
	onDice := 0
	for _, c := range kept {
		if c.y > 100 {
			onDice++
		}
	}
	if got, want := len(kept), len(dice); got != want || onDice != want {
		t.Errorf("kept %d places (%d on dice); want the %d dice and none of the track", got, onDice, want)
	}
	// Without a background every place stays.
	none, err := (&Reader{}).onTheBoard(frame, append([]candidate(nil), cs...))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(none), len(cs); got != want {
		t.Errorf("without a background: kept %d places; want all %d", got, want)
	}
	// A background from another camera mode (another shape) is not used.
	other := gocv.NewMatWithSize(100, 100, gocv.MatTypeCV8UC3)
	defer other.Close()
	square, err := NewBackground(other)
	if err != nil {
		t.Fatal(err)
	}
	if square.fits(640, 360) || !bg.fits(320, 180) {
		t.Error("fits: want a background used at its own shape, at any scale, and not at another shape")
	}
}
