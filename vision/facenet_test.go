package vision

import (
	"math"
	"slices"
	"testing"
)

func TestBlurWindow(t *testing.T) {
	const g = faceNetGrid
	spot := func() []float32 {
		x := make([]float32, 3*g*g)
		for c := 0; c < 3; c++ {
			x[c*g*g+10*g+10] = 16
		}
		return x
	}
	x := spot()
	blurWindow(x, 0)
	if got, want := x[10*g+10], float32(16); got != want {
		t.Errorf("weight 0: centre = %v; want %v (unchanged)", got, want)
	}
	x = spot()
	blurWindow(x, 1)
	// The 3x3 binomial kernel (1 2 1 / 2 4 2 / 1 2 1) / 16 spreads the
	// spot over its neighbours and keeps its sum.
	for _, tc := range []struct {
		dx, dy int
		want   float32
	}{{0, 0, 4}, {1, 0, 2}, {0, -1, 2}, {1, 1, 1}, {2, 0, 0}} {
		for c := 0; c < 3; c++ {
			if got := x[c*g*g+(10+tc.dy)*g+10+tc.dx]; math.Abs(float64(got-tc.want)) > 1e-5 {
				t.Errorf("channel %d at (%+d,%+d) = %v; want %v", c, tc.dx, tc.dy, got, tc.want)
			}
		}
	}
	var sum float32
	for _, v := range x[:g*g] {
		sum += v
	}
	if math.Abs(float64(sum-16)) > 1e-4 {
		t.Errorf("sum after blur = %v; want 16", sum)
	}
}

func TestSampleWindowGamma(t *testing.T) {
	// A die-like image: a dark square on a light table, with a mid-grey
	// pip in it.
	const w, h = 64, 64
	pix := make([]byte, w*h*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := byte(220)
			switch {
			case x >= 30 && x < 34 && y >= 30 && y < 34:
				v = 128
			case x >= 16 && x < 48 && y >= 16 && y < 48:
				v = 40
			}
			pix[(y*w+x)*3], pix[(y*w+x)*3+1], pix[(y*w+x)*3+2] = v, v, v
		}
	}
	n := 3 * faceNetGrid * faceNetGrid
	plain, one, bright := make([]float32, n), make([]float32, n), make([]float32, n)
	sampleWindow(pix, w, h, 32, 32, 32, 0, false, noJitter, plain)
	cj := noJitter
	cj.gamma = 1
	sampleWindow(pix, w, h, 32, 32, 32, 0, false, cj, one)
	for i := range plain {
		if plain[i] != one[i] {
			t.Fatalf("gamma 1 changed cell %d: %v; want %v", i, one[i], plain[i])
		}
	}
	cj.gamma = 0.6
	sampleWindow(pix, w, h, 32, 32, 32, 0, false, cj, bright)
	centre, body, table := faceNetGrid/2*faceNetGrid+faceNetGrid/2, 8*faceNetGrid+8, 0
	if !(bright[table] > bright[centre] && bright[centre] > bright[body]) {
		t.Errorf("gamma 0.6: table %v, pip %v, body %v; want the tones' order kept", bright[table], bright[centre], bright[body])
	}
	// A gamma under 1 lifts the dark tones: the pip (mid grey) moves
	// towards the table in the standardised window.
	rel := func(x []float32) float32 { return (x[centre] - x[body]) / (x[table] - x[body]) }
	if got, was := rel(bright), rel(plain); got <= was {
		t.Errorf("gamma 0.6: the pip's place between body and table %v; want above %v", got, was)
	}
}

// TestFaceExamples checks what a pass of the face network's training
// shows it: a photographed die photoWeight times, a synthetic die once, a
// window on no die for every other die, a hard negative twice.
func TestFaceExamples(t *testing.T) {
	tables := []trainTable{
		{dice: make([]truthDie, 3), photo: true, hard: make([]truthDie, 1)},
		{dice: make([]truthDie, 2)},
		{photo: true}, // no labelled die: nothing to learn from it
	}
	for _, tt := range []struct {
		weight                      int
		dice, photoDice, none, hard int
	}{
		{1, 5, 3, 3, 2},
		{2, 8, 6, 3, 2},
		{5, 17, 15, 3, 2},
	} {
		var dice, photoDice, none, hard int
		for _, e := range faceExamples(tables, tt.weight) {
			switch {
			case e.hard:
				hard++
			case e.die < 0:
				none++
			default:
				dice++
				if tables[e.table].photo {
					photoDice++
				}
			}
		}
		if dice != tt.dice || photoDice != tt.photoDice || none != tt.none || hard != tt.hard {
			t.Errorf("photo weight %d: got %d dice (%d photographed), %d on no die, %d hard; want %d (%d), %d, %d",
				tt.weight, dice, photoDice, none, hard, tt.dice, tt.photoDice, tt.none, tt.hard)
		}
	}
}

func TestHardDieWeight(t *testing.T) {
	for _, tt := range []struct {
		strength, loss float64
		want           float32
	}{
		{2, 0, 1},     // never seen, or read surely right
		{2, 1, 2},     // halfway to the cap
		{2, 2, 3},     // the right face at 14%: the cap
		{2, 9, 3},     // surely wrong counts no more than the cap
		{0.5, 2, 1.5}, // the strength is the most added
		{2, -1, 1},    // no loss is below 0; nor is a weight below 1
	} {
		if got := hardDieWeight(tt.strength, tt.loss); math.Abs(float64(got-tt.want)) > 1e-6 {
			t.Errorf("hardDieWeight(%v, %v) = %v; want %v", tt.strength, tt.loss, got, tt.want)
		}
	}
}

// TestTrainFaceNetHardWeight checks that the hard dice's weight reaches
// the training, and only for photographed dice: on a synthetic table it
// changes nothing.
func TestTrainFaceNetHardWeight(t *testing.T) {
	table := func(photo bool) []trainTable {
		const w, h = 96, 64
		pix := make([]byte, w*h*3)
		for i := range pix {
			pix[i] = byte(i * 7 % 251)
		}
		return []trainTable{{pix: pix, w: w, h: h, photo: photo, dice: []truthDie{
			{x: 24, y: 32, size: 20, class: 0}, {x: 72, y: 32, size: 20, class: 5},
		}}}
	}
	train := func(tables []trainTable, hard float64) *network {
		n, err := trainFaceNet(tables, 1, hard, fitOptions{Epochs: 3, Batch: 2, LR: 1e-2, Workers: 1, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	same := func(a, b *network) bool {
		for i := range a.Layers {
			if !slices.Equal(a.Layers[i].W, b.Layers[i].W) || !slices.Equal(a.Layers[i].B, b.Layers[i].B) {
				return false
			}
		}
		return true
	}
	if !same(train(table(false), 0), train(table(false), 2)) {
		t.Error("synthetic dice: the hard weight changed the training; want no change")
	}
	if same(train(table(true), 0), train(table(true), 2)) {
		t.Error("photographed dice: the hard weight changed nothing; want the hard dice counted more")
	}
}
