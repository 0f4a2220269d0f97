package synth_test

import (
	"bytes"
	"image/color"
	"math"
	"reflect"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision/synth"
)

// desk is a tilted scene with every knob on: surfaces, clutter, colours.
func desk(seed uint64) synth.Scene {
	return synth.Random(seed, synth.RandomOptions{Width: 400, Height: 300, Dice: 10, DieSize: 36, MaxCameraTilt: 45,
		Surfaces: synth.Surfaces, Clutter: 3, AnyColour: 0.5, Styles: 0.5, SizeSpread: 0.2, Marbled: 0.2, Glossy: 0.2, Cocked: 0.1})
}

// TestTiltedDeterministic checks that a tilted scene on any surface, with
// clutter, renders the same bytes and labels each time.
func TestTiltedDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		s := desk(seed)
		if s.CameraTilt == 0 || len(s.Dice) == 0 {
			t.Fatalf("seed %d: tilt %v, %d dice; want a tilted table with dice", seed, s.CameraTilt, len(s.Dice))
		}
		a, la, err := synth.RenderLabelled(s)
		if err != nil {
			t.Fatal(err)
		}
		b, lb, err := synth.RenderLabelled(desk(seed))
		if err != nil {
			a.Close()
			t.Fatal(err)
		}
		if !bytes.Equal(a.ToBytes(), b.ToBytes()) || !reflect.DeepEqual(la, lb) {
			t.Errorf("seed %d (%v, tilt %.0f): two renders differ", seed, s.Surface, s.CameraTilt)
		}
		a.Close()
		b.Close()
	}
}

// TestKnobsKeepTheScene checks that each newer RandomOptions knob draws
// from a stream of its own: the dice's faces (and, but for the tilt and
// the sizes, which move them, their places) are what they were without it.
func TestKnobsKeepTheScene(t *testing.T) {
	plain := synth.Random(9, synth.RandomOptions{Cocked: 0.2, Marbled: 0.2})
	for _, tc := range []struct {
		name  string
		o     synth.RandomOptions
		moves bool // the dice may move or be left out
	}{
		{"surfaces", synth.RandomOptions{Surfaces: synth.Surfaces}, false},
		{"clutter", synth.RandomOptions{Clutter: 4}, false},
		{"any colour", synth.RandomOptions{AnyColour: 1}, false},
		{"styles", synth.RandomOptions{Styles: 1}, false},
		{"size spread", synth.RandomOptions{SizeSpread: 0.3}, true},
		{"tilt", synth.RandomOptions{MaxCameraTilt: 40}, true},
	} {
		tc.o.Cocked, tc.o.Marbled = 0.2, 0.2
		s := synth.Random(9, tc.o)
		if s.Light != plain.Light || s.Blur != plain.Blur || s.Noise != plain.Noise || s.DieSize != plain.DieSize {
			t.Errorf("%s: the light or the camera changed", tc.name)
		}
		if !tc.moves && len(s.Dice) != len(plain.Dice) {
			t.Fatalf("%s: got %d dice; want %d", tc.name, len(s.Dice), len(plain.Dice))
		}
		for i, d := range s.Dice {
			if tc.moves {
				continue
			}
			p := plain.Dice[i]
			if d.Face != p.Face || d.X != p.X || d.Y != p.Y || d.Tilt != p.Tilt || d.One != p.One {
				t.Errorf("%s: die %d: got %+v; want %+v but for the knob", tc.name, i, d, p)
			}
		}
	}
	if s := synth.Random(9, synth.RandomOptions{Clutter: 4, Cocked: 0.2, Marbled: 0.2}); len(s.Clutter) == 0 {
		t.Error("clutter 4: got no things")
	}
}

