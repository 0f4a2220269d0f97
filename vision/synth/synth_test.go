package synth_test

import (
	"bytes"
	"errors"
	"image/color"
	"math"
	"reflect"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision/synth"
)

func TestPlace(t *testing.T) {
	for n := 1; n <= 8; n++ {
		dice := make([]synth.Die, n)
		region := synth.Rect{X: 100, Y: 50, W: 300, H: 160}
		if err := synth.Place(dice, region, 40, 8, uint64(n)); err != nil {
			t.Fatalf("%d dice: %v", n, err)
		}
		half := 40 * math.Sqrt2 / 2
		for i, a := range dice {
			if a.X-half < region.X || a.X+half > region.X+region.W || a.Y-half < region.Y || a.Y+half > region.Y+region.H {
				t.Errorf("%d dice: die %d at (%.0f,%.0f) leaves the region", n, i, a.X, a.Y)
			}
			for j, b := range dice[:i] {
				if d := math.Hypot(a.X-b.X, a.Y-b.Y); d < 2*half+8 {
					t.Errorf("%d dice: dice %d and %d %.1f apart; want at least %.1f", n, j, i, d, 2*half+8)
				}
			}
		}
	}
	if err := synth.Place(make([]synth.Die, 30), synth.Rect{W: 100, H: 100}, 40, 0, 1); !errors.Is(err, synth.ErrNoRoom) {
		t.Errorf("30 dice in 100x100: got %v; want ErrNoRoom", err)
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	s := synth.Random(42, synth.RandomOptions{Width: 320, Height: 200, Dice: 5, DieSize: 36})
	a, ta, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, tb, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !bytes.Equal(a.ToBytes(), b.ToBytes()) {
		t.Error("same scene and seed rendered two different images")
	}
	if len(ta) != 5 || len(tb) != 5 {
		t.Fatalf("got %d and %d truths; want 5", len(ta), len(tb))
	}
	for i := range ta {
		if !reflect.DeepEqual(ta[i], tb[i]) {
			t.Errorf("truth %d: %v then %v", i, ta[i], tb[i])
		}
		if ta[i].X < 0 || ta[i].Y < 0 || ta[i].X > 320 || ta[i].Y > 200 {
			t.Errorf("truth %d off the image: %v", i, ta[i])
		}
	}
}

func TestMillimetres(t *testing.T) {
	s := synth.Scene{Width: 400, Height: 300, Units: synth.Millimetres, PxPerMM: 2.5, DieSize: 16,
		Dice: []synth.Die{{X: 40, Y: 30, Face: 3}, {X: 120, Y: 90, Face: 1, One: synth.ShipsWheel}}}
	img, truth, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	if got := truth[0]; math.Abs(got.X-100) > 0.5 || math.Abs(got.Y-75) > 0.5 || math.Abs(got.Size-40) > 0.5 {
		t.Errorf("got %v; want centre (100,75) and size 40 px", got)
	}
	if !truth[1].Star || truth[1].Face != 1 {
		t.Errorf("got %v; want the star", truth[1])
	}
}

func TestValidate(t *testing.T) {
	for _, s := range []synth.Scene{
		{Width: 0, Height: 100},
		{Width: 100, Height: 100, Dice: []synth.Die{{Face: 7}}},
		{Width: 100, Height: 100, Dice: []synth.Die{{Face: 2, Hidden: 2}}},
		{Width: 100, Height: 100, Dice: []synth.Die{{Face: 2, X: -500, Y: -500}}},
		{Width: 100, Height: 100, JPEGQuality: 101},
		{Width: 100, Height: 100, JPEGQuality: -1},
		{Width: 100, Height: 100, JPEGQuality: 50, JPEGScale: 1.5},
	} {
		if img, _, err := synth.Render(s); err == nil {
			img.Close()
			t.Errorf("Render(%+v): got no error", s)
		}
	}
}

// TestRandomCocked checks that RandomOptions.Cocked leans that share of
// the dice, that the render marks them uncertain, and that a scene
// without it has no leaning die.
func TestRandomCocked(t *testing.T) {
	plain := synth.Random(7, synth.RandomOptions{})
	cocked := synth.Random(7, synth.RandomOptions{Cocked: 0.5})
	leaning := 0
	for i, d := range cocked.Dice {
		if d.Tilt > 0 {
			leaning++
			if d.Tilt < 20 || d.Tilt > 60 {
				t.Errorf("die %d leans %.1f degrees; want 20 to 60", i, d.Tilt)
			}
		}
		if plain.Dice[i].Tilt != 0 {
			t.Errorf("die %d leans %.1f degrees with no Cocked share", i, plain.Dice[i].Tilt)
		}
	}
	if leaning < 5 || leaning > 25 {
		t.Errorf("%d of %d dice lean with Cocked 0.5", leaning, len(cocked.Dice))
	}
	img, truth, err := synth.Render(cocked)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	for i, d := range truth {
		if got, want := d.Uncertain, cocked.Dice[i].Tilt > 0; got != want {
			t.Errorf("die %d (tilt %.1f): uncertain %v; want %v", i, cocked.Dice[i].Tilt, got, want)
		}
	}
}

// TestRandomMarbled checks that RandomOptions.Marbled marbles that share
// of the dice and leaves the rest of the scene as it was drawn without it.
func TestRandomMarbled(t *testing.T) {
	plain := synth.Random(7, synth.RandomOptions{Cocked: 0.2})
	marbled := synth.Random(7, synth.RandomOptions{Cocked: 0.2, Marbled: 0.5})
	n := 0
	for i, d := range marbled.Dice {
		p := plain.Dice[i]
		if p.Swirl.A != 0 {
			t.Errorf("die %d marbled with no Marbled share", i)
		}
		if d.Swirl.A != 0 {
			n++
		}
		if d.PipColour != p.PipColour && colourGap(d.PipColour, d.Colour) < 150 {
			t.Errorf("die %d: pips %v on a %v body: hard to see", i, d.PipColour, d.Colour)
		}
		if d.Face != p.Face || d.X != p.X || d.Y != p.Y || d.Rotation != p.Rotation || d.Colour != p.Colour || d.Tilt != p.Tilt {
			t.Errorf("die %d: got %+v with Marbled; want %+v but for the marbling", i, d, p)
		}
	}
	if n < 5 || n > 25 {
		t.Errorf("%d of %d dice marbled with Marbled 0.5", n, len(marbled.Dice))
	}
}

// TestMarbledBody checks that a marbled die's body shows veins where a
// plain one is even, and that its pip is still drawn over them.
func TestMarbledBody(t *testing.T) {
	die := synth.Die{X: 60, Y: 60, Size: 80, Face: 1, One: synth.Pip, Colour: synth.Palettes[4].Body, PipColour: synth.Palettes[4].Pips}
	veined := func(d synth.Die) (share float64, pip color.RGBA) {
		t.Helper()
		img, _, err := synth.Render(synth.Scene{Width: 120, Height: 120, Table: synth.Tables[2], Dice: []synth.Die{d}})
		if err != nil {
			t.Fatal(err)
		}
		defer img.Close()
		n, far := 0, 0
		for y := 35; y < 85; y++ {
			for x := 35; x < 85; x++ {
				if math.Hypot(float64(x-60), float64(y-60)) < 14 {
					continue // the pip
				}
				v := img.GetVecbAt(y, x)
				n++
				if colourGap(color.RGBA{v[2], v[1], v[0], 255}, d.Colour) > 90 {
					far++
				}
			}
		}
		v := img.GetVecbAt(60, 60)
		return float64(far) / float64(n), color.RGBA{v[2], v[1], v[0], 255}
	}
	if share, _ := veined(die); share > 0.01 {
		t.Errorf("plain body: %.1f%% of it far from its colour; want none", 100*share)
	}
	die.Swirl, die.SwirlSeed = synth.Swirls[2], 3 // black veins: a vein over the pip would show
	share, pip := veined(die)
	if share < 0.05 {
		t.Errorf("marbled body: %.1f%% of it in veins; want at least 5%%", 100*share)
	}
	if colourGap(pip, die.PipColour) > 60 {
		t.Errorf("marbled die's pip: got %v; want %v", pip, die.PipColour)
	}
}

// colourGap is the sum of two colours' differences in red, green and blue.
func colourGap(a, b color.RGBA) float64 {
	return math.Abs(float64(a.R)-float64(b.R)) + math.Abs(float64(a.G)-float64(b.G)) + math.Abs(float64(a.B)-float64(b.B))
}

// TestRandomGlossy checks that Glossy draws from a stream of its own (the
// scene is the same but for the glossy dice) and that the tinted dice it
// makes are translucent and stand apart from the table.
func TestRandomGlossy(t *testing.T) {
	plain := synth.Random(7, synth.RandomOptions{Cocked: 0.2})
	glossy := synth.Random(7, synth.RandomOptions{Cocked: 0.2, Glossy: 0.5})
	n, tinted := 0, 0
	for i, d := range glossy.Dice {
		p := plain.Dice[i]
		if p.Glints {
			t.Errorf("die %d glossy with no Glossy share", i)
		}
		if d.Glints {
			n++
		}
		if d.Colour != p.Colour {
			tinted++
			if !d.Glints || !d.Translucent || colourGap(d.Colour, glossy.Table) < 60 {
				t.Errorf("die %d: tinted %+v: want a glossy translucent die off the table's colour", i, d)
			}
		}
		if d.Face != p.Face || d.X != p.X || d.Y != p.Y || d.Rotation != p.Rotation || d.Tilt != p.Tilt {
			t.Errorf("die %d: got %+v with Glossy; want %+v but for the gloss", i, d, p)
		}
	}
	if n < 5 || n > 25 || tinted == 0 || tinted >= n {
		t.Errorf("%d of %d dice glossy (%d tinted) with Glossy 0.5", n, len(glossy.Dice), tinted)
	}
}

// TestRandomJPEG checks that RandomOptions.JPEG draws from a stream of its
// own (the scene is the same but for the saving) and saves about that share
// of scenes, at qualities and scales in range.
func TestRandomJPEG(t *testing.T) {
	saved := 0
	for seed := uint64(1); seed <= 40; seed++ {
		plain := synth.Random(seed, synth.RandomOptions{Dice: 6, Glossy: 0.3})
		s := synth.Random(seed, synth.RandomOptions{Dice: 6, Glossy: 0.3, JPEG: 0.5})
		if plain.JPEGQuality != 0 || plain.JPEGScale != 0 {
			t.Errorf("seed %d: JPEG quality %d, scale %v with no JPEG share", seed, plain.JPEGQuality, plain.JPEGScale)
		}
		if s.JPEGQuality != 0 {
			saved++
			if s.JPEGQuality < 35 || s.JPEGQuality > 75 || s.JPEGScale < 0.45 || s.JPEGScale > 0.85 {
				t.Errorf("seed %d: JPEG quality %d, scale %v; want 35-75 and 0.45-0.85", seed, s.JPEGQuality, s.JPEGScale)
			}
		}
		s.JPEGQuality, s.JPEGScale = 0, 0
		if !reflect.DeepEqual(s, plain) {
			t.Errorf("seed %d: the scene changed with a JPEG share: got %+v; want %+v", seed, s, plain)
		}
	}
	if saved < 10 || saved > 30 {
		t.Errorf("%d of 40 scenes saved as JPEG with a share of 0.5; want about 20", saved)
	}
}

// TestRenderJPEG checks that a scene saved as a small JPEG keeps its size
// and its dice, and loses the fine detail a JPEG loses: the camera's noise
// is smoothed, so neighbouring pixels differ less.
func TestRenderJPEG(t *testing.T) {
	s := synth.Random(3, synth.RandomOptions{Width: 320, Height: 240, Dice: 5, DieSize: 40})
	plain, want, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	s.JPEGQuality, s.JPEGScale = 40, 0.5
	saved, got, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer saved.Close()
	if saved.Cols() != 320 || saved.Rows() != 240 || saved.Type() != plain.Type() {
		t.Fatalf("got a %dx%d image of type %v; want 320x240 of type %v", saved.Cols(), saved.Rows(), saved.Type(), plain.Type())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dice: got %v; want %v (saving changes no die)", got, want)
	}
	// roughness is the mean absolute difference of horizontal neighbours.
	roughness := func(img gocv.Mat) float64 {
		b := img.ToBytes()
		sum := 0
		for i := 3; i < len(b); i++ {
			d := int(b[i]) - int(b[i-3])
			sum += max(d, -d)
		}
		return float64(sum) / float64(len(b))
	}
	if p, j := roughness(plain), roughness(saved); j > 0.7*p {
		t.Errorf("roughness %.2f saved against %.2f drawn; want the JPEG clearly smoother", j, p)
	}
}

// TestGlintsCatchTheLight checks that a glossy die's pips show a bright rim
// on the side away from the light, and a plain one's none.
func TestGlintsCatchTheLight(t *testing.T) {
	die := synth.Die{X: 60, Y: 60, Size: 80, Face: 5, One: synth.Pip, Colour: synth.Tints[0].Body, PipColour: synth.Tints[0].Pips}
	// bright counts the near-white pixels on each side of the face.
	bright := func(d synth.Die) (left, right int) {
		t.Helper()
		img, _, err := synth.Render(synth.Scene{Width: 120, Height: 120, Table: synth.Tables[2], Dice: []synth.Die{d}})
		if err != nil {
			t.Fatal(err)
		}
		defer img.Close()
		for y := 30; y < 90; y++ {
			for x := 30; x < 90; x++ {
				if v := img.GetVecbAt(y, x); v[0] > 200 && v[1] > 200 && v[2] > 200 {
					if x < 60 {
						left++
					} else {
						right++
					}
				}
			}
		}
		return left, right
	}
	if l, r := bright(die); l+r != 0 {
		t.Errorf("matte pips: %d bright pixels; want none", l+r)
	}
	// With no Light the light comes from angle 0 (the right): the rims
	// glint on the left of each pip, so more on the face's left half.
	die.Glints = true
	l, r := bright(die)
	if l < 20 || l <= r {
		t.Errorf("glossy pips: %d bright pixels on the left, %d on the right; want at least 20, most on the left", l, r)
	}
}
