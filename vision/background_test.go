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
// track, also under dimmer light than at calibration; the estimate from
// the frame alone takes the printing for things on the table.
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
	count := func(b *Background) (onDice, elsewhere int) {
		cands, err := findCandidates(frame, 44, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			near := false
			for _, d := range dice {
				near = near || math.Hypot(c.cx-float64(d[0]), c.cy-float64(d[1])) < 15
			}
			if near {
				onDice++
			} else {
				elsewhere++
			}
		}
		return
	}
	if on, off := count(bg); on != len(dice) || off != 0 {
		t.Errorf("with the background: %d regions on the %d dice, %d elsewhere; want one on each die and none elsewhere", on, len(dice), off)
	}
	if _, off := count(nil); off == 0 {
		t.Errorf("without the background no region lies off the dice: the test's board does not show what the background is for")
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

// BenchmarkBackground reads boards with a printed track (printedBoard),
// dimmer than at calibration, with and without the empty board as
// background, and reports the dice read right and confidently and the
// regions the segmentation finds off the dice:
//
//	go test -run '^$' -bench Background -benchtime 20x ./vision/
func BenchmarkBackground(b *testing.B) {
	empty := printedBoard(b, nil, 1)
	defer empty.Close()
	bg, err := NewBackground(empty)
	if err != nil {
		b.Fatal(err)
	}
	readers := []*Reader{NewReader(Options{PlainDice: true}), NewReader(Options{PlainDice: true, Background: bg})}
	var right, wrong, off [2]int
	total := 0
	for i := 0; b.Loop(); i++ {
		var dice [][3]int
		for k := 0; k < 6; k++ {
			dice = append(dice, [3]int{60 + k*100 + (i*17)%30, 130 + ((i+k)*53)%180, 2 + (i+k)%5})
		}
		frame := printedBoard(b, dice, 0.8+0.04*float64(i%6))
		total += len(dice)
		for j, r := range readers {
			got, err := r.Read(frame)
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range got {
				near := -1
				for k, w := range dice {
					if math.Hypot(d.X-float64(w[0]), d.Y-float64(w[1])) < 15 {
						near = k
					}
				}
				switch {
				case d.Uncertain:
				case near >= 0 && d.Face == dice[near][2]:
					right[j]++
				default:
					wrong[j]++
				}
			}
			cands, _ := findCandidates(frame, 44, r.opts.Background)
			for _, c := range cands {
				on := false
				for _, w := range dice {
					on = on || math.Hypot(c.cx-float64(w[0]), c.cy-float64(w[1])) < 15
				}
				if !on {
					off[j]++
				}
			}
		}
		frame.Close()
	}
	pct := func(n int) float64 { return 100 * float64(n) / float64(max(total, 1)) }
	b.ReportMetric(pct(right[0]), "%right-estimated")
	b.ReportMetric(pct(right[1]), "%right-background")
	b.ReportMetric(pct(wrong[0]), "%wrong-estimated")
	b.ReportMetric(pct(wrong[1]), "%wrong-background")
	b.ReportMetric(float64(off[0])/float64(max(b.N, 1)), "offdice-regions/frame-estimated")
	b.ReportMetric(float64(off[1])/float64(max(b.N, 1)), "offdice-regions/frame-background")
}