// TestTopFaceTruth renders one die of each face under a tilted camera and
// checks that the truth's centre is on the top face (the die's colour),
// that exactly the face's pips lie within the top face, and that the
// sides show pips of their own outside it.
func TestTopFaceTruth(t *testing.T) {
	red, white := color.RGBA{190, 30, 35, 255}, color.RGBA{250, 250, 250, 255}
	for face := 1; face <= 6; face++ {
		s := synth.Scene{Width: 320, Height: 240, Table: synth.Tables[0], CameraTilt: 40, CameraTurn: 20,
			Dice: []synth.Die{{X: 160, Y: 120, Size: 90, Face: face, Rotation: 10, Colour: red, PipColour: white}}}
		img, labels, err := synth.RenderLabelled(s)
		if err != nil {
			t.Fatal(err)
		}
		l := labels[0]
		if l.X < 0 || l.Y < 0 || l.X > 320 || l.Y > 240 || l.Box.MinX < 0 || l.Box.MaxX > 320 || l.Box.MinY < 0 || l.Box.MaxY > 240 {
			t.Errorf("face %d: label %+v leaves the image", face, l)
		}
		if l.X < l.Box.MinX || l.X > l.Box.MaxX || l.Y < l.Box.MinY || l.Y > l.Box.MaxY {
			t.Errorf("face %d: centre (%.0f,%.0f) outside the box %+v", face, l.X, l.Y, l.Box)
		}
		// The top face is foreshortened: smaller than the die's side,
		// not much smaller.
		if l.Size > 90*1.15 || l.Size < 90*0.6 {
			t.Errorf("face %d: size %.1f; want about the side, foreshortened", face, l.Size)
		}
		if face%2 == 0 {
			v := img.GetVecbAt(int(l.Y), int(l.X))
			if got := colourGap(color.RGBA{v[2], v[1], v[0], 255}, red); got > 90 {
				t.Errorf("face %d: centre pixel %v; want the die's red", face, v)
			}
		}
		top, side := pipBlobs(t, img, l)
		if top != face {
			t.Errorf("face %d: %d pips on the top face; want %d", face, top, face)
		}
		if side < 1 {
			t.Errorf("face %d: no pips on the sides", face)
		}
		img.Close()
	}
}

// pipBlobs counts the white blobs whose centre lies within the top face
// (an ellipse around the truth's centre a little inside the face) and
// outside it within the box.
func pipBlobs(t *testing.T, img gocv.Mat, l synth.Label) (top, side int) {
	t.Helper()
	grey := gocv.NewMat()
	defer grey.Close()
	gocv.CvtColor(img, &grey, gocv.ColorBGRToGray)
	bin := gocv.NewMat()
	defer bin.Close()
	gocv.Threshold(grey, &bin, 200, 255, gocv.ThresholdBinary)
	labels, stats, centroids := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer labels.Close()
	defer stats.Close()
	defer centroids.Close()
	n := gocv.ConnectedComponentsWithStats(bin, &labels, &stats, &centroids)
	for i := 1; i < n; i++ {
		if stats.GetIntAt(i, int(gocv.CC_STAT_AREA)) < 6 {
			continue
		}
		x, y := centroids.GetDoubleAt(i, 0), centroids.GetDoubleAt(i, 1)
		if x < l.Box.MinX || x > l.Box.MaxX || y < l.Box.MinY || y > l.Box.MaxY {
			continue
		}
		if math.Hypot(x-l.X, y-l.Y) < 0.5*l.Size {
			top++
		} else {
			side++
		}
	}
	return top, side
}

// TestTiltedDiceApart checks that a tilted random table's dice lie wholly
// in the image and apart: no two top faces closer than their sizes allow.
func TestTiltedDiceApart(t *testing.T) {
	for seed := uint64(20); seed < 24; seed++ {
		s := synth.Random(seed, synth.RandomOptions{Width: 640, Height: 480, Dice: 25, DieSize: 50, MaxCameraTilt: 45, SizeSpread: 0.2})
		if len(s.Dice) < 10 {
			t.Errorf("seed %d: %d of 25 dice placed; want most", seed, len(s.Dice))
		}
		img, labels, err := synth.RenderLabelled(s)
		if err != nil {
			t.Fatal(err)
		}
		img.Close()
		for i, a := range labels {
			if a.Box.MinX <= 0 || a.Box.MinY <= 0 || a.Box.MaxX >= 640 || a.Box.MaxY >= 480 {
				t.Errorf("seed %d: die %d's box %+v touches the image's edge", seed, i, a.Box)
			}
			for j, b := range labels[:i] {
				if d := math.Hypot(a.X-b.X, a.Y-b.Y); d < 0.8*(a.Size+b.Size)/2 {
					t.Errorf("seed %d: dice %d and %d %.1f px apart; sizes %.1f and %.1f", seed, j, i, d, b.Size, a.Size)
				}
			}
		}
	}
}

// TestTiltZeroIsFlat checks that a camera straight down (tilt 0) draws
// the flat table whatever its turn.
func TestTiltZeroIsFlat(t *testing.T) {
	s := synth.Random(4, synth.RandomOptions{Width: 320, Height: 240, Dice: 6, DieSize: 36})
	a, _, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s.CameraTurn = 30
	b, _, err := synth.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !bytes.Equal(a.ToBytes(), b.ToBytes()) {
		t.Error("a camera straight down, turned, drew another image")
	}
}

func TestValidateCamera(t *testing.T) {
	die := []synth.Die{{X: 50, Y: 50, Face: 2}}
	for _, s := range []synth.Scene{
		{Width: 100, Height: 100, CameraTilt: 51, Dice: die},
		{Width: 100, Height: 100, CameraTilt: -1, Dice: die},
		{Width: 100, Height: 100, CameraTilt: math.NaN(), Dice: die},
		{Width: 100, Height: 100, CameraTurn: math.Inf(1), Dice: die},
		{Width: 100, Height: 100, Lens: 5, Dice: die},
		{Width: 100, Height: 100, Surface: 42, Dice: die},
		{Width: 100, Height: 100, Clutter: []synth.Thing{{Kind: 42}}},
		{Width: 100, Height: 100, Clutter: []synth.Thing{{Kind: synth.Coin, Size: -1}}},
		{Width: 100, Height: 100, Dice: []synth.Die{{X: 50, Y: 50, Face: 2, Corner: 0.9}}},
		{Width: 100, Height: 100, Dice: []synth.Die{{X: 50, Y: 50, Face: 2, PipScale: 3}}},
		{Width: 100, Height: 100, CameraTilt: 30, Dice: []synth.Die{{X: 5000, Y: 50, Face: 2}}},
	} {
		if img, _, err := synth.Render(s); err == nil {
			img.Close()
			t.Errorf("Render(%+v): got no error", s)
		}
	}
}

// TestVaried checks that Varied is deterministic and spans what a training
// set needs: image sizes, tilted and flat cameras, every surface, clutter,
// star and plain dice, JPEG saving.
func TestVaried(t *testing.T) {
	if !reflect.DeepEqual(synth.Varied(5, 0, 0), synth.Varied(5, 0, 0)) {
		t.Fatal("Varied(5) differs from itself")
	}
	tilted, cluttered, stars, jpeg, large := 0, 0, 0, 0, 0
	surfaces := map[synth.Surface]bool{}
	const n = 60
	for seed := uint64(1); seed <= n; seed++ {
		s := synth.Varied(seed, 0, 0)
		if s.Width < 640 || s.Width > 1280 || s.Height < 480 || s.Height > 768 {
			t.Errorf("seed %d: %dx%d; want 640x480 to 1280x720", seed, s.Width, s.Height)
		}
		// Dice of 14 to 64 px, and in about a tenth of the flat tables
		// larger ones, 64 to 110 px (wild).
		if len(s.Dice) < 1 || len(s.Dice) > 40 || s.DieSize < 14 || s.DieSize > 110 {
			t.Errorf("seed %d: %d dice of %.0f px", seed, len(s.Dice), s.DieSize)
		}
		if s.DieSize > 64*1.1 {
			large++
		}
		if s.CameraTilt > 0 {
			tilted++
		}
		if len(s.Clutter) > 0 {
			cluttered++
		}
		if s.JPEGQuality > 0 {
			jpeg++
			if s.JPEGQuality < 35 || s.JPEGQuality > 90 {
				t.Errorf("seed %d: JPEG quality %d; want 35-90", seed, s.JPEGQuality)
			}
		}
		for _, d := range s.Dice {
			if d.One != synth.Pip {
				stars++
				break
			}
		}
		surfaces[s.Surface] = true
		if s.CameraTilt == 0 {
			// Flat tables are laid out by Place: it must have found room.
			for i, a := range s.Dice {
				for j, b := range s.Dice[:i] {
					if d := math.Hypot(a.X-b.X, a.Y-b.Y); d < (a.Size+b.Size)/2*math.Sqrt2 {
						t.Errorf("seed %d: dice %d and %d overlap (%.1f apart)", seed, j, i, d)
					}
				}
			}
		}
		if err := s.Validate(); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
	}
	for name, got := range map[string]int{"tilted": tilted, "cluttered": cluttered, "star": stars, "JPEG": jpeg} {
		if got < n/4 || got > 3*n/4 {
			t.Errorf("%d of %d scenes %s; want about half", got, n, name)
		}
	}
	if len(surfaces) != len(synth.Surfaces) {
		t.Errorf("surfaces drawn: %v; want all %d", surfaces, len(synth.Surfaces))
	}
	if large == 0 || large > n/4 {
		t.Errorf("%d of %d scenes of large dice; want a few", large, n)
	}
	if s := synth.Varied(3, 640, 480); s.Width != 640 || s.Height != 480 {
		t.Errorf("Varied(3, 640, 480): %dx%d", s.Width, s.Height)
	}
}

// TestEveryThing draws each kind of thing, flat and tilted, and checks
// that it changes the table and never covers a die's top face.
func TestEveryThing(t *testing.T) {
	for _, tilt := range []float64{0, 35} {
		for _, k := range synth.Kinds {
			die := synth.Die{X: 200, Y: 150, Size: 40, Face: 4, Colour: color.RGBA{30, 60, 170, 255}, PipColour: color.RGBA{250, 250, 250, 255}}
			s := synth.Scene{Width: 400, Height: 300, Table: synth.Tables[0], CameraTilt: tilt, Seed: 3, Dice: []synth.Die{die}}
			bare, want, err := synth.RenderLabelled(s)
			if err != nil {
				t.Fatal(err)
			}
			s.Clutter = []synth.Thing{{Kind: k, X: 200, Y: 150, Rotation: 20, Seed: 5}}
			img, got, err := synth.RenderLabelled(s)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v, tilt %v: labels %v; want %v", k, tilt, got, want)
			}
			if bytes.Equal(img.ToBytes(), bare.ToBytes()) {
				t.Errorf("%v, tilt %v: the thing changed nothing", k, tilt)
			}
			// The top face's middle (between the pips) is the die's.
			v, w := img.GetVecbAt(int(got[0].Y), int(got[0].X)), bare.GetVecbAt(int(got[0].Y), int(got[0].X))
			if colourGap(color.RGBA{v[2], v[1], v[0], 255}, color.RGBA{w[2], w[1], w[0], 255}) > 30 {
				t.Errorf("%v, tilt %v: the top face's centre is %v with the thing, %v without", k, tilt, v, w)
			}
			img.Close()
			bare.Close()
		}
	}
}

// TestEverySurface renders each surface flat and tilted.
func TestEverySurface(t *testing.T) {
	for _, tilt := range []float64{0, 30} {
		for _, sf := range synth.Surfaces {
			s := synth.Random(2, synth.RandomOptions{Width: 240, Height: 180, Dice: 3, DieSize: 30, Surfaces: []synth.Surface{sf}})
			s.CameraTilt = tilt
			if tilt > 0 {
				s.Dice = nil // the flat layout may leave a tilted camera's view
			}
			img, _, err := synth.Render(s)
			if err != nil {
				t.Fatalf("%v, tilt %v: %v", sf, tilt, err)
			}
			if img.Cols() != 240 || img.Rows() != 180 {
				t.Errorf("%v: %dx%d", sf, img.Cols(), img.Rows())
			}
			img.Close()
		}
	}
}
